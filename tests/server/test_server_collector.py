"""The serving process's collector schedule (`server.collector`): each pass walks only what was
made since the last one, what survives is frozen, and a cycle that dies later is found at the
next thaw, not lost."""

from __future__ import annotations

import gc
import weakref
from collections.abc import Iterator

import pytest
from waiting import until

from server.collector import Collector
from server.metrics import COLLECTOR


class Node:
    """An object that can sit in a cycle."""

    def __init__(self) -> None:
        self.other: Node | None = None


def cycle() -> tuple[Node, weakref.ref[Node]]:
    """Two objects that hold each other: only the cyclic collector can free them."""
    a, b = Node(), Node()
    a.other, b.other = b, a
    return a, weakref.ref(b)


class Clock:
    def __init__(self) -> None:
        self.now = 0.0

    def __call__(self) -> float:
        return self.now


@pytest.fixture
def restored() -> Iterator[None]:
    """Leave this process's collector as the test found it."""
    enabled = gc.isenabled()
    try:
        yield
    finally:
        gc.unfreeze()
        if enabled:
            gc.enable()


async def test_a_cycle_dropped_within_a_tick_is_collected_by_the_timer(restored: None) -> None:
    collector = Collector(tick=0.01, thaw_seconds=3600)
    collector.start()
    try:
        assert not gc.isenabled()  # the timer's passes replace Python's own
        held, dead = cycle()
        del held
        assert dead() is not None
        await until(lambda: dead() is None, 5, "the next tick's pass to free the cycle")
        assert collector.ticks >= 1
    finally:
        collector.stop()
    assert gc.isenabled()


async def test_a_survivor_is_frozen_and_its_later_cycle_is_freed_at_the_thaw(
    restored: None,
) -> None:
    COLLECTOR.install()
    clock = Clock()
    collector = Collector(tick=3600, thaw_seconds=900, clock=clock)
    collector.start()
    try:
        held, dead = cycle()
        frozen = gc.get_freeze_count()
        collector.pass_now()  # the cycle is alive: it survives and is frozen
        assert gc.get_freeze_count() >= frozen + 2
        assert not any(o is held for o in gc.get_objects())  # out of every pass's way
        del held
        collector.pass_now()
        assert dead() is not None  # frozen: no pass walks it until the thaw
        found = sum(COLLECTOR.collected)
        clock.now = 900.0
        collector.pass_now()
        assert dead() is None
        assert collector.thaws == 1
        assert sum(COLLECTOR.collected) >= found + 2  # /metrics counts what the thaw found
    finally:
        collector.stop()


async def test_a_thaw_comes_before_its_time_once_the_frozen_heap_has_grown_enough(
    restored: None,
) -> None:
    # Connections that come and go leave cycles among frozen objects: the heap must not wait
    # for the timed thaw to give them back.
    collector = Collector(tick=3600, thaw_seconds=3600, clock=Clock(), min_objects=1000)
    collector.start()
    try:
        bound = collector.thaw_frozen
        assert bound >= gc.get_freeze_count() + 1000
        held = [cycle() for _ in range(200)]
        collector.pass_now()  # alive: frozen, and still under the bound
        assert collector.thaws == 0
        dead = [ref for _, ref in held]
        held.clear()
        assert all(ref() is not None for ref in dead)  # frozen garbage, out of every pass's way
        grown = [cycle() for _ in range(bound // 2)]
        collector.pass_now()
        assert collector.thaws == 1 and all(ref() is None for ref in dead)
        del grown
    finally:
        collector.stop()
