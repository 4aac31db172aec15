"""A scripted check of hundreds of tables from real engine games at 60x20, 80x24 and 160x50:
every open end's outer tile is drawn (or listed in the `ends ... = N` row when the arms fold),
and the sum the drawing shows is the header's ends total.

The games are played by the engine with three ways of choosing among the legal moves: at random,
preferring the spinner's arms (long arms, a four-armed spinner), and preferring the line (a line
wider than the screen). The drawing is read back from the screen text, as a player reads it.
"""

from __future__ import annotations

import functools
import random
import re
from collections.abc import Callable, Iterator
from dataclasses import dataclass

import pytest
from hypothesis import settings
from table_helpers import make_view, screen

from bridge import convert
from engine.match import Match
from engine.moves import Move
from engine.rules import Rules
from engine.tiles import End
from protocol.views import GameView, RoomView

SIZES = [(60, 20), (80, 24), (160, 50)]
Chooser = Callable[[random.Random, list[Move]], Move]


def at_random(rng: random.Random, moves: list[Move]) -> Move:
    return rng.choice(moves)


def arms_first(rng: random.Random, moves: list[Move]) -> Move:
    arms = [m for m in moves if m.end in (End.NORTH, End.SOUTH)]
    return rng.choice(arms or moves)


def line_first(rng: random.Random, moves: list[Move]) -> Move:
    line = [m for m in moves if m.end in (End.WEST, End.EAST)]
    return rng.choice(line or moves)


def engine_tables(players: int, seed: int, choose: Chooser, hands: int = 2) -> Iterator[RoomView]:
    """Seat 0's room view after every tile placed in the first `hands` hands of a real match."""
    rng = random.Random(seed)
    match = Match.new(Rules(players=players, target=1000), seed=seed)
    while not match.over and match.hand_number <= hands:
        seat = match.to_play()
        assert seat is not None
        match.apply(seat, choose(rng, match.legal_moves()))
        game = convert.game_view(match.view_for(0))
        if game.layout.line and not match.over:
            yield room_of(game, players)


def room_of(game: GameView, players: int) -> RoomView:
    view = make_view(players=players)
    assert view.game is not None
    return RoomView(
        code=view.code,
        rules=view.rules,
        seats=view.seats,
        you=0,
        host=0,
        phase="playing",
        sides=view.sides,
        game=game,
    )


@dataclass
class Seen:
    """What a player reads off the screen: each drawn end's outer number and what it counts."""

    ends: dict[str, tuple[int, int]]
    folded: bool = False
    elided: bool = False


TILE = re.compile(r"\[(\d)\|(\d)\]|[├┣][─━][┤┫]|\(\d+ more\)")
CELL = re.compile(r"┌(\d)┐|└(\d)┘|\[(\d)\|(\d)\]|\(\d+ more\)|\(\d+ tiles?\)")


def read_table(rows: list[str]) -> Seen:
    """The open ends as drawn between the players' rule and the hand's rule."""
    start = next(i for i, row in enumerate(rows) if row.startswith("─")) + 1
    end = next(i for i, row in enumerate(rows) if row.startswith("── your tiles"))
    region = rows[start:end]
    listed = next((row for row in region if row.strip().startswith("ends ")), None)
    if listed is not None:
        found = re.fullmatch(r"\s*ends ((?:[WENS]\d(?:\+\d)? ?)+)= (\d+)", listed)
        assert found is not None, listed
        listed_ends: dict[str, tuple[int, int]] = {}
        for word in found.group(1).split():
            number = int(word[1])
            listed_ends[word[0]] = (number, 2 * number if "+" in word else number)
        assert sum(count for _, count in listed_ends.values()) == int(found.group(2)), listed
        return Seen(listed_ends, folded=True)
    marked = [i for i, row in enumerate(region) if "┣━┫" in row]
    line_at = marked[0] if marked else next(i for i, row in enumerate(region) if "[" in row)
    line = region[line_at]
    tokens = list(TILE.finditer(line))
    tiles = [t for t in tokens if not t.group().startswith("(")]
    elided = len(tiles) != len(tokens)

    def across(token: re.Match[str]) -> int:
        """The number of a double lying across the line (drawn above its middle)."""
        return int(region[line_at - 1][token.start() + 1])

    first, last = tiles[0], tiles[-1]
    ends: dict[str, tuple[int, int]] = {}
    if len(tiles) == 1:
        if first.group(1) is None:
            pips = across(first)
            ends = {"W": (pips, pips), "E": (pips, pips)}
        else:
            ends = {"W": (int(first.group(1)),) * 2, "E": (int(first.group(2)),) * 2}
        return Seen(ends, elided=elided)
    for letter, token, side in (("W", first, 1), ("E", last, 2)):
        if token.group(1) is None:
            pips = across(token)
            ends[letter] = (pips, 2 * pips)
        else:
            pips = int(token.group(side))
            ends[letter] = (pips, pips)
    spinner = next((t for t in tiles if t.group() == "┣━┫"), None)
    if spinner is not None and spinner not in (first, last):
        centre = spinner.start() + 1
        for letter, rows_out in (
            ("N", range(line_at - 2, -1, -1)),
            ("S", range(line_at + 2, len(region))),
        ):
            outer: re.Match[str] | None = None
            for index in rows_out:
                cell = [t for t in CELL.finditer(region[index]) if t.start() <= centre < t.end()]
                if not cell:
                    break
                outer = cell[0]
            if outer is None:
                continue
            assert not outer.group().startswith("("), f"the {letter} arm ends in a mark"
            upright = outer.group(1) if letter == "N" else outer.group(2)
            if upright is not None:
                ends[letter] = (int(upright), int(upright))
            elif outer.group(3) is not None:
                pips = int(outer.group(3))
                ends[letter] = (pips, 2 * pips)
            else:
                raise AssertionError(f"the {letter} arm's outer tile is cut: {outer.group()}")
            elided = elided or any("more)" in region[i][centre - 5 : centre + 6] for i in rows_out)
    return Seen(ends, elided=elided)


