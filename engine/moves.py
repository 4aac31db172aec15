"""Moves, and the error a move the rules forbid raises."""

from __future__ import annotations

from typing import NamedTuple

from engine.tiles import ALL_TILES, End, Tile


class Move(NamedTuple):
    """A play (`tile`, and `end` where the tile fits more than one end) or, with no tile, a pass."""

    tile: Tile | None = None
    end: End | None = None

    @property
    def is_pass(self) -> bool:
        """Whether this move is a pass."""
        return self.tile is None

    @classmethod
    def parse(cls, text: str) -> Move:
        """Parse ``"pass"``, ``"5-3"`` or ``"5-3 east"`` (``"5-3 e"``)."""
        words = text.split()
        if words == ["pass"]:
            return PASS
        if len(words) not in (1, 2):
            raise ValueError(f"not a move: {text!r} (write 5-3, 5-3 east or pass)")
        end = End.parse(words[1]) if len(words) == 2 else None
        return cls(Tile.parse(words[0]), end)

    def __str__(self) -> str:
        if self.tile is None:
            return "pass"
        return str(self.tile) if self.end is None else f"{self.tile} {self.end}"


PASS = Move()
ENDS: tuple[End, ...] = tuple(End)
#: LEAD_MOVES[t]: leading tile t; PLAYS[e][t]: tile t at end e. Shared so no move is built twice.
LEAD_MOVES: tuple[Move, ...] = tuple(Move(t, None) for t in ALL_TILES)
PLAYS: tuple[tuple[Move, ...], ...] = tuple(tuple(Move(t, e) for t in ALL_TILES) for e in ENDS)


class IllegalMove(ValueError):
    """A move the rules forbid; `code` is stable, `rule` is the RULES.md section it breaks."""

    def __init__(self, code: str, rule: str, message: str) -> None:
        super().__init__(f"{message} (rule {rule})")
        self.code = code
        self.rule = rule
        self.message = message
