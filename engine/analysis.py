"""Post-game analysis: each decision of a seat weighed by the hard bot's search, from its view.

A `Decision` is a seat's view just before one of its moves (only what it could see then), the
move it made, and what its hand still held when that hand ended. `review` runs the hard bot's
search (`engine.bots.hard.HardBot.evaluate`) on the view and reports the move played against
the best one: the expected points lost (points for the seat's side less the others' to the end
of the hand, with the match value near the target) and, where one applies, a reason in words.
`summarise` adds up a seat's decisions: points lost per hand and its costliest moves.

The search counts deals instead of watching the clock, so a seed gives the same analysis on any
machine: a budget of B ms searches at most `DEALS_PER_MS * B` deals (what the bot searches in
that time on a typical decision), fewer when the other moves fall clearly behind.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence

import msgspec

from engine.bots.hard import HardBot
from engine.bots.simple import points_now
from engine.events import Played
from engine.kernel import points_of, total_after
from engine.layout import Layout
from engine.moves import Move
from engine.tiles import FULL_SET, PIPS, End, Tile, mask_of, tiles_of
from engine.view import View

#: Deals searched per millisecond of budget (the hard bot's pace on this project's machine).
DEALS_PER_MS = 5
#: The fewest deals a decision is searched on, whatever the budget.
MIN_DEALS = 16
#: A move that costs this many expected points or more is marked.
COSTLY = 10.0
#: A double at least this heavy is a "heavy double"; a tile this heavy is worth shedding.
HEAVY_DOUBLE = 8
HEAVY_TILE = 9

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
    #: Expected points the played move gives up against the best (0 when it is the best).
    lost: float
    reason: str | None
    #: Every legal move with its expected value, best first.
    values: list[tuple[Move, float]]
    #: Deals searched (1 when the rest of the hand was solved exactly).
    deals: int
    exact: bool

    @property
    def costly(self) -> bool:
        """Whether the move cost `COSTLY` expected points or more."""
        return self.lost >= COSTLY


class SeatSummary(msgspec.Struct, frozen=True, kw_only=True):
    """A seat's decisions added up."""

    seat: int
    hands: int
    decisions: int
    lost: float
    per_hand: float
    #: The three costliest moves, costliest first (moves that cost nothing are left out).
    costliest: list[MoveReview]
    #: How many moves cost `COSTLY` or more.
    costly: int


def deals_for(budget_ms: float) -> int:
    """The most deals a decision is searched on for a budget in milliseconds."""
    return max(MIN_DEALS, round(budget_ms * DEALS_PER_MS))


def review(
    decision: Decision,
    budget_ms: float = 200.0,
    seed: int = 0,
    names: Sequence[str] | None = None,
) -> MoveReview:
    """Weigh one decision with the hard bot's search on the seat's view."""
    view = decision.view
    bot = HardBot(seed, budget_ms=None, max_samples=deals_for(budget_ms))
    verdict = bot.evaluate(view)
    best = verdict.best
    played = decision.played
    values = verdict.as_dict()
    same = played == best or same_position(view, played, best)
    lost = 0.0 if same else max(0.0, values[best] - values.get(played, values[best]))
    ranked = sorted(values.items(), key=lambda item: -item[1])
    reason = explain(decision, best, names) if lost > 0 else None
    return MoveReview(
        hand=decision.hand,
        number=decision.number,
        seat=decision.seat,
        played=played,
        best=best,
        lost=lost,
        reason=reason,
        values=ranked,
        deals=verdict.deals,
        exact=verdict.exact,
    )


def analyse(
    decisions: Sequence[Decision],
    budget_ms: float = 200.0,
    seed: int = 0,
    names: Sequence[str] | None = None,
    progress: Progress | None = None,
) -> list[MoveReview]:
    """Review every decision in order; `progress(done, total)` is called after each."""
    reviews = []
    for done, decision in enumerate(decisions, start=1):
        reviews.append(review(decision, budget_ms, seed, names))
        if progress is not None:
            progress(done, len(decisions))
    return reviews


