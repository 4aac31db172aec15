"""Why the hard bot's best move was better than the one played, as codes and numbers.

A reason is language-neutral: a `kind` and the numbers, tiles and seats it names; the clients
put it in words ("passed up 15 points with 6-6 west", "opened 20 for Bob (4-4 east)"). Kinds:

- `passed_up`: the best move scored `points` now and the played one less (`move`: the best).
- `opened`: the played move lets the next player (`seat`, an opponent) score `points` with a
  tile this seat cannot see (`move`: that reply), more than the best move would have; `scored`
  is what the played move scored now (0 if nothing).
- `kept_heavy`: the best move shed `tile` (a heavy double, or `pips` of 9 or more) and the played
  move kept it to the end of the hand; `counted` if it counted against the seat's side then.
"""

from __future__ import annotations

from typing import Literal

import msgspec

from engine.bots.simple import points_now
from engine.events import Played
from engine.kernel import points_of, total_after
from engine.layout import Layout
from engine.moves import Move
from engine.tiles import FULL_SET, PIPS, End, Tile, mask_of, tiles_of
from engine.view import View

#: A double at least this heavy is a "heavy double"; a tile this heavy is worth shedding.
HEAVY_DOUBLE = 8
HEAVY_TILE = 9

ReasonKind = Literal["passed_up", "opened", "kept_heavy"]


class Reason(msgspec.Struct, frozen=True, kw_only=True):
    """One reason the best move was better (see the module docstring for each kind's fields)."""

    kind: ReasonKind
    points: int = 0
    move: Move | None = None
    seat: int | None = None
    scored: int = 0
    tile: Tile | None = None
    counted: bool = False


def reasons_for(
    view: View,
    played: Move,
    best: Move,
    kept: tuple[Tile, ...] | None = None,
    counted: bool = False,
) -> tuple[Reason, ...]:
    """The plain reasons the best move was better, where any applies (empty if only the search
    says so). `kept` is the seat's hand when the hand ended, `counted` whether it counted."""
    reasons = []
    scored, could = points_now(view, played), points_now(view, best)
    if could > scored:
        reasons.append(Reason(kind="passed_up", points=could, move=best))
    (gift, reply), (saved, _) = opened(view, played), opened(view, best)
    if gift > saved:
        reasons.append(
            Reason(kind="opened", points=gift, move=reply, seat=_next_seat(view), scored=scored)
        )
    heavy = _kept_heavy(played, best, kept)
    if heavy is not None:
        reasons.append(Reason(kind="kept_heavy", tile=heavy, points=PIPS[heavy], counted=counted))
    return tuple(reasons)


def opened(view: View, move: Move) -> tuple[int, Move | None]:
    """The most an opponent playing next could score with a tile this seat cannot see, after
    `move`, and the play that scores it; (0, None) when the next seat is a partner or the move
    ends the hand.
    """
    if move.tile is None or view.seat is None or view.hand is None:
        return 0, None
    if len(view.hand) == 1 or view.rules.side_of(_next_seat(view)) == view.rules.side_of(view.seat):
        return 0, None
    layout = layout_after(view, move)
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


def layout_after(view: View, move: Move) -> Layout:
    """The layout once `move` (a play) is made on the view's."""
    layout = view.layout.copy()
    assert move.tile is not None
    if layout.empty:
        layout.place_lead(move.tile)
    else:
        layout.place(move.tile, 1 if move.end is None else int(move.end))
    return layout


def _kept_heavy(played_move: Move, best: Move, kept: tuple[Tile, ...] | None) -> Tile | None:
    """The heavy tile the best move shed and the played move kept to the end of the hand, if any."""
    tile = best.tile
    played = played_move.tile
    if tile is None or tile == played or kept is None or tile not in kept:
        return None
    heavy = (tile.is_double and PIPS[tile] >= HEAVY_DOUBLE) or PIPS[tile] >= HEAVY_TILE
    if not heavy or (played is not None and PIPS[played] >= PIPS[tile]):
        return None
    return tile


def _next_seat(view: View) -> int:
    assert view.seat is not None
    return (view.seat + 1) % view.rules.players
