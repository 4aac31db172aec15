"""Room notices: what one process hears of the changes other processes store (`server.cluster.membership`).

Each process listens on its own channel, `allfives:<DB>:process:<NAME>`, on a connection of its
own (`NoticeChannel`). A notice is `CODE SEQ VERSION PARENT\\nEVENTS-JSON\\nSTATE`; when the
change was one move, `CODE SEQ VERSION PARENT move\\nEVENTS-JSON\\nMOVE`; `CODE gone` when the
room was deleted. A process checks that its subscription works by publishing marks
(`mark TOKEN`) to itself until one comes back.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import secrets
from collections.abc import Callable
from typing import Any, NamedTuple

import asyncio_redis

from server.storage.redis_link import open_connection
from server.storage.redis_store import RedisStore
from server.storage.store import StoreUnavailable

log = logging.getLogger("allfives.cluster")

#: The seq of a notice that says a room was deleted.
GONE = -1


class Notice(NamedTuple):
    """A room change another process stored, read from this process's channel."""

    code: str
    seq: int
    version: str
    parent: str
    events: bytes
    #: The room's new state, or (`move` true) the one move that made it from the parent.
    state: bytes
    move: bool = False


def read_notice(data: bytes) -> Notice | None:
    """A notice from its bytes (seq GONE for a deleted room), None if it is not one."""
    head, _, rest = data.partition(b"\n")
    parts = head.split(b" ")
    if len(parts) == 2 and parts[1] == b"gone":
        return Notice(parts[0].decode(), GONE, "", "", b"", b"")
    move = len(parts) == 5 and parts[4] == b"move"
    if not (len(parts) == 4 or move) or not parts[1].isdigit():
        return None
    events, _, state = rest.partition(b"\n")
    code, seq, version, parent = (part.decode() for part in parts[:4])
    return Notice(code, int(seq), version, parent, events, state, move)


class NoticeChannel:
    """This process's channel: `on_notice` gets each notice's bytes."""

    def __init__(self, store: RedisStore, channel: bytes) -> None:
        self.store = store
        self.channel = channel
        self.on_notice: Callable[[bytes], None] = lambda data: None
        self.connection: asyncio_redis.Connection | None = None
        self._listening: asyncio.Task[None] | None = None
        self._marks: dict[bytes, asyncio.Future[None]] = {}

    @property
    def subscribed(self) -> bool:
        """Whether the notice connection is open."""
        connection = self.connection
        return connection is not None and connection.protocol.is_connected

    async def subscribe(self) -> None:
        """(Re)open the notice connection, subscribe to this process's channel, check it works."""
        self.close()
        address = self.store.address
        timeout = self.store.timeout
        try:
            connection = await asyncio.wait_for(open_connection(address), timeout)
        except (OSError, TimeoutError, asyncio_redis.Error) as error:
            raise StoreUnavailable(f"cannot subscribe to room notices: {error}") from None
        self.connection = connection
        try:
            if address.password:
                await asyncio.wait_for(connection.auth(address.password.encode()), timeout)
            subscription = await connection.start_subscribe()
            await subscription.subscribe([self.channel])
            self._listening = asyncio.get_running_loop().create_task(self._listen(subscription))
            await self._check_subscription(timeout)
        except (OSError, TimeoutError, asyncio_redis.Error, asyncio_redis.ErrorReply) as error:
            self.close()
            raise StoreUnavailable(f"cannot subscribe to room notices: {error}") from None

    async def keep_subscribed(self) -> None:
        """Check that the notice connection works (a mark comes back); else open it again."""
        if self.subscribed:
            try:
                await self._check_subscription(self.store.timeout)
            except TimeoutError:
                log.warning("room notices stopped arriving; subscribing again")
            else:
                return
        await self.subscribe()

    async def _check_subscription(self, timeout: float) -> None:
        """Publish marks until one comes back on the notice connection (the subscription is on).

        The subscription is sent on another connection than the marks, so the first marks may
        reach Redis before it.
        """
        token = secrets.token_hex(8).encode()
        loop = asyncio.get_running_loop()
        arrived: asyncio.Future[None] = loop.create_future()
        self._marks[token] = arrived
        deadline = loop.time() + timeout
        channel = self.channel
        try:
            while not arrived.done():
                if loop.time() > deadline:
                    raise TimeoutError(f"no notice came back within {timeout:g}s")
                await self.store.link.call(
                    "check the subscription", lambda c: c.publish(channel, b"mark " + token)
                )
                with contextlib.suppress(TimeoutError):
                    await asyncio.wait_for(asyncio.shield(arrived), 0.05)
        finally:
            self._marks.pop(token, None)

    async def _listen(self, subscription: Any) -> None:
        while True:
            reply = await subscription.next_published()
            data: bytes = reply.value
            if data.startswith(b"mark "):
                mark = self._marks.get(data[5:])
                if mark is not None and not mark.done():
                    mark.set_result(None)
                continue
            try:
                self.on_notice(data)
            except Exception:
                log.exception("a room notice could not be handled")

    def close(self) -> None:
        """Stop listening and close the connection."""
        if self._listening is not None:
            self._listening.cancel()
            self._listening = None
        if self.connection is not None:
            transport = self.connection.protocol.transport
            self.connection.close()
            if transport is not None:
                transport.abort()
            self.connection = None


__all__ = ["GONE", "Notice", "NoticeChannel", "read_notice"]
