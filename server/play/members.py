"""The close codes a room closes its members with (`server.play.live.Member`, which the network
edge's `server.edge.connection.Connection` implements)."""

from __future__ import annotations

CLOSE_POLICY = 1008
CLOSE_SEAT_RESUMED = 4000
#: The server closes for good (the host of `allfives host` left): clients stop retrying.
CLOSE_ROOM_CLOSED = 4001
#: The host removed this player from a waiting room: the client does not come back.
CLOSE_REMOVED = 4002
