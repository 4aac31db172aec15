"""Tile and end notation: a tile is written "a-b", high end first ("6-4"); parsers take either order."""

from __future__ import annotations

from typing import Annotated, Literal

from msgspec import Meta

PIPS = "0123456"
TILE_PATTERN = r"^[0-6]-[0-6]$"

Tile = Annotated[str, Meta(pattern=TILE_PATTERN, description='a tile such as "5-3"')]
EndName = Literal["west", "east", "north", "south"]
#: The ends in the engine's order: the line's west and east, the spinner's north and south.
END_NAMES: tuple[EndName, ...] = ("west", "east", "north", "south")
Pip = Annotated[int, Meta(ge=0, le=6)]


def parse_tile(text: str) -> tuple[int, int]:
    """Read "a-b" (either order) as (high, low); ValueError if it is not a double-six tile."""
    if len(text) != 3 or text[1] != "-" or text[0] not in PIPS or text[2] not in PIPS:
        raise ValueError(f'{text!r} is not a tile (write "a-b" with a and b from 0 to 6)')
    first, second = int(text[0]), int(text[2])
    return (first, second) if first >= second else (second, first)


def format_tile(high: int, low: int) -> str:
    """Write a tile high end first: format_tile(4, 6) == "6-4"."""
    if not (0 <= high <= 6 and 0 <= low <= 6):
        raise ValueError(f"({high}, {low}) is not a tile (numbers run from 0 to 6)")
    return f"{max(high, low)}-{min(high, low)}"


def normalize_tile(text: str) -> str:
    """Rewrite a tile high end first ("4-6" -> "6-4"); ValueError if it is not a tile."""
    return format_tile(*parse_tile(text))


ALL_TILES: tuple[str, ...] = tuple(format_tile(a, b) for a in range(7) for b in range(a + 1))
