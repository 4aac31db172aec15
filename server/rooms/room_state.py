"""What a room is, as stored and as it answers: its state, its seats, who asked, what came of it.

`RoomState` is everything stored for a room (the match with its hidden tiles included), `SeatState`
one seat, `Caller` who sent a command and `Outcome` what the command did. A refused command raises
`RoomError`. Seat tokens are secret: only their hash (`token_hash`) is kept. `encode_room` and
`decode_room` are the stored bytes.
"""

from __future__ import annotations

import hashlib
import secrets
from dataclasses import dataclass, field
from typing import Literal

import msgspec

from engine import Match, View
from protocol import messages as msg
from protocol.ratings import RatingChange
from protocol.rules import RoomRules
from protocol.views import AnyEvent, BotLevel, ChatLine, Phase, SeatInfo


class RoomError(Exception):
    """A refused command: a stable `code` from protocol.errors and a sentence for the player."""

    def __init__(self, code: str, message: str, reason: str | None = None) -> None:
        super().__init__(f"{code}: {message}")
        self.code = code
        self.message = message
        #: A finer cause for clients to word (protocol.errors.REASONS), if any.
        self.reason = reason


class SeatState(msgspec.Struct, kw_only=True):
    """Who holds a seat. Only a hash of a human's seat token is kept."""

    name: str
    kind: Literal["human", "bot"]
    level: BotLevel | None = None
    token_hash: str | None = None
    connected: bool = False
    stand_in: bool = False
    away_since: float | None = None
    #: The `id`s of this player's last chat lines: a line sent again with one is not posted twice.
    chat_ids: list[int] | msgspec.UnsetType = msgspec.UNSET
    #: Moves a stand-in bot made for this seat in the current match.
    stand_in_moves: int | msgspec.UnsetType = msgspec.UNSET
    #: The id of the player whose key sat here (`server.storage.archive`); UNSET for a guest.
    player: str | msgspec.UnsetType = msgspec.UNSET
    # (Fields added later are UNSET until first used: a room stored before them reads and
    # writes back byte for byte.)

    def info(self, seat: int) -> SeatInfo:
        """The seat as every client sees it (never the token)."""
        return SeatInfo(
            seat=seat,
            name=self.name,
            kind=self.kind,
            level=self.level,
            connected=self.connected or self.kind == "bot",
            stand_in=self.stand_in,
            stand_in_moves=self.stand_in_moves or 0,
        )


class RoomState(msgspec.Struct, kw_only=True):
    """Everything a room is, as stored: the match (hidden tiles included) and the room around it."""

    code: str
    rules: RoomRules
    seats: list[SeatState | None]
    host: int | None = None
    phase: Phase = "waiting"
    seq: int = 0
    chat: list[ChatLine] = []
    #: The match, encoded with the room in one piece (bytes: as rooms were stored before).
    match: Match | bytes | None = None
    finished: bytes | None = None
    finished_names: list[str] = []
    #: The number of the match `finished` holds (unset in rooms stored before it was kept:
    #: `server.rooms.results.finished_number` works it out).
    finished_match: int | msgspec.UnsetType = msgspec.UNSET
    #: Matches started in this room.
    matches: int = 0
    moves: int = 0
    deadline: float | None = None
    deadline_move: int = -1
    spectators: int = 0
    owner: str = ""
    empty_since: float | None = None
    links: dict[int, str] = {}
    watchers: dict[str, int] = {}
    invite: str | None = None
    #: Who sat where when the last match finished (`server.rooms.results`).
    finished_seats: list[FinishedSeat] | msgspec.UnsetType = msgspec.UNSET
    #: The number of the last finished match archived and rated (a `finished_match`), and what
    #: it did to the ratings (shown while the room is finished).
    archived: int | msgspec.UnsetType = msgspec.UNSET
    ratings: list[RatingChange] | msgspec.UnsetType = msgspec.UNSET
    #: The archive's id of the last finished match, once it is archived (shown while finished).
    game_id: str | msgspec.UnsetType = msgspec.UNSET
    #: In a room without a turn clock, when the current turn's connected player is replaced by
    #: the stand-in (`server.rooms.clock`; the turn is `deadline_move`'s). UNSET: no bound.
    idle_deadline: float | msgspec.UnsetType = msgspec.UNSET
    #: The moves of the current hand a stand-in made (`StoodIn`); UNSET: none.
    stood_in: StoodIn | msgspec.UnsetType = msgspec.UNSET
    #: A tournament's table plays here (`server.rooms.tables`); UNSET: an ordinary room.
    tournament: TableOf | msgspec.UnsetType = msgspec.UNSET


