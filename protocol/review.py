"""The hard bot's review of a finished match, as `GET /api/games/ID/review` answers it and
`allfives analyze --json` prints it.

Language-neutral: each costly move carries its reasons as a `kind` with numbers, tiles and
seats, and the clients word them (see `Reason`). Points are expected points for the seat's side
over the rest of the hand, rounded to 0.01. Names come from the record: untrusted text.
"""

from __future__ import annotations

from typing import Literal

import msgspec
from msgspec import Struct, field

from protocol.tiles import EndName, Tile

#: A move that cost this many expected points or more is `costly`.
COSTLY = 10.0

ReasonKind = Literal["passed_up", "opened", "kept_heavy"]


class ReviewMove(Struct, kw_only=True, omit_defaults=True):
    """A play (`tile`, `end` where the tile fit more than one end) or a pass."""

    tile: Tile | None = None
    end: EndName | None = None
    pass_: bool = field(default=False, name="pass")


class Reason(Struct, kw_only=True, omit_defaults=True):
    """Why the best move was better, one plain reason.

    - `passed_up`: the best move (`move`) scored `points` now; the move played scored less.
    - `opened`: after the move played, the next player (`seat`, an opponent) could score
      `points` with a tile this seat could not see (`move`, that reply); `scored` is what the
      move played scored now.
    - `kept_heavy`: the best move shed `tile` (`points`: its pips) and the move played kept it
      to the end of the hand; `counted`: it then counted against the seat's side.
    """

    kind: ReasonKind
    points: int = 0
    move: ReviewMove | None = None
    seat: int | None = None
    scored: int = 0
    tile: Tile | None = None
    counted: bool = False


class MoveValue(Struct, kw_only=True):
    """One legal move and its expected value for the seat's side."""

    move: ReviewMove
    value: float


class ReviewedMove(Struct, kw_only=True):
    """One decision: hand and move number (from 1), the seat, what it played, what was best."""

    hand: int
    move: int
    seat: int
    played: ReviewMove
    best: ReviewMove
    #: Expected points the move played gave up against the best (0: it was the best).
    lost: float
    costly: bool
    reasons: list[Reason] = []
    #: Every legal move with its expected value, best first.
    values: list[MoveValue] = []
    #: Deals searched (1 when the rest of the hand was solved exactly).
    deals: int
    exact: bool


class PlayerReview(Struct, kw_only=True):
    """One seat's decisions added up; `costliest`: its three costliest moves, costliest first."""

    seat: int
    name: str
    hands: int
    decisions: int
    lost: float
    lost_per_hand: float
    costly: int
    costliest: list[ReviewedMove]


class Review(Struct, kw_only=True):
    """The whole review: the search's settings, each seat's summary, every decision in order."""

    budget_ms: float
    seed: int
    deals: int
    players: list[PlayerReview]
    moves: list[ReviewedMove]


class ReviewFormatError(ValueError):
    """The document is not a review; the message says where."""


def encode_review(review: Review) -> bytes:
    """A review as JSON."""
    return msgspec.json.encode(review)


def decode_review(data: bytes | str) -> Review:
    """Read a review (from a server: untrusted); ReviewFormatError if it is not one."""
    try:
        return msgspec.json.decode(data, type=Review)
    except (msgspec.DecodeError, msgspec.ValidationError) as error:
        raise ReviewFormatError(f"not a review: {error}") from None
