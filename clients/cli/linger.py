"""A finished table kept in sight a while before the program takes the player elsewhere.

A tournament's table ends its match and the tournament's screen comes back; `Linger` keeps the
finished table (the last hand's result, who won the match, the scoreboard) on screen for
`seconds` first, counting down, and Enter goes at once. It starts as the table changes to what
its `when` asks (the match over). ALLFIVES_LINGER_SECONDS sets how long (default
`LINGER_SECONDS`; 0 goes at once).
"""

from __future__ import annotations

import asyncio
import math
import os
from collections.abc import Callable
from typing import TYPE_CHECKING

from clients.cli.i18n import _

if TYPE_CHECKING:
    from clients.cli.state import TableState

#: Seconds a finished tournament table stays in sight.
LINGER_SECONDS = 10.0
#: The longest a table may be kept (the environment's figure is bounded).
MOST_SECONDS = 600.0


def linger_seconds() -> float:
    """How long a finished tournament table stays (ALLFIVES_LINGER_SECONDS overrides)."""
    try:
        seconds = float(os.environ["ALLFIVES_LINGER_SECONDS"])
    except (KeyError, ValueError):
        return LINGER_SECONDS
    return min(MOST_SECONDS, max(0.0, seconds)) if math.isfinite(seconds) else LINGER_SECONDS


class Linger:
    """Counts down from `seconds` once started (by `begin`, or as the table changes to what
    `when` asks), then calls `leave` (once)."""

    def __init__(
        self,
        seconds: float,
        leave: Callable[[], None],
        when: Callable[[TableState], bool] | None = None,
    ) -> None:
        self.seconds = seconds
        self._leave = leave
        self._when = when
        self._ends_at: float | None = None
        self._task: asyncio.Task[None] | None = None

    @property
    def started(self) -> bool:
        """Whether the countdown runs (or ran)."""
        return self._ends_at is not None

    def begin(self) -> bool:
        """Start counting down, or leave at once when there are no seconds to wait; True only
        when the countdown starts now."""
        if self.seconds <= 0:
            self._leave()
            return False
        if self.started:
            return False
        self.start()
        return True

    def changed(self, state: TableState) -> bool:
        """The table changed: `begin` if it is now what `when` asks (no `when`: never); True
        only when the countdown starts now."""
        return self._when is not None and self._when(state) and self.begin()

    def start(self) -> None:
        """Start counting down (again: nothing)."""
        if self.started:
            return
        loop = asyncio.get_running_loop()
        self._ends_at = loop.time() + self.seconds
        self._task = loop.create_task(self._count_down())

    def left(self) -> int:
        """Whole seconds left, rounded up."""
        if self._ends_at is None:
            return math.ceil(self.seconds)
        return max(0, math.ceil(self._ends_at - asyncio.get_running_loop().time()))

    def words(self) -> str:
        """ "Back to the tournament in 7 s; Enter goes now"."""
        said = _("Back to the tournament in {seconds} s; Enter goes now")
        return said.format(seconds=self.left())

    def stop(self) -> None:
        """No leaving by the clock any more (the table is left already)."""
        task, self._task = self._task, None
        if task is not None:
            task.cancel()

    async def _count_down(self) -> None:
        await asyncio.sleep(self.seconds)
        self._task = None
        self._leave()
