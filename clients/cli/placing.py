"""Tiles placed on a layout as the server draws them (docs/rules.md 5), to show the last hand's
final layout. Nothing here counts: every total and score the terminal shows is the server's."""

from __future__ import annotations

from protocol.views import AnyEvent, HandEnded, Layout, Played


def copy_layout(layout: Layout) -> Layout:
    """A layout that can be changed without changing `layout`."""
    return Layout(
        line=[list(tile) for tile in layout.line],
        spinner=layout.spinner,
        north=[list(tile) for tile in layout.north],
        south=[list(tile) for tile in layout.south],
    )


def final_layout(layout: Layout, events: list[AnyEvent]) -> Layout:
    """The layout with the tiles played in `events` before the hand ended placed on it."""
    placed = copy_layout(layout)
    for event in events:
        if isinstance(event, HandEnded):
            break
        if isinstance(event, Played):
            place(placed, event.tile, event.end)
    return placed


def place(layout: Layout, tile: str, end: str | None) -> None:
    """Put a tile on an end of a layout as the server draws it (the matching half inward)."""
    first, second = (int(pip) for pip in tile.split("-"))
    double = first == second
    line = layout.line
    if end is None or not line:
        layout.line = [[first, second]]
        layout.spinner = 0 if double else None
        return
    if end in ("north", "south"):
        arm = layout.north if end == "north" else layout.south
        assert layout.spinner is not None
        inner = arm[-1][1] if arm else line[layout.spinner][0]
        arm.append([inner, second if first == inner else first])
        return
    if end == "east":
        inner = line[-1][1]
        line.append([inner, second if first == inner else first])
        if double and layout.spinner is None:
            layout.spinner = len(line) - 1
        return
    inner = line[0][0]
    line.insert(0, [second if first == inner else first, inner])
    if layout.spinner is not None:
        layout.spinner += 1
    elif double:
        layout.spinner = 0
