"""RedisStore against a real redis-server: round trips, expiry, failures, recovery, error text."""

from __future__ import annotations

import argparse
import asyncio
import os
import signal
import time
from collections.abc import AsyncIterator
from typing import TypeVar

import asyncio_redis
import pytest
from redis_server import RedisServer
from waiting import until_answered

from server.serve import add_arguments, config_from
from server.storage.redis_link import parse_url
from server.storage.redis_store import RedisStore
from server.storage.store import StoredRoom, StoreUnavailable
from server.storage.stores import open_store

T = TypeVar("T")


@pytest.fixture
async def store(redis_server: RedisServer) -> AsyncIterator[RedisStore]:
    """A RedisStore on the test's redis-server, with a short timeout."""
    opened = RedisStore(redis_server.url, timeout=0.5)
    yield opened
    await opened.close()


async def raw(server: RedisServer, db: int = 0) -> asyncio_redis.Connection:
    """A plain connection to look at what the store wrote."""
    connection = await asyncio.wait_for(
        asyncio_redis.Connection.create(host=server.host, port=server.port, auto_reconnect=False),
        5,
    )
    if db:
        await connection.select(db)
    return connection


@pytest.mark.redis
async def test_a_saved_room_loads_back_with_its_seq(store: RedisStore) -> None:
    assert await store.room_codes() == []
    assert await store.load_room("ABCD") is None
    await store.save_room("ABCD", 1, b"\x00state one\xff")
    await store.save_room("ABCD", 2, b"\x00state two\xff")
    await store.save_room("WXYZ", 5, b"other")
    assert await store.load_room("ABCD") == StoredRoom(2, b"\x00state two\xff")
    assert await store.room_codes() == ["ABCD", "WXYZ"]
    await store.delete_room("ABCD")
    assert await store.load_room("ABCD") is None
    assert await store.room_codes() == ["WXYZ"]


@pytest.mark.redis
async def test_records_and_rooms_expire_after_their_lifetimes(redis_server: RedisServer) -> None:
    store = RedisStore(redis_server.url, record_ttl=3600, room_ttl=120)
    connection = await raw(redis_server)
    try:
        await store.save_record("ABCD/1", b'{"format": "allfives-record/1"}')
        await store.save_room("ABCD", 1, b"state")
        assert await store.load_record("ABCD/1") == b'{"format": "allfives-record/1"}'
        assert await store.load_record("ABCD/2") is None
        assert 3590 <= await connection.ttl("allfives:record:ABCD/1") <= 3600
        assert 110 <= await connection.ttl("allfives:room:ABCD") <= 120
        assert await connection.ttl("allfives:rooms") == -1
        # A room whose key expired is dropped from the set of codes when found missing.
        await connection.delete(["allfives:room:ABCD"])
        assert await store.load_room("ABCD") is None
        assert await store.room_codes() == []
    finally:
        connection.close()
        await store.close()


@pytest.mark.redis
async def test_the_url_chooses_the_database(redis_server: RedisServer) -> None:
    store = RedisStore(f"redis://{redis_server.host}:{redis_server.port}/3")
    zero, three = await raw(redis_server), await raw(redis_server, db=3)
    try:
        await store.save_room("ABCD", 1, b"state")
        assert await three.exists("allfives:room:ABCD")
        assert not await zero.exists("allfives:room:ABCD")
    finally:
        zero.close()
        three.close()
        await store.close()


def test_a_bad_url_is_refused_with_the_reason() -> None:
    assert parse_url("redis://cache.local:6380/2") == parse_url("redis://cache.local:6380/2/")
    address = parse_url("redis://:s%40cret@cache.local:6380/2")
    assert (address.host, address.port, address.db, address.password) == (
        "cache.local",
        6380,
        2,
        "s@cret",
    )
    assert parse_url("redis://localhost").port == 6379
    with pytest.raises(ValueError, match="redis://host:6379/0"):
        RedisStore("http://localhost:6379/0")
    with pytest.raises(ValueError, match="database"):
        RedisStore("redis://localhost:6379/zero")
    with pytest.raises(ValueError, match="port"):
        RedisStore("redis://localhost:99999/0")
    with pytest.raises(ValueError, match="positive"):
        RedisStore("redis://localhost/0", record_ttl=0)


