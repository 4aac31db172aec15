"""The port's connections on websockets' Sans-I/O protocol: one `asyncio.Protocol` each.

`Wire` is the asyncio protocol of one TCP connection. Its bytes go to a
`websockets.server.ServerProtocol` in `data_received`; what that protocol has to send is written
to the transport, and so is each message the connection is sent: a text frame made here when no
extension was negotiated (`text_frame`). What the connection is sent while its own bytes are
handled is held and written once after them (a move's patch and its answer in one write). Before the upgrade the first event is the HTTP request: it is
answered here (`server.edge.http`, wrapped by `server.edge.http_guard`) or accepted as a
WebSocket. After it, each complete message is handed to the session at once, in
`data_received` (`Sessions.message`); the session makes a task only for a message whose
handling must wait (a store, a lock), and the connection's later messages wait behind it.

Sockets are counted and refused at accept (`server.edge.gate`); open connections are pinged on
the keepalive wheel (`server.edge.keepalive`); `pause_writing` / `resume_writing` note the
transport's buffer, which the connection bounds at `Config.network.send_buffer` bytes.
"""

from __future__ import annotations

import asyncio
import http
import logging
import struct
import sys
from collections.abc import Awaitable, Callable, Coroutine
from typing import Any, Protocol

from websockets.frames import CloseCode, Frame, Opcode
from websockets.http11 import Request, Response
from websockets.protocol import State
from websockets.server import ServerProtocol

from server.edge.gate import Gate
from server.edge.keepalive import DROP_SECONDS, Beat

log = logging.getLogger("allfives.server")


class _NoDebug(logging.Filter):
    """Drops the websockets library's DEBUG lines: they hold every frame and header, and so
    player keys (`hello`, `Authorization`), which are never logged (docs/security.md)."""

    def filter(self, record: logging.LogRecord) -> bool:
        return record.levelno > logging.DEBUG


#: The logger the websockets library logs the server's connections to.
WEBSOCKETS_LOG = logging.getLogger("allfives.websockets")
WEBSOCKETS_LOG.addFilter(_NoDebug())

#: How long a turned-away socket may stay before it is dropped (its answer is sent at once).
REFUSED_SECONDS = 1.0
#: How long the HTTP request may take to arrive, and a close handshake to finish.
OPEN_SECONDS = 10.0
CLOSE_SECONDS = 10.0

#: Answers a request: a response now, one to come, or None to upgrade.
Answer = Callable[["Wire", Request], Response | Awaitable[Response] | None]


_HEAD16 = struct.Struct("!BBH")
_HEAD64 = struct.Struct("!BBQ")
#: A whole text frame's first byte (FIN, opcode 1), and a frame's head for each short length.
_TEXT = 0x81
_SHORT_HEADS = [bytes((_TEXT, length)) for length in range(126)]
#: The states and opcodes as plain names: reading an enum's member off its class is a slow
#: lookup on Python 3.11, and these are read for every frame in and out.
_CONNECTING, _OPEN, _CLOSED = State.CONNECTING, State.OPEN, State.CLOSED
_TEXT_FRAME, _BINARY_FRAME, _CONT_FRAME = Opcode.TEXT, Opcode.BINARY, Opcode.CONT


def text_frame(message: bytes) -> bytes:
    """One whole, unmasked text frame of `message`, as a server sends it (RFC 6455, 5.2):
    the bytes websockets' `Frame(Opcode.TEXT, message).serialize(mask=False)` makes, without
    its objects (a frame is sent to every member of a room at each move)."""
    length = len(message)
    if length < 126:
        head = _SHORT_HEADS[length]
    elif length < 65536:
        head = _HEAD16.pack(_TEXT, 126, length)
    else:
        head = _HEAD64.pack(_TEXT, 127, length)
    return head + message


class Host(Protocol):
    """What a `Wire` asks of its port (`server.edge.listen.Listener`): the gate that counts it,
    a protocol, the HTTP side's answer, and a task it waits for when it stops."""

    gate: Gate
    server_header: str
    #: The listener is stopping: no more upgrades.
    closed: bool

    def new_protocol(self) -> ServerProtocol: ...

    def answer(self, wire: Wire, request: Request) -> Response | Awaitable[Response] | None: ...

    def responded(self, wire: Wire, request: Request, response: Response) -> None: ...

    def spawn(self, coroutine: Coroutine[Any, Any, None]) -> None: ...


class Served(Protocol):
    """What a `Wire` hands its WebSocket connection to, straight (`server.edge.session.Sessions`);
    a connection is the session's `server.edge.connection.Connection`."""

    def open(self, wire: Wire, request: Request) -> Any: ...

    def message(self, connection: Any, data: str | bytes) -> None: ...

    def ended(self, connection: Any) -> None: ...


