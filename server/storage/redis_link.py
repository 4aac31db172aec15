"""The connection to Redis that `RedisStore` and everything on it (the ledger, the cluster's
rooms, the tournaments) send their calls through: `RedisLink.call`.

Every call is bounded by `timeout` seconds (a watchdog drops a connection whose calls wait that
long), and a stall, a lost connection or an error reply raises `StoreUnavailable`, never hangs.
A call that was sent but got no answer raises it with `in_doubt` set: Redis may have applied
it. A lost connection is re-opened in the background with a short backoff (`RETRY_FIRST`
doubling up to `RETRY_MAX` seconds), so the server recovers on its own once Redis is back.
`redis_ms` is Redis's clock, measured on each new connection. The Redis URL (`parse_url`) and
the scripts' calling convention (`run_script`) live here too.
"""

from __future__ import annotations

import asyncio
import contextlib
import functools
import hashlib
import logging
import time
from collections.abc import Awaitable, Callable
from dataclasses import dataclass
from typing import Any, TypeVar
from urllib.parse import unquote, urlsplit

import asyncio_redis
from asyncio_redis.encoders import BytesEncoder
from asyncio_redis.protocol import RedisProtocol

from server.storage.store import StoreUnavailable

log = logging.getLogger("allfives.store")
# asyncio_redis logs every connection attempt at INFO; this module logs what matters itself.
logging.getLogger("asyncio_redis").setLevel(logging.WARNING)

T = TypeVar("T")

DEFAULT_TIMEOUT = 2.0
RETRY_FIRST = 0.05
RETRY_MAX = 1.0
#: What asyncio_redis raises for an error reply (ErrorReply is not an asyncio_redis.Error).
REDIS_ERRORS = (asyncio_redis.Error, asyncio_redis.ErrorReply)


#: Returns Redis's clock in microseconds.
TIME = "local t = redis.call('TIME') return tonumber(t[1]) * 1000000 + tonumber(t[2])"


async def run_script(
    connection: asyncio_redis.Connection, source: str, keys: list[bytes], args: list[bytes]
) -> Any:
    """Run a Lua script by its SHA-1, loading it first if Redis does not know it; its answer."""
    sha = _sha(source)
    try:
        reply = await connection.evalsha(sha, keys, args)
    except asyncio_redis.ScriptKilledError as error:
        # Any error reply: after a Redis restart, NOSCRIPT. Load it and try once more.
        if not error_text(error).startswith("NOSCRIPT"):
            raise
        await connection.script_load(source)
        reply = await connection.evalsha(sha, keys, args)
    return await reply.return_value()


@functools.cache
def _sha(source: str) -> str:
    return hashlib.sha1(source.encode()).hexdigest()


def error_text(error: BaseException) -> str:
    """What Redis said in an error reply (asyncio_redis hides it behind ScriptKilledError)."""
    seen: BaseException | None = error
    while seen is not None:
        if isinstance(seen, asyncio_redis.ErrorReply) and str(seen):
            return str(seen)
        seen = seen.__context__
    return str(error) or type(error).__name__


@dataclass(frozen=True)
class RedisAddress:
    """Where Redis is: host, port, database number and password, from a redis:// URL."""

    host: str
    port: int
    db: int = 0
    password: str | None = None

    def __str__(self) -> str:
        return f"redis://{self.host}:{self.port}/{self.db}"


def parse_url(url: str) -> RedisAddress:
    """Read `redis://[:password@]host[:port][/db]`; ValueError with the reason otherwise."""
    parts = urlsplit(url.strip())
    if parts.scheme != "redis":
        raise ValueError(f"a Redis URL looks like redis://host:6379/0, not {url!r}")
    try:
        port = parts.port or 6379
    except ValueError:
        raise ValueError(f"the port of {url!r} is not a number from 1 to 65535") from None
    path = parts.path.strip("/")
    if path and not path.isdigit():
        raise ValueError(f"the database of {url!r} must be a number, like /0")
    return RedisAddress(
        host=parts.hostname or "localhost",
        port=port,
        db=int(path or 0),
        password=unquote(parts.password) if parts.password else None,
    )


