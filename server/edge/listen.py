"""The listening socket: `listen` starts it, with a `Wire` (`server.edge.wire`) per connection.

`Listener` is what `server.app` holds: its `sockets`, `is_serving`, and `close` /
`wait_closed`, which close every open WebSocket with 1001 (going away) and wait for the
sessions to finish. It builds each connection's `ServerProtocol` (origins, the size limit,
compression when configured) and passes the HTTP request to the HTTP side
(`server.edge.http`); each `Wire` hands its WebSocket connection, its messages and its end to
the session (`server.edge.session`) itself. The sockets are counted by the gate alone.
"""

from __future__ import annotations

import asyncio
import ssl
from collections.abc import Awaitable, Callable, Coroutine
from typing import Any

from websockets.extensions.permessage_deflate import enable_server_permessage_deflate
from websockets.frames import CloseCode
from websockets.http11 import Request, Response
from websockets.server import ServerProtocol

from server.config import Network
from server.edge.gate import Gate
from server.edge.limits import allowed_origins
from server.edge.session import Sessions
from server.edge.wire import WEBSOCKETS_LOG, Answer, Wire

#: How long a stopping server waits for its connections' close handshakes.
CLOSING_SECONDS = 10.0


class Listener:
    """The port and its connections; see the module docstring."""

    def __init__(
        self,
        network: Network,
        max_size: int,
        gate: Gate,
        sessions: Sessions,
        answer: Answer,
        responded: Callable[[Wire, Request, Response], None],
        server_header: str,
    ) -> None:
        #: The largest frame a connection may send (`max_size`).
        self.max_size = max_size
        self.gate = gate
        self.sessions = sessions
        self._answer = answer
        self._responded = responded
        self.server_header = server_header
        self.origins = allowed_origins(network.allowed_origin)
        self.extensions = enable_server_permessage_deflate(None) if network.compression else None
        self.closed = False
        self.server: asyncio.Server | None = None
        self._tasks: set[asyncio.Task[Any]] = set()

    # -- what server.app uses ---------------------------------------------------------------

    @property
    def sockets(self) -> tuple[Any, ...]:
        """The listening sockets."""
        return () if self.server is None else tuple(self.server.sockets)

    def is_serving(self) -> bool:
        """Whether new connections are accepted."""
        return self.server is not None and self.server.is_serving()

    def close(self) -> None:
        """Stop listening; close every WebSocket with 1001, drop sockets not upgraded."""
        self.closed = True
        if self.server is not None:
            self.server.close()
        for wire in list(self.gate.wires):
            if wire.connection is not None:
                wire.close(CloseCode.GOING_AWAY, "")
            else:
                wire.abort()

    async def wait_closed(self) -> None:
        """Wait for the connections to close and their sessions to end."""
        loop = asyncio.get_running_loop()
        deadline = loop.time() + CLOSING_SECONDS
        while self.gate.wires and loop.time() < deadline:
            await asyncio.sleep(0.01)
        for wire in list(self.gate.wires):
            wire.abort()
        while self._tasks or self.sessions.tasks:
            await asyncio.gather(*self._tasks, *self.sessions.tasks, return_exceptions=True)
        if self.server is not None:
            await self.server.wait_closed()

    # -- what each Wire calls -------------------------------------------------------------

    def answer(self, wire: Wire, request: Request) -> Response | Awaitable[Response] | None:
        """The HTTP side's answer to a request (None: upgrade)."""
        return self._answer(wire, request)

    def responded(self, wire: Wire, request: Request, response: Response) -> None:
        """A response is about to be sent."""
        self._responded(wire, request, response)

    def new_protocol(self) -> ServerProtocol:
        """A new connection's protocol."""
        return ServerProtocol(
            origins=self.origins,
            extensions=self.extensions,
            max_size=self.max_size,
            logger=WEBSOCKETS_LOG,
        )

    def spawn(self, coroutine: Coroutine[Any, Any, None]) -> None:
        """Run a task that the listener waits for when it stops (an HTTP answer to come)."""
        task = asyncio.get_running_loop().create_task(coroutine)
        self._tasks.add(task)
        task.add_done_callback(self._tasks.discard)


async def listen(
    network: Network,
    max_size: int,
    gate: Gate,
    sessions: Sessions,
    answer: Answer,
    responded: Callable[[Wire, Request, Response], None],
    *,
    ssl: ssl.SSLContext | None,
    server_header: str,
) -> Listener:
    """Listen on `network.host` and `network.port` (TLS with `ssl`), frames up to `max_size`
    bytes; see the module docstring."""
    listener = Listener(network, max_size, gate, sessions, answer, responded, server_header)
    loop = asyncio.get_running_loop()
    listener.server = await loop.create_server(
        lambda: Wire(listener, sessions), network.host or None, network.port, ssl=ssl
    )
    return listener


__all__ = ["WEBSOCKETS_LOG", "Listener", "listen"]