class Wire(asyncio.Protocol):
    """One TCP connection of the port; see the module docstring."""

    __slots__ = (
        "address",
        "beat",
        "closing",
        "connection",
        "counted",
        "fragments",
        "held",
        "held_size",
        "high_water",
        "listener",
        "paused",
        "protocol",
        "sessions",
        "timer",
        "transport",
    )

    def __init__(self, listener: Host, sessions: Served) -> None:
        self.listener = listener
        self.sessions = sessions
        self.transport: asyncio.Transport | None = None
        self.protocol: ServerProtocol | None = None
        self.address = "unknown"
        #: Counted by the gate (False: refused, or released).
        self.counted = False
        #: The WebSocket connection once upgraded.
        self.connection: Any = None
        self.beat: Beat | None = None
        #: The opening deadline, then the closing one, or a refused socket's.
        self.timer: asyncio.TimerHandle | None = None
        #: A fragmented message's parts so far.
        self.fragments: list[bytes] | None = None
        #: While the connection's own bytes are handled: what it is sent, written at once after
        #: (`data_received`), so a move's patch and its answer leave in one write.
        self.held: list[bytes] | None = None
        self.held_size = 0
        self.paused = False
        #: The transport's high-water mark: while `paused` is False it holds at most this
        #: many bytes (asyncio pauses a protocol above it). Unknown until connected.
        self.high_water = sys.maxsize
        #: The close deadline is set.
        self.closing = False

    # -- asyncio callbacks -----------------------------------------------------------------

    def connection_made(self, transport: asyncio.BaseTransport) -> None:
        assert isinstance(transport, asyncio.Transport)
        self.transport = transport
        self.high_water = transport.get_write_buffer_limits()[1]
        listener = self.listener
        peer = transport.get_extra_info("peername")
        self.address = address = str(peer[0]) if peer else "unknown"
        loop = asyncio.get_running_loop()
        refusal = listener.gate.refusal(address)
        if refusal is not None:
            # Answered and half-closed at once; dropped when the client closes its side, or
            # after REFUSED_SECONDS.
            transport.write(refusal)
            if transport.can_write_eof():
                transport.write_eof()
            self.timer = loop.call_later(REFUSED_SECONDS, transport.abort)
            return
        listener.gate.admit(self)
        self.counted = True
        self.protocol = listener.new_protocol()
        self.timer = loop.call_later(OPEN_SECONDS, transport.abort)

    def data_received(self, data: bytes) -> None:
        protocol = self.protocol
        if protocol is None:
            return
        if self.beat is not None:
            self.beat.heard = self.listener.gate.keepalive.turns
        protocol.receive_data(data)
        events = protocol.events_received()
        self.flush()
        self.held = []
        try:
            for event in events:
                if isinstance(event, Frame):
                    self._frame(event)
                elif isinstance(event, Request):
                    self._request(event)
        finally:
            self._write_held()
            self.held = None
        self._closing()

    def eof_received(self) -> bool | None:
        if self.protocol is not None:
            self.protocol.receive_eof()
            self.protocol.events_received()
            self.flush()
        return None

    def pause_writing(self) -> None:
        self.paused = True

    def resume_writing(self) -> None:
        self.paused = False

    def connection_lost(self, exc: Exception | None) -> None:
        if self.timer is not None:
            self.timer.cancel()
            self.timer = None
        listener = self.listener
        if self.protocol is not None:
            self.protocol.receive_eof()
        if self.counted:
            listener.gate.release(self)
            self.counted = False
        if self.beat is not None:
            listener.gate.keepalive.remove(self.beat)
            self.beat = None
        connection = self.connection
        if connection is not None:
            self.sessions.ended(connection)

    # -- what the connection and the wheel call --------------------------------------------

    def flush(self) -> None:
        """Write what the protocol has to send; its end of data half-closes the socket."""
        protocol, transport = self.protocol, self.transport
        if protocol is None or transport is None:
            return
        for data in protocol.data_to_send():
            if data:
                self._write(data)
                continue
            self._write_held()
            if transport.can_write_eof():
                try:
                    transport.write_eof()
                except Exception:  # an OS error on a socket going away: it is closed below
                    transport.close()
            else:
                transport.close()

    def send_text(self, message: bytes) -> None:
        """Send one text message (UTF-8 JSON) now: framed here when no extension was
        negotiated (`text_frame`), else by the protocol (a compressed frame is its own)."""
        protocol = self.protocol
        if protocol is None or protocol.state is not _OPEN:
            return
        if protocol.extensions:
            protocol.send_text(message)
            for data in protocol.data_to_send():
                self._write(data)
            return
        # `_write`, inline: this runs for every member of a room at each move.
        frame = text_frame(message)
        held = self.held
        if held is not None:
            held.append(frame)
            self.held_size += len(frame)
        else:
            assert self.transport is not None
            self.transport.write(frame)

    def close(self, code: int, reason: str) -> None:
        """Start the close handshake (dropped if it is not finished in CLOSE_SECONDS)."""
        protocol = self.protocol
        if protocol is not None and protocol.state is _OPEN:
            protocol.send_close(code, reason)
            self.flush()
        self._closing()

    def abort(self) -> None:
        """Drop the socket now."""
        if self.transport is not None:
            self.transport.abort()

    def ping_now(self) -> bool:
        protocol = self.protocol
        if protocol is None or protocol.state is not _OPEN:
            return False
        protocol.send_ping(b"")
        self.flush()
        return True

    def expire(self) -> None:
        log.info("dropped %s: no answer to a keepalive ping", self.address)
        self.beat = None
        protocol = self.protocol
        if protocol is not None and protocol.state is _OPEN:
            protocol.fail(CloseCode.INTERNAL_ERROR, "keepalive ping timeout")
            self.flush()
        asyncio.get_running_loop().call_later(DROP_SECONDS, self.abort)

    def buffered(self) -> int:
        """Bytes written and not yet taken by the socket (those held included)."""
        if self.transport is None:
            return self.held_size
        return self.held_size + self.transport.get_write_buffer_size()

    def plain(self) -> bool:
        """No extension was negotiated (frames are sent as they are)."""
        return self.protocol is None or not self.protocol.extensions

    # -- inside ---------------------------------------------------------------------------

    def _write(self, data: bytes) -> None:
        """Write bytes to the socket, or after the ones held (`held`)."""
        held = self.held
        if held is not None:
            held.append(data)
            self.held_size += len(data)
        else:
            assert self.transport is not None
            self.transport.write(data)

    def _write_held(self) -> None:
        """Write what is held, in one write (it stays held from here on, if it was)."""
        held = self.held
        if held and self.transport is not None:
            self.transport.write(held[0] if len(held) == 1 else b"".join(held))
            held.clear()
            self.held_size = 0

    def _closing(self) -> None:
        protocol, transport = self.protocol, self.transport
        if protocol is None or transport is None or self.closing:
            return
        if protocol.state is _CLOSED or protocol.close_expected():
            self.closing = True
            if self.timer is not None:
                self.timer.cancel()
            self.timer = asyncio.get_running_loop().call_later(CLOSE_SECONDS, transport.abort)

    def _frame(self, frame: Frame) -> None:
        connection = self.connection
        if connection is None:
            return
        opcode = frame.opcode
        if opcode is _TEXT_FRAME or opcode is _BINARY_FRAME:
            data = bytes(frame.data)
            if not frame.fin:
                self.fragments = [data]
                return
            self.sessions.message(connection, data if opcode is _BINARY_FRAME else data.decode())
        elif opcode is _CONT_FRAME and self.fragments is not None:
            self.fragments.append(bytes(frame.data))
            if frame.fin:
                whole = b"".join(self.fragments)
                self.fragments = None
                self.sessions.message(connection, whole.decode())

    def _request(self, request: Request) -> None:
        # The request has arrived: the deadline was for its arrival, not for its answer (a
        # review worked out on a busy server may take longer; its own work is bounded).
        if self.timer is not None:
            self.timer.cancel()
            self.timer = None
        answer = self.listener.answer(self, request)
        if isinstance(answer, Awaitable):
            self.listener.spawn(self._answer_later(request, answer))
            return
        self._respond(request, answer)

    async def _answer_later(self, request: Request, pending: Awaitable[Response]) -> None:
        self._respond(request, await pending)

    def _respond(self, request: Request, answer: Response | None) -> None:
        protocol = self.protocol
        if protocol is None or protocol.state is not _CONNECTING:
            return
        listener = self.listener
        response = protocol.accept(request) if answer is None else answer
        if response.status_code == http.HTTPStatus.SWITCHING_PROTOCOLS and listener.closed:
            response = protocol.reject(
                http.HTTPStatus.SERVICE_UNAVAILABLE, "Server is shutting down.\n"
            )
        response.headers["Server"] = listener.server_header
        listener.responded(self, request, response)
        protocol.send_response(response)
        self.flush()
        if protocol.state is _OPEN:
            if self.timer is not None:
                self.timer.cancel()
                self.timer = None
            self.beat = listener.gate.keepalive.add(self)
            self.connection = self.sessions.open(self, request)
            # websockets' parser holds the upgrade request for the connection's life (a local of
            # its generator): its headers, read by now, are let go (2.4 KiB a connection).
            request.headers.clear()
        else:
            self._closing()


__all__ = ["WEBSOCKETS_LOG", "Answer", "Wire", "text_frame"]
