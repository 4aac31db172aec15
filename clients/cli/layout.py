"""The layout drawn as dominoes on a character grid: the line across, doubles across it, the arms.

A tile on the line is one row, `[6|5]`, west half first. A double lies across the line: three
rows, one number above and one below, its middle on the line row. The spinner is drawn the same
way, with its north arm going up from its top and its south arm down from its bottom; a tile in
an arm stands upright on two rows (`┌5┐` over `└3┘`), a double in an arm lies across it, `[5|5]`.

Every open end's outer tile stays in sight. When the line is wider than the space, tiles next to
the spinner (or the middle, before there is a spinner) give way to a `(5 more)` mark; an arm
taller than its share keeps its outer tile and shows `(3 more)` next to the spinner. When even
that does not fit, the arms fold to their marks and `ends_row` lists every end that counts, with
the total (`ends W3 N3 E2+2 S2 = 12`).
"""

from __future__ import annotations

import itertools
from collections.abc import Sequence
from dataclasses import dataclass, field

from rich.style import Style
from rich.text import Text

from clients.cli.i18n import _
from clients.cli.words import tiles_word
from protocol.views import Layout

TILE_STYLE = Style(bold=True)
EDGE_STYLE = Style(dim=True)
LAST_STYLE = Style(bold=True, color="cyan", underline=True)
MARK_STYLE = Style(dim=True, italic=True)
GAP = 1
DOUBLE_EDGES = ("┌┐", "├─┤", "└┘")
SPINNER_EDGES = ("┏┓", "┣━┫", "┗┛")
HORIZONTAL_WIDTH = 5
ACROSS_WIDTH = 3


@dataclass
class Piece:
    """Something drawn on the grid: rows of text starting `top` rows from the line row."""

    rows: list[Text]
    top: int = 0

    @property
    def width(self) -> int:
        """Columns taken."""
        return max((row.cell_len for row in self.rows), default=0)

    @property
    def bottom(self) -> int:
        """The last row taken, counted from the line row."""
        return self.top + len(self.rows) - 1


@dataclass
class Grid:
    """A block of styled character cells, turned into rich Text rows at the end."""

    width: int
    height: int
    cells: list[list[tuple[str, Style | None]]] = field(default_factory=list)

    def __post_init__(self) -> None:
        self.cells = [[(" ", None)] * self.width for _ in range(self.height)]

    def put(self, row: int, column: int, text: Text) -> None:
        """Write a styled row of text at (row, column), clipping at the edges."""
        if not 0 <= row < self.height:
            return
        cells = self.cells[row]
        for offset, (char, style) in enumerate(_chars(text)):
            at = column + offset
            if 0 <= at < self.width:
                cells[at] = (char, style)

    def rows(self) -> list[Text]:
        """The grid as one Text per row, trailing spaces trimmed."""
        lines = []
        for cells in self.cells:
            line = Text("".join(char for char, _ in cells).rstrip())
            # One span per run of one style (a span per character made drawing slow).
            start = 0
            for style, run in itertools.groupby(cells[: len(line)], key=lambda cell: cell[1]):
                end = start + sum(1 for _ in run)
                if style is not None:
                    line.stylize(style, start, end)
                start = end
            lines.append(line)
        return lines


def _chars(text: Text) -> list[tuple[str, Style | None]]:
    """Each character of a Text with its style."""
    base = text.style if isinstance(text.style, Style) else Style.parse(text.style or "none")
    styles = [base] * len(text.plain)
    for span in text.spans:
        extra = span.style if isinstance(span.style, Style) else Style.parse(span.style)
        for index in range(span.start, min(span.end, len(styles))):
            styles[index] = styles[index] + extra
    return list(zip(text.plain, styles, strict=True))


def _tile_style(last: bool) -> Style:
    return LAST_STYLE if last else TILE_STYLE


def horizontal(west: int, east: int, last: bool = False) -> Text:
    """A tile lying along a row: `[6|5]`."""
    style = _tile_style(last)
    return Text.assemble(
        ("[", EDGE_STYLE),
        (str(west), style),
        ("|", EDGE_STYLE),
        (str(east), style),
        ("]", EDGE_STYLE),
    )


