"""websockets' server connection with less held per connection (`LeanConnection`).

A server with thousands of connections holds thousands of these, and most of what each one
holds waits for something that seldom happens. The same behaviour, with:

- **drain waiters made when first needed:** websockets makes a deque (760 bytes) for the
  futures that wait for a paused write buffer; most connections never pause.
- **incoming frames in a list:** the queue of frames between the parser and `recv` holds at most
  `max_queue` frames, nearly always none or one; an empty list is 56 bytes, a deque 760.
- **one logger adapter for all:** websockets wraps its logger in an adapter per connection that
  names it (with a weak proxy) for log formats that ask; the server's do not. It logs to
  `WEBSOCKETS_LOG`, which drops websockets' DEBUG lines (they hold frames and headers, so keys).

Only what websockets exposes as attributes is replaced, with objects that do what it asks of
them (tests/server/test_server_lean.py holds them to it); if a later websockets stops using one, it is
simply unused.
"""

from __future__ import annotations

import asyncio
import collections
import logging
from collections.abc import Iterable
from typing import Any, TypeVar

from websockets.asyncio.server import ServerConnection

T = TypeVar("T")


class _NoDebug(logging.Filter):
    """Drops the websockets library's DEBUG lines: they hold every frame and header, and so
    player keys (`hello`, `Authorization`), which are never logged (docs/security.md)."""

    def filter(self, record: logging.LogRecord) -> bool:
        return record.levelno > logging.DEBUG


#: The logger the websockets library logs the server's connections to.
WEBSOCKETS_LOG = logging.getLogger("allfives.websockets")
WEBSOCKETS_LOG.addFilter(_NoDebug())

#: The one adapter every connection logs through (to `WEBSOCKETS_LOG`, so without DEBUG lines).
SHARED_LOGGER = logging.LoggerAdapter(WEBSOCKETS_LOG, {})


class FrameQueue(list[T]):
    """The few methods of a deque that websockets' frame queue uses, on a list (short queues)."""

    __slots__ = ()

    def popleft(self) -> T:
        """Take the oldest item."""
        return self.pop(0)

    def extendleft(self, items: Iterable[T]) -> None:
        """Put items at the front, each before the one put before it (as a deque does)."""
        self[0:0] = reversed(list(items))


class LeanConnection(ServerConnection):
    """A `ServerConnection` that holds less; see the module docstring."""

    _waiters: collections.deque[asyncio.Future[None]] | None = None

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self.logger = self.protocol.logger = SHARED_LOGGER

    @property
    def drain_waiters(self) -> collections.deque[asyncio.Future[None]]:
        """Futures waiting for a paused write buffer to drain (websockets' `drain`)."""
        if self._waiters is None:
            self._waiters = collections.deque()
        return self._waiters

    @drain_waiters.setter
    def drain_waiters(self, waiters: collections.deque[asyncio.Future[None]]) -> None:
        if waiters or self._waiters is not None:
            self._waiters = waiters

    def connection_made(self, transport: asyncio.BaseTransport) -> None:
        super().connection_made(transport)
        frames = self.recv_messages.frames
        if not frames.queue:
            frames.queue = FrameQueue()  # type: ignore[assignment]


__all__ = ["SHARED_LOGGER", "WEBSOCKETS_LOG", "FrameQueue", "LeanConnection"]