class TableOf(msgspec.Struct, array_like=True, frozen=True):
    """The tournament table a room plays: the tournament's code, the round and the table."""

    code: str
    round: int
    table: int


class StoodIn(msgspec.Struct, array_like=True):
    """Which moves of hand `hand` a stand-in bot made: their places in the hand's history (the
    match's events of that hand). Who played a move is kept with the room, as the moves are."""

    hand: int
    places: list[int]


class FinishedSeat(msgspec.Struct, kw_only=True, array_like=True):
    """A seat as the match ended: its player (None: a guest or a bot), its kind and level, the
    moves a stand-in made for it, whether its player was away (gone) at the end."""

    player: str | None
    kind: Literal["human", "bot"]
    level: BotLevel | None
    stand_in_moves: int
    left: bool


@dataclass
class Caller:
    """Who sent a command: seat in this room (None: not seated), spectating, name, server
    process, and the player id of the connection's key (None: a guest)."""

    name: str
    seat: int | None = None
    spectating: bool = False
    process: str = ""
    player: str | None = None


@dataclass(frozen=True)
class Seated:
    """The sender now follows this room: from `seat`, or as a spectator (seat None)."""

    seat: int | None


@dataclass(frozen=True)
class Left:
    """The sender is no longer in this room."""


@dataclass(frozen=True)
class Removed:
    """The player in `seat` was removed by the host: its connections are closed."""

    seat: int


@dataclass(frozen=True)
class Reply:
    """A message for the sender alone."""

    message: msg.ServerMessage


@dataclass(frozen=True)
class Document:
    """The sender is sent its whole document (after it came into the room, or asked; `id`:
    the request it answers)."""

    id: int | None = None


@dataclass(frozen=True)
class CatchUp:
    """The sender is sent what it missed after `last_seq` (the patches, or its document)."""

    last_seq: int | None


@dataclass(frozen=True)
class HintAsked:
    """The sender's seat asked for a hint; the hint lane works it out from `view`."""

    view: View


#: What a command asks the network edge to do for it, in order (h11's events are the model).
Effect = Seated | Left | Removed | Reply | Document | CatchUp | HintAsked


@dataclass(slots=True)
class Outcome:
    """What a command did: its public events (and whether the room changed) and its effects.

    (Slots: one is made per command, and a slotted object is one block.)
    """

    changed: bool = False
    events: list[AnyEvent] = field(default_factory=list)
    effects: list[Effect] = field(default_factory=list)


@dataclass
class BotTurn:
    """A move a bot must make: for `seat`, at `level`, from `view`; valid while `move_number` holds."""

    seat: int
    level: BotLevel
    view: View
    move_number: int


def encode_room(state: RoomState, match: Match | None) -> bytes:
    """A room's state and its match as stored, in one pass (the match is not bytes of its own);
    the state itself is left as it is (a shallow copy carries the match)."""
    return _STATE_ENCODER.encode(msgspec.structs.replace(state, match=match))


def decode_room(data: bytes) -> tuple[RoomState, Match | None]:
    """A room's state and its match, as `encode_room` stored them (or as bytes, stored before)."""
    state = _STATE_DECODER.decode(data)
    match = state.match
    state.match = None
    if isinstance(match, bytes):
        match = Match.from_bytes(match)
    return state, match


_STATE_ENCODER = msgspec.msgpack.Encoder()
_STATE_DECODER = msgspec.msgpack.Decoder(RoomState)


def new_token() -> str:
    """A fresh secret seat token."""
    return secrets.token_urlsafe(18)


def token_hash(token: str) -> str:
    """The stored form of a seat token."""
    return hashlib.sha256(token.encode()).hexdigest()


class MoveNote(msgspec.Struct, array_like=True, frozen=True):
    """One move, as another process replays it (`server.rooms.notes.replay_move`): everything `Room.play`
    reads besides the room itself. `tile` and `end` are the engine's numbers (None: a pass)."""

    seat: int
    tile: int | None
    end: int | None
    flipped: bool
    now: float
    stand_in: bool
    #: The writer's `Room.away_seconds` (a process setting that the turn clock reads).
    away: float
    #: A stand-in bot made the move (the player away, or out of time).
    by_stand_in: bool = False
    #: The writer's `Room.idle_seconds` (0: no idle bound, as before there was one).
    idle: float = 0.0


encode_note = msgspec.msgpack.Encoder().encode
decode_note = msgspec.msgpack.Decoder(MoveNote).decode