def across(pips: int, last: bool = False, spinner: bool = False) -> Piece:
    """A double lying across the line: three rows centred on the line row (heavier if the spinner)."""
    style = _tile_style(last)
    number = str(pips)
    top, middle, bottom = SPINNER_EDGES if spinner else DOUBLE_EDGES
    return Piece(
        [
            Text.assemble((top[0], EDGE_STYLE), (number, style), (top[1], EDGE_STYLE)),
            Text(middle, EDGE_STYLE),
            Text.assemble((bottom[0], EDGE_STYLE), (number, style), (bottom[1], EDGE_STYLE)),
        ],
        top=-1,
    )


def upright(top: int, bottom: int, last: bool = False) -> list[Text]:
    """A tile standing up on two rows: `top` above `bottom`."""
    style = _tile_style(last)
    return [
        Text.assemble(("┌", EDGE_STYLE), (str(top), style), ("┐", EDGE_STYLE)),
        Text.assemble(("└", EDGE_STYLE), (str(bottom), style), ("┘", EDGE_STYLE)),
    ]


def elision(hidden: int) -> Text:
    """The mark standing for tiles left out of the line or an arm (words, never like pips)."""
    return Text(_("({count} more)").format(count=hidden), MARK_STYLE)


def folded(count: int) -> Text:
    """The mark standing for a whole arm left out (its end is in `ends_row`)."""
    return Text(f"({tiles_word(count)})", MARK_STYLE)


def _line_piece(tile: Sequence[int], last: frozenset[int] | None, spinner: bool) -> Piece:
    west, east = tile
    is_last = last is not None and frozenset(tile) == last
    if west == east:
        return across(west, is_last, spinner)
    return Piece([horizontal(west, east, is_last)])


def _row_width(pieces: Sequence[Piece]) -> int:
    return sum(piece.width for piece in pieces) + GAP * max(0, len(pieces) - 1)


def fit_line(
    line: Sequence[Sequence[int]],
    spinner: int | None,
    width: int,
    last: frozenset[int] | None = None,
) -> tuple[list[Piece], int | None]:
    """The line's pieces fitting `width` columns (see the module docstring) and the spinner's place."""
    pieces = [_line_piece(tile, last, index == spinner) for index, tile in enumerate(line)]
    count = len(pieces)
    anchor = spinner if spinner is not None else count // 2
    kept = list(range(count))
    hidden_west = hidden_east = 0

    def assemble() -> tuple[list[Piece], int | None]:
        out: list[Piece] = []
        at: int | None = None
        for index in kept:
            if index == anchor and hidden_west:
                out.append(Piece([elision(hidden_west)]))
            if index == spinner:
                at = len(out)
            out.append(pieces[index])
            if index == anchor and hidden_east:
                out.append(Piece([elision(hidden_east)]))
        return out, at

    result = assemble()
    while _row_width(result[0]) > width:
        west = [i for i in kept if 0 < i < anchor]
        east = [i for i in kept if anchor < i < count - 1]
        if not west and not east:
            break
        if len(west) >= len(east):
            kept.remove(west[-1])
            hidden_west += 1
        else:
            kept.remove(east[0])
            hidden_east += 1
        result = assemble()
    return result


def _arm_pieces(
    arm: Sequence[Sequence[int]], upward: bool, last: frozenset[int] | None
) -> list[list[Text]]:
    """Each arm tile as its rows, nearest the spinner first; rows read top to bottom."""
    pieces = []
    for inner, outer in arm:
        is_last = last is not None and frozenset((inner, outer)) == last
        if inner == outer:
            pieces.append([horizontal(inner, outer, is_last)])
        elif upward:
            pieces.append(upright(outer, inner, is_last))
        else:
            pieces.append(upright(inner, outer, is_last))
    return pieces


