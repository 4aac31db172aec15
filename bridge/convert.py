"""Engine values as protocol values: a seat's engine `View` becomes the wire `GameView`.

Everything a client receives about a match passes through `game_view` (built from
`Match.view_for(seat)`, made in `engine.parts`, the engine's one place where hidden tiles are removed) and `event`.
"""

from __future__ import annotations

from collections.abc import Iterable

from engine import End, Move, View, parts
from engine import events as engine_events
from engine.kernel import points_of
from engine.layout import Layout
from engine.moves import WRITTEN_NAMES
from protocol import views as wire
from protocol.tiles import END_NAMES, EndName

END_BY_NAME = {name: End(index) for index, name in enumerate(END_NAMES)}


def end_name(end: int | None) -> EndName | None:
    """The wire name of an end ("west" ...), or None."""
    return None if end is None else END_NAMES[end]


def event(item: engine_events.Event) -> wire.AnyEvent:
    """One engine event as a wire event (a draw says how many tiles, never which)."""
    match item:
        case engine_events.Played(seat, tile, end, total, points, flipped):
            return wire.Played(
                seat=seat,
                tile=WRITTEN_NAMES[flipped][tile],
                end=end_name(end),
                total=total,
                points=points,
            )
        case engine_events.Drew(seat, count, _):
            return wire.Drew(seat=seat, count=count)
        case engine_events.Passed(seat, _):
            return wire.Passed(seat=seat)
        case engine_events.HandEnded(kind, by, points, pips, counts, table, side_pips):
            return wire.HandEnded(
                kind=kind,
                by=by,
                points=list(points),
                pips=list(pips),
                counts=hand_counts(counts),
                side_pips=list(side_pips),
                layout=drawn_layout(table),
            )
        case engine_events.HandStarted(number, leader):
            return wire.HandStarted(number=number, leader=leader)
        case engine_events.MatchEnded(winner):
            return wire.MatchEnded(winner=winner if isinstance(winner, int) else list(winner))
    raise TypeError(f"not an engine event: {item!r}")


def events(items: Iterable[engine_events.Event]) -> list[wire.AnyEvent]:
    """Engine events as wire events."""
    return [event(item) for item in items]


def move_spec(move: Move, single_end: bool = False, total: int | None = None) -> wire.MoveSpec:
    """A move as the wire lists it; `single_end` leaves out an end the tile alone could take,
    `total` is the ends total the play would make (and scores, when a multiple of 5)."""
    if move.tile is None:
        return wire.MoveSpec(pass_=True)
    end = None if single_end else end_name(move.end)
    points = 0 if total is None else points_of(total)
    return wire.MoveSpec(tile=move.written_tile(), end=end, total=total, points=points)


def listed_spec(move: Move, legal: list[Move], layout: Layout | None = None) -> wire.MoveSpec:
    """A move as `legal_specs` lists it among `legal` (no end where the tile fits only one), with
    the total it would make on `layout` when given."""
    total = None if layout is None else parts.totals(layout, [move])[0]
    return move_spec(move, sum(1 for other in legal if other.tile == move.tile) == 1, total)


def legal_specs(legal: list[Move], layout: Layout) -> list[wire.MoveSpec]:
    """The legal moves, with an end only where the tile fits more than one end, and the ends
    total each play would make on `layout`."""
    ends_per_tile: dict[int | None, int] = {}
    for move in legal:
        ends_per_tile[move.tile] = ends_per_tile.get(move.tile, 0) + 1
    totals = parts.totals(layout, legal)
    return [
        move_spec(move, ends_per_tile[move.tile] == 1, total)
        for move, total in zip(legal, totals, strict=True)
    ]


def move_of(tile: str | None, end: EndName | None) -> Move:
    """A wire play (tile "5-3", end name or None) or pass (tile None) as an engine move.

    A tile with no end keeps its written order: as a lead, "1-6" puts 1 west (5.1).
    """
    if tile is None:
        return Move()
    return Move.written(tile, None if end is None else END_BY_NAME[end])


def layout(view: View) -> tuple[wire.Layout, wire.Ends]:
    """The table as the wire draws it, and the number open at each end."""
    return table_layout(view.layout)


def table_layout(table: Layout) -> tuple[wire.Layout, wire.Ends]:
    """An engine layout as the wire draws it, and the number open at each end."""
    drawn = drawn_layout(table.drawn())
    assert drawn is not None
    opened = [n if n >= 0 else None for n in table.open]
    ends = wire.Ends(west=opened[0], east=opened[1], north=opened[2], south=opened[3])
    return drawn, ends


def drawn_layout(table: engine_events.Table | None) -> wire.Layout | None:
    """A drawn table (`engine.events.Table`) as the wire's layout; None stays None."""
    if table is None:
        return None
    return wire.Layout(
        line=[list(pair) for pair in table.line],
        spinner=table.spinner,
        north=[list(pair) for pair in table.north],
        south=[list(pair) for pair in table.south],
    )


def hand_counts(counts: Iterable[engine_events.Count]) -> list[wire.HandCount]:
    """Where a hand's end-of-hand points came from, as the wire says it."""
    return [
        wire.HandCount(
            side=count.side,
            seats=list(count.seats),
            pips=count.pips,
            points=count.points,
            halved=count.halved,
        )
        for count in counts
    ]


def hand_summary(result: engine_events.HandEnded | None) -> wire.HandSummary | None:
    """The previous hand's result as shown between hands."""
    if result is None:
        return None
    return wire.HandSummary(
        kind=result.kind,
        by=result.by,
        points=list(result.points),
        pips=list(result.pips),
        counts=hand_counts(result.counts),
        side_pips=list(result.side_pips),
        layout=drawn_layout(result.table),
    )


def winner(value: int | tuple[int, ...] | None) -> wire.Winner:
    """A winning side, or the list of sides sharing the win."""
    return value if value is None or isinstance(value, int) else list(value)


def game_view(view: View) -> wire.GameView:
    """A seat's (or a spectator's) engine view as the wire's GameView."""
    drawn, ends = layout(view)
    return wire.GameView(
        hand_number=view.hand_number,
        leader=view.leader,
        hand=None if view.hand is None else [str(tile) for tile in view.hand],
        hand_counts=list(view.hand_counts),
        boneyard=view.boneyard_size,
        layout=drawn,
        ends=ends,
        total=view.total,
        scores=list(view.scores),
        target=view.rules.target_score,
        turn=view.turn,
        legal=legal_specs(view.legal, view.layout),
        history=events(view.history),
        last_hand=hand_summary(view.last_hand),
        winner=winner(view.winner),
        over=view.over,
    )
