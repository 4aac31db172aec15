"""Tiles placed on a layout as the server places them, and the ends total that follows (docs/rules.md
5 and 6): to show the last hand's final layout, and what each end would score before a play."""

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


def _counted(tile: list[int], outer: int) -> int:
    """An open end's count: its outer number, both halves for a double (docs/rules.md 6.1, 6.3)."""
    return 2 * outer if tile[0] == tile[1] else outer


def ends_total(layout: Layout) -> int:
    """The sum of the open ends (docs/rules.md 6.1 to 6.3)."""
    line = layout.line
    if not line:
        return 0
    if len(line) == 1:
        return line[0][0] + line[0][1]
    total = _counted(line[0], line[0][0]) + _counted(line[-1], line[-1][1])
    spinner = layout.spinner
    if spinner is not None and 0 < spinner < len(line) - 1:
        for arm in (layout.north, layout.south):
            if arm:
                total += _counted(arm[-1], arm[-1][1])
    return total


def total_after(layout: Layout, tile: str, end: str | None) -> int:
    """The ends total once `tile` is played at `end` (None: the lead)."""
    placed = copy_layout(layout)
    place(placed, tile, end)
    return ends_total(placed)
