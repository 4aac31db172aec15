"""Moves, and the error a move the rules forbid raises."""

from __future__ import annotations

from typing import NamedTuple

from engine.tiles import ALL_TILES, End, Tile, is_written_low_first


class Move(NamedTuple):
    """A play (`tile`, and `end` where the tile fits more than one end) or, with no tile, a pass.

    A lead takes no end; its first-written number faces west (5.1). A lead written low number
    first (`1-6`: 1 west, 6 east) is `flipped`; `flipped` means nothing for any other move.
    """

    tile: Tile | None = None
    end: End | None = None
    flipped: bool = False

    @classmethod
    def parse(cls, text: str) -> Move:
        """Parse ``"pass"``, ``"5-3"``, ``"3-5"`` (a lead: 3 west) or ``"5-3 east"`` (``"5-3 e"``)."""
        words = text.split()
        if words == ["pass"]:
            return PASS
        if len(words) not in (1, 2):
            raise ValueError(f"not a move: {text!r} (write 5-3, 5-3 east or pass)")
        end = End.parse(words[1]) if len(words) == 2 else None
        return cls.written(words[0], end)

    @classmethod
    def written(cls, tile: str, end: End | None = None) -> Move:
        """The play of a tile as written: ``"1-6"`` with no end is a lead with 1 west (5.1)."""
        known = _WRITTEN.get(tile)
        if known is None:
            parsed = Tile.parse(tile)
            flipped = end is None and is_written_low_first(tile)
            return cls(parsed, end, flipped)
        parsed, low_first = known
        return cls(parsed, end, low_first and end is None)

    def flip(self) -> Move:
        """The same lead written the other way round (`6-1` <-> `1-6`); a double stays as it is."""
        if self.tile is None or self.tile.is_double:
            return self
        return self._replace(flipped=not self.flipped)

    def written_tile(self) -> str:
        """The tile as this move writes it: low number first for a flipped lead."""
        tile = self.tile
        if tile is None:
            return ""
        return WRITTEN_NAMES[self.flipped][tile]

    def __str__(self) -> str:
        if self.tile is None:
            return "pass"
        written = self.written_tile()
        return written if self.end is None else f"{written} {self.end}"


#: Each tile as written the usual way ("5-3") and low number first ("3-5"), by tile.
WRITTEN_NAMES: tuple[tuple[str, ...], tuple[str, ...]] = (
    tuple(str(tile) for tile in ALL_TILES),
    tuple(f"{tile.low}-{tile.high}" for tile in ALL_TILES),
)
#: Every exact way of writing a tile: the tile, and whether it was written low number first.
_WRITTEN: dict[str, tuple[Tile, bool]] = {
    name: (tile, bool(low_first))
    for low_first, names in enumerate(WRITTEN_NAMES)
    for tile, name in zip(ALL_TILES, names, strict=True)
    if not (low_first and tile.is_double)
}

PASS = Move()
ENDS: tuple[End, ...] = tuple(End)
#: LEAD_MOVES[t]: leading tile t; PLAYS[e][t]: tile t at end e. Shared so no move is built twice.
LEAD_MOVES: tuple[Move, ...] = tuple(Move(t, None) for t in ALL_TILES)
PLAYS: tuple[tuple[Move, ...], ...] = tuple(tuple(Move(t, e) for t in ALL_TILES) for e in ENDS)


class IllegalMove(ValueError):
    """A move the rules forbid; `code` is stable, `rule` is the section of docs/rules.md it breaks."""

    def __init__(self, code: str, rule: str, message: str) -> None:
        super().__init__(f"{message} (rule {rule})")
        self.code = code
        self.rule = rule
        self.message = message
