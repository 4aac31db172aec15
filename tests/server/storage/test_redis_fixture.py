"""The redis-server fixture, driven through asyncio_redis as the server will use it."""

from __future__ import annotations

import asyncio
import socket
from collections.abc import Awaitable, Callable
from pathlib import Path
from typing import TypeVar

import asyncio_redis
import pytest
from redis_server import RedisServer, RedisServerError, start_for_test
from waiting import until_answered

T = TypeVar("T")
SERVER_GONE = (asyncio_redis.ConnectionLostError, asyncio_redis.NotConnectedError)


async def connect(server: RedisServer) -> asyncio_redis.Connection:
    """Open an asyncio_redis connection (create() retries forever, so bound it)."""
    return await asyncio.wait_for(
        asyncio_redis.Connection.create(host=server.host, port=server.port, db=0), timeout=5
    )


async def once_reconnected(call: Callable[[], Awaitable[T]]) -> T:
    """Call again while asyncio_redis is still reconnecting (one look each 50 ms)."""
    return await until_answered(call, SERVER_GONE, 10, "asyncio_redis to reconnect", every=0.05)


@pytest.mark.redis
async def test_set_then_get_returns_the_value(redis_server: RedisServer) -> None:
    assert redis_server.url == f"redis://127.0.0.1:{redis_server.port}/0"
    conn = await connect(redis_server)
    try:
        await conn.set("room:1:name", "kitchen table")
        assert await conn.get("room:1:name") == "kitchen table"
        assert await conn.get("room:2:name") is None
    finally:
        conn.close()


@pytest.mark.redis
async def test_restart_keeps_data_written_before_stop(redis_server: RedisServer) -> None:
    conn = await connect(redis_server)
    await conn.rpush("room:1:log", ["deal", "play 5-5"])
    conn.close()
    redis_server.stop()
    redis_server.start()
    conn = await connect(redis_server)
    try:
        assert await (await conn.lrange("room:1:log", 0, -1)).aslist() == ["deal", "play 5-5"]
    finally:
        conn.close()


@pytest.mark.redis
async def test_restart_after_a_crash_keeps_acknowledged_writes(redis_server: RedisServer) -> None:
    conn = await connect(redis_server)
    await conn.set("room:1:seq", "17")
    conn.close()
    redis_server.kill()
    redis_server.start()
    conn = await connect(redis_server)
    try:
        assert await conn.get("room:1:seq") == "17"
    finally:
        conn.close()


@pytest.mark.redis
@pytest.mark.parametrize("redis_server", [{"appendonly": False}], indirect=True)
async def test_without_appendonly_a_restart_forgets_everything(redis_server: RedisServer) -> None:
    conn = await connect(redis_server)
    await conn.set("room:1:seq", "17")
    conn.close()
    redis_server.stop()
    redis_server.start()
    conn = await connect(redis_server)
    try:
        assert await conn.get("room:1:seq") is None
    finally:
        conn.close()


@pytest.mark.redis
async def test_open_connection_fails_while_down_and_recovers_after_restart(
    redis_server: RedisServer,
) -> None:
    conn = await connect(redis_server)
    try:
        await conn.set("room:1:seq", "3")
        redis_server.stop()
        with pytest.raises(SERVER_GONE):
            await conn.get("room:1:seq")
        redis_server.start()
        assert await once_reconnected(lambda: conn.get("room:1:seq")) == "3"
    finally:
        conn.close()


@pytest.mark.redis
async def test_transaction_applies_all_writes_and_watch_detects_a_conflict(
    redis_server: RedisServer,
) -> None:
    conn = await connect(redis_server)
    other = await connect(redis_server)
    try:
        transaction = await conn.multi()
        await transaction.set("room:1:seq", "1")
        await transaction.rpush("room:1:log", ["deal"])
        await transaction.exec()
        assert await conn.get("room:1:seq") == "1"

        transaction = await conn.multi(watch=["room:1:seq"])
        await other.set("room:1:seq", "2")
        await transaction.set("room:1:seq", "stale")
        with pytest.raises(asyncio_redis.TransactionError):
            await transaction.exec()
        assert await conn.get("room:1:seq") == "2"
    finally:
        conn.close()
        other.close()


@pytest.mark.redis
async def test_published_message_reaches_a_subscriber(redis_server: RedisServer) -> None:
    listener = await connect(redis_server)
    publisher = await connect(redis_server)
    try:
        subscription = await listener.start_subscribe()
        await subscription.subscribe(["room:1:events"])
        assert await publisher.publish("room:1:events", "seat 2 joined") == 1
        message = await asyncio.wait_for(subscription.next_published(), timeout=5)
        assert (message.channel, message.value) == ("room:1:events", "seat 2 joined")
    finally:
        listener.close()
        publisher.close()


@pytest.mark.redis
async def test_session_server_answers(redis_server_session: RedisServer) -> None:
    conn = await connect(redis_server_session)
    try:
        assert await conn.incr("test_redis_fixture:session-counter") >= 1
    finally:
        conn.close()


@pytest.mark.redis
def test_a_busy_port_gives_an_error_naming_the_port_and_cause(tmp_path: Path) -> None:
    with socket.socket() as squatter:
        squatter.bind(("127.0.0.1", 0))
        squatter.listen()
        port = squatter.getsockname()[1]
        server = RedisServer(tmp_path, port=port)
        with pytest.raises(RedisServerError, match=rf"(?s)port {port} exited.*in use"):
            server.start()
        assert not server.running


def test_missing_binary_fails_the_test_under_ci_and_skips_it_elsewhere(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("ALLFIVES_REDIS_SERVER", str(tmp_path / "no-redis-server-here"))
    monkeypatch.setenv("CI", "true")
    with pytest.raises(pytest.fail.Exception, match="redis-server could not be started"):
        start_for_test(tmp_path / "ci")
    monkeypatch.setenv("CI", "")
    with pytest.raises(pytest.skip.Exception, match="no-redis-server-here"):
        start_for_test(tmp_path / "local")
