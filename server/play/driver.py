"""The driver of a room's bots, stand-ins and turn clock (in the process that keeps the room).

`kick` after every change: a bot move (or a move for a player out of time) that is due is
made as a command of the room (`BotMove`), on the path a client's takes; otherwise the turn
clock is set for the room's next deadline, and `kick`s again when it passes.
"""

from __future__ import annotations

import asyncio
import logging

from server.config import Bots, Clock
from server.metrics import Metrics
from server.play.bots import BotRunner
from server.play.live import LiveRoom, Storer
from server.play.registry import Registry
from server.rooms.room import Caller, RoomError
from server.rooms.server_commands import BotMove
from server.storage.store import StoreUnavailable

log = logging.getLogger("allfives.server")


class Driver:
    """Runs the bots and the turn clock of the rooms this process keeps."""

    def __init__(
        self,
        settings: Bots,
        clock: Clock,
        registry: Registry,
        bots: BotRunner,
        metrics: Metrics,
        storer: Storer,
    ) -> None:
        self.bot_delay = settings.bot_delay
        self.clock = clock
        self.registry = registry
        self.bots = bots
        self.metrics = metrics
        self.storer = storer
        #: Cleared, every bot of this server waits (`allfives play` while a result is read).
        self.bots_may_play = asyncio.Event()
        self.bots_may_play.set()
        self.closing = False

    def _runs(self, live: LiveRoom) -> bool:
        return not self.closing and live.kept and self.registry.holds(live)

    def kick(self, live: LiveRoom) -> None:
        """Make sure a bot move that is due gets made, and the turn clock is set (by the keeper)."""
        if not self._runs(live):
            return
        if live.driver is not None and not live.driver.done():
            return
        if live.room.bot_level_due(self.clock()) is None:
            self._arm_timer(live)
        else:
            live.driver = asyncio.get_running_loop().create_task(self._drive(live))

    def keep(self, live: LiveRoom, kept: bool) -> None:
        """Start or stop running a room's bots and clock (its driver stops by itself)."""
        if live.kept == kept:
            return
        live.kept = kept
        if kept:
            log.info("room %s: kept by this process now", live.room.code)
            self.kick(live)
        elif live.timer is not None:
            live.timer.cancel()
            live.timer, live.timer_deadline = None, None

    async def _drive(self, live: LiveRoom) -> None:
        """Play bot moves (and moves for players out of time) while they are due."""
        try:
            await self._drive_bots(live)
        except asyncio.CancelledError:
            raise
        except Exception:
            log.exception("room %s: the bot driver failed; it tries again", live.room.code)
            asyncio.get_running_loop().call_later(1.0, self.kick, live)

    async def _drive_bots(self, live: LiveRoom) -> None:
        while self._runs(live):
            turn = live.room.bot_turn(self.clock())
            if turn is None:
                self._arm_timer(live)
                return
            if self.bot_delay:
                await asyncio.sleep(self.bot_delay)
            await self.bots_may_play.wait()
            move = await self.bots.choose(turn.level, turn.view)
            kept = True

            async def admit() -> Caller | None:
                nonlocal kept
                kept = live.kept and self.registry.holds(live)
                return Caller("", process=self.storer.presence_id) if kept else None

            try:
                outcome = await live.run(self.storer, BotMove(turn, move), admit)
            except RoomError as error:
                log.error("room %s: a bot's move was refused: %s", live.room.code, error)
                return
            except StoreUnavailable:
                log.warning("room %s: store unavailable, bot waits", live.room.code)
                await asyncio.sleep(1.0)
                continue
            if not kept:
                return
            if outcome.changed:
                self.metrics.moves += 1

    def _arm_timer(self, live: LiveRoom) -> None:
        deadline = live.room.deadline
        if deadline == live.timer_deadline:
            return
        if live.timer is not None:
            live.timer.cancel()
            live.timer = None
        live.timer_deadline = deadline
        if deadline is not None:
            delay = max(0.0, deadline - self.clock()) + 0.01
            live.timer = asyncio.get_running_loop().call_later(delay, self._on_timer, live)

    def _on_timer(self, live: LiveRoom) -> None:
        live.timer, live.timer_deadline = None, None
        self.kick(live)


__all__ = ["Driver"]
