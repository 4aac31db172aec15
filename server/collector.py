"""The garbage collector's schedule in a serving process: every pass short, whatever the heap.

With thousands of connections, Python's own schedule pauses every room of the process for a
long time, for two reasons:

- Its passes are triggered by allocations minus deallocations. A connection waiting for its next
  frame keeps a chain of fresh objects (coroutines, futures, frames) that replaces the chain it
  waited with before, so the count hardly moves while the youngest generation grows, and a pass
  that finally comes walks all of it.
- A middle or full pass walks every object promoted since the last one, hundreds of thousands
  after a few seconds of play.

Yet nearly all of those objects die by reference counting (those passes find almost no cycles),
and they live for seconds: longer than any young generation, so a generational schedule keeps
walking them. So this process runs its passes from a timer instead: every `TICK` it collects what
the last tick made and freezes what survived (`gc.freeze`). A pass never walks an object twice,
and each costs what one tick made, not what the process holds.

The price: a cycle that becomes garbage after its first pass is not found until the heap is
thawed. Once every `THAW_SECONDS` the frozen objects go back to the collector for one pass over
the whole heap, and sooner when the frozen heap has grown by `THAW_GROWTH` times what the last
thaw left (and by `THAW_MIN_OBJECTS` at least): connections that come and go leave cycles behind
(asyncio's transports hold their own bound methods, websockets' protocols their parsers), and
without this bound a churn of connections would grow the process by each one's cycles until the
next timed thaw. So the frozen heap stays within about twice the live one, and a thaw costs a
pass over the live heap for every live heap's worth of objects frozen since. A heap that grows
for real (rooms filling up) is thawed at each doubling too: a few whole passes more while a
server fills. What each pass found is counted in `/metrics` (`allfives_gc_*`), so a process that
leaks cycles between thaws shows it. The measurements behind this schedule (bench/load.py,
bench/churn.py) are in docs/performance.md.
"""

from __future__ import annotations

import asyncio
import gc
import time
from collections.abc import Callable

#: Seconds between passes over what was made since the last one.
TICK = 0.05
#: Seconds between thaws: passes over the whole heap, frozen objects included.
THAW_SECONDS = 900.0
#: A thaw also comes once the frozen heap holds this many times what the last thaw left...
THAW_GROWTH = 2.0
#: ...and this many objects more at least (a small heap is not walked again and again).
THAW_MIN_OBJECTS = 100_000


class Collector:
    """The schedule of one process (see the module docstring); `start` it in the running loop."""

    def __init__(
        self,
        tick: float = TICK,
        thaw_seconds: float = THAW_SECONDS,
        clock: Callable[[], float] = time.monotonic,
        growth: float = THAW_GROWTH,
        min_objects: int = THAW_MIN_OBJECTS,
    ) -> None:
        self.tick = tick
        self.thaw_seconds = thaw_seconds
        self.growth = growth
        self.min_objects = min_objects
        #: The frozen heap's size at which a thaw comes before its time.
        self.thaw_frozen = 0
        self.clock = clock
        self.ticks = 0
        self.thaws = 0
        self._thaw_at = 0.0
        self._timer: asyncio.TimerHandle | None = None
        self._was_enabled = True

    def start(self) -> None:
        """Collect and freeze what start-up made, then take over from the automatic passes."""
        self._was_enabled = gc.isenabled()
        gc.collect()
        gc.freeze()
        gc.disable()
        self._thaw_at = self.clock() + self.thaw_seconds
        self._thawed()
        self._timer = asyncio.get_running_loop().call_later(self.tick, self._turn)

    def stop(self) -> None:
        """Hand the collector back to Python's own schedule."""
        if self._timer is not None:
            self._timer.cancel()
            self._timer = None
        if self._was_enabled:
            gc.enable()

    def pass_now(self) -> None:
        """One tick's pass (the timer's work, callable on its own): what was made since the last
        one, or the whole heap when a thaw is due; what survives is frozen."""
        self.ticks += 1
        if self.clock() < self._thaw_at:
            gc.collect(0)
            gc.freeze()
            if gc.get_freeze_count() < self.thaw_frozen:
                return
        gc.unfreeze()
        self.thaws += 1
        self._thaw_at = self.clock() + self.thaw_seconds
        gc.collect()
        gc.freeze()
        self._thawed()

    def _thawed(self) -> None:
        left = gc.get_freeze_count()
        self.thaw_frozen = max(int(left * self.growth), left + self.min_objects)

    def _turn(self) -> None:
        self.pass_now()
        self._timer = asyncio.get_running_loop().call_later(self.tick, self._turn)


__all__ = ["THAW_SECONDS", "TICK", "Collector"]
