"""The cluster's modules on their own: a room's save (`membership.Save`), the notices another
process gets of it (`notices`), and group commit (`save_batch`) with an in-memory runner.

Against a real redis-server where Redis is involved; `SaveBatches` takes any runner, so there a
runner in memory stands in for the script.
"""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator, Sequence

import pytest
from redis_server import RedisServer
from waiting import until

from server.cluster.membership import Cluster, Save
from server.cluster.notices import Notice, read_notice
from server.cluster.save_batch import SaveBatches
from server.storage.redis_store import RedisStore
from server.storage.store import NO_VERSION, StoreUnavailable


@pytest.fixture
async def two(redis_server: RedisServer) -> AsyncIterator[tuple[Cluster, Cluster]]:
    """Two processes' places on one redis-server, each with a store of its own."""
    stores = [RedisStore(redis_server.url, timeout=2.0) for _ in range(2)]
    clusters = (Cluster(stores[0], "one:1"), Cluster(stores[1], "two:2"))
    try:
        yield clusters
    finally:
        for cluster in clusters:
            await cluster.close()
        for store in stores:
            await store.close()


@pytest.mark.redis
async def test_a_save_with_neither_state_nor_move_is_refused_and_writes_nothing(
    two: tuple[Cluster, Cluster],
) -> None:
    one, _ = two
    assert await one.create("EMPT")
    with pytest.raises(ValueError, match="a state or a move"):
        await one.save(Save("EMPT", 1, NO_VERSION, b"[]", b""))
    assert await one.load("EMPT") is None
    version = await one.save(Save("EMPT", 1, NO_VERSION, b"[]", b"", b"state one"))
    stored = await one.load("EMPT")
    assert stored is not None and (stored.seq, stored.version) == (1, version)


@pytest.mark.redis
async def test_a_process_following_a_room_is_told_of_each_save_another_makes(
    two: tuple[Cluster, Cluster],
) -> None:
    one, other = two
    heard: list[Notice] = []

    def on_notice(data: bytes) -> None:
        notice = read_notice(data)
        if notice is not None:
            heard.append(notice)

    other.notices.on_notice = on_notice
    for cluster in two:
        await cluster.beat()
    await other.notices.subscribe()
    await until(lambda: other.notices.subscribed, what="the other process subscribed")
    assert await one.create("HEAR")
    await other.follow("HEAR")
    first = await one.save(Save("HEAR", 1, NO_VERSION, b'["joined"]', b"", b"state one"))
    second = await one.save(Save("HEAR", 2, first, b'["moved"]', b"", b"", b"the move"))
    await until(lambda: len(heard) >= 2, what="both notices heard")
    assert [(n.code, n.seq, n.version, n.parent) for n in heard] == [
        ("HEAR", 1, first, NO_VERSION),
        ("HEAR", 2, second, first),
    ]
    assert (heard[0].state, heard[0].move, heard[0].events) == (b"state one", False, b'["joined"]')
    assert (heard[1].state, heard[1].move) == (b"the move", True), "a move's notice carries it"


class HeldRunner:
    """Runs each call only once told to: the calls it got, and the answers it gives."""

    def __init__(self) -> None:
        self.calls: list[tuple[list[bytes], list[bytes]]] = []
        self.go = asyncio.Event()
        self.fail = False

    async def __call__(self, keys: list[bytes], args: list[bytes]) -> Sequence[int]:
        self.calls.append((keys, args))
        await self.go.wait()
        if self.fail:
            raise StoreUnavailable("the call failed", in_doubt=True)
        return [int(arg) for arg in args[1:]]  # each save's one argument is its answer


async def test_saves_queued_while_a_call_is_out_go_together_in_the_next() -> None:
    runner = HeldRunner()
    batches = SaveBatches(runner, [b"shared"], [b"common"])
    first = asyncio.ensure_future(batches.save([b"k0"], [b"0"]))
    await until(lambda: len(runner.calls) == 1, what="the first call out")
    rest = [asyncio.ensure_future(batches.save([f"k{n}".encode()], [b"%d" % n])) for n in (1, 2)]
    await asyncio.sleep(0)  # the queued saves wait: no second call while one is out
    assert len(runner.calls) == 1
    runner.go.set()
    assert [await first, *[await save for save in rest]] == [0, 1, 2]
    assert runner.calls[1] == ([b"shared", b"k1", b"k2"], [b"common", b"1", b"2"])
    assert (batches.calls, batches.saves) == (2, 3)


async def test_a_call_that_fails_fails_each_of_its_saves_in_doubt() -> None:
    runner = HeldRunner()
    runner.fail = True
    runner.go.set()
    batches = SaveBatches(runner, [], [b"common"])
    answers = await asyncio.gather(
        batches.save([b"a"], [b"1"]), batches.save([b"b"], [b"2"]), return_exceptions=True
    )
    assert all(isinstance(a, StoreUnavailable) and a.in_doubt for a in answers), answers