class RedisLink:
    """One connection to Redis, re-opened when lost, its calls bounded (module docstring)."""

    def __init__(self, address: RedisAddress, timeout: float = DEFAULT_TIMEOUT) -> None:
        self.address = address
        self.timeout = timeout
        self._connection: asyncio_redis.Connection | None = None
        self._clock = 0.0
        self._connecting: asyncio.Task[None] | None = None
        self._attempted: asyncio.Future[None] | None = None
        self._watching: asyncio.Task[None] | None = None
        self._waiting = 0
        self._answered = 0.0
        self._stalled: asyncio_redis.Connection | None = None
        self._failure = "no connection yet"
        self._closed = False

    @property
    def connection(self) -> asyncio_redis.Connection | None:
        """The connection held now (None: none open)."""
        return self._connection

    async def close(self) -> None:
        """Close the connection and stop reconnecting."""
        self._closed = True
        for task in (self._connecting, self._watching):
            if task is not None:
                task.cancel()
        if self._connection is not None:
            self._connection.close()
            self._connection = None

    @property
    def connected(self) -> bool:
        """Whether a connection to Redis is open right now."""
        connection = self._connection
        return connection is not None and connection.protocol.is_connected

    def redis_ms(self) -> int:
        """Redis's clock now, in milliseconds (from this machine's and the measured offset)."""
        return int((time.time() + self._clock) * 1000)

    async def call(
        self, what: str, operation: Callable[[asyncio_redis.Connection], Awaitable[T]]
    ) -> T:
        """Run one operation on the connection; StoreUnavailable if it fails or stalls.

        Rather than a timer per call, `_watch` drops the connection when calls have waited
        `timeout` seconds with no answer: replies come in order on it, so all are stuck then.
        """
        connection = await self._connection_now()
        loop = asyncio.get_running_loop()
        if not self._waiting:
            self._answered = loop.time()
        self._waiting += 1
        try:
            result = await operation(connection)
        except asyncio_redis.NotConnectedError:
            # Sent, never answered: Redis may have applied it.
            if self._stalled is connection:
                raise StoreUnavailable(
                    f"Redis did not answer within {self.timeout:g}s", in_doubt=True
                ) from None
            self._drop(connection, f"connection lost during {what}")
            raise StoreUnavailable(
                f"the connection to Redis was lost during {what}", in_doubt=True
            ) from None
        except REDIS_ERRORS as error:
            self._answered = loop.time()
            raise StoreUnavailable(f"Redis refused to {what}: {error_text(error)}") from None
        finally:
            self._waiting -= 1
        self._answered = loop.time()
        return result

    async def _watch(self) -> None:
        """Drop a connection on which calls have waited `timeout` seconds without an answer."""
        loop = asyncio.get_running_loop()
        while not self._closed:
            await asyncio.sleep(self.timeout / 8)
            connection = self._connection
            if (
                connection is not None
                and self._waiting
                and loop.time() - self._answered > self.timeout
            ):
                self._stalled = connection
                self._drop(connection, f"no answer within {self.timeout:g}s")

    async def _connection_now(self) -> asyncio_redis.Connection:
        """The open connection; waits for a first attempt to open one, fails fast after that."""
        if self._closed:
            raise StoreUnavailable("the store is closed")
        connection = self._connection
        if connection is not None and connection.protocol.is_connected:
            return connection
        if connection is not None:
            self._drop(connection, "connection lost")
        attempted = self._reconnect()
        if not attempted.done():
            # The first attempt since the connection was lost (or ever) is worth waiting for.
            with contextlib.suppress(TimeoutError):
                await asyncio.wait_for(asyncio.shield(attempted), self.timeout)
        connection = self._connection
        if connection is None:
            raise StoreUnavailable(f"Redis at {self.address} cannot be reached: {self._failure}")
        return connection

    def _drop(self, connection: asyncio_redis.Connection, reason: str) -> None:
        """Close a connection that failed at once (its waiting calls fail); reopen on next use."""
        if self._connection is connection:
            log.warning("Redis at %s: %s; reconnecting", self.address, reason)
            self._connection = None
        transport = connection.protocol.transport
        connection.close()
        if transport is not None:
            transport.abort()

    def _reconnect(self) -> asyncio.Future[None]:
        """Start opening a connection in the background unless under way; its first attempt."""
        if self._watching is None:
            self._watching = asyncio.get_running_loop().create_task(self._watch())
        if self._connecting is None or self._connecting.done():
            loop = asyncio.get_running_loop()
            self._attempted = loop.create_future()
            self._connecting = loop.create_task(self._keep_trying(self._attempted))
        assert self._attempted is not None
        return self._attempted

    async def _keep_trying(self, attempted: asyncio.Future[None]) -> None:
        """Open a connection, retrying with a short capped backoff until it works or we close."""
        delay = RETRY_FIRST
        failures = 0
        try:
            while not self._closed:
                try:
                    connection = await asyncio.wait_for(self._open(), self.timeout)
                except (OSError, TimeoutError, *REDIS_ERRORS) as error:
                    self._failure = error_text(error)
                    if not failures:
                        log.warning(
                            "Redis at %s cannot be reached (%s); retrying",
                            self.address,
                            self._failure,
                        )
                    failures += 1
                    _settle(attempted)
                    await asyncio.sleep(delay)
                    delay = min(RETRY_MAX, delay * 2)
                    continue
                if self._closed:
                    connection.close()
                    return
                if failures:
                    log.info("Redis at %s is back", self.address)
                self._connection = connection
                return
        finally:
            _settle(attempted)

    async def _open(self) -> asyncio_redis.Connection:
        """A new connection, logged in, on the right database, with the save script loaded."""
        connection = await open_connection(self.address)
        try:
            # Done here rather than by asyncio_redis, which does it in a task that commands
            # sent right after connecting may overtake.
            if self.address.password:
                await connection.auth(self.address.password.encode())
            if self.address.db:
                await connection.select(self.address.db)
            self._clock = await _clock_offset(connection)
        except BaseException:
            connection.close()
            raise
        return connection


async def open_connection(address: RedisAddress) -> asyncio_redis.Connection:
    """A new connection to Redis at `address` (not logged in, on database 0), bytes in and out,
    which asyncio_redis does not re-open on its own (its owner does)."""
    return await asyncio_redis.Connection.create(
        host=address.host,
        port=address.port,
        db=0,
        encoder=BytesEncoder(),
        auto_reconnect=False,
        # Its per-call argument type checks cost more than the rest of a save.
        protocol_class=functools.partial(RedisProtocol, enable_typechecking=False),
    )


async def _clock_offset(connection: asyncio_redis.Connection) -> float:
    """How far Redis's clock is ahead of this machine's, in seconds (within half a round trip)."""
    await connection.script_load(TIME)
    before = time.time()
    micros = await run_script(connection, TIME, [], [])
    after = time.time()
    return int(micros) / 1e6 - (before + after) / 2


def _settle(future: asyncio.Future[None]) -> None:
    """Mark an attempt as made (once)."""
    if not future.done():
        future.set_result(None)


__all__ = [
    "RedisAddress",
    "RedisLink",
    "error_text",
    "open_connection",
    "parse_url",
    "run_script",
]
