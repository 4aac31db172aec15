"""The hard bot's review of a whole match: every decision of the chosen seats, and their totals.

`review_match` weighs each decision (`engine.analysis.review`) and adds up each seat's
(`engine.analysis.summarise`). It knows nothing of records or words: `bridge.reviews` turns a
record into decisions and the result into the protocol's review (`protocol.review`), and the
clients word it.
"""

from __future__ import annotations

from collections.abc import Sequence

import msgspec

from engine.analysis import (
    DEFAULT_BUDGET_MS,
    Decision,
    MoveReview,
    Progress,
    SeatSummary,
    analyse,
    deals_for,
    summarise,
)


class MatchReview(msgspec.Struct, frozen=True, kw_only=True):
    """Every decision reviewed, in order, and each chosen seat's summary (in seat order)."""

    budget_ms: float
    seed: int
    deals: int
    moves: list[MoveReview]
    seats: list[SeatSummary]


def review_match(
    decisions: Sequence[Decision],
    seats: Sequence[int],
    hands: int,
    budget_ms: float = DEFAULT_BUDGET_MS,
    seed: int = 0,
    progress: Progress | None = None,
) -> MatchReview:
    """Review `decisions` (the chosen seats' moves with a choice, in order) over `hands` hands;
    deterministic for a seed. `progress(done, total)` is called after each decision."""
    moves = analyse(decisions, budget_ms, seed, progress)
    return MatchReview(
        budget_ms=budget_ms,
        seed=seed,
        deals=deals_for(budget_ms),
        moves=moves,
        seats=[summarise(moves, seat, hands) for seat in sorted(set(seats))],
    )
