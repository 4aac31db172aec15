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

The same connection class puts each open connection on the keepalive wheel
(`server.edge.keepalive`) in place of websockets' task per connection; it is websockets'
connection with less held for each (`server.edge.lean`).
"""

from __future__ import annotations

import asyncio
import logging

from websockets.asyncio.server import ServerConnection
from websockets.frames import CloseCode
from websockets.protocol import State

from server.config import Config
from server.edge.keepalive import DROP_SECONDS, Beat, Keepalive
from server.edge.lean import LeanConnection
from server.edge.web import security_headers
from server.metrics import Metrics
from server.rooms.limits import PerAddress

log = logging.getLogger("allfives.server")

#: How long a turned-away socket may stay before it is dropped (its answer is sent at once).
REFUSED_SECONDS = 1.0


class Gate:
    """The sockets open now, in all and by peer address; see the module docstring."""

    def __init__(self, config: Config, metrics: Metrics) -> None:
        self.config = config
        self.metrics = metrics
        self.open = 0
        self.per_address = PerAddress(config.max_connections_per_ip)
        self.keepalive = Keepalive(config.ping_interval)

    def refusal(self, address: str) -> bytes | None:
        """The HTTP response that turns a new socket from `address` away, or None to admit it."""
        config = self.config
        if self.open >= config.max_connections:
            self.metrics.errors["server_full"] += 1
            return _response(
                "503 Service Unavailable",
                f"the server is full ({config.max_connections} connections): try again later\n",
            )
        if not config.trusts(address) and self.per_address.full(address):
            self.metrics.errors["too_many_connections"] += 1
            return _response(
                "429 Too Many Requests",
                f"at most {config.max_connections_per_ip} connections per address\n",
            )
        return None

    def admit(self, address: str) -> None:
        """Count a socket from `address`."""
        self.open += 1
        if not self.config.trusts(address):
            self.per_address.add(address)

    def release(self, address: str) -> None:
        """A counted socket closed."""
        self.open -= 1
        if not self.config.trusts(address):
            self.per_address.remove(address)

    def connection_class(self) -> type[ServerConnection]:
        """The websockets connection class whose sockets this gate counts."""
        gate = self
        keepalive = self.keepalive

        class GatedConnection(LeanConnection):
            counted: str | None = None
            refused: asyncio.TimerHandle | None = None
            #: Its place on the keepalive wheel, once open.
            beat: Beat | None = None

            def start_keepalive(self) -> None:
                self.beat = keepalive.add(self)  # websockets calls this after the handshake

            def ping_now(self) -> bool:
                if self.protocol.state is not State.OPEN:
                    return False
                self.protocol.send_ping(b"")
                self.send_data()
                return True

            def expire(self) -> None:
                log.info("dropped %s: no answer to a keepalive ping", self.counted)
                if self.protocol.state is State.OPEN:
                    self.protocol.fail(CloseCode.INTERNAL_ERROR, "keepalive ping timeout")
                    self.send_data()
                self.loop.call_later(DROP_SECONDS, self.transport.abort)

            def connection_made(self, transport: asyncio.BaseTransport) -> None:
                peer = transport.get_extra_info("peername")
                address = str(peer[0]) if peer else "unknown"
                refusal = gate.refusal(address)
                if refusal is None:
                    gate.admit(address)
                    self.counted = address
                    super().connection_made(transport)
                    return
                # Answered and half-closed at once, never handed to websockets; the socket is
                # dropped when the client has closed its side, or after REFUSED_SECONDS.
                assert isinstance(transport, asyncio.WriteTransport)
                transport.write(refusal)
                transport.write_eof()
                self.refused = asyncio.get_running_loop().call_later(
                    REFUSED_SECONDS, transport.abort
                )

            def data_received(self, data: bytes) -> None:
                if self.refused is None:
                    if self.beat is not None:
                        self.beat.heard = keepalive.turns
                    super().data_received(data)

            def eof_received(self) -> None:
                if self.refused is None:
                    super().eof_received()

            def pause_writing(self) -> None:
                if self.refused is None:
                    super().pause_writing()

            def resume_writing(self) -> None:
                if self.refused is None:
                    super().resume_writing()

            def connection_lost(self, exc: Exception | None) -> None:
                if self.refused is not None:
                    self.refused.cancel()
                    return
                if self.counted is not None:
                    gate.release(self.counted)
                    self.counted = None
                if self.beat is not None:
                    keepalive.remove(self.beat)
                    self.beat = None  # it holds the connection: no cycle left to collect
                super().connection_lost(exc)

        return GatedConnection


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