def summarise(reviews: Sequence[MoveReview], seat: int, hands: int) -> SeatSummary:
    """A seat's points lost per hand over `hands` hands, and its three costliest moves."""
    mine = [r for r in reviews if r.seat == seat]
    lost = sum(r.lost for r in mine)
    costliest = sorted((r for r in mine if r.lost > 0), key=lambda r: -r.lost)[:3]
    return SeatSummary(
        seat=seat,
        hands=hands,
        decisions=len(mine),
        lost=lost,
        per_hand=lost / hands if hands else 0.0,
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
    return _shape(_after(view, a)) == _shape(_after(view, b))


def _after(view: View, move: Move) -> Layout:
    layout = view.layout.copy()
    assert move.tile is not None
    if layout.empty:
        layout.place_lead(move.tile)
    else:
        layout.place(move.tile, 1 if move.end is None else int(move.end))
    return layout


def _shape(layout: Layout) -> tuple[object, ...]:
    """What decides the rest of the hand: the open ends with their weights, the spinner's state."""
    ends = sorted(zip(layout.open, layout.weight, strict=True))
    return (tuple(ends), layout.spinner, sorted(layout.spinner_sides), layout.total())


# -- reasons in words ---------------------------------------------------------------------------


def explain(decision: Decision, best: Move, names: Sequence[str] | None = None) -> str | None:
    """Why the best move was better, where a plain reason applies (None if only the search says)."""
    view = decision.view
    played = decision.played
    reasons = []
    scored, could = points_now(view, played), points_now(view, best)
    if could > scored:
        reasons.append(f"passed up {could} points with {best}")
    (gift, reply), (saved, _) = opened(view, played), opened(view, best)
    if gift > saved:
        whom = f"{_name(names, _next_seat(view))} ({reply})"
        if scored > 0:
            reasons.append(f"scored {scored} now but opened {gift} for {whom}")
        else:
            reasons.append(f"opened {gift} for {whom}")
    kept = _kept_heavy(decision, best)
    if kept is not None:
        what = "a heavy double" if kept.is_double else f"{kept.pips} pips"
        if decision.counted:
            reasons.append(f"kept {kept} ({what}), counted against you when the hand ended")
        else:
            reasons.append(f"kept {kept} ({what}) instead of shedding it")
    return "; ".join(reasons) or None


def opened(view: View, move: Move) -> tuple[int, Move | None]:
    """The most an opponent playing next could score with a tile this seat cannot see, after
    `move`, and the play that scores it; (0, None) when the next seat is a partner or the move
    ends the hand.
    """
    if move.tile is None or view.seat is None or view.hand is None:
        return 0, None
    if len(view.hand) == 1 or view.rules.side_of(_next_seat(view)) == view.rules.side_of(view.seat):
        return 0, None
    layout = _after(view, move)
    seen = mask_of(view.hand) | mask_of(e.tile for e in view.history if isinstance(e, Played))
    sides = layout.spinner_sides
    best, reply = 0, None
    for tile in tiles_of(FULL_SET & ~seen):
        for end in layout.ends_for(tile):
            total = total_after(
                layout.open, layout.weight, layout.spinner, sides[0], sides[1], tile, end
            )
            if points_of(total) > best:
                best, reply = points_of(total), Move(tile, End(end))
    return best, reply


def _kept_heavy(decision: Decision, best: Move) -> Tile | None:
    """The heavy tile the best move shed and the played move kept to the end of the hand, if any."""
    tile = best.tile
    played = decision.played.tile
    if tile is None or tile == played or decision.kept is None or tile not in decision.kept:
        return None
    heavy = (tile.is_double and PIPS[tile] >= HEAVY_DOUBLE) or PIPS[tile] >= HEAVY_TILE
    if not heavy or (played is not None and PIPS[played] >= PIPS[tile]):
        return None
    return tile


def _next_seat(view: View) -> int:
    assert view.seat is not None
    return (view.seat + 1) % view.rules.players


def _name(names: Sequence[str] | None, seat: int) -> str:
    if names and seat < len(names) and names[seat]:
        return names[seat]
    return f"seat {seat}"
