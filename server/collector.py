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
and each costs what one tick made, not what the process holds. A pass that costs less than
`PAUSE` lets the next tick be longer, up to `LONGEST_TICK`: a process making thousands of moves a
second keeps few of the objects it makes, so its passes stay short however long the tick.

The price: a cycle that becomes garbage after its first pass is not found until the heap is
thawed. Once every `THAW_SECONDS` the frozen objects go back to the collector for one pass over
the whole heap, and sooner when the process's objects have grown by `THAW_GROWTH` times what the
last thaw left (and by `THAW_MIN_OBJECTS` at least): connections that come and go leave cycles
behind (asyncio's transports hold their own bound methods, websockets' protocols their parsers),
and without this bound a churn of connections would grow the process by each one's cycles until the
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
import sys
import time
from collections.abc import Callable

from server.metrics import COLLECTOR

#: Seconds between passes over what was made since the last one, at the shortest...
TICK = 0.05
#: ...and at the longest, when passes cost little (a process that makes thousands of moves a
#: second keeps few of the objects it makes: its passes stay short however long the tick).
LONGEST_TICK = 1.0
#: The pass a tick is fitted to, in the CPU time of the pass (time on a busy machine that the
#: process spends waiting for a core is not the pass's doing): a pass that took less lets the
#: next tick be longer (at most twice as long), one that took more makes it shorter, in
#: proportion.
PAUSE = 0.002
#: Seconds between thaws: passes over the whole heap, frozen objects included.
THAW_SECONDS = 900.0
#: A thaw also comes once the process holds this many times the objects the last thaw left...
THAW_GROWTH = 2.0
#: ...and this many objects more at least (a small heap is not walked again and again).
THAW_MIN_OBJECTS = 100_000


def objects() -> int:
    """The objects this process holds, read from its allocator (`sys.getallocatedblocks`: one
    look per pool of blocks). Counting the frozen objects instead (`gc.get_freeze_count`) walks
    every one of them, cold in memory, a hundred times slower: at full speed that walk, every
    tick, was most of what the collector cost."""
    return sys.getallocatedblocks()


class Collector:
    """The schedule of one process (see the module docstring); `start` it in the running loop."""

    def __init__(
        self,
        tick: float = TICK,
        thaw_seconds: float = THAW_SECONDS,
        clock: Callable[[], float] = time.monotonic,
        growth: float = THAW_GROWTH,
        min_objects: int = THAW_MIN_OBJECTS,
        longest_tick: float = LONGEST_TICK,
        pause: float = PAUSE,
        cpu_clock: Callable[[], float] = time.thread_time,
    ) -> None:
        self.tick = tick
        self.longest_tick = max(tick, longest_tick)
        self.pause = pause
        #: Seconds until the next pass: `tick`, stretched while passes cost less than `pause`.
        self.delay = tick
        self.thaw_seconds = thaw_seconds
        self.growth = growth
        self.min_objects = min_objects
        #: The count of objects (`objects`) at which a thaw comes before its time.
        self.thaw_objects = 0
        self.clock = clock
        #: What a pass costs is read on this clock (CPU seconds of the thread, by default).
        self.cpu_clock = cpu_clock
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
        self._timer = asyncio.get_running_loop().call_later(self.delay, self._turn)

    def stop(self) -> None:
        """Hand the collector back to Python's own schedule."""
        if self._timer is not None:
            self._timer.cancel()
            self._timer = None
        if self._was_enabled:
            gc.enable()

    def pass_now(self) -> None:
        """One tick's pass (the timer's work, callable on its own): what was made since the last
        one, or the whole heap when a thaw is due; what survives is frozen. The next tick is
        fitted to what this pass cost (`delay`)."""
        self.ticks += 1
        if self.clock() < self._thaw_at:
            started = self.cpu_clock()
            gc.collect(0)
            gc.freeze()
            took = self.cpu_clock() - started
            self.delay *= min(2.0, self.pause / took) if took > 0 else 2.0
            self.delay = min(self.longest_tick, max(self.tick, self.delay))
            if objects() < self.thaw_objects:
                return
        gc.unfreeze()
        self.thaws += 1
        self._thaw_at = self.clock() + self.thaw_seconds
        gc.collect()
        gc.freeze()
        self._thawed()

    def _thawed(self) -> None:
        COLLECTOR.frozen = gc.get_freeze_count()
        left = objects()
        self.thaw_objects = max(int(left * self.growth), left + self.min_objects)

    def _turn(self) -> None:
        self.pass_now()
        self._timer = asyncio.get_running_loop().call_later(self.delay, self._turn)


__all__ = ["LONGEST_TICK", "PAUSE", "THAW_SECONDS", "TICK", "Collector"]
