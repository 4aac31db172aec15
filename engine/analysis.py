"""Post-game analysis: each decision of a seat weighed by the hard bot's search, from its view.

A `Decision` is a seat's view just before one of its moves (only what it could see then), the
move it made, and what its hand still held when that hand ended. `review` runs the hard bot's
search (`engine.bots.hard.HardBot.evaluate`) on the view and reports the move played against
the best one. The best move is the bot's, chosen for the match (near the target, reaching it
first is worth `WIN_VALUE` more); what it reports is in game points alone, the points a player
sees on the scoreboard: the expected game points lost (points for the seat's side less the
others' to the end of the hand, the match term kept out), the move's accuracy and grade
(`accuracy`, `grade`), and, where one applies, the reasons as codes and numbers
(`engine.reasons`). `summarise` adds up a seat's decisions: game points lost (the mean a
decision, which stays within what a hand can score, and the sum), accuracy over the match and
per hand, the grades counted, and its costliest moves.

A move's accuracy is `100 * exp(-lost / ACCURACY_SCALE)`, `lost` in game points: 100 for the
best move, 90.5 for 1 point lost, 60.7 for 5, 36.8 for 10. A seat's accuracy (over the match or
a hand) is the mean of its moves' (moves with a choice only). A move that lost `INACCURACY`
game points or more is an inaccuracy, `MISTAKE` or more a mistake, `BLUNDER` or more a blunder.

The search counts deals instead of watching the clock, so a seed gives the same analysis on any
machine: a budget of B ms searches at most `DEALS_PER_MS * B` deals (what the bot searches in
that time on a typical decision), fewer when the other moves fall clearly behind.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Sequence
from typing import Literal

import msgspec

from engine.bots.hard import HardBot
from engine.layout import Layout
from engine.moves import Move
from engine.reasons import Reason, layout_after, reasons_for
from engine.tiles import Tile
from engine.view import View

#: The search per decision a review uses unless told otherwise (the hard bot's own budget).
DEFAULT_BUDGET_MS = 200.0
#: Deals searched per millisecond of budget (the hard bot's pace on this project's machine).
DEALS_PER_MS = 5
#: The fewest deals a decision is searched on, whatever the budget.
MIN_DEALS = 16
#: Game points lost from which a move is an inaccuracy, a mistake, a blunder.
INACCURACY = 2.0
MISTAKE = 5.0
BLUNDER = 10.0
#: A move that costs this many expected game points or more is marked (a blunder).
COSTLY = BLUNDER
#: The game points lost at which a move's accuracy falls to 1/e (36.8).
ACCURACY_SCALE = 10.0

#: A move's grade: the best move, or by the game points it lost.
Grade = Literal["best", "good", "inaccuracy", "mistake", "blunder"]

Progress = Callable[[int, int], None]


class Decision(msgspec.Struct, frozen=True, kw_only=True):
    """One move of a seat with a choice: its view just before, and what it played.

    `kept` is the seat's own hand when the hand ended (None if unknown), and `counted` whether
    those tiles counted against its side then; both only name the seat's own tiles.
    """

    hand: int
    number: int
    view: View
    played: Move
    kept: tuple[Tile, ...] | None = None
    counted: bool = False

    @property
    def seat(self) -> int:
        """The seat that decided."""
        assert self.view.seat is not None
        return self.view.seat


class MoveReview(msgspec.Struct, frozen=True, kw_only=True):
    """The verdict on one decision: the move played, the best move, and what the difference cost."""

    hand: int
    number: int
    seat: int
    played: Move
    best: Move
    #: Expected game points the played move gives up against the best (0 when it is the best,
    #: or when the best was better for the match alone).
    lost: float
    #: Why the best move was better, where a plain reason applies (`engine.reasons`).
    reasons: tuple[Reason, ...]
    #: Every legal move with its expected game points, best move first, then by game points.
    values: list[tuple[Move, float]]
    #: Deals searched (1 when the rest of the hand was solved exactly).
    deals: int
    exact: bool

    #: Whether the move played is the best one (or leaves the same position).
    is_best: bool = False

    @property
    def costly(self) -> bool:
        """Whether the move cost `COSTLY` expected game points or more."""
        return self.lost >= COSTLY

    @property
    def accuracy(self) -> float:
        """The move's accuracy, 0 to 100 (see the module docstring)."""
        return accuracy_of(self.lost)

    @property
    def grade(self) -> Grade:
        """The best move, or the move graded by the game points it lost."""
        return grade_of(self.lost, self.is_best)


class HandSummary(msgspec.Struct, frozen=True, kw_only=True):
    """A seat's decisions in one hand: game points lost and accuracy (None: no decision)."""

    hand: int
    decisions: int
    lost: float
    #: The mean game points lost a decision (0 with none).
    per_move: float
    accuracy: float | None


class SeatSummary(msgspec.Struct, frozen=True, kw_only=True):
    """A seat's decisions added up."""

    seat: int
    hands: int
    decisions: int
    #: Expected game points lost over the match (each decision against the best move then, so
    #: a chance passed up twice counts twice), per hand, and the mean a decision.
    lost: float
    per_hand: float
    per_move: float
    #: The mean accuracy of its decisions, 0 to 100 (None: it had no decision).
    accuracy: float | None
    #: Every hand of the match, in order.
    by_hand: list[HandSummary]
    inaccuracies: int
    mistakes: int
    blunders: int
    #: The three costliest moves, costliest first (moves that cost nothing are left out).
    costliest: list[MoveReview]
    #: How many moves cost `COSTLY` or more.
    costly: int


