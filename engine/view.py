"""What one seat may know, as bots and hints read it; `engine.parts.view` makes it (docs/rules.md)."""

from __future__ import annotations

import msgspec

from engine.events import Event, HandEnded
from engine.layout import Layout
from engine.moves import Move
from engine.rules import Rules
from engine.tiles import Tile


class View(msgspec.Struct, kw_only=True):
    """A seat's (or, with `seat` None, a spectator's) knowledge of a match.

    It holds the seat's own tiles, the others' tile counts, the boneyard's size (never its order),
    the layout, scores, whose turn it is, the legal moves when it is this seat's turn, and the
    public history of the hand.
    """

    seat: int | None
    rules: Rules
    hand_number: int
    leader: int
    hand: list[Tile] | None
    hand_counts: list[int]
    boneyard_size: int
    layout: Layout
    total: int
    scores: list[int]
    turn: int | None
    legal: list[Move]
    history: list[Event]
    last_hand: HandEnded | None
    over: bool
    winner: int | tuple[int, ...] | None

    @property
    def my_turn(self) -> bool:
        """Whether this seat is the one to play."""
        return self.seat is not None and self.seat == self.turn
