"""Tournaments on the wire: the client messages that create, join, leave, start and follow one,
and the `tournament` message that answers them and tells followers every change, carrying the
tournament's public view (protocol/README.md, "Tournaments"; docs/tournaments.md).

Every list is bounded, since a client treats what a server sends as untrusted: a tournament has
at most `MAX_ENTRANTS` entrants, so at most that many units and standings lines, and a round at
most half as many tables.
"""

from __future__ import annotations

from typing import Annotated, Literal

import msgspec
from msgspec import Meta, Struct

from protocol.message_base import (
    MAX_ROOM_CODE_LENGTH,
    MAX_SAFE_INTEGER,
    ClientMessage,
    Name,
    RoomCode,
    ServerMessage,
)
from protocol.names import BOT_LIKE, name_problem
from protocol.ratings import GameId
from protocol.rules import RoomRules, Rules, TurnSeconds
from protocol.views import BotLevel, Count

MAX_ENTRANTS = 64
MAX_SWISS_ROUNDS = 20
MAX_TOURNAMENT_NAME = 48
#: A final score, either way from zero (penalty scoring goes below zero: docs/rules.md 7.4).
MAX_SCORE = 100_000
#: The most rounds a tournament plays: a round robin of 64 units plays 63.
MAX_ROUNDS = MAX_ENTRANTS
#: The most tables in a round: two units a table at the least.
MAX_TABLES = MAX_ENTRANTS // 2

Format = Literal["round_robin", "swiss", "elimination"]
Partners = Literal["fixed", "rotating"]
Phase = Literal["open", "playing", "finished"]
TournamentName = Annotated[str, Meta(min_length=1, max_length=MAX_TOURNAMENT_NAME)]
#: What finds a tournament: its code, and for a private one `CODE-INVITE` (as a room's).
TournamentCode = Annotated[str, Meta(min_length=1, max_length=MAX_ROOM_CODE_LENGTH)]
Entrant = Annotated[int, Meta(ge=0, lt=MAX_ENTRANTS)]
SwissRounds = Annotated[int, Meta(ge=1, le=MAX_SWISS_ROUNDS)]
Score = Annotated[int, Meta(ge=-MAX_SCORE, le=MAX_SCORE)]
Points = Annotated[int, Meta(ge=0, le=MAX_SAFE_INTEGER)]


def validate_tournament_name(name: str) -> str:
    """A tournament's name stripped of outer spaces; ValueError unless non-empty and printable
    (its length is bounded by its type)."""
    cleaned = name.strip()
    if not cleaned:
        raise ValueError("a name cannot be empty")
    if not cleaned.isprintable():
        raise ValueError("a name may hold only printable characters")
    if name_problem(cleaned) not in (None, BOT_LIKE):
        raise ValueError("a name may hold only characters a reader can see (no invisible ones)")
    return cleaned


# Client -> server ---------------------------------------------------------------------------


class CreateTournament(ClientMessage, tag="create_tournament"):
    """Make a tournament and be its host: `rules` are every match's (`players` is the table
    size, `turn_seconds` the clock, `public` whether it is listed); `bots` join it at once."""

    name: TournamentName
    format: Format
    rules: RoomRules
    partners: Partners | None = None
    rounds: SwissRounds | None = None
    bots: Annotated[list[BotLevel], Meta(max_length=MAX_ENTRANTS)] = msgspec.field(
        default_factory=list
    )


class JoinTournament(ClientMessage, tag="join_tournament"):
    """Enter a tournament before its start, by `name` (or hello's); with `bot`, the host adds a
    bot of that level instead."""

    tournament: TournamentCode
    name: Name | None = None
    bot: BotLevel | None = None


class LeaveTournament(ClientMessage, tag="leave_tournament"):
    """Leave a tournament before its start; the host may name another `entrant` to take out."""

    tournament: TournamentCode
    entrant: Entrant | None = None


