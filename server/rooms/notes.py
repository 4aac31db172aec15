"""A move made again from its note: the Redis store's move log and other processes' copies.

`Room.play` leaves the move it made as a `MoveNote` (`Room.last_move`): everything the move
read besides the room itself. Another process holding the same room makes the move again from
the note (`replay_move`), and the Redis store rebuilds a room from its last stored state and the
notes logged since (`with_moves`). The engine is deterministic (later hands are dealt from the
match's seed), so the result is the same room with the same events.
"""

from __future__ import annotations

from collections.abc import Sequence

from engine import ALL_TILES, End, Move
from protocol.views import AnyEvent
from server.rooms.room import Room
from server.rooms.room_state import decode_note


def replay_move(room: Room, data: bytes) -> list[AnyEvent]:
    """Make a move another process made (`Room.last_move`): its public events, as it gave them.

    The room must be exactly as it was there before the move.
    """
    note = decode_note(data)
    held = room.seats[note.seat]
    if note.stand_in and held is not None:
        held.stand_in = True
    tile = None if note.tile is None else ALL_TILES[note.tile]
    end = None if note.end is None else End(note.end)
    away, room.away_seconds = room.away_seconds, note.away
    idle, room.idle_seconds = room.idle_seconds, note.idle
    try:
        return room.play(note.seat, Move(tile, end, note.flipped), note.now, note.by_stand_in)
    finally:
        room.away_seconds, room.idle_seconds = away, idle


def with_moves(state: bytes, moves: Sequence[bytes]) -> bytes:
    """A stored room's state after moves logged since it, as bytes."""
    if not moves:
        return state
    room = Room.from_bytes(state)
    for move in moves:
        replay_move(room, move)
    return room.to_bytes()
