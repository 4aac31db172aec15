"""Hints: at most one in flight per connection (so per seat), dropped when the connection goes.

A hint is worked out in the bots' hint lane (`server.play.bots`) as a task of its own, so the asking
connection's other messages are read meanwhile. Asking again while a hint is on its way is
refused with `busy`, as is a hint when the lane already holds `max_hints_waiting`.
"""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Callable
from typing import Any

from engine import Move, View
from protocol import errors
from server.play.bots import BotRunner, HintsBusy
from server.rooms.room import RoomError

log = logging.getLogger("allfives.server")


class HintDesk:
    """The hints being worked out, one per asker (a connection)."""

    def __init__(self, runner: BotRunner) -> None:
        self.runner = runner
        self.working: dict[object, asyncio.Task[None]] = {}

    def check(self, asker: object) -> None:
        """RoomError `busy` if this asker's previous hint is still being worked out."""
        task = self.working.get(asker)
        if task is not None and not task.done():
            raise RoomError(
                errors.BUSY, "your last hint is still being worked out: wait for its answer"
            )

    def ask(
        self,
        asker: object,
        view: View,
        answer: Callable[[Move], None],
        refuse: Callable[[str, str], None],
    ) -> None:
        """Work out a hint for `asker`: `answer(move)`, or `refuse(code, text)` if it cannot."""
        self.check(asker)
        if self.runner.hints.waiting >= self.runner.max_hints_waiting:
            raise RoomError(errors.BUSY, "the server is busy with other hints: ask again soon")

        async def work() -> None:
            try:
                move = await self.runner.hint(view)
            except HintsBusy:
                refuse(errors.BUSY, "the server is busy with other hints: ask again soon")
            except Exception:
                log.exception("a hint failed")
                refuse(errors.UNAVAILABLE, "the hint could not be worked out; try again")
            else:
                answer(move)

        task = asyncio.get_running_loop().create_task(work())
        self.working[asker] = task
        task.add_done_callback(lambda done: self._done(asker, done))

    def _done(self, asker: object, task: asyncio.Task[Any]) -> None:
        if self.working.get(asker) is task:
            del self.working[asker]

    def cancel(self, asker: object) -> None:
        """The asker is gone: drop its hint (never started, if it was still waiting)."""
        task = self.working.pop(asker, None)
        if task is not None:
            task.cancel()
