"""Game records: an engine match to an `allfives-record/1` record, and a record back to a match."""

from __future__ import annotations

from collections.abc import Collection, Sequence

from engine import (
    ALL_TILES,
    Deal,
    End,
    HandEnded,
    Match,
    Move,
    ReplayError,
    Rules,
    Tile,
    replay,
    tiles_of,
)
from engine.analysis import Decision, as_legal
from engine.replay import BeforeMove
from engine.view import View
from protocol.records import HandResult, Record, RecordHand, RecordMove
from protocol.tiles import END_NAMES


def result_to_wire(result: HandEnded) -> HandResult:
    """A hand's end as a record writes it."""
    return HandResult(kind=result.kind, by=result.by, points=list(result.points))


def record_of(match: Match, names: Sequence[str], computed: bool = True) -> Record:
    """The record of a match so far; with `computed`, also replay's computed fields (docs/records.md).

    Hands that have been dealt but not yet begun are left out.
    """
    hands = []
    for hand in match.record:
        if not hand.moves and hand.result is None:
            continue
        moves = []
        for m in hand.moves:
            if m.tile < 0:
                move = RecordMove(seat=m.seat, pass_=True)
            else:
                end = END_NAMES[m.end] if m.end >= 0 else None
                written = Move(ALL_TILES[m.tile], None, m.flipped).written_tile()
                move = RecordMove(seat=m.seat, tile=written, end=end)
            if computed:
                move.drew = m.drew
                move.points = m.points
                if m.tile >= 0:
                    move.total = m.total
            moves.append(move)
        hands.append(
            RecordHand(
                leader=hand.deal.leader,
                deal=[[str(ALL_TILES[t]) for t in seat] for seat in hand.deal.hands],
                boneyard=[str(ALL_TILES[t]) for t in hand.deal.boneyard],
                moves=moves,
                result=result_to_wire(hand.result) if computed and hand.result else None,
            )
        )
    record = Record(rules=match.rules.match_rules, names=list(names), hands=hands)
    if computed:
        record.scores = list(match.scores)
        record.winner = list(match.winner) if isinstance(match.winner, tuple) else match.winner
    return record


def match_of(record: Record, before: BeforeMove | None = None) -> Match:
    """Replay a well-formed record through the engine; raises ReplayError at its first illegal move.

    `before` sees the match before each move (see `engine.replay`).
    """
    rules = record.rules
    hands = []
    for hand in record.hands:
        deal = Deal(
            tuple(tuple(int(Tile.parse(t)) for t in seat) for seat in hand.deal),
            tuple(int(Tile.parse(t)) for t in hand.boneyard),
            hand.leader,
        )
        moves = [(m.seat, _move_of(m)) for m in hand.moves]
        hands.append((deal, moves))
    return replay(rules, hands, before)


def decisions_of(record: Record, seats: Collection[int] | None = None) -> list[Decision]:
    """Every move of `seats` (all by default) that had a choice, as the seat saw it then.

    Each decision holds the seat's view just before the move (`Match.view_for`: what it could
    see, never the others' tiles), the move, and the seat's own tiles when that hand ended.
    Raises ReplayError like `match_of`.
    """
    taken: list[tuple[int, int, View, Move]] = []
    kept: dict[tuple[int, int], int] = {}

    def before(match: Match, seat: int, move: Move) -> None:
        hand = match.hand_number
        held = match.hands[seat]
        kept[hand, seat] = held & ~(1 << move.tile) if move.tile is not None else held
        if seats is not None and seat not in seats:
            return
        view = match.view_for(seat)
        if len(view.legal) > 1:
            taken.append((hand, len(match.record[-1].moves) + 1, view, move))

    match = match_of(record, before)
    decisions = []
    for hand, number, view, move in taken:
        assert view.seat is not None
        left = kept.get((hand, view.seat))
        result = match.record[hand - 1].result
        decisions.append(
            Decision(
                hand=hand,
                number=number,
                view=view,
                played=as_legal(view, move),
                kept=None if left is None else tuple(tiles_of(left)),
                counted=result is not None and _counted(match.rules, result, view.seat),
            )
        )
    return decisions


def _counted(rules: Rules, result: HandEnded, seat: int) -> bool:
    """Whether the tiles a seat held at the end of a hand counted against its side."""
    if result.kind == "won":
        return False
    mine = rules.side_of(seat)
    if rules.end_scoring == "penalty":
        return result.points[mine] < 0
    others = [p for side, p in enumerate(result.points) if side != mine]
    return result.points[mine] <= 0 and any(p > 0 for p in others)


def _move_of(move: RecordMove) -> Move:
    if move.pass_:
        return Move()
    assert move.tile is not None  # a well-formed record's play names its tile
    end = End(END_NAMES.index(move.end)) if move.end is not None else None
    return Move.written(move.tile, end)


__all__ = [
    "ReplayError",
    "decisions_of",
    "match_of",
    "record_of",
    "result_to_wire",
]
