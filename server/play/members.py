"""What a room sends its members through, seen from the room: the `Member` a connection is to
it, and the close codes a room closes members with. The network edge (`server.edge.connection`) implements `Member`.
"""

from __future__ import annotations

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

    def write(self, message: bytes) -> None:
        """Send a message of a change (`writable` was checked)."""
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
