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


class HandEnded(msgspec.Struct, tag="hand_ended", frozen=True, gc=False):
    """A hand is over: how, by whom, the end-of-hand points per side, and each seat's pips."""

    kind: HandEndKind
    by: int | None
    points: tuple[int, ...]
    pips: tuple[int, ...]


class HandStarted(msgspec.Struct, tag="hand_started", frozen=True, gc=False):
    """A new hand was dealt; `leader` leads it."""

    number: int
    leader: int


class MatchEnded(msgspec.Struct, tag="match_ended", frozen=True):
    """The match is over: the winning side, or the sides that share the win (8.3)."""

    winner: int | tuple[int, ...]


Event = Played | Drew | Passed | HandEnded | HandStarted | MatchEnded
