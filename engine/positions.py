"""A position of All Fives as one short line, read and written (as a chess FEN is): docs/positions.md.

    2 hand_size=five | 6-5 (5-5*) 5-1 north 5-3 | 6-6 4-1 3-0 / 2-1 1-1 4-4 | 6-1 ... | 1 | 10 10

The fields, split by ``|``, are the rules (the player count, then the variants that differ from
docs/rules.md's defaults, by their `Rules` names), the layout (the line from west to east, each
tile written west number first, the lead in brackets, the spinner starred, then each open arm
outward from the spinner), each seat's hand (split by ``/``), the boneyard in draw order (``...``
ends it with every tile not named, lowest first), whose turn it is, and the scores. ``-`` is an
empty layout, hand or boneyard.

`match(text)` gives the `Match` (and `view(text, seat)` a seat's `View`); `write(match)` gives the
line back, and `match(write(m))` plays on exactly as `m` does. A line that is malformed or a
position no legal play could reach raises `PositionError`: a ValueError of one line.
"""

from __future__ import annotations

from collections.abc import Iterable

from engine.hands import Deal
from engine.layout import Layout
from engine.match import Match
from engine.parts import spinner_index
from engine.position_reader import EMPTY, VARIANTS, PositionError, Reader, tiles_in
from engine.tiles import ALL_TILES, End, Tile, tiles_of
from engine.view import View

__all__ = ["PositionError", "deal", "match", "tiles_in", "view", "write"]


def match(text: str, seed: int | None = None) -> Match:
    """The match at the position `text` (hand 1); later hands are dealt from `seed`.

    A position before the lead is a fresh deal, with its record; later in a hand, the history is
    one way the layout could have been played (the lead, then the line side holding the spinner,
    the other side, the arms), in turn from the leader, and the record keeps no deal.
    """
    return Reader(text).match(seed)


def view(text: str, seat: int | None, seed: int | None = None) -> View:
    """What `seat` (None: a spectator) knows at the position `text`."""
    return match(text, seed).view_for(seat)


def deal(text: str) -> Deal:
    """The deal of a position before the lead: the hands, the boneyard in draw order, the leader."""
    reader = Reader(text)
    if reader.line:
        raise PositionError("a deal is a position before the lead: its layout is -")
    m = reader.match(None)
    return m.record[-1].deal


def write(m: Match) -> str:
    """The position of a match under way, as `match` reads it."""
    if m.over:
        raise PositionError("the match is over: a position is a hand under way")
    rules = m.rules
    words = [str(rules.players)]
    for name, default in VARIANTS.items():
        value = getattr(rules, name)
        if value != default:
            words.append(f"{name}={_written_value(value)}")
    layout = m.layout
    placed = sum(len(chain) for chain in layout.chains) + (1 if layout.lead else 0)
    turn = [str(m.turn)]
    if m.drew_this_turn:
        turn.append(f"drew={m.drew_this_turn}")
    if m.passes:
        turn.append(f"passed={m.passes}")
    if m.leader != (m.turn - placed - m.passes) % rules.players:
        turn.append(f"led={m.leader}")
    hands = " / ".join(_tiles_written(tiles_of(h)) for h in m.hands)
    fields = [
        " ".join(words),
        _layout_written(layout),
        hands,
        _tiles_written(ALL_TILES[t] for t in m.boneyard[m.drawn :]),
        " ".join(turn),
        " ".join(str(s) for s in m.scores),
    ]
    return " | ".join(fields)


# -- writing ---------------------------------------------------------------------------------


def _written_value(value: object) -> str:
    if isinstance(value, bool):
        return "yes" if value else "no"
    return str(value)


def _tiles_written(tiles: Iterable[Tile]) -> str:
    return " ".join(str(t) for t in tiles) or EMPTY


def _layout_written(layout: Layout) -> str:
    line, _ = layout.line()
    if not line:
        return EMPTY
    lead = len(layout.chains[End.WEST])
    spinner = spinner_index(layout)
    words = []
    for index, (west, east) in enumerate(line):
        word = f"{west}-{east}" + ("*" if index == spinner else "")
        words.append(f"({word})" if index == lead else word)
    for end in (End.NORTH, End.SOUTH):
        if layout.chains[end]:
            words.append(str(end))
            words += [f"{inner}-{outer}" for inner, outer in layout.chains[end]]
    return " ".join(words)
