"""Every TCP connection counted from the moment it is accepted until it closes.

The connection limits (`max_connections` in all, `max_connections_per_ip` per address) would be
easy to slip past if they counted only WebSocket connections: a client that opens sockets and
never finishes its HTTP upgrade would hold one each until the handshake timeout. So `Gate`
counts at accept, before a byte is read, and a socket over a limit is answered at once (503 for
the server, 429 for its address) and closed. Upgrades in flight, page requests and WebSocket
connections all count.

A trusted proxy's sockets (`trust_proxy`) all come from the proxy, so only the total counts them
here; the address the proxy names is counted once its request is read (`server.edge.http`), and the
proxy itself bounds the upgrades it has not passed on yet.

Each connection's `server.edge.wire.Wire` asks the gate at accept, and puts itself on the
keepalive wheel (`server.edge.keepalive`) once upgraded. The gate is the one count of the
connections: the sockets open (`wires`, each with its WebSocket connection once upgraded), by
peer address, and behind a trusted proxy by the address it names (`named`).
"""

from __future__ import annotations

from typing import Any, Protocol

from server.config import Limits, Network
from server.edge.keepalive import Keepalive
from server.edge.web import security_headers
from server.metrics import Metrics
from server.play.budgets import PerAddress


class Socket(Protocol):
    """An accepted socket, as the gate counts it (`server.edge.wire.Wire`)."""

    #: Its peer's address.
    address: str
    #: Its WebSocket connection once upgraded (`server.edge.connection.Connection`), else None.
    connection: Any

    def close(self, code: int, reason: str) -> None:
        """Start the WebSocket close handshake."""
        ...

    def abort(self) -> None:
        """Drop the socket now."""
        ...


class Gate:
    """The sockets open now, in all and by address; see the module docstring."""

    def __init__(self, network: Network, limits: Limits, metrics: Metrics) -> None:
        self.network = network
        self.limits = limits
        self.metrics = metrics
        #: Every socket admitted and not yet closed.
        self.wires: set[Socket] = set()
        self.per_address = PerAddress(limits.max_connections_per_ip)
        #: From a trusted proxy: WebSocket connections by the address the proxy names.
        self.named = PerAddress(limits.max_connections_per_ip)
        self.keepalive = Keepalive(network.ping_interval)

    @property
    def open(self) -> int:
        """How many sockets are open."""
        return len(self.wires)

    def connections(self) -> list[Any]:
        """The WebSocket connections open now (`server.edge.connection.Connection`s)."""
        return [wire.connection for wire in self.wires if wire.connection is not None]

    def refusal(self, address: str) -> bytes | None:
        """The HTTP response that turns a new socket from `address` away, or None to admit it."""
        limits = self.limits
        if self.open >= limits.max_connections:
            self.metrics.errors["server_full"] += 1
            return _response(
                "503 Service Unavailable",
                f"the server is full ({limits.max_connections} connections): try again later\n",
            )
        if not self.network.trusts(address) and self.per_address.full(address):
            self.metrics.errors["too_many_connections"] += 1
            return _response(
                "429 Too Many Requests",
                f"at most {limits.max_connections_per_ip} connections per address\n",
            )
        return None

    def admit(self, wire: Socket) -> None:
        """Count a socket."""
        self.wires.add(wire)
        if not self.network.trusts(wire.address):
            self.per_address.add(wire.address)

    def release(self, wire: Socket) -> None:
        """A counted socket closed."""
        if wire not in self.wires:
            return
        self.wires.discard(wire)
        if not self.network.trusts(wire.address):
            self.per_address.remove(wire.address)


def _response(status: str, text: str) -> bytes:
    body = text.encode()
    extra = "".join(
        f"{name}: {value}\r\n" for name, value in security_headers(None) if name != "Cache-Control"
    )
    head = (
        f"HTTP/1.1 {status}\r\nContent-Type: text/plain; charset=utf-8\r\n"
        f"Content-Length: {len(body)}\r\nCache-Control: no-store\r\n{extra}"
        "Connection: close\r\n\r\n"
    )
    return head.encode() + body
