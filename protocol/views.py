"""What one seat (or a spectator) sees of a room: the document the server snapshots and patches."""

from __future__ import annotations

from typing import Annotated, Literal

from msgspec import Meta, Struct, field

from protocol.ratings import GameId, RatingChange
from protocol.rules import RoomRules
from protocol.tiles import EndName, Pip, Tile

Seat = Annotated[int, Meta(ge=0, le=3)]
Count = Annotated[int, Meta(ge=0)]
Placed = Annotated[list[Pip], Meta(min_length=2, max_length=2)]
HandKind = Literal["domino", "blocked", "won"]
BotLevel = Literal["easy", "normal", "hard"]
Phase = Literal["waiting", "playing", "finished"]
Winner = int | list[int] | None

CHAT_HISTORY = 50


class Layout(Struct, kw_only=True):
    """The tiles on the table: the west-to-east line and the spinner's north and south arms."""

    line: list[Placed] = []
    spinner: Count | None = None
    north: list[Placed] = []
    south: list[Placed] = []


class Ends(Struct, kw_only=True):
    """The number open at each end; None where the end is not open."""

    west: Pip | None = None
    east: Pip | None = None
    north: Pip | None = None
    south: Pip | None = None


class MoveSpec(Struct, kw_only=True, omit_defaults=True):
    """A move: a tile (with its end where it fits more than one) or a pass; JSON omits empty fields.

    In a game's `legal` list a play carries `total`, the ends total it would make (docs/rules.md
    6), and `points`, what it would score (the total when a multiple of 5; omitted when 0). Clients
    show them and never count the ends themselves. A pass has neither; nor has a move from a server
    older than `total`.
    """

    tile: Tile | None = None
    end: EndName | None = None
    pass_: bool = field(default=False, name="pass")
    total: Count | None = None
    points: Count = 0


class Event(Struct, kw_only=True, tag_field="type"):
    """Base of the public events of a room, tagged by "type"."""


class Played(Event, tag="played", omit_defaults=True):
    """A seat placed a tile; `end` is where it went (None for the lead), `points` what it scored;
    `stand_in`: a stand-in bot played it for the seat's player (away, or out of time), left out
    when the player played it."""

    seat: Seat
    tile: Tile
    end: EndName | None
    total: Count
    points: Count
    stand_in: bool = False


class Drew(Event, tag="drew"):
    """A seat drew `count` tiles from the boneyard (which tiles stays hidden)."""

    seat: Seat
    count: Annotated[int, Meta(ge=1)]


class Passed(Event, tag="passed"):
    """A seat could not play and passed."""

    seat: Seat


class HandCount(Struct, kw_only=True, omit_defaults=True):
    """Where end-of-hand points came from (rules 7.3, 7.4): `side` scores `points` for the pips
    of `seats`. `pips` is what was counted before rounding to five: those seats' pips added up,
    or half of them (`halved`: two of three players tie for the fewest in a block and each
    counts half of the third's). Under penalty scoring each seat is counted alone for its own
    side, and `points` is what it loses (negative)."""

    side: Seat
    seats: list[Seat]
    #: An integer but for an odd half (6.5).
    pips: Annotated[int, Meta(ge=0, le=1000)] | Annotated[float, Meta(ge=0, le=1000)]
    points: int
    halved: bool = False


class HandEnded(Event, tag="hand_ended"):
    """A hand is over: how, by whom, the end-of-hand points (per side) and every seat's pips;
    `counts` says where the points came from (none for a hand the target ended, nor for a
    block in which nobody scores); `side_pips` the pips each side (team, or seat) held, and
    `layout` the table as the hand ended (both left out by servers older than them)."""

    kind: HandKind
    by: Seat | None
    points: list[int]
    pips: list[Count]
    counts: list[HandCount] = []
    side_pips: list[Count] = []
    layout: Layout | None = None


class HandStarted(Event, tag="hand_started"):
    """A new hand was dealt; `number` counts from 1."""

    number: Annotated[int, Meta(ge=1)]
    leader: Seat


class MatchEnded(Event, tag="match_ended"):
    """The match is over: the winning seat or team, a list of seats for a shared win, None if abandoned."""

    winner: Winner


class ChatLine(Event, tag="chat"):
    """A chat line; `seat` is None when a spectator wrote it."""

    seat: Seat | None
    name: str
    text: str


AnyEvent = Played | Drew | Passed | HandEnded | HandStarted | MatchEnded | ChatLine


class HandSummary(Struct, kw_only=True):
    """The result of the previous hand, as shown between hands (`counts`, `side_pips` and
    `layout`, the table as that hand ended, as in `HandEnded`)."""

    kind: HandKind
    by: Seat | None
    points: list[int]
    pips: list[Count]
    counts: list[HandCount] = []
    side_pips: list[Count] = []
    layout: Layout | None = None


class GameView(Struct, kw_only=True):
    """The match as one seat sees it: its own tiles, counts of the others, the table and scores."""

    hand_number: Annotated[int, Meta(ge=1)]
    leader: Seat
    hand: list[Tile] | None
    hand_counts: list[Count]
    boneyard: Count
    layout: Layout
    ends: Ends
    total: Count
    scores: list[int]
    target: Annotated[int, Meta(gt=0)]
    turn: Seat | None
    legal: list[MoveSpec] = []
    history: list[AnyEvent] = []
    last_hand: HandSummary | None = None
    winner: Winner = None
    over: bool = False


class SeatInfo(Struct, kw_only=True):
    """Who sits in a seat: name, human or bot (with its level), whether connected; whether a
    stand-in bot plays for it, and how many moves one has made for it."""

    seat: Seat
    name: str
    kind: Literal["human", "bot"]
    level: BotLevel | None = None
    connected: bool = True
    #: A stand-in bot plays this seat's turns at once (its player is away and a turn waited out).
    stand_in: bool = False
    #: Moves a stand-in bot has made for this seat in this match (away, or out of time).
    stand_in_moves: Count = 0


class RoomView(Struct, kw_only=True):
    """A room as its receiver sees it: the whole document a client holds."""

    code: str
    rules: RoomRules
    seats: list[SeatInfo | None]
    you: Seat | None
    host: Seat | None
    phase: Phase
    #: Each seat's index in `scores`: its team (0 is A, 1 is B) in a partnership, else the seat
    #: itself (left out by servers older than it).
    sides: list[Seat] = []
    spectators: Count = 0
    game: GameView | None = None
    #: While the turn of the seat to play (`game.turn`) runs against a clock: when a stand-in
    #: plays it (Unix seconds, the server's clock); None otherwise. One field for the turn, so
    #: that a move changes one value, not one on each of two seats (protocol version 2).
    deadline: float | None = None
    chat: list[ChatLine] = []
    #: Once a finished match is rated (a patch soon after the one that ends it): what it did to
    #: each rated seat's rating; seats of guests and unrated matches have none. None until then,
    #: and for a match that is not rated at all (protocol/README.md, "The end of a match").
    ratings: list[RatingChange] | None = None
    #: Once the finished match is archived (the same patch as `ratings`): its id in the HTTP API
    #: (`GET /api/games/ID`, its review), for a replay of it. None until then.
    game_id: GameId | None = None
    #: Whether the room plays a tournament's table: its seats are kept for the tournament's
    #: entrants, so its link is for watching, never for joining. Which tournament is not said
    #: (a private tournament's code stays with its entrants).
    tournament_table: bool = False