def accuracy_of(lost: float) -> float:
    """The accuracy of a move that lost `lost` game points: 100 for none, toward 0 for many."""
    return 100.0 * math.exp(-max(0.0, lost) / ACCURACY_SCALE)


def grade_of(lost: float, is_best: bool = False) -> Grade:
    """A move's grade by the game points it lost (`INACCURACY`, `MISTAKE`, `BLUNDER`)."""
    if lost >= BLUNDER:
        return "blunder"
    if lost >= MISTAKE:
        return "mistake"
    if lost >= INACCURACY:
        return "inaccuracy"
    return "best" if is_best else "good"


def mean_lost(reviews: Sequence[MoveReview]) -> float:
    """The mean game points some decisions lost (0 for none)."""
    return sum(r.lost for r in reviews) / len(reviews) if reviews else 0.0


def mean_accuracy(reviews: Sequence[MoveReview]) -> float | None:
    """The mean accuracy of some decisions (None for none)."""
    if not reviews:
        return None
    return sum(r.accuracy for r in reviews) / len(reviews)


def deals_for(budget_ms: float) -> int:
    """The most deals a decision is searched on for a budget in milliseconds."""
    return max(MIN_DEALS, round(budget_ms * DEALS_PER_MS))


def review(
    decision: Decision,
    budget_ms: float = DEFAULT_BUDGET_MS,
    seed: int = 0,
) -> MoveReview:
    """Weigh one decision with the hard bot's search on the seat's view."""
    view = decision.view
    bot = HardBot(seed, budget_ms=None, max_samples=deals_for(budget_ms))
    verdict = bot.evaluate(view, split=True)
    best = verdict.best
    played = decision.played
    points = verdict.points_dict()
    same = played == best or same_position(view, played, best)
    lost = 0.0 if same else max(0.0, points[best] - points.get(played, points[best]))
    ranked = sorted(points.items(), key=lambda item: (item[0] != best, -item[1]))
    reasons = reasons_for(view, played, best, decision.kept, decision.counted) if lost > 0 else ()
    return MoveReview(
        hand=decision.hand,
        number=decision.number,
        seat=decision.seat,
        played=played,
        best=best,
        lost=lost,
        reasons=reasons,
        values=ranked,
        deals=verdict.deals,
        exact=verdict.exact,
        is_best=same,
    )


def analyse(
    decisions: Sequence[Decision],
    budget_ms: float = DEFAULT_BUDGET_MS,
    seed: int = 0,
    progress: Progress | None = None,
) -> list[MoveReview]:
    """Review every decision in order; `progress(done, total)` is called after each."""
    reviews = []
    for done, decision in enumerate(decisions, start=1):
        reviews.append(review(decision, budget_ms, seed))
        if progress is not None:
            progress(done, len(decisions))
    return reviews


def summarise(reviews: Sequence[MoveReview], seat: int, hands: int) -> SeatSummary:
    """A seat's game points lost and accuracy over `hands` hands and in each, its grades
    counted, and its three costliest moves."""
    mine = [r for r in reviews if r.seat == seat]
    lost = sum(r.lost for r in mine)
    costliest = sorted((r for r in mine if r.lost > 0), key=lambda r: -r.lost)[:3]
    grades = [r.grade for r in mine]
    by_hand = []
    for hand in range(1, hands + 1):
        here = [r for r in mine if r.hand == hand]
        by_hand.append(
            HandSummary(
                hand=hand,
                decisions=len(here),
                lost=sum(r.lost for r in here),
                per_move=mean_lost(here),
                accuracy=mean_accuracy(here),
            )
        )
    return SeatSummary(
        seat=seat,
        hands=hands,
        decisions=len(mine),
        lost=lost,
        per_hand=lost / hands if hands else 0.0,
        per_move=mean_lost(mine),
        accuracy=mean_accuracy(mine),
        by_hand=by_hand,
        inaccuracies=grades.count("inaccuracy"),
        mistakes=grades.count("mistake"),
        blunders=grades.count("blunder"),
        costliest=costliest,
        costly=sum(1 for r in mine if r.costly),
    )


def as_legal(view: View, move: Move) -> Move:
    """The legal move a recorded move stands for (a record may leave out an end that is clear)."""
    if move in view.legal or move.end is not None:
        return move
    if move.flipped and view.layout.empty:
        return move.flip()  # a lead written the other way round is the same lead (rule 5.1)
    same = [m for m in view.legal if m.tile == move.tile]
    if not same:
        return move
    # A tile with no end on a lone lead double goes east (rule 5.6).
    return next((m for m in same if m.end is not None and int(m.end) == 1), same[0])


def same_position(view: View, a: Move, b: Move) -> bool:
    """Whether two moves leave the same position (one tile at two alike ends, as on a lone double)."""
    if a.tile is None or a.tile != b.tile:
        return False
    return _shape(layout_after(view, a)) == _shape(layout_after(view, b))


def _shape(layout: Layout) -> tuple[object, ...]:
    """What decides the rest of the hand: the open ends with their weights, the spinner's state."""
    ends = sorted(zip(layout.open, layout.weight, strict=True))
    return (tuple(ends), layout.spinner, sorted(layout.spinner_sides), layout.total())
