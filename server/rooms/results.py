"""A finished match's results on the room: its record, who sat where as it ended, and its
rating changes.

`note_finished` is called as the match ends (`server.rooms.moves.after_move`): the seats'
players, kinds, stand-in moves and absence are kept with the finished match, since the seats may change after it
(a rematch, a player leaving) before it is archived. `set_ratings` is the change the server makes
once the match is archived and rated (`server.play.finish`): it puts the rating changes in the
room, for the document's `ratings` (protocol/README.md, "The end of a match").
"""

from __future__ import annotations

from typing import Protocol

import msgspec

from bridge.records import record_of
from engine import Match
from protocol import errors
from protocol.ratings import RatingChange
from protocol.records import Record, encode_record
from server.rooms.room_state import FinishedSeat, RoomError, RoomState


class FinishedRecord:
    """A room's last finished match as a record and as the record's bytes, each made when
    first asked for. A finished match's record is asked for by its saver and then its archiver
    (`server.play.finish`) in turn, and the bytes name the archived game: the room keeps this
    (`RoomView.finished_made`) while it holds that match, so each is made once for it."""

    def __init__(self, finished: bytes, names: list[str]) -> None:
        #: The finished match's bytes: the very object the room holds.
        self.finished = finished
        self.names = names
        self._record: Record | None = None
        self._data: bytes | None = None

    def holds(self, state: RoomState) -> bool:
        """Whether this is the match the room holds as finished now."""
        return self.finished is state.finished and self.names == state.finished_names

    @property
    def record(self) -> Record:
        """The finished match's record: callers share it and never change it."""
        if self._record is None:
            self._record = record_of(Match.from_bytes(self.finished), self.names)
        return self._record

    @property
    def data(self) -> bytes:
        """The record's bytes (`encode_record`): what is stored, and what names the game."""
        if self._data is None:
            self._data = encode_record(self.record)
        return self._data


class _Held(Protocol):
    """What holds a room's state and its finished match's record (`RoomView`)."""

    @property
    def state(self) -> RoomState: ...

    finished_made: FinishedRecord | None


def finished_of(room: _Held) -> FinishedRecord:
    """The room's last finished match as a record (RoomError while none is finished), made
    once for the same finished match and kept on the room."""
    state = room.state
    finished = state.finished
    if finished is None:
        raise RoomError(
            errors.WRONG_PHASE, "no finished match yet: a record exists once a match ends"
        )
    made = room.finished_made
    if made is None or not made.holds(state):
        made = room.finished_made = FinishedRecord(finished, list(state.finished_names))
    return made


def finished_record(room: _Held) -> Record:
    """The record of the room's last finished match (RoomError while none is finished).

    Made once for the same finished match: callers share it and never change it."""
    return finished_of(room).record


def finished_bytes(room: _Held) -> bytes:
    """The bytes of the room's last finished match's record (`encode_record`), made once."""
    return finished_of(room).data


def note_finished(state: RoomState) -> None:
    """Keep who sat where as the match ends."""
    state.finished_seats = [
        FinishedSeat(
            player=None if held is None or held.kind == "bot" else (held.player or None),
            kind="bot" if held is None else held.kind,
            level=None if held is None else held.level,
            stand_in_moves=0 if held is None else held.stand_in_moves or 0,
            left=held is not None and held.kind == "human" and not held.connected,
        )
        for held in state.seats
    ]


def finished_number(state: RoomState) -> int | None:
    """The number of the match `state.finished` holds (None while no match has finished).

    A room stored before the number was kept with the match holds the current match if it
    is not playing (finished, or waiting for a rematch), else the one before it."""
    if state.finished is None:
        return None
    if isinstance(state.finished_match, int):
        return state.finished_match
    return state.matches - 1 if state.phase == "playing" else state.matches


def needs_archiving(state: RoomState) -> bool:
    """Whether the room's last finished match is still to be archived and rated.

    The archive is keyed by the match it holds, not by how many have started: a match
    finishes, then it is archived, whatever the room does meanwhile. A room stored before the
    number was kept is archived again (the ledger finds a game it holds already and changes
    nothing), since its `archived` counted started matches and may name one never archived."""
    number = finished_number(state)
    if number is None or number < 1:
        return False
    return state.archived != number or isinstance(state.finished_match, msgspec.UnsetType)


def set_ratings(
    state: RoomState, match: int, changes: list[RatingChange], game_id: str | None = None
) -> bool:
    """Note finished match `match` archived as `game_id` with these rating changes; False
    (nothing changed) if the room holds another finished match now, or noted this one
    (`Room.set_ratings` counts the change)."""
    if finished_number(state) != match or not needs_archiving(state):
        return False
    state.archived = match
    state.finished_match = match
    if state.phase == "finished" and state.matches == match:
        if changes:
            state.ratings = changes
        if game_id is not None:
            state.game_id = game_id
    return True


def game_shown(state: RoomState) -> str | None:
    """The document's `game_id`: the archived finished match's id, while it is shown."""
    if state.phase != "finished" or isinstance(state.game_id, msgspec.UnsetType):
        return None
    return state.game_id


def ratings_shown(state: RoomState) -> list[RatingChange] | None:
    """The document's `ratings`: the changes of the finished match, while it is shown."""
    if state.phase != "finished" or isinstance(state.ratings, msgspec.UnsetType):
        return None
    return list(state.ratings)
