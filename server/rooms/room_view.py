"""What a room is and says, without changing it: its state and match, stored and loaded, and the
questions asked of it (its code, seats, listing, the seats as clients see them, its record).

`RoomView` holds a room's `RoomState` and `Match`; `server.rooms.room.Room` extends it with the
commands that change the room. Nothing here bumps `seq`.
"""

from __future__ import annotations

from typing import Self

from engine import Match
from protocol import messages as msg
from protocol.records import Record
from protocol.rules import RoomRules
from protocol.views import Phase, SeatInfo
from server.rooms import clock, codes, presence, results
from server.rooms.clock import DEFAULT_AWAY_SECONDS, DEFAULT_IDLE_SECONDS
from server.rooms.room_state import MoveNote, RoomState, SeatState, decode_room, encode_room


class RoomView:
    """A room's state and match, and what they say (see the module docstring)."""

    def __init__(self, state: RoomState, match: Match | None = None) -> None:
        self.state = state
        self.match = match
        self.away_seconds = DEFAULT_AWAY_SECONDS
        self.idle_seconds = DEFAULT_IDLE_SECONDS
        #: The seq a move made the room, and the move (`encode_note` gives what `replay_move`
        #: takes): when the last change was that one move, other processes are sent the move,
        #: not the whole room.
        self.last_move: tuple[int, MoveNote | None] = (-1, None)
        #: The last finished match's record and its bytes, once asked for (`results.finished_of`):
        #: made once for the match, and gone with the room.
        self.finished_made: results.FinishedRecord | None = None

    @classmethod
    def from_bytes(cls, data: bytes) -> Self:
        """A room exactly as stored by `to_bytes` (see `all_away` for a room loaded at start-up)."""
        return cls(*decode_room(data))

    def to_bytes(self) -> bytes:
        """The whole room as bytes, hidden tiles included (for the store, never for a client).

        The match is encoded with the room in one pass, not as bytes of its own inside it.
        """
        return encode_room(self.state, self.match)

    # -- asking ----------------------------------------------------------------------------

    @property
    def code(self) -> str:
        """The room code."""
        return self.state.code

    @property
    def join_code(self) -> str:
        """What finds the room: its code, and for a private room `CODE-INVITE` (never listed)."""
        return codes.handle(self.state.code, self.state.invite)

    def opens(self, invite: str) -> bool:
        """Whether `invite` (the letters after the code, as typed) finds this room."""
        return codes.invite_fits(self.state.invite, invite)

    @property
    def seq(self) -> int:
        """The number of the latest change."""
        return self.state.seq

    @property
    def rules(self) -> RoomRules:
        """The room's rules and options."""
        return self.state.rules

    @property
    def phase(self) -> Phase:
        """waiting, playing or finished."""
        return self.state.phase

    @property
    def seats(self) -> list[SeatState | None]:
        """The seats, None where free."""
        return self.state.seats

    def free_seats(self) -> list[int]:
        """Seats nobody holds."""
        return [i for i, seat in enumerate(self.seats) if seat is None]

    def human_seats(self) -> list[int]:
        """Seats held by people."""
        return presence.human_seats(self.state)

    def listed(self) -> bool:
        """Whether `list_rooms` shows the room: public, waiting, a seat free, someone in it."""
        return (
            self.rules.public
            and self.phase == "waiting"
            and not self.is_empty()
            and bool(self.free_seats())
        )

    def is_empty(self) -> bool:
        """Whether nobody is connected: no seated player online and no spectator."""
        return presence.is_empty(self.state)

    def names(self) -> list[str]:
        """The name in each seat ("" where free)."""
        return [seat.name if seat is not None else "" for seat in self.seats]

    def summary(self) -> msg.RoomSummary:
        """The room as a public listing shows it."""
        return msg.RoomSummary(
            code=self.code,
            rules=self.rules,
            seats=[seat.name if seat is not None else None for seat in self.seats],
            free_seats=self.free_seats(),
        )

    def seat_infos(self) -> list[SeatInfo | None]:
        """Every seat as clients see it."""
        return [seat.info(i) if seat is not None else None for i, seat in enumerate(self.seats)]

    def turn_deadline(self) -> float | None:
        """The turn's deadline as clients see it: set while the seat to play is timed."""
        if clock.timed_seat(self.state, self.match) is None:
            return None
        return self.state.deadline

    def seat_of_token(self, token: str) -> int | None:
        """The seat a secret token belongs to, if any."""
        return presence.seat_of_token(self.state, token)

    def finished_record(self) -> Record:
        """The record of the last finished match (`server.rooms.results.finished_record`)."""
        return results.finished_record(self)

    @property
    def deadline(self) -> float | None:
        """When the current human turn runs out (wall-clock seconds), if it can."""
        return self.state.deadline
