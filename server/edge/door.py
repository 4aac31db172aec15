"""Who may come in now, as the network edge sees the server: starting, stopping or listening,
the WebSocket connections open, and behind a trusted proxy the connections of each address it
names. One `Door` is shared by the sessions, the HTTP side and the probes."""

from __future__ import annotations

import asyncio
from collections.abc import Callable
from typing import TYPE_CHECKING

from server.config import Limits
from server.play.budgets import PerAddress
from server.play.members import CLOSE_ROOM_CLOSED

if TYPE_CHECKING:
    from server.edge.connection import Connection


class Door:
    """The edge's view of the server's state; see the module docstring."""

    def __init__(self, limits: Limits) -> None:
        self.starting = False
        self.closing = False
        #: Whether the listening socket accepts connections (set once it listens).
        self.listening: Callable[[], bool] = lambda: False
        self.connections: set[Connection] = set()
        #: From a trusted proxy: WebSocket connections by the address the proxy names.
        self.named = PerAddress(limits.max_connections_per_ip)

    async def close_for_good(self, reason: str) -> None:
        """Close every connection with 4001 and `reason`, telling clients not to come back
        (waiting up to 2 s for their close frames)."""
        for connection in list(self.connections):
            connection.close(CLOSE_ROOM_CLOSED, reason)
        closers = [c.closer for c in self.connections if c.closer is not None]
        if closers:
            await asyncio.wait(closers, timeout=2.0)
