"""Liveness and readiness probes, and client addresses named by a trusted proxy."""

from __future__ import annotations

import asyncio
import logging
import os
import signal

import pytest
from redis_server import FaultProxy, RedisServer
from server_helpers import http_get
from waiting import until
from websockets.asyncio.client import connect
from websockets.exceptions import InvalidStatus
from ws_client_helpers import Client

from protocol import messages as msg
from server.app import Config, Server, run_server
from server.storage.redis_store import RedisStore

TIMEOUT = 0.4


async def probe(server: Server, path: str) -> tuple[int, str]:
    return await asyncio.to_thread(http_get, f"http://127.0.0.1:{server.port}{path}")


async def probe_until(server: Server, path: str, status: int, says: str = "") -> str:
    """Probe until the answer has this status (and says `says`; at most 10 s); its body."""

    async def answered() -> str:
        answer, body = await probe(server, path)
        return body if answer == status and says in body else ""  # "": not yet

    return await until(answered, 10.0, f"{path} to answer {status} {says!r}")


def redis_config(url: str) -> Config:
    return Config.of(
        port=0, bot_delay=0.0, bot_processes=False, store=RedisStore(url, timeout=TIMEOUT)
    )


async def test_a_memory_server_is_alive_and_ready() -> None:
    async with run_server(Config.of(port=0, bot_processes=False)) as server:
        assert await probe(server, "/healthz") == (200, "ok\n")
        assert await probe(server, "/readyz") == (200, "ready\n")


@pytest.mark.redis
async def test_a_server_is_not_ready_while_redis_is_stopped_or_stalled(
    redis_server: RedisServer,
) -> None:
    async with run_server(redis_config(redis_server.url)) as server:
        assert await probe(server, "/readyz") == (200, "ready\n")
        redis_server.stop()
        await probe_until(server, "/readyz", 503, "store unavailable")
        assert await probe(server, "/healthz") == (200, "ok\n")
        # Still alive, and still taking players' connections (their commands get `unavailable`,
        # hello too: whether a name belongs to a player is in the store).
        client = await Client.open(server.url, "Ann", hello=False)
        refused = await client.error_for("hello", version=msg.PROTOCOL_VERSION, name="Ann")
        assert refused.code == "unavailable"
        assert isinstance(await client.request("ping"), msg.Pong)
        await client.close()
        redis_server.start()
        assert await probe_until(server, "/readyz", 200) == "ready\n"

        assert redis_server._process is not None
        os.kill(redis_server._process.pid, signal.SIGSTOP)
        try:
            await probe_until(server, "/readyz", 503, "store unavailable")
            assert await probe(server, "/healthz") == (200, "ok\n")
        finally:
            os.kill(redis_server._process.pid, signal.SIGCONT)
        await probe_until(server, "/readyz", 200)


@pytest.mark.redis
async def test_a_server_is_not_ready_while_it_starts(redis_server: RedisServer) -> None:
    proxy = FaultProxy(redis_server)
    await proxy.start()
    config = redis_config(proxy.url)
    config.store = RedisStore(proxy.url, timeout=5.0)
    server = Server(config)
    proxy.hold_replies = True  # joining the other processes waits on Redis
    starting = asyncio.get_running_loop().create_task(server.start())
    try:

        def listening() -> bool:
            assert not starting.done(), starting
            return server.websocket_server is not None

        await until(listening, what="the server to listen")
        status, body = await probe(server, "/readyz")
        assert status == 503 and "starting" in body
        with pytest.raises(InvalidStatus) as refused:
            await connect(server.url)
        assert refused.value.response.status_code == 503
        assert await probe(server, "/healthz") == (200, "ok\n")
    finally:
        proxy.release()
        with pytest.raises(Exception):  # noqa: B017 - it either failed or started
            await starting
            raise RuntimeError("started")
        await server.stop()
        await proxy.close()


async def test_a_server_that_is_stopping_is_not_ready() -> None:
    server = Server(Config.of(port=0, bot_processes=False))
    await server.start()
    server.door.closing = True  # what stop() sets first, before closing connections
    try:
        status, body = await probe(server, "/readyz")
        assert status == 503 and "stopping" in body
        assert await probe(server, "/healthz") == (200, "ok\n")
    finally:
        await server.stop()


async def test_behind_a_trusted_proxy_an_address_that_is_not_one_is_ignored(
    caplog: pytest.LogCaptureFixture,
) -> None:
    caplog.set_level(logging.INFO, "allfives")
    config = Config.of(port=0, bot_processes=False, trust_proxy=True, max_connections_per_ip=1)
    async with run_server(config) as server:
        # "<script>" is no address: the socket's own (127.0.0.1) is counted instead.
        odd = await connect(server.url, additional_headers={"X-Real-IP": "<script>"})
        with pytest.raises(InvalidStatus) as refused:
            await connect(server.url)
        assert refused.value.response.status_code == 429
        await odd.close()
        named = await Client.open(server.url, "Ann", hello=False)
        await named.close()
        spoofed = await connect(
            server.url, additional_headers={"X-Forwarded-For": "10.0.0.1, ::1 "}
        )
        other = await connect(server.url, additional_headers={"X-Real-IP": "203.0.113.9"})
        await spoofed.close()
        await other.close()
        client = Client(
            await connect(server.url, additional_headers={"X-Real-IP": "<b>hi</b>"}), "Ann"
        )
        assert isinstance(
            await client.request("hello", version=msg.PROTOCOL_VERSION, name="Ann"), msg.Welcome
        )
        assert isinstance(await client.request("create_room", rules={"players": 2}), msg.Joined)
        await client.close()
    assert "created by 127.0.0.1" in caplog.text
    assert "<script>" not in caplog.text and "<b>" not in caplog.text


@pytest.mark.redis
async def test_readiness_answers_at_once_while_redis_stalls(redis_server: RedisServer) -> None:
    async with run_server(redis_config(redis_server.url)) as server:
        assert redis_server._process is not None
        os.kill(redis_server._process.pid, signal.SIGSTOP)
        loop = asyncio.get_running_loop()
        slowest = 0.0

        async def unavailable() -> int | None:
            nonlocal slowest
            asked = loop.time()
            status, body = await probe(server, "/readyz")
            slowest = max(slowest, loop.time() - asked)
            return status if "store unavailable" in body else None

        try:
            status = await until(unavailable, 10, "/readyz to say the store is unavailable")
            assert status == 503
        finally:
            os.kill(redis_server._process.pid, signal.SIGCONT)
        # A 1 s probe timeout sees a 503 (from what the server last saw), never a time-out.
        assert slowest < 0.25, slowest
        await probe_until(server, "/readyz", 200)
