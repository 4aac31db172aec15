"""Room saves of many rooms at once go to Redis together, each checked and answered on its own."""

from __future__ import annotations

import asyncio
import os
import signal
from collections.abc import AsyncIterator
from functools import partial

import pytest
from redis_server import RedisServer
from waiting import until_answered

from server.cluster.membership import Cluster, Save
from server.storage.redis_store import RedisStore
from server.storage.store import NO_VERSION, RoomChanged, SaveInDoubt, StoreUnavailable

pytestmark = pytest.mark.redis

ROOMS = [f"R{index:03d}" for index in range(40)]


@pytest.fixture
async def cluster(redis_server: RedisServer) -> AsyncIterator[Cluster]:
    store = RedisStore(redis_server.url, timeout=0.5)
    joined = Cluster(store, "one:1")
    try:
        yield joined
    finally:
        await store.close()


async def save_all(cluster: Cluster, parents: dict[str, str], seq: int) -> list[object]:
    """Save every room at once (as many rooms' moves would), each from its parent version."""
    return await asyncio.gather(
        *(
            cluster.save(Save(code, seq, parent, b"[]", b"", f"{code} at {seq}".encode()))
            for code, parent in parents.items()
        ),
        return_exceptions=True,
    )


async def test_saves_made_at_once_share_calls_and_each_is_answered_for_itself(
    cluster: Cluster,
) -> None:
    for code in ROOMS:
        assert await cluster.create(code)
    first = await save_all(cluster, dict.fromkeys(ROOMS, NO_VERSION), 1)
    assert all(isinstance(version, str) for version in first), first
    assert cluster.saves.calls < len(ROOMS), "saves waiting together went in fewer calls"
    # One room's save is made from a version Redis no longer holds: only it is refused.
    parents = {code: str(version) for code, version in zip(ROOMS, first, strict=True)}
    parents[ROOMS[7]] = "stale"
    second = await save_all(cluster, parents, 2)
    refused = second[7]
    assert isinstance(refused, RoomChanged) and refused.stored == 1, refused
    for code, answer in zip(ROOMS, second, strict=True):
        loaded = await cluster.load(code)
        assert loaded is not None
        if code == ROOMS[7]:
            assert (loaded.seq, loaded.state) == (1, f"{code} at 1".encode())
        else:
            assert (loaded.seq, loaded.version) == (2, answer)
            assert loaded.state == f"{code} at 2".encode()


async def test_a_stalled_redis_leaves_sent_saves_in_doubt_and_the_queued_ones_unsent(
    cluster: Cluster, redis_server: RedisServer
) -> None:
    for code in ROOMS[:5]:
        assert await cluster.create(code)
    pid = redis_server._process.pid  # type: ignore[union-attr]
    os.kill(pid, signal.SIGSTOP)
    try:
        answers = await save_all(cluster, dict.fromkeys(ROOMS[:5], NO_VERSION), 1)
    finally:
        os.kill(pid, signal.SIGCONT)
    assert all(isinstance(answer, StoreUnavailable) for answer in answers), answers
    doubts = [answer for answer in answers if isinstance(answer, SaveInDoubt)]
    assert doubts, "the call Redis got and never answered leaves its saves in doubt"
    assert len({doubt.version for doubt in doubts}) == len(doubts), "each names its version"
    for code, answer in zip(ROOMS[:5], answers, strict=True):
        if isinstance(answer, SaveInDoubt):
            # In doubt: it may have been applied; fencing tells, and no later copy can land.
            version = answer.version
            found = await until_answered(
                partial(cluster.fence, code, [version]), (StoreUnavailable,), 20, "the fence"
            )
            assert found.stored in (None, version)
        else:
            # Never sent: Redis holds nothing of it.
            assert isinstance(answer, StoreUnavailable) and not answer.in_doubt
            loaded = await until_answered(
                partial(cluster.load, code), (StoreUnavailable,), 20, "the load"
            )
            assert loaded is None
