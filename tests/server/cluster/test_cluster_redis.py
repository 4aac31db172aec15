"""Several servers on one Redis: what they keep there and follow.

Redis restarted empty (the servers write their rooms back), the rooms a process follows (their
notices), and the codes of expired rooms pruned from the set of rooms. Servers run in this
process (`run_server`), each with its own `RedisStore` on the same real redis-server.
"""

from __future__ import annotations

import random

import asyncio_redis
import pytest
from cluster_helpers import (
    check_record,
    check_resync,
    cluster_config,
    finished,
    held,
    moves_in,
    open_client,
    play,
    sit,
    started_across,
    two_servers,
)
from redis_server import RedisServer
from waiting import until
from ws_client_helpers import until_archived

from protocol import messages as msg
from server.app import Server, run_server
from server.storage.redis_store import RedisStore

pytestmark = pytest.mark.redis


@pytest.mark.parametrize("redis_server", [{"appendonly": False}], indirect=True)
async def test_when_redis_comes_back_empty_the_servers_write_their_rooms_back(
    redis_server: RedisServer,
) -> None:
    async with two_servers(redis_server) as (a, b):
        ann, bob, room = await started_across(a, b, bots=1, players=3, target=100)
        rng = random.Random(7)
        await play([ann, bob], rng, lambda: len(moves_in(held(bob).events)) > 5)
        held_before = [links(s) for s in (a, b)]
        redis_server.stop()
        redis_server.start()  # without an append-only file: empty
        # Commands sent before a server reconnects are answered `unavailable` (tested with one
        # server in test_persistence_server.py); here the servers get back to Redis first: each
        # has seen its connections drop and opened new ones.
        await until(
            lambda: all(
                back_on_redis(s, before) for s, before in zip((a, b), held_before, strict=True)
            )
        )
        await play([ann, bob], rng, finished([ann, bob]))
        for client in (ann, bob):
            await check_resync(client)
        record = await ann.request("record")
        assert isinstance(record, msg.RecordReply)
        for client in (ann, bob):
            check_record(record.record, client.document, held(client).events, every=False)
        await until_archived(ann)  # the archive's change comes after the match's end
        store = RedisStore(redis_server.url)
        stored = await store.load_room(room)
        await store.close()
        assert stored is not None and stored.seq == ann.state.seq


def links(server: Server) -> tuple[object, object]:
    """The connections to Redis a server holds now: its store's and its room notices'."""
    assert isinstance(server.store, RedisStore) and server.cluster is not None
    return server.store.link.connection, server.cluster.notices.connection


def back_on_redis(server: Server, before: tuple[object, object]) -> bool:
    """Whether a server is connected and subscribed again, through new connections."""
    assert isinstance(server.store, RedisStore) and server.cluster is not None
    new = all(now is not then for now, then in zip(links(server), before, strict=True))
    return new and server.store.connected and server.cluster.notices.subscribed


async def members(redis: RedisServer, key: str) -> set[str]:
    """The members of a set in the test's Redis."""
    connection = await asyncio_redis.Connection.create(
        host=redis.host, port=redis.port, auto_reconnect=False
    )
    try:
        return set(await (await connection.smembers(key)).asset())
    finally:
        connection.close()


async def add_member(redis: RedisServer, key: str, member: str) -> None:
    """Add a member to a set in the test's Redis."""
    connection = await asyncio_redis.Connection.create(
        host=redis.host, port=redis.port, auto_reconnect=False
    )
    try:
        await connection.sadd(key, [member])
    finally:
        connection.close()


async def test_a_process_follows_only_the_rooms_it_keeps_or_serves(
    redis_server: RedisServer,
) -> None:
    async with run_server(cluster_config(redis_server)) as a:
        ann = await open_client(a.url, "Ann")
        joined = await ann.request("create_room", rules={"players": 3})
        assert isinstance(joined, msg.Joined) and joined.room is not None
        followers = f"allfives:followers:{joined.room}"
        async with run_server(cluster_config(redis_server)) as b:
            assert a.cluster is not None and b.cluster is not None
            # b read every stored room at start-up and tends its own each beat: it follows none.
            beats = b.cluster._beats

            async def two_beats() -> bool:
                return b.cluster is not None and b.cluster._beats >= beats + 2

            await until(two_beats)
            assert await members(redis_server, followers) == {a.cluster.name}
            bob = await sit(b.url, "Bob", joined.room)
            assert await members(redis_server, followers) == {a.cluster.name, b.cluster.name}
            # Once nobody is in it there, b lets the room go and stops following it.
            assert isinstance(await bob.request("leave"), msg.Ack)

            async def let_go() -> bool:
                assert a.cluster is not None
                return await members(redis_server, followers) == {a.cluster.name}

            await until(let_go)
            assert joined.room not in b.rooms


async def test_codes_of_expired_rooms_are_pruned_from_the_set_of_rooms(
    redis_server: RedisServer,
) -> None:
    await add_member(redis_server, "allfives:rooms", "GONE")
    async with run_server(cluster_config(redis_server)) as server:
        ann = await open_client(server.url, "Ann")
        joined = await ann.request("create_room", rules={"players": 2})
        assert isinstance(joined, msg.Joined)
        assert await members(redis_server, "allfives:rooms") == {joined.room}
        await add_member(redis_server, "allfives:rooms", "LOST")

        async def pruned() -> bool:
            return await members(redis_server, "allfives:rooms") == {joined.room}

        await until(pruned)