@pytest.mark.redis
async def test_while_redis_is_down_calls_fail_fast_and_it_recovers_on_its_own(
    redis_server: RedisServer, store: RedisStore
) -> None:
    await store.save_room("ABCD", 1, b"one")
    redis_server.stop()
    started = time.monotonic()
    for seq in range(2, 6):
        with pytest.raises(StoreUnavailable):
            await store.save_room("ABCD", seq, b"not stored")
    with pytest.raises(StoreUnavailable):
        await store.room_codes()
    assert time.monotonic() - started < 2 * store.timeout
    redis_server.start()
    await until_answered(
        lambda: store.save_room("ABCD", 2, b"two"), (StoreUnavailable,), what="a save"
    )
    assert await store.load_room("ABCD") == StoredRoom(2, b"two")


@pytest.mark.redis
async def test_a_store_started_while_redis_is_down_connects_once_it_is_up(
    redis_server: RedisServer,
) -> None:
    redis_server.stop()
    store = RedisStore(redis_server.url, timeout=0.5)
    try:
        with pytest.raises(StoreUnavailable, match="cannot be reached"):
            await store.room_codes()
        redis_server.start()
        await until_answered(store.ping, (StoreUnavailable,), what="a ping")
        assert store.connected
    finally:
        await store.close()


@pytest.mark.redis
async def test_a_redis_that_stops_answering_times_out_instead_of_hanging(
    redis_server: RedisServer, store: RedisStore
) -> None:
    await store.save_room("ABCD", 1, b"one")
    pid = redis_server._process.pid  # type: ignore[union-attr]
    os.kill(pid, signal.SIGSTOP)
    try:
        started = time.monotonic()
        with pytest.raises(StoreUnavailable, match="did not answer") as unanswered:
            await store.save_room("ABCD", 2, b"two, unanswered")
        assert unanswered.value.in_doubt, "a save sent and never answered may have been applied"
        with pytest.raises(StoreUnavailable) as refused:
            await store.load_room("ABCD")
        assert not refused.value.in_doubt, "a call never sent was not applied"
        assert time.monotonic() - started < 4 * store.timeout
    finally:
        os.kill(pid, signal.SIGCONT)
    await until_answered(
        lambda: store.save_room("ABCD", 2, b"two"), (StoreUnavailable,), what="a save"
    )
    assert await store.load_room("ABCD") == StoredRoom(2, b"two")


@pytest.mark.redis
@pytest.mark.parametrize("redis_server", [{"appendonly": False}], indirect=True)
async def test_after_redis_restarts_empty_the_next_saves_store_rooms_again(
    redis_server: RedisServer, store: RedisStore
) -> None:
    await store.save_room("ABCD", 4, b"four")
    redis_server.stop()
    redis_server.start()
    assert await until_answered(store.room_codes, (StoreUnavailable,), what="the codes") == []
    await store.save_room("ABCD", 5, b"five")
    assert await store.room_codes() == ["ABCD"]
    assert await store.load_room("ABCD") == StoredRoom(5, b"five")


@pytest.mark.redis
async def test_redis_error_replies_become_unavailable(
    redis_server: RedisServer, store: RedisStore
) -> None:
    connection = await raw(redis_server)
    try:
        await store.save_room("ABCD", 1, b"one")
        await connection.config_set("maxmemory", "1")
        await connection.config_set("maxmemory-policy", "noeviction")
        with pytest.raises(StoreUnavailable, match=r"refused.*OOM") as refused:
            await store.save_record("ABCD/1", b"x" * 10_000)
        assert not refused.value.in_doubt
        with pytest.raises(StoreUnavailable, match="OOM"):
            await store.save_room("ABCD", 2, b"two")
        await connection.config_set("maxmemory", "0")
        await store.save_room("ABCD", 2, b"two")
        assert await store.load_room("ABCD") == StoredRoom(2, b"two")
    finally:
        connection.close()


def test_serve_takes_the_redis_url_and_record_lifetime_from_options_or_environment() -> None:
    parser = argparse.ArgumentParser()
    add_arguments(parser)
    environ = {"ALLFIVES_REDIS_URL": "redis://cache:6380/2", "ALLFIVES_RECORD_TTL": "3600"}
    from_env = open_store(config_from(parser.parse_args([]), environ).storage)
    assert isinstance(from_env, RedisStore)
    assert str(from_env.address) == "redis://cache:6380/2" and from_env.record_ttl == 3600
    given = parser.parse_args(["--redis", "redis://other/1", "--record-ttl", "60"])
    from_options = open_store(config_from(given, environ).storage)
    assert isinstance(from_options, RedisStore)
    assert str(from_options.address) == "redis://other:6379/1" and from_options.record_ttl == 60
    assert open_store(config_from(parser.parse_args([]), {}).storage) is None
    with pytest.raises(ValueError, match="redis://host"):
        config_from(parser.parse_args([]), {"ALLFIVES_REDIS_URL": "localhost:6379"})
