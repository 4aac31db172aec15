"""Who may come in now, as the network edge sees the server: starting, stopping or listening,
and the WebSocket connections open (as the gate counts them, `server.edge.gate`). One `Door` is
shared by the sessions, the HTTP side and the probes."""

from __future__ import annotations

import asyncio
from collections.abc import Callable
from typing import TYPE_CHECKING

from server.edge.gate import Gate
from server.play.budgets import PerAddress
from server.play.members import CLOSE_ROOM_CLOSED

if TYPE_CHECKING:
    from server.edge.connection import Connection


class Door:
    """The edge's view of the server's state; see the module docstring."""

    def __init__(self, gate: Gate) -> None:
        self.gate = gate
        self.starting = False
        self.closing = False
        #: Whether the listening socket accepts connections (set once it listens).
        self.listening: Callable[[], bool] = lambda: False

    @property
    def connections(self) -> list[Connection]:
        """The WebSocket connections open now."""
        return self.gate.connections()

    @property
    def named(self) -> PerAddress:
        """From a trusted proxy: WebSocket connections by the address the proxy names."""
        return self.gate.named

    async def close_for_good(self, reason: str) -> None:
        """Close every connection with 4001 and `reason`, telling clients not to come back
        (waiting up to 2 s for their close frames)."""
        connections = self.connections
        for connection in connections:
            connection.close(CLOSE_ROOM_CLOSED, reason)
        closers = [c.closer for c in connections if c.closer is not None]
        if closers:
            await asyncio.wait(closers, timeout=2.0)