def fit_arm(
    arm: Sequence[Sequence[int]], upward: bool, rows: int, last: frozenset[int] | None = None
) -> list[Text]:
    """An arm's rows, spinner side first, within `rows` rows if it can be: the tiles next to
    the spinner give way first, and the outer tile (the open end) is always kept."""
    pieces = _arm_pieces(arm, upward, last)
    total = sum(len(piece) for piece in pieces)
    hidden = 0
    while total > rows and len(pieces) > 1:
        if hidden == 0:
            total += 1
        total -= len(pieces[0])
        pieces.pop(0)
        hidden += 1
    out: list[Text] = []
    if hidden:
        out.append(elision(hidden))
    for piece in pieces:
        out.extend(reversed(piece) if upward else piece)
    return out


def arm_height(arm: Sequence[Sequence[int]]) -> int:
    """Rows an arm takes when drawn whole."""
    return sum(1 if inner == outer else 2 for inner, outer in arm)


def line_fits(layout: Layout, width: int) -> bool:
    """Whether the line, given up tiles next to the spinner, fits `width` with both ends."""
    pieces, _ = fit_line(layout.line, layout.spinner, width)
    return _row_width(pieces) <= width


def counted_ends(layout: Layout) -> list[tuple[str, int, bool]]:
    """The ends that count (docs/rules.md 6.1 to 6.3): (letter, outer number, a double there?).

    A lone tile is its two sides, west and east (a lone double counts once, both halves)."""
    line = layout.line
    if not line:
        return []
    if len(line) == 1:
        return [("W", line[0][0], False), ("E", line[0][1], False)]
    ends = [
        ("W", line[0][0], line[0][0] == line[0][1]),
        ("E", line[-1][1], line[-1][0] == line[-1][1]),
    ]
    spinner = layout.spinner
    if spinner is not None and 0 < spinner < len(line) - 1:
        for letter, arm in (("N", layout.north), ("S", layout.south)):
            if arm:
                ends.insert(
                    1 if letter == "N" else len(ends),
                    (letter, arm[-1][1], arm[-1][0] == arm[-1][1]),
                )
    return ends


def ends_row(layout: Layout) -> Text:
    """Every end that counts and their sum, in a line: `ends W3 N3 E2+2 S2 = 12`."""
    ends = counted_ends(layout)
    shown = [
        f"{letter}{pips}+{pips}" if double else f"{letter}{pips}" for letter, pips, double in ends
    ]
    total = sum(pips * (2 if double else 1) for _letter, pips, double in ends)
    said = _("ends {ends} = {total}").format(ends=" ".join(shown), total=total)
    return Text(said, Style(bold=True))


def draw(
    layout: Layout,
    width: int,
    arm_rows: int | None = None,
    last: Sequence[int] | None = None,
    fold: bool = False,
) -> list[Text]:
    """The layout as rows of text at most `width` wide; each arm takes at most `arm_rows` rows
    (but keeps its outer tile), or only its mark when `fold`."""
    if not layout.line:
        return []
    last_set = frozenset(last) if last is not None else None
    pieces, spinner_at = fit_line(layout.line, layout.spinner, width, last_set)
    limit = arm_rows if arm_rows is not None else 10**6
    north: list[Text] = []
    south: list[Text] = []
    if spinner_at is not None and fold:
        north = [folded(len(layout.north))] if layout.north else []
        south = [folded(len(layout.south))] if layout.south else []
    elif spinner_at is not None:
        north = fit_arm(layout.north, True, limit, last_set)
        south = fit_arm(layout.south, False, limit, last_set)
    band_top = min(piece.top for piece in pieces)
    band_bottom = max(piece.bottom for piece in pieces)
    top = min(band_top, -1 - len(north)) if north else band_top
    bottom = max(band_bottom, 1 + len(south)) if south else band_bottom
    grid = Grid(width, bottom - top + 1)
    line_row = -top
    column = max(0, (width - _row_width(pieces)) // 2)
    spinner_column = column
    for index, piece in enumerate(pieces):
        if index == spinner_at:
            spinner_column = column
        for offset, row in enumerate(piece.rows):
            grid.put(line_row + piece.top + offset, column, row)
        column += piece.width + GAP
    centre = spinner_column + ACROSS_WIDTH // 2
    for distance, row in enumerate(north, start=2):
        grid.put(line_row - distance, centre - row.cell_len // 2, row)
    for distance, row in enumerate(south, start=2):
        grid.put(line_row + distance, centre - row.cell_len // 2, row)
    return grid.rows()
