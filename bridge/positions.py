"""A finished match's record as the positions its replay shows (`protocol.positions.Position`).

The engine plays the record again move by move, and each position is the table it leaves: the
layout as the engine placed it, the end each play went to, the scores the engine counted. Every
seat's tiles are the record's own (the deal, the tiles drawn in the boneyard's order, less the
tiles played), so a position shows nothing the record does not.
"""

from __future__ import annotations

from bridge.convert import end_name, table_layout
from bridge.records import match_of, result_to_wire
from engine import Deal, HandEnded, Match, Move, Played, Tile
from engine.tiles import End
from protocol.positions import Position, StepKind
from protocol.records import Record, RecordHand, RecordMove
from protocol.tiles import END_NAMES


def positions_of(record: Record) -> list[Position]:
    """The positions of a record, hand by hand; raises ReplayError where it is not legal."""
    match_of(record)  # the whole record checked first: an illegal one gives no positions
    rules = record.rules
    deals = [_deal(hand) for hand in record.hands]
    match = Match.new(rules, seed=0, deals=deals[:1])
    positions: list[Position] = []
    for number, hand in enumerate(record.hands, start=1):
        tiles = [list(seat) for seat in hand.deal]
        drawn = 0
        layout = match.layout
        scores = list(match.scores)

        def position(kind: StepKind, move: int, seat: int | None, **more: object) -> Position:
            drawn_layout, ends = table_layout(layout)  # noqa: B023 - called in this hand's loop
            return Position(
                hand=number,  # noqa: B023
                move=move,
                kind=kind,
                seat=seat,
                tiles=[list(held) for held in tiles],  # noqa: B023
                boneyard=len(hand.boneyard) - drawn,  # noqa: B023
                layout=drawn_layout,
                ends=ends,
                scores=list(scores),  # noqa: B023
                lead=len(layout.chains[End.WEST]) if layout.lead else None,  # noqa: B023
                **more,  # type: ignore[arg-type]
            )

        positions.append(position("deal", 0, hand.leader))
        ended: HandEnded | None = None
        for at, move in enumerate(hand.moves, start=1):
            if at == len(hand.moves) and number < len(record.hands):
                match.pending_deals.append(deals[number])  # dealt as this hand ends
            layout = match.layout  # kept: the hand's last move leaves the match a new one
            events = match.apply(move.seat, _move_of(move))
            drew = match.record[number - 1].moves[at - 1].drew
            for tile in hand.boneyard[drawn : drawn + drew]:
                tiles[move.seat].append(tile)
            drawn += drew
            ended = next((e for e in events if isinstance(e, HandEnded)), ended)
            scores = list(match.scores)
            if ended is not None:  # the hand's points come in its result's position
                scores = [
                    score - points for score, points in zip(scores, ended.points, strict=False)
                ]
            played = next((e for e in events if isinstance(e, Played)), None)
            if played is None:
                positions.append(position("passed", at, move.seat, drew=drew))
                continue
            _take(tiles[move.seat], move)
            positions.append(
                position(
                    "played",
                    at,
                    move.seat,
                    tile=move.tile,
                    end=end_name(played.end),
                    drew=drew,
                    total=played.total,
                    points=played.points,
                )
            )
        if ended is not None:
            scores = [score + points for score, points in zip(scores, ended.points, strict=False)]
            result = result_to_wire(ended)
            positions.append(position("hand_ended", len(hand.moves) + 1, None, result=result))
    return positions


def _deal(hand: RecordHand) -> Deal:
    return Deal(
        tuple(tuple(int(Tile.parse(tile)) for tile in seat) for seat in hand.deal),
        tuple(int(Tile.parse(tile)) for tile in hand.boneyard),
        hand.leader,
    )


def _move_of(move: RecordMove) -> Move:
    if move.pass_ or move.tile is None:
        return Move()
    return Move.written(move.tile, None if move.end is None else End(END_NAMES.index(move.end)))


def _take(held: list[str], move: RecordMove) -> None:
    """Take the tile a play placed out of the seat's tiles, whichever way either is written."""
    assert move.tile is not None
    wanted = {move.tile, move.tile[::-1]}
    found = next((i for i, tile in enumerate(held) if tile in wanted), None)
    if found is not None:
        del held[found]


__all__ = ["positions_of"]
