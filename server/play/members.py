"""What a room sends its members through, seen from the room: the `Member` a connection is to
it, one message's WebSocket frame built once for all of them (`text_frame`), and the close codes
a room closes members with. The network edge (`server.edge.connection`) implements `Member`.
"""

from __future__ import annotations

import struct
from typing import Protocol

from server.metrics import Metrics
from server.rooms.feed import Receiver

CLOSE_POLICY = 1008
CLOSE_SEAT_RESUMED = 4000
#: The server closes for good (the host of `allfives host` left): clients stop retrying.
CLOSE_ROOM_CLOSED = 4001
#: The host removed this player from a waiting room: the client does not come back.
CLOSE_REMOVED = 4002


class Member(Protocol):
    """One connection in a room, as the room uses it."""

    metrics: Metrics

    @property
    def receiver(self) -> Receiver:
        """Whose document the connection follows (a seat, or the spectators)."""
        ...

    def writable(self) -> bool:
        """Whether a frame may be written now (else the connection is being dropped)."""
        ...

    def write(self, message: bytes, frame: bytes) -> None:
        """Send a message, given also as its unmasked text frame (`text_frame`)."""
        ...

    def send(self, message: bytes) -> None:
        """Send one message to this member alone (a snapshot)."""
        ...

    def detach(self) -> None:
        """Forget the room and seat (the room already stopped sending to it)."""
        ...

    def close(self, code: int, reason: str) -> None:
        """Close the connection with a WebSocket close code and reason."""
        ...


def text_frame(message: bytes) -> bytes:
    """A whole unmasked text frame carrying `message` (UTF-8 JSON), as a server writes it.

    The bytes websockets' `Frame.serialize` gives (RFC 6455 5.2: FIN and the text opcode, then
    the payload length in 7, 16 or 64 bits), built here without its checks and buffers, which
    cost more than the rest of the frame on every move; tests/server/test_server_frames.py holds the
    two equal.
    """
    size = len(message)
    if size < 126:
        return _SHORT[size] + message
    if size < 65536:
        return _pack_medium(0x81, 126, size) + message
    return _pack_long(0x81, 127, size) + message


_SHORT = tuple(bytes((0x81, size)) for size in range(126))
_pack_medium = struct.Struct("!BBH").pack
_pack_long = struct.Struct("!BBQ").pack
