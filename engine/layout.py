"""The layout: the line, the spinner and its arms, the open ends and their total (docs/rules.md 5, 6)."""

from __future__ import annotations

import msgspec

from engine.events import Table
from engine.tiles import HIGH, IS_DOUBLE, LOW, SUIT, End, Tile, is_written_low_first

NOT_OPEN = -1


class Layout(msgspec.Struct, kw_only=True):
    """The tiles on the table; public knowledge, shared by every view.

    `open[e]` is the number an end takes (NOT_OPEN where nothing may be played) and `weight[e]` what
    that end adds to the count. While the spinner still has an empty line side it counts both
    halves once (`spinner_sides` marks its line sides that are still empty, 6.2).
    `chains[e]` lists the tiles placed outward from the lead (line ends) or from the spinner (arms),
    each as ``[inner, outer]``.
    """

    lead: tuple[int, ...] = ()
    open: list[int] = msgspec.field(default_factory=lambda: [NOT_OPEN] * 4)
    weight: list[int] = msgspec.field(default_factory=lambda: [0, 0, 0, 0])
    spinner: int = NOT_OPEN
    spinner_end: int = NOT_OPEN
    spinner_sides: list[bool] = msgspec.field(default_factory=lambda: [False, False])
    chains: list[tuple[tuple[int, int], ...]] = msgspec.field(
        default_factory=lambda: [(), (), (), ()]
    )
    playable: int = 0

    @property
    def empty(self) -> bool:
        """Whether no tile has been led yet."""
        return not self.lead

    def total(self) -> int:
        """The ends total after the last tile (6.1-6.3)."""
        w = self.weight
        total = w[0] + w[1] + w[2] + w[3]
        sides = self.spinner_sides
        if sides[0] or sides[1]:
            total += 2 * self.spinner
        return total

    def ends_for(self, tile: int) -> list[int]:
        """The open ends a tile matches, in end order."""
        o = self.open
        h = HIGH[tile]
        lo = LOW[tile]
        return [e for e in range(4) if o[e] >= 0 and (o[e] == h or o[e] == lo)]

    def place_lead(self, tile: int, flipped: bool = False) -> None:
        """Lead a tile: its first-written number faces west (5.1); a double is the spinner (5.3).

        A tile is written high number first (`6-1`: 6 west); `flipped` leads it written low
        number first (`1-6`: 1 west, 6 east).
        """
        west, east = (LOW[tile], HIGH[tile]) if flipped else (HIGH[tile], LOW[tile])
        self.lead = (west, east)
        self.open = [west, east, NOT_OPEN, NOT_OPEN]
        if west == east:
            self.spinner = west
            self.spinner_end = NOT_OPEN
            self.spinner_sides = [True, True]
            self.weight = [0, 0, 0, 0]
        else:
            self.weight = [west, east, 0, 0]
        self.playable = SUIT[west] | SUIT[east]

    def place(self, tile: int, end: int) -> None:
        """Join a tile to an open end it matches (5.2); the caller has checked that it matches."""
        o = self.open
        n = o[end]
        h, lo = HIGH[tile], LOW[tile]
        outer = lo if h == n else h
        self.chains[end] += ((n, outer),)
        sides = self.spinner_sides
        covering_spinner = end < 2 and sides[end]
        if covering_spinner:
            sides[end] = False
        o[end] = outer
        if IS_DOUBLE[tile]:
            if self.spinner < 0:
                # The first double is the spinner; the side it was played on is already taken.
                self.spinner = h
                self.spinner_end = end
                sides[end] = True
                self.weight[end] = 0
            else:
                self.weight[end] = 2 * h
        else:
            self.weight[end] = outer
        if covering_spinner and not sides[0] and not sides[1]:
            # Both line sides are taken: the arms open (5.4).
            o[2] = o[3] = self.spinner
        self.playable = (
            (SUIT[o[0]] if o[0] >= 0 else 0)
            | (SUIT[o[1]] if o[1] >= 0 else 0)
            | (SUIT[o[2]] if o[2] >= 0 else 0)
            | (SUIT[o[3]] if o[3] >= 0 else 0)
        )

    def copy(self) -> Layout:
        """An independent copy."""
        return Layout(
            lead=self.lead,
            open=list(self.open),
            weight=list(self.weight),
            spinner=self.spinner,
            spinner_end=self.spinner_end,
            spinner_sides=list(self.spinner_sides),
            chains=list(self.chains),
            playable=self.playable,
        )

    def line(self) -> tuple[list[list[int]], int | None]:
        """The line from west to east, each tile oriented west-to-east, and the spinner's index."""
        if not self.lead:
            return [], None
        west = [[outer, inner] for inner, outer in reversed(self.chains[End.WEST])]
        east = [[inner, outer] for inner, outer in self.chains[End.EAST]]
        line = [*west, list(self.lead), *east]
        if self.spinner < 0:
            return line, None
        if self.spinner_end == NOT_OPEN:
            return line, len(west)
        if self.spinner_end == End.WEST:
            # The spinner is the first tile of the west chain that is a double of its number.
            idx = next(i for i, (a, b) in enumerate(self.chains[End.WEST]) if a == b)
            return line, len(west) - 1 - idx
        idx = next(i for i, (a, b) in enumerate(self.chains[End.EAST]) if a == b)
        return line, len(west) + 1 + idx

    def drawn(self) -> Table:
        """The layout as it is drawn (`engine.events.Table`)."""
        line, spinner = self.line()
        north, south = self.chains[End.NORTH], self.chains[End.SOUTH]
        return Table(tuple((a, b) for a, b in line), spinner, tuple(north), tuple(south))

    def __str__(self) -> str:
        line, spinner = self.line()
        parts = [f"[{a}|{b}]" if i != spinner else f"[{a}‖{b}]" for i, (a, b) in enumerate(line)]
        text = " ".join(parts) or "(empty)"
        for end in (End.NORTH, End.SOUTH):
            if self.chains[end]:
                text += f"  {end}: " + " ".join(f"[{a}|{b}]" for a, b in self.chains[end])
        return text


def layout_from(text: str) -> tuple[Layout, list[int]]:
    """Build a layout from ``"lead 5-5; 5-3 east; 5-2 west"``; returns it and the total after each tile.

    No hands are involved: this is for reading positions on paper, as in the worked examples of docs/rules.md.
    Raises ValueError for a tile that does not fit where it is put.
    """
    layout = Layout()
    totals = []
    for step in filter(None, (s.strip() for s in text.split(";"))):
        words = step.split()
        if words[0] == "lead":
            if not layout.empty:
                raise ValueError("only the first tile leads")
            tile = Tile.parse(words[1])
            layout.place_lead(tile, flipped=is_written_low_first(words[1]))
        else:
            tile = Tile.parse(words[0])
            end = End.parse(words[1])
            if layout.open[end] not in (tile.high, tile.low):
                raise ValueError(f"{tile} does not fit the {end} end")
            layout.place(tile, end)
        totals.append(layout.total())
    return layout, totals