class StartTournament(ClientMessage, tag="start_tournament"):
    """Host: start the tournament; the first round's tables open."""

    tournament: TournamentCode


class FollowTournament(ClientMessage, tag="follow_tournament"):
    """Be told the tournament now and after every change (one followed at a time)."""

    tournament: TournamentCode


# The public view ----------------------------------------------------------------------------


class EntrantView(Struct, kw_only=True, omit_defaults=True):
    """An entrant by the name shown; `bot` its level if it is a bot."""

    name: Name
    bot: BotLevel | None = None


class TableView(Struct, kw_only=True, omit_defaults=True):
    """A table of a round: its seats (entrant numbers, in seat order), its room once opened
    (`CODE`, or `CODE-INVITE` in a private tournament), the scores by seat once finished, and
    the id of its archived game (`GET /api/games/ID`) once archived, to whoever may open it."""

    seats: Annotated[list[Entrant], Meta(min_length=2, max_length=4)]
    room: RoomCode | None = None
    scores: Annotated[list[Score], Meta(max_length=4)] | None = None
    game: GameId | None = None


class RoundView(Struct, kw_only=True):
    """A round: its tables and the units that sit it out (a bye)."""

    tables: Annotated[list[TableView], Meta(max_length=MAX_TABLES)]
    byes: Annotated[list[Entrant], Meta(max_length=MAX_ENTRANTS)]


class StandingView(Struct, kw_only=True):
    """A unit's line of the standings (docs/tournaments.md, "Standings")."""

    unit: Entrant
    match_points: Points
    buchholz: Points
    score: Annotated[int, Meta(ge=-MAX_SAFE_INTEGER, le=MAX_SAFE_INTEGER)]
    played: Count
    byes: Count
    #: Elimination: the round the unit went out in (1 is the first); None while it is still in,
    #: and in the other formats.
    out_in_round: Annotated[int, Meta(ge=1, le=MAX_ROUNDS)] | None = None


class TournamentView(Struct, kw_only=True):
    """A tournament as anyone who may see it sees it. `version` grows by one per change."""

    code: TournamentCode
    name: TournamentName
    format: Format
    rules: Rules
    partners: Partners | None
    rounds_planned: Annotated[int, Meta(ge=0, le=MAX_ROUNDS)]
    public: bool
    turn_seconds: TurnSeconds | None
    host: Name
    phase: Phase
    version: Annotated[int, Meta(ge=0, le=MAX_SAFE_INTEGER)]
    entrants: Annotated[list[EntrantView], Meta(max_length=MAX_ENTRANTS)]
    #: The units, each its entrants: a team of fixed partners, or one entrant (set at the start;
    #: before it, fixed partners' teams as they stand, the last one alone while it waits for a
    #: partner, and none in the other kinds).
    units: Annotated[
        list[Annotated[list[Entrant], Meta(min_length=1, max_length=2)]],
        Meta(max_length=MAX_ENTRANTS),
    ]
    rounds: Annotated[list[RoundView], Meta(max_length=MAX_ROUNDS)]
    standings: Annotated[list[StandingView], Meta(max_length=MAX_ENTRANTS)]
    #: The winning unit, once finished.
    champion: Entrant | None = None


# Server -> client ---------------------------------------------------------------------------


class TournamentUpdate(ServerMessage, tag="tournament"):
    """The tournament as it is now: the answer to every tournament message, and sent to its
    followers after every change. `tournament` is what finds it (`CODE-INVITE` for a private
    one); `you` your entrant number (None if you are none), `table` the room of your table in
    the round being played (None when you have none)."""

    tournament: TournamentCode
    state: TournamentView
    you: Entrant | None = None
    table: RoomCode | None = None
    id: int | None = None


TOURNAMENT_MESSAGES = (
    CreateTournament,
    JoinTournament,
    LeaveTournament,
    StartTournament,
    FollowTournament,
)