def expected_ends(game: GameView) -> dict[str, int]:
    """The open ends that count, by letter, with their numbers (from the engine's view)."""
    layout, ends = game.layout, game.ends
    found = {"W": ends.west, "E": ends.east}
    spinner = layout.spinner
    if spinner is not None and 0 < spinner < len(layout.line) - 1:
        if layout.north:
            found["N"] = ends.north
        if layout.south:
            found["S"] = ends.south
    return {letter: number for letter, number in found.items() if number is not None}


def header_total(row: str) -> int:
    found = re.search(r"total (\d+)( ★)?$", row.rstrip())
    assert found is not None, row
    return int(found.group(1))


def check(view: RoomView, width: int, height: int) -> Seen:
    rows = screen(view, width, height)
    assert "too small" not in "\n".join(rows), (width, height, "\n".join(rows))
    assert all(len(row) <= width for row in rows)
    game = view.game
    assert game is not None
    seen = read_table(rows)
    where = f"{width}x{height}:\n" + "\n".join(rows)
    assert {letter: number for letter, (number, _) in seen.ends.items()} == expected_ends(game), (
        where
    )
    assert sum(count for _, count in seen.ends.values()) == header_total(rows[0]) == game.total, (
        where
    )
    return seen


@functools.cache
def all_tables() -> list[RoomView]:
    """Every table of the games above (about 700)."""
    tables: list[RoomView] = []
    for players in (2, 3, 4):
        for seed in range(2):
            for choose in (at_random, arms_first, line_first):
                tables += engine_tables(players, seed * 7 + players, choose)
    return tables


def sizes_for(index: int) -> list[tuple[int, int]]:
    """The sizes table number `index` is drawn at: every size under the "ci" profile (what CI
    runs), one in turn under "dev" (the fast loop), so that every table and every size is still
    checked there, at a third of the drawings."""
    if settings().max_examples >= 100:
        return SIZES
    return [SIZES[index % len(SIZES)]]


def test_every_open_end_is_drawn_and_adds_up_to_the_header_at_every_size() -> None:
    tables = all_tables()
    checked = folded = elided = four_armed = 0
    for index, view in enumerate(tables):
        assert view.game is not None
        layout = view.game.layout
        if layout.north and layout.south:
            four_armed += 1
        for width, height in sizes_for(index):
            seen = check(view, width, height)
            checked += 1
            folded += seen.folded
            elided += seen.elided
    print(f"{len(tables)} tables, {checked} drawings, {elided} cut down, {folded} folded")
    assert len(tables) >= 300 and four_armed >= 50
    assert elided > 0


@pytest.mark.parametrize(("width", "height"), SIZES)
def test_a_four_armed_spinner_with_long_arms_at_each_size(width: int, height: int) -> None:
    longest = max(
        (
            v
            for v in all_tables()
            if v.game is not None and v.game.layout.north and v.game.layout.south
        ),
        key=lambda v: len(v.game.layout.north) + len(v.game.layout.south) if v.game else 0,
    )
    assert longest.game is not None
    layout = longest.game.layout
    assert len(layout.north) + len(layout.south) >= 8, layout
    check(longest, width, height)


@pytest.mark.parametrize(("width", "height"), [(50, 17), (31, 20)])
def test_where_the_arms_or_line_must_fold_the_ends_row_lists_every_end(
    width: int, height: int
) -> None:
    step = 2 if settings().max_examples >= 100 else 4  # every other table; every fourth in "dev"
    seen = [check(view, width, height) for view in all_tables()[::step]]
    assert sum(s.folded for s in seen) >= 100 // step
