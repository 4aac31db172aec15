"""One client's connection: its socket, rate bucket, bounded send, and the room and seat it is in.

Messages are written at once, never awaited, through the connection's `Wire`
(`server.edge.wire`: websockets' Sans-I/O protocol encodes the frame): the connection's send
queue is its transport's write buffer, bounded at `send_buffer` bytes. A client that lets
it fill (it does not read) is closed (1008) instead of slowing its room.
"""

from __future__ import annotations

import asyncio
import logging
import time
from typing import TYPE_CHECKING

from protocol import messages as msg
from server.config import Limits, Network
from server.edge.limits import TokenBucket
from server.metrics import Metrics
from server.play.members import (
    CLOSE_POLICY,
    CLOSE_REMOVED,
    CLOSE_ROOM_CLOSED,
    CLOSE_SEAT_RESUMED,
)
from server.rooms.feed import SPECTATORS, Receiver
from server.storage.archive import Player

if TYPE_CHECKING:
    from server.edge.wire import Wire
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
        "deadline",
        "greeted",
        "limit",
        "metrics",
        "name",
        "named",
        "plain",
        "player",
        "room",
        "seat",
        "spectating",
        "waiting",
        "wire",
    )

    def __init__(
        self, wire: Wire, address: str, network: Network, limits: Limits, metrics: Metrics
    ) -> None:
        self.wire = wire
        #: No extension was negotiated (its frames are sent as they are).
        self.plain = wire.plain()
        self.address = address
        self.metrics = metrics
        self.limit = network.send_buffer
        self.bucket = TokenBucket(limits.rate, limits.burst, time.monotonic())
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
        #: Counted among the connections of the address a trusted proxy names.
        self.named = False
        #: Done when the connection has closed (set once it is asked to close).
        self.closer: asyncio.Future[None] | None = None
        #: The hello deadline, until hello is said.
        self.deadline: asyncio.TimerHandle | None = None
        #: Messages waiting behind one whose handling waits (None: none is waiting).
        self.waiting: list[str | bytes | None] | None = None

    @property
    def receiver(self) -> Receiver:
        """Whose document this connection follows: its seat, or the spectators'."""
        return self.seat if self.seat is not None else SPECTATORS

    def send(self, message: bytes) -> None:
        """Write a message now; a client with `send_buffer` bytes unread is dropped instead."""
        if self.writable():
            self.wire.send_text(message)
            self.metrics.frames_sent += 1

    def write(self, message: bytes) -> None:
        """Write a message of a change, only while the connection is open; `writable` is the
        caller's to check."""
        self.wire.send_text(message)

    def writable(self) -> bool:
        """Whether frames may be written now; a client with `send_buffer` bytes unread is dropped."""
        if self.closing:
            return False
        wire = self.wire
        # A transport that has not paused its writer holds at most its high-water mark, so at
        # each move's frames the transport need not be asked for its buffer's size.
        if not wire.paused and wire.held_size + wire.high_water <= self.limit:
            return True
        if wire.buffered() > self.limit:
            self.metrics.slow_clients_dropped += 1
            log.info("dropped %s: it does not read what it is sent", self.address)
            self.close(CLOSE_POLICY, "not reading: too much waiting to be sent")
            # Its buffer is not drained by waiting for a close handshake it will not read.
            asyncio.get_running_loop().call_later(1.0, self.wire.abort)
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
        self.closer = asyncio.get_running_loop().create_future()
        self.wire.close(code, reason)

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
