"""The read-only HTTP API (`GET /api/...`): the JSON answers as msgspec structs, and the types of
players, ratings and archived games that the end-of-match room view shares with it.

Every answer is a JSON object; a refused request gets `ApiError` (`{"error": code, "message":
text}`) with an HTTP status. The answers carry codes and numbers, never sentences for players:
clients word them. protocol/README.md ("HTTP API") is the prose around these types.
"""

from __future__ import annotations

from typing import Annotated, Literal, TypeVar

import msgspec
from msgspec import Meta, Struct

from protocol.positions import Position
from protocol.ratings import (
    BOT_PLAYERS,
    LADDERS,
    GameId,
    LadderName,
    Rating,
    RatingChange,
)
from protocol.records import Record
from protocol.rules import Rules, TurnSeconds
from protocol.tournaments import (
    MAX_ROUNDS,
    Format,
    Partners,
    Phase,
    TournamentCode,
    TournamentName,
    TournamentView,
)
from protocol.views import BotLevel, Count, Seat, Winner

__all__ = [
    "BOT_PLAYERS",
    "LADDERS",
    "LadderName",
    "Rating",
    "RatingChange",
]


#: `GET /api/players/NAME/games`: at most this many games a page (`limit`), 20 when not given.
MAX_GAMES_PAGE = 50
DEFAULT_GAMES_PAGE = 20
#: `GET /api/tournaments`: at most this many tournaments a page (`limit`), 20 when not given.
MAX_TOURNAMENTS_PAGE = 50
DEFAULT_TOURNAMENTS_PAGE = 20
#: Entries of one ladder in `GET /api/ladder` at the most (the bot levels always among them).
MAX_LADDER_ENTRIES = 100
#: Points of a player's rating history in `GET /api/players/NAME` at the most (the latest).
MAX_HISTORY_POINTS = 200

#: API error codes (`ApiError.error`) with their HTTP status.
NOT_FOUND = "not_found"  # 404: no such player, game or tournament, or one the asker may not see
BAD_REQUEST = "bad_request"  # 400: a malformed parameter (offset, limit, a name, a game id)
RATE_LIMITED = "rate_limited"  # 429: too many requests from this address
NOT_ALLOWED = "not_allowed"  # 405: a method other than GET
UNAVAILABLE = "unavailable"  # 503: the store did not answer
API_STATUS: dict[str, int] = {
    NOT_FOUND: 404,
    BAD_REQUEST: 400,
    RATE_LIMITED: 429,
    NOT_ALLOWED: 405,
    UNAVAILABLE: 503,
}


class LadderEntry(Struct, kw_only=True):
    """A player on a ladder: its rating, its rated games and wins there; `bot` for a bot level;
    `provisional` while its matches there move no one's rating yet (docs/ratings.md)."""

    name: str
    rating: Rating
    games: Count
    wins: Count
    bot: bool = False
    provisional: bool = False


class Ladder(Struct, kw_only=True):
    """One format's ladder, best first (by `rating.rating`), at most MAX_LADDER_ENTRIES players,
    with every bot level among them; `total`: how many players hold a rating on it (have played a
    rated match there, a bot level as any other), so a bot level listed unplayed is not counted."""

    ladder: LadderName
    entries: Annotated[list[LadderEntry], Meta(max_length=MAX_LADDER_ENTRIES + len(BOT_PLAYERS))]
    total: Count = 0


class LadderAnswer(Struct, kw_only=True):
    """`GET /api/ladder`: every format's ladder, in the order of LADDERS."""

    ladders: list[Ladder]


class PlayerRating(Struct, kw_only=True):
    """A player's standing on one ladder it has played on (`provisional` as on the ladder)."""

    ladder: LadderName
    rating: Rating
    games: Count
    wins: Count
    provisional: bool = False


class RatingPoint(Struct, kw_only=True):
    """A point of a rating history: the rating on `ladder` after game `game`, finished at `at`
    (Unix seconds)."""

    game: GameId
    ladder: LadderName
    at: float
    rating: float


