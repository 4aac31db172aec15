"""Who may come in now, as the network edge sees the server: starting, stopping or listening,
the WebSocket connections open, and behind a trusted proxy the connections of each address it
names. One `Door` is shared by the sessions, the HTTP side and the probes."""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING

from server.config import Config
from server.rooms.limits import PerAddress

if TYPE_CHECKING:
    from server.edge.connection import Connection


class Door:
    """The edge's view of the server's state; see the module docstring."""

    def __init__(self, config: Config) -> None:
        self.starting = False
        self.closing = False
        #: Whether the listening socket accepts connections (set once it listens).
        self.listening: Callable[[], bool] = lambda: False
        self.connections: set[Connection] = set()
        #: From a trusted proxy: WebSocket connections by the address the proxy names.
        self.named = PerAddress(config.max_connections_per_ip)
