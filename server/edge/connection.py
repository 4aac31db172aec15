"""One client's connection: its socket, rate bucket, bounded send, and the room and seat it is in.

Frames are written at once, never awaited: the connection's send queue is its transport's write
buffer, bounded at `Config.send_buffer` bytes. A client that lets it fill (it does not read) is
closed (1008) instead of slowing its room.

A server's WebSocket frames are not masked, so one message's frame is the same bytes for every
connection that negotiated no extension (compression is off by default): the room builds it once
(`server.play.members.text_frame`) and `Connection.write` hands it to each transport. A
connection with an extension gets the message through websockets, which encodes it for that
connection.
"""

from __future__ import annotations

import asyncio
import logging
import time
from typing import TYPE_CHECKING

from websockets.asyncio.server import ServerConnection, broadcast
from websockets.protocol import State

from protocol import messages as msg
from server.config import Config
from server.metrics import Metrics
from server.play.members import (
    CLOSE_POLICY,
    CLOSE_REMOVED,
    CLOSE_ROOM_CLOSED,
    CLOSE_SEAT_RESUMED,
    text_frame,
)
from server.rooms.feed import SPECTATORS, Receiver
from server.rooms.limits import TokenBucket
from server.storage.archive import Player

if TYPE_CHECKING:
    from server.play.live import LiveRoom

log = logging.getLogger("allfives.server")


class Connection:
    """One client: its socket, rate bucket, name, and the room and seat it is in."""

    # Slots, not an attribute dict: there is one of these for every connection.
    __slots__ = (
        "address",
        "bucket",
        "chat_ids",
        "closer",
        "closing",
        "greeted",
        "limit",
        "metrics",
        "name",
        "plain",
        "player",
        "room",
        "seat",
        "socket",
        "spectating",
        "transport",
    )

    def __init__(
        self, socket: ServerConnection, address: str, config: Config, metrics: Metrics
    ) -> None:
        self.socket = socket
        self.transport = socket.transport
        #: No extension was negotiated: a frame built once (`text_frame`) is this client's too.
        self.plain = not socket.protocol.extensions
        self.address = address
        self.metrics = metrics
        self.limit = config.send_buffer
        self.bucket = TokenBucket(config.rate, config.burst, time.monotonic())
        self.name = ""
        #: The player of the hello's key (None: a guest).
        self.player: Player | None = None
        self.greeted = False
        self.room: LiveRoom | None = None
        self.seat: int | None = None
        self.spectating = False
        #: A spectator's last chat `id`s (a seat's are kept in the room, across connections).
        self.chat_ids: tuple[int, ...] = ()
        self.closing = False
        self.closer: asyncio.Task[None] | None = None

    @property
    def receiver(self) -> Receiver:
        """Whose document this connection follows: its seat, or the spectators'."""
        return self.seat if self.seat is not None else SPECTATORS

    def send(self, message: bytes) -> None:
        """Write a message now; a client with `send_buffer` bytes unread is dropped instead."""
        if self.writable():
            self.write(message, text_frame(message) if self.plain else b"")
            self.metrics.frames_sent += 1

    def write(self, message: bytes, frame: bytes) -> None:
        """Write a message whose frame (`text_frame(message)`) may be shared with other clients.

        Only while the connection is open, as websockets' `broadcast` does (the server never
        sends a fragmented message, so no other frame is ever half written); `writable` is the
        caller's to check.
        """
        socket = self.socket
        if socket.protocol.state is not State.OPEN:
            return
        if self.plain:
            self.transport.write(frame)
        else:
            broadcast((socket,), message, text=True)

    def writable(self) -> bool:
        """Whether frames may be written now; a client with `send_buffer` bytes unread is dropped."""
        if self.closing:
            return False
        if self.transport.get_write_buffer_size() > self.limit:
            self.metrics.slow_clients_dropped += 1
            log.info("dropped %s: it does not read what it is sent", self.address)
            self.close(CLOSE_POLICY, "not reading: too much waiting to be sent")
            # Its buffer is not drained by waiting for a close handshake it will not read.
            asyncio.get_running_loop().call_later(1.0, self.transport.abort)
            return False
        return True

    def send_message(self, message: msg.ServerMessage) -> None:
        """Send a message."""
        self.send(msg.encode(message))

    def close(self, code: int, reason: str) -> None:
        """Close the connection after what was already sent."""
        if self.closing:
            return
        self.closing = True
        self.closer = asyncio.get_running_loop().create_task(self.socket.close(code, reason))

    def detach(self) -> None:
        """Forget the room and seat (the room already stopped sending to this connection)."""
        self.room, self.seat, self.spectating = None, None, False


__all__ = [
    "CLOSE_POLICY",
    "CLOSE_REMOVED",
    "CLOSE_ROOM_CLOSED",
    "CLOSE_SEAT_RESUMED",
    "Connection",
]
