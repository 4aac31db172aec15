"""The hard bot's review of a record: the record's decisions reviewed by the engine
(`engine.review`) and written as the protocol's review (`protocol.review`).

One function for everyone who reviews a record: `allfives analyze`, the terminal client when
its server has no review, and the server's review lane (`server.play.reviews`, which runs
`review_bytes` in a worker of its own).
"""

from __future__ import annotations

from collections.abc import Callable, Sequence

from bridge.records import ReplayError, decisions_of
from engine import Move, RulesError
from engine.analysis import DEFAULT_BUDGET_MS, MoveReview
from engine.reasons import Reason as EngineReason
from engine.review import review_match
from protocol.records import Record, RecordFormatError, check_record, decode_record
from protocol.review import (
    REVIEW_VERSION,
    HandReview,
    MoveValue,
    PlayerReview,
    Reason,
    Review,
    ReviewedMove,
    ReviewMove,
    encode_review,
)
from protocol.tiles import END_NAMES


class AnalysisError(ValueError):
    """The record cannot be reviewed (not well formed, or not legal); the message says why."""


def review_record(
    record: Record,
    seats: Sequence[int] | None = None,
    budget_ms: float = DEFAULT_BUDGET_MS,
    seed: int = 0,
    progress: Callable[[int, int], None] | None = None,
) -> Review:
    """Review a record's decisions for `seats` (all by default); deterministic for a seed.

    Raises AnalysisError when the record is not well formed or not legal (a record from a server
    is checked like a file). `progress(done, total)` is called after each decision.
    """
    try:
        check_record(record)
        decisions = decisions_of(record, seats)
    except (RecordFormatError, RulesError) as error:
        raise AnalysisError(f"not a record: {error}") from error
    except ReplayError as error:
        raise AnalysisError(f"illegal: {error}") from error
    chosen = sorted(set(seats)) if seats else list(range(record.rules.players))
    done = review_match(decisions, chosen, len(record.hands), budget_ms, seed, progress)
    lines = [move_line(r) for r in done.moves]
    by_review = {id(r): line for r, line in zip(done.moves, lines, strict=True)}
    players = [
        PlayerReview(
            seat=summary.seat,
            name=record.names[summary.seat] if summary.seat < len(record.names) else "",
            hands=summary.hands,
            decisions=summary.decisions,
            lost=round(summary.lost, 2),
            lost_per_hand=round(summary.per_hand, 2),
            costly=summary.costly,
            costliest=[by_review[id(r)] for r in summary.costliest],
            lost_per_move=round(summary.per_move, 1),
            accuracy=percent(summary.accuracy),
            by_hand=[
                HandReview(
                    hand=hand.hand,
                    decisions=hand.decisions,
                    lost=round(hand.lost, 2),
                    lost_per_move=round(hand.per_move, 1),
                    accuracy=percent(hand.accuracy),
                )
                for hand in summary.by_hand
            ],
            inaccuracies=summary.inaccuracies,
            mistakes=summary.mistakes,
            blunders=summary.blunders,
        )
        for summary in done.seats
    ]
    return Review(
        version=REVIEW_VERSION,
        budget_ms=done.budget_ms,
        seed=done.seed,
        deals=done.deals,
        players=players,
        moves=lines,
    )


def percent(accuracy: float | None) -> float | None:
    """An accuracy as the review writes it (to 0.1)."""
    return None if accuracy is None else round(accuracy, 1)


def review_bytes(record: bytes, budget_ms: float, seed: int = 0) -> bytes:
    """A whole record (as JSON) reviewed for every seat, as JSON: for a worker process."""
    return encode_review(review_record(decode_record(record), None, budget_ms, seed))


def move_line(r: MoveReview) -> ReviewedMove:
    """One engine verdict as the protocol writes it."""
    return ReviewedMove(
        hand=r.hand,
        move=r.number,
        seat=r.seat,
        played=wire_move(r.played),
        best=wire_move(r.best),
        lost=round(r.lost, 2),
        costly=r.costly,
        accuracy=round(r.accuracy, 1),
        grade=r.grade,
        reasons=[wire_reason(reason) for reason in r.reasons],
        values=[MoveValue(move=wire_move(m), value=round(v, 2)) for m, v in r.values],
        deals=r.deals,
        exact=r.exact,
    )


def wire_move(move: Move) -> ReviewMove:
    """An engine move as the review writes it (a lead as its tile is written)."""
    if move.tile is None:
        return ReviewMove(pass_=True)
    end = None if move.end is None else END_NAMES[int(move.end)]
    return ReviewMove(tile=move.written_tile(), end=end)


def wire_reason(reason: EngineReason) -> Reason:
    """An engine reason as the review writes it."""
    return Reason(
        kind=reason.kind,
        points=reason.points,
        move=None if reason.move is None else wire_move(reason.move),
        seat=reason.seat,
        scored=reason.scored,
        tile=None if reason.tile is None else str(reason.tile),
        counted=reason.counted,
    )
