"""A room's chat: the last `CHAT_HISTORY` lines, and each seat's last line `id`s.

Plain functions on a `RoomState` (sans-I/O, no `seq`): `server.rooms.room.Room.say` counts the
change. A player's line carries an `id` the client chose; the room remembers a seat's last
`CHAT_IDS_KEPT` of them, so a line sent again (after a reconnect) is not posted twice.
"""

from __future__ import annotations

from protocol.views import CHAT_HISTORY, ChatLine
from server.rooms.room_state import RoomState

#: How many of a player's last chat `id`s a room remembers (a line sent again is not reposted).
CHAT_IDS_KEPT = 16


def say(state: RoomState, seat: int | None, name: str, text: str, id: int | None) -> ChatLine:
    """Add a line (the last CHAT_HISTORY are kept); a seat's line remembers its `id`."""
    line = ChatLine(seat=seat, name=name, text=text)
    state.chat = [*state.chat, line][-CHAT_HISTORY:]
    held = state.seats[seat] if seat is not None else None
    if held is not None and id is not None:
        held.chat_ids = [*(held.chat_ids or []), id][-CHAT_IDS_KEPT:]
    return line


def said(state: RoomState, seat: int, id: int) -> bool:
    """Whether the player in `seat` posted a line with this `id` (among its last ones)."""
    held = state.seats[seat]
    return held is not None and id in (held.chat_ids or ())
