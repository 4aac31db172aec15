"""Tiles of the double-six set, as small ints with readable names.

A tile `a-b` (a >= b) is the int ``a * (a + 1) // 2 + b`` (0..27); hands and suits are bitmasks
over those ints. `Tile` is an int subclass, so the fast code can index tables with it while
`str(tile)` still reads ``"6-4"``.
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator
from enum import IntEnum

TILE_COUNT = 28
HIGHEST = 6


class Tile(int):
    """One domino of the double-six set; ``str(Tile.parse("4-6")) == "6-4"``."""

    __slots__ = ()

    @classmethod
    def of(cls, a: int, b: int) -> Tile:
        """The tile with the numbers `a` and `b`, in either order."""
        if not (0 <= a <= HIGHEST and 0 <= b <= HIGHEST):
            raise ValueError(f"no tile {a}-{b} in a double-six set")
        high, low = (a, b) if a >= b else (b, a)
        return ALL_TILES[high * (high + 1) // 2 + low]

    @classmethod
    def parse(cls, text: str) -> Tile:
        """Parse ``"5-3"`` or ``"3-5"``; raises ValueError for anything else."""
        parts = text.strip().split("-")
        if len(parts) != 2 or not all(p.isdigit() and len(p) == 1 for p in parts):
            raise ValueError(f"not a tile: {text!r} (write tiles as 5-3)")
        return cls.of(int(parts[0]), int(parts[1]))

    @property
    def high(self) -> int:
        """The larger number (written first)."""
        return HIGH[self]

    @property
    def low(self) -> int:
        """The smaller number (written second)."""
        return LOW[self]

    @property
    def pips(self) -> int:
        """The sum of both halves."""
        return HIGH[self] + LOW[self]

    @property
    def is_double(self) -> bool:
        """Whether both halves show the same number."""
        return HIGH[self] == LOW[self]

    def __str__(self) -> str:
        return f"{HIGH[self]}-{LOW[self]}"

    def __repr__(self) -> str:
        return f"Tile({str(self)!r})"


HIGH: tuple[int, ...] = tuple(a for a in range(HIGHEST + 1) for _ in range(a + 1))
LOW: tuple[int, ...] = tuple(b for a in range(HIGHEST + 1) for b in range(a + 1))
PIPS: tuple[int, ...] = tuple(h + lo for h, lo in zip(HIGH, LOW, strict=True))
IS_DOUBLE: tuple[bool, ...] = tuple(h == lo for h, lo in zip(HIGH, LOW, strict=True))
ALL_TILES: tuple[Tile, ...] = tuple(Tile(i) for i in range(TILE_COUNT))
FULL_SET = (1 << TILE_COUNT) - 1

#: SUIT[n]: the bitmask of every tile that shows the number n.
SUIT: tuple[int, ...] = tuple(
    sum(1 << t for t in range(TILE_COUNT) if n in (HIGH[t], LOW[t])) for n in range(HIGHEST + 1)
)


class End(IntEnum):
    """An open end of the layout: the two ends of the line, and the spinner's two arms."""

    WEST = 0
    EAST = 1
    NORTH = 2
    SOUTH = 3

    def __str__(self) -> str:
        return self.name.lower()

    @classmethod
    def parse(cls, text: str) -> End:
        """Parse ``"west"`` / ``"w"`` (any case); raises ValueError otherwise."""
        key = text.strip().lower()
        for end in cls:
            if key in (end.name.lower(), end.name[0].lower()):
                return end
        raise ValueError(f"not an end: {text!r} (use west, east, north or south)")


def is_written_low_first(text: str) -> bool:
    """Whether a tile written ``"a-b"`` puts the smaller number first (``"1-6"``, not ``"6-1"``)."""
    first, _, second = text.strip().partition("-")
    return int(first) < int(second)


def bits_of(mask: int) -> list[int]:
    """The tile numbers of a bitmask, lowest first (plain ints, for the bots' inner loops)."""
    out = []
    while mask:
        low_bit = mask & -mask
        out.append(low_bit.bit_length() - 1)
        mask ^= low_bit
    return out


def tiles_of(mask: int) -> Iterator[Tile]:
    """The tiles of a bitmask, lowest first."""
    while mask:
        low_bit = mask & -mask
        yield ALL_TILES[low_bit.bit_length() - 1]
        mask ^= low_bit


def mask_of(tiles: Iterable[int]) -> int:
    """The bitmask of some tiles."""
    mask = 0
    for t in tiles:
        mask |= 1 << t
    return mask


def pips_of(mask: int) -> int:
    """The pips of every tile in a bitmask, added."""
    total = 0
    while mask:
        low_bit = mask & -mask
        total += PIPS[low_bit.bit_length() - 1]
        mask ^= low_bit
    return total
