"""The serving process's collector schedule (`server.collector`): each pass walks only what was
made since the last one, what survives is frozen, and a cycle that dies later is found at the
next thaw, not lost; passes that cost little come less often."""

from __future__ import annotations

import asyncio
import gc
import sys
import weakref
from collections.abc import Iterator
from typing import Any

import pytest
from client_helpers import embedded_config
from waiting import until
from ws_client_helpers import Client

from server.app import run_server
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
    """A clock the test sets; each look at it moves it on by `step` (what a pass seems to
    cost)."""

    def __init__(self, step: float = 0.0) -> None:
        self.now = 0.0
        self.step = step

    def __call__(self) -> float:
        self.now += self.step
        return self.now


class Passes:
    """The collector's passes in this process while it is installed, by generation
    (`gc.callbacks`)."""

    def __init__(self) -> None:
        self.by_generation = [0, 0, 0]

    def __call__(self, phase: str, info: dict[str, Any]) -> None:
        if phase == "stop":
            self.by_generation[info["generation"]] += 1

    def __enter__(self) -> Passes:
        gc.callbacks.append(self)
        return self

    def __exit__(self, *exc: object) -> None:
        gc.callbacks.remove(self)


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
        assert COLLECTOR.frozen == frozen  # /metrics's count, taken at the start's whole pass
        collector.pass_now()  # the cycle is alive: it survives and is frozen
        assert gc.get_freeze_count() >= frozen + 2
        assert COLLECTOR.frozen == frozen  # a tick does not walk the frozen heap to count it
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
        assert COLLECTOR.frozen == gc.get_freeze_count()  # and counts the frozen afresh
    finally:
        collector.stop()


async def test_a_thaw_comes_before_its_time_once_the_heap_has_grown_enough(
    restored: None,
) -> None:
    # Connections that come and go leave cycles among frozen objects: the heap must not wait
    # for the timed thaw to give them back.
    collector = Collector(
        tick=3600, thaw_seconds=3600, clock=Clock(), growth=1.0, min_objects=10_000
    )
    collector.start()
    try:
        bound = collector.thaw_objects
        assert bound > sys.getallocatedblocks()
        held = [cycle() for _ in range(200)]
        collector.pass_now()  # alive: frozen, and still under the bound
        assert collector.thaws == 0
        dead = [ref for _, ref in held]
        held.clear()
        assert all(ref() is not None for ref in dead)  # frozen garbage, out of every pass's way
        grown = [cycle() for _ in range(10_000)]
        collector.pass_now()
        assert collector.thaws == 1 and all(ref() is None for ref in dead)
        del grown
    finally:
        collector.stop()


async def passed(collector: Collector) -> None:
    """Wait for the collector's next pass."""
    ticks = collector.ticks
    await until(lambda: collector.ticks > ticks, what="the collector's next pass")


async def test_the_cycles_of_closed_connections_are_freed_while_connections_come_and_go(
    restored: None,
) -> None:
    # What bench/churn.py measures, in small: each connection lives through passes (it is
    # frozen), then closes and leaves a cycle; the timed thaw is an hour away.
    async with run_server(embedded_config()) as server:
        collector = Collector(
            tick=0.005, thaw_seconds=3600, longest_tick=0.02, growth=1.0, min_objects=5000
        )
        collector.start()
        try:
            first = await Client.open(server.url)
            (connection,) = server.connections
            transport = weakref.ref(connection.wire.transport)
            del connection
            ticks = collector.ticks
            await until(lambda: collector.ticks >= ticks + 2, what="passes: the first is frozen")
            await first.close()
            await until(lambda: not server.connections, what="the server to see it close")
            ticks = collector.ticks
            await until(lambda: collector.ticks >= ticks + 2, what="passes after it closed")
            assert transport() is not None  # frozen garbage: no pass over the young walks it
            opened = [await Client.open(server.url) for _ in range(8)]
            for _ in range(2000):
                if transport() is None:
                    break
                await opened.pop(0).close()
                opened.append(await Client.open(server.url))
                await passed(collector)  # the newest is frozen
            assert transport() is None
            assert collector.thaws >= 1
            for client in opened:
                await client.close()
        finally:
            collector.stop()


async def test_a_busy_process_with_nothing_to_collect_stretches_its_tick(restored: None) -> None:
    # A process that makes thousands of moves a second keeps few of the objects it makes:
    # passes over them cost little, and come less and less often.
    tick = 0.005
    collector = Collector(tick=tick, thaw_seconds=3600, clock=Clock())
    loop = asyncio.get_running_loop()
    state: list[dict[str, int]] = []
    with Passes() as passes:
        collector.start()
        try:
            end = loop.time() + 200 * tick
            moves = 0
            while loop.time() < end:
                state = [{"seat": seat, "move": moves} for seat in range(50)]  # the last move's
                moves += 1
                await asyncio.sleep(0)
        finally:
            collector.stop()
    assert state and collector.ticks >= 1
    young, _, full = passes.by_generation
    # 200 of the shortest ticks (1 s): a pass after 0.005 s, then 0.01 s, 0.02 s, ... (7 by
    # then; a timer never comes early, and a few passes may cost enough to stretch the tick less
    # than twice), not one a tick.
    assert young <= 10
    assert full == 1  # the one at start-up: no thaw


async def test_a_tick_is_as_short_as_it_was_while_passes_cost_what_they_did(
    restored: None,
) -> None:
    # With thousands of rooms a pass over one tick's objects costs about the pause aimed at:
    # it keeps the shortest tick, and each pass stays that short.
    clock, cpu = Clock(), Clock()
    collector = Collector(tick=0.05, thaw_seconds=3600, clock=clock, pause=0.002, cpu_clock=cpu)
    collector.start()
    try:
        clock.step = 0.01  # a busy machine: 10 ms between two looks at the clock, none of it CPU
        for _ in range(5):
            collector.pass_now()
        assert collector.delay == 1.0  # cheap passes: the longest tick
        cpu.step = 0.01  # each pass now takes 10 ms of CPU
        for _ in range(3):
            collector.pass_now()
        assert collector.delay == 0.05
    finally:
        collector.stop()
