"""What happened, as public events: the history every view shares (docs/rules.md 4, 6, 7, 8)."""

from __future__ import annotations

from typing import Literal

import msgspec


class Played(msgspec.Struct, tag="played", frozen=True, gc=False):
    """A seat placed a tile; `end` is None for the lead. `points` is what the ends total scored.

    `flipped`: a lead written low number first, its low number west (5.1).
    """

    seat: int
    tile: int
    end: int | None
    total: int
    points: int
    flipped: bool = False


class Drew(msgspec.Struct, tag="drew", frozen=True, gc=False):
    """A seat drew tiles from the boneyard; `open` lists the numbers it could not match."""

    seat: int
    count: int
    open: tuple[int, ...]


class Passed(msgspec.Struct, tag="passed", frozen=True, gc=False):
    """A seat could neither play nor draw; `open` lists the numbers it could not match."""

    seat: int
    open: tuple[int, ...]


HandEndKind = Literal["domino", "blocked", "won"]


class Table(msgspec.Struct, array_like=True, frozen=True, gc=False):
    """A layout as it is drawn: the line from west to east (each tile west number first), the
    spinner's index on it (None while there is none), and its north and south arms outward."""

    line: tuple[tuple[int, int], ...] = ()
    spinner: int | None = None
    north: tuple[tuple[int, int], ...] = ()
    south: tuple[tuple[int, int], ...] = ()


class Count(msgspec.Struct, array_like=True, frozen=True, gc=False):
    """One count of the end of a hand (7.3, 7.4): `side` scores `points` for the pips of `seats`.

    `pips` is what was counted before rounding to five: the seats' pips added up, or half of
    them when two players tie for the fewest in a three-player block (`halved`). Under penalty
    scoring each seat is counted alone, for its own side, and `points` is negative.
    """

    side: int
    seats: tuple[int, ...]
    #: An int but for an odd half (6.5), so that a count reads and stores the same every time.
    pips: int | float
    points: int
    halved: bool = False


class HandEnded(msgspec.Struct, tag="hand_ended", frozen=True, gc=False, omit_defaults=True):
    """A hand is over: how, by whom, the end-of-hand points per side, and each seat's pips.

    `counts` says where the points came from (`engine.scoring.domino_counts`, `blocked_counts`); a hand the target
    ended (`won`) and a block that scores nothing have none. Matches stored before counts were
    kept decode with none. `table` is the layout as the hand ended and `side_pips` the pips
    each side (team, or seat) held; both are None and empty in matches stored before they were
    kept.
    """

    kind: HandEndKind
    by: int | None
    points: tuple[int, ...]
    pips: tuple[int, ...]
    counts: tuple[Count, ...] = ()
    table: Table | None = None
    side_pips: tuple[int, ...] = ()


class HandStarted(msgspec.Struct, tag="hand_started", frozen=True, gc=False):
    """A new hand was dealt; `leader` leads it."""

    number: int
    leader: int


class MatchEnded(msgspec.Struct, tag="match_ended", frozen=True):
    """The match is over: the winning side, or the sides that share the win (8.3)."""

    winner: int | tuple[int, ...]


Event = Played | Drew | Passed | HandEnded | HandStarted | MatchEnded