class PlayerAnswer(Struct, kw_only=True):
    """`GET /api/players/NAME`: a player (or a bot level) with its ratings, counts and history.

    `games` and `wins` count the finished matches the player sat in (rated or not): all of them
    when the player asks, public rooms' to anyone else; `history` holds the latest
    MAX_HISTORY_POINTS rating points, oldest first (private rooms' for the player alone).
    `you` is true when the asker's key is this player's (the page then offers "link this device")."""

    name: str
    bot: bool = False
    ratings: list[PlayerRating] = []
    games: Count = 0
    wins: Count = 0
    history: Annotated[list[RatingPoint], Meta(max_length=MAX_HISTORY_POINTS)] = []
    you: bool = False


class GamePlayer(Struct, kw_only=True):
    """Who sat in a seat of an archived game: `kind` "player" (a key's player, rated), "guest"
    (no key, not rated) or "bot" (with its level); how many of the seat's moves a stand-in bot
    made (`stand_in_moves` of `moves`); whether the seat's player left before the end; the
    seat's `side`, its index in `scores` and `winner` (its team in a partnership, else the
    seat; left out by servers older than it)."""

    seat: Seat
    name: str
    kind: Literal["player", "guest", "bot"]
    level: BotLevel | None = None
    moves: Count = 0
    stand_in_moves: Count = 0
    left: bool = False
    side: Seat | None = None


class GameSummary(Struct, kw_only=True):
    """An archived game in a list: when it finished, its rules, who sat where, the final scores
    (per seat, or per team in a partnership), the winner as in the record, its ladder (None when
    unrated), whether it was a private room's, and the rating changes it made."""

    id: GameId
    finished_at: float
    rules: Rules
    players: list[GamePlayer]
    scores: list[int]
    winner: Winner
    hands: Count
    ladder: LadderName | None = None
    private: bool = False
    changes: list[RatingChange] = []


class GamesPage(Struct, kw_only=True):
    """`GET /api/players/NAME/games?offset=N&limit=M`: the player's games the asker may see,
    newest first, `limit` (at most MAX_GAMES_PAGE) from `offset`, of `total`."""

    name: str
    offset: Count
    limit: Count
    total: Count
    games: Annotated[list[GameSummary], Meta(max_length=MAX_GAMES_PAGE)]


class GameDetail(GameSummary, kw_only=True):
    """`GET /api/games/ID`: the summary with the whole `allfives-record/1` record (docs/records.md)."""

    record: Record


class GamePositions(Struct, kw_only=True):
    """`GET /api/games/ID/positions`: the table after each step of the game (`Position`), as
    its replay draws it; a private room's only for its players, as the game itself."""

    id: GameId
    positions: list[Position]


class TournamentSummary(Struct, kw_only=True):
    """A public tournament in a list: its code (what `GET /api/tournaments/CODE` takes), name,
    format, the rules of its matches, partners (partnerships), turn clock, host's name, phase,
    how many entrants have joined, the rounds it plays (0 until it starts) and those begun."""

    code: TournamentCode
    name: TournamentName
    format: Format
    rules: Rules
    partners: Partners | None = None
    turn_seconds: TurnSeconds | None = None
    host: str
    phase: Phase
    entrants: Count
    rounds_planned: Annotated[int, Meta(ge=0, le=MAX_ROUNDS)]
    rounds_begun: Annotated[int, Meta(ge=0, le=MAX_ROUNDS)]


class TournamentsPage(Struct, kw_only=True):
    """`GET /api/tournaments?offset=N&limit=M`: the public tournaments, newest first; `limit`
    (at most MAX_TOURNAMENTS_PAGE) from `offset`, of `total`. A private tournament is never
    listed."""

    offset: Count
    limit: Count
    total: Count
    tournaments: Annotated[list[TournamentSummary], Meta(max_length=MAX_TOURNAMENTS_PAGE)]


class ApiError(Struct, kw_only=True):
    """A refused request: a code (NOT_FOUND, BAD_REQUEST, RATE_LIMITED, ...) and a sentence."""

    error: str
    message: str


AnyApiAnswer = (
    LadderAnswer
    | PlayerAnswer
    | GamesPage
    | GameDetail
    | GamePositions
    | TournamentsPage
    | TournamentView
    | ApiError
)

_encoder = msgspec.json.Encoder()
T = TypeVar("T")


def encode_answer(answer: AnyApiAnswer) -> bytes:
    """One answer as JSON."""
    return _encoder.encode(answer)


def decode_answer(data: bytes | str, kind: type[T]) -> T:
    """Read an answer of type `kind`; msgspec.DecodeError / ValidationError if it is not one."""
    return msgspec.json.decode(data, type=kind)
