"""What a receiver may know of a match: the one place hidden information is removed.

A match splits the way its receivers share it: one public part, and a small private part per seat.

`table(match)` is everything a spectator may know, as immutable values (it shares the layout's
chains, which are tuples, rather than copying them); `own(match, seat)` is what only that seat
adds: its tiles (as a bit mask) and, on its turn, its legal moves with the ends total each would
make (`totals`, so that no client counts the ends itself). Comparing two parts taken
before and after a move says what changed without building a `View` per seat. Hidden tiles
never enter a `Table`, nor another seat's tiles an `Own`.

`view(match, seat)` (what `Match.view_for` answers, for bots, hints and snapshots) is made of
the same two parts, with the layout and the hand's public history.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING, NamedTuple

from engine.events import HandEnded
from engine.kernel import totals_of
from engine.layout import NOT_OPEN, Layout
from engine.moves import Move
from engine.tiles import End, tiles_of
from engine.view import View

if TYPE_CHECKING:
    from engine.match import Match

#: The line's ends as plain names: an enum's member read off its class is a slow lookup on
#: Python 3.11, and the public part is taken at every move.
_WEST, _EAST = End.WEST, End.EAST


class Table(NamedTuple):
    """The public part of a match: what every receiver of its room sees alike."""

    hand_number: int
    leader: int
    hand_counts: tuple[int, ...]
    boneyard: int
    lead: tuple[int, ...]
    #: The layout's chains (west, east, north, south), each tile as (inner, outer).
    chains: tuple[tuple[tuple[int, int], ...], ...]
    #: The spinner's index on the west-to-east line, None while there is none.
    spinner: int | None
    #: The number open at each end, NOT_OPEN where none.
    open: tuple[int, ...]
    total: int
    scores: tuple[int, ...]
    turn: int | None
    last_hand: HandEnded | None
    over: bool
    winner: int | tuple[int, ...] | None


class Own(NamedTuple):
    """A seat's private part: its tiles as a bit mask, and its legal moves (only on its turn)
    with the ends total each play would make (None for the pass)."""

    hand: int
    legal: tuple[Move, ...]
    totals: tuple[int | None, ...] = ()


def table(match: Match) -> Table:
    """The public part of a match now."""
    layout = match.layout
    over = match.over
    return Table(
        match.hand_number,
        match.leader,
        tuple([h.bit_count() for h in match.hands]),
        match.boneyard_left,
        layout.lead,
        tuple(layout.chains),
        spinner_index(layout),
        tuple(layout.open),
        layout.total(),
        tuple(match.scores),
        None if over else match.turn,
        match.last_hand,
        over,
        match.winner,
    )


def own(match: Match, seat: int) -> Own:
    """The private part of a seat now (legal moves only while it is that seat's turn)."""
    if seat != match.turn or match.over:
        return Own(match.hands[seat], ())
    legal = match.legal_moves()
    return Own(match.hands[seat], tuple(legal), totals(match.layout, legal))


def view(match: Match, seat: int | None) -> View:
    """What `seat` may know (None: a spectator, who sees no hand), made of its two parts."""
    public = table(match)
    mine = None if seat is None else own(match, seat)
    return View(
        seat=seat,
        rules=match.rules,
        hand_number=public.hand_number,
        leader=public.leader,
        hand=None if mine is None else list(tiles_of(mine.hand)),
        hand_counts=list(public.hand_counts),
        boneyard_size=public.boneyard,
        layout=match.layout.copy(),
        total=public.total,
        scores=list(public.scores),
        turn=public.turn,
        legal=[] if mine is None else list(mine.legal),
        history=list(match.events),
        last_hand=public.last_hand,
        over=public.over,
        winner=public.winner,
    )


def totals(layout: Layout, legal: Sequence[Move]) -> tuple[int | None, ...]:
    """The ends total each move would make on `layout` (docs/rules.md 6), None for a pass."""
    s0, s1 = layout.spinner_sides
    return totals_of(layout.open, layout.weight, layout.spinner, s0, s1, legal)


def spinner_index(layout: Layout) -> int | None:
    """Where the spinner sits on the west-to-east line (as `Layout.line` counts), if there is one."""
    if layout.spinner < 0:
        return None
    west = layout.chains[_WEST]
    if layout.spinner_end == NOT_OPEN:
        return len(west)
    if layout.spinner_end == _WEST:
        idx = next(i for i, (a, b) in enumerate(west) if a == b)
        return len(west) - 1 - idx
    east = layout.chains[_EAST]
    idx = next(i for i, (a, b) in enumerate(east) if a == b)
    return len(west) + 1 + idx
