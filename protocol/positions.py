"""A finished match's replay as the server gives it: the table after each step (`Position`).

`GET /api/games/ID/positions` and the `record` reply carry them (protocol/README.md), so that a
client draws a replay without placing a tile or adding a point: each hand has a position for
its deal, one after each move and, once the hand is over, one for its result. A position shows
what the record shows: every seat's tiles (the match is over) and how many the boneyard holds.
"""

from __future__ import annotations

from typing import Annotated, Literal

from msgspec import Meta, Struct

from protocol.records import HandResult
from protocol.tiles import EndName, Tile
from protocol.views import Count, Ends, Layout, Seat

StepKind = Literal["deal", "played", "passed", "hand_ended"]


class Position(Struct, kw_only=True, omit_defaults=True):
    """The table after one step: `hand` (from 1), `move` (0 for the deal, then the move's
    number; the result's is one past the last move), what the step was (`kind`, `seat`, and for
    a play its `tile`, the `end` it went to, None for the lead, the ends `total` and the
    `points` it scored; `drew` tiles drawn first), each seat's `tiles` then (as dealt and
    drawn), the `boneyard` left, the `layout` and its open `ends`, where the lead sits on the
    line (`lead`, None before it), the `scores` per side after the step, and the hand's
    `result` on its last position."""

    hand: Annotated[int, Meta(ge=1)]
    move: Count
    kind: StepKind
    seat: Seat | None
    tiles: list[list[Tile]]
    boneyard: Count
    layout: Layout
    ends: Ends
    scores: list[int]
    lead: Count | None = None
    tile: Tile | None = None
    end: EndName | None = None
    drew: Count = 0
    total: Count = 0
    points: int = 0
    result: HandResult | None = None
