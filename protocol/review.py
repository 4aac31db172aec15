"""The hard bot's review of a finished match, as `GET /api/games/ID/review` answers it and
`allfives analyze --json` prints it.

Language-neutral: each costly move carries its reasons as a `kind` with numbers, tiles and
seats, and the clients word them (see `Reason`). Points are expected game points for the seat's
side (its points less the others' over the rest of the hand, the points on the scoreboard: the
hard bot's premium for winning the match is kept out), rounded to 0.01 (a mean a move, to
0.1). A move's `accuracy` is `100 * exp(-lost / 10)` (100 for the best move, 60.7 for 5 points
lost, 36.8 for 10), a player's the mean of its moves', rounded to 0.1; a move's `grade` is
`inaccuracy` from 2 game points lost, `mistake` from 5, `blunder` from 10 (`best`, or `good`
below 2). Reviews before
`REVIEW_VERSION` 2 (no `version`) counted the match premium as points and have no accuracy:
a server works them out again. Names come from the record: untrusted text.
"""

from __future__ import annotations

from typing import Literal

import msgspec
from msgspec import Struct, field

from protocol.tiles import EndName, Tile

#: A move that cost this many expected game points or more is `costly` (a blunder).
COSTLY = 10.0
#: The review's version: 2 counts game points alone and adds accuracy and grades.
REVIEW_VERSION = 2

ReasonKind = Literal["passed_up", "opened", "kept_heavy"]
Grade = Literal["best", "good", "inaccuracy", "mistake", "blunder"]


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
    """One legal move and its expected game points for the seat's side."""

    move: ReviewMove
    value: float


class ReviewedMove(Struct, kw_only=True):
    """One decision: hand and move number (from 1), the seat, what it played, what was best."""

    hand: int
    move: int
    seat: int
    played: ReviewMove
    best: ReviewMove
    #: Expected game points the move played gave up against the best (0: it was the best,
    #: or the best was better for the match alone).
    lost: float
    costly: bool
    #: 0 to 100 (None in a review before version 2).
    accuracy: float | None = None
    #: None in a review before version 2.
    grade: Grade | None = None
    reasons: list[Reason] = []
    #: Every legal move with its expected game points, the best move first.
    values: list[MoveValue] = []
    #: Deals searched (1 when the rest of the hand was solved exactly).
    deals: int
    exact: bool


class HandReview(Struct, kw_only=True):
    """One seat in one hand: its decisions, game points lost, accuracy (None: no decision)."""

    hand: int
    decisions: int
    lost: float
    lost_per_move: float = 0.0
    accuracy: float | None = None


class PlayerReview(Struct, kw_only=True):
    """One seat's decisions added up; `costliest`: its three costliest moves, costliest first.

    `lost` adds up every decision's loss (each against the best move then: a chance passed up
    at two turns counts twice), `lost_per_move` is their mean, what the clients show; `accuracy`
    (None: no decision, or a review before version 2) is the mean of its moves'; `by_hand` every
    hand of the match; `inaccuracies`, `mistakes`, `blunders` its moves graded so.
    """

    seat: int
    name: str
    hands: int
    decisions: int
    lost: float
    lost_per_hand: float
    costly: int
    costliest: list[ReviewedMove]
    lost_per_move: float = 0.0
    accuracy: float | None = None
    by_hand: list[HandReview] = []
    inaccuracies: int = 0
    mistakes: int = 0
    blunders: int = 0


class Review(Struct, kw_only=True):
    """The whole review: the search's settings, each seat's summary, every decision in order."""

    #: `REVIEW_VERSION` (1 when absent: a review from before game points and accuracy).
    version: int = 1
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
