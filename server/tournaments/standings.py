"""The standings of a tournament: a pure function from the finished tables to the order.

A finished table is an `Outcome`: its sides (each a list of units: one unit, or two rotating
partners) and each side's final score. A `Bye` is a round sat out.

Match points, by place at a table (docs/tournaments.md): 2 for each side finished above and 1
for each side tied with, so 2 and 0 at a table of two sides (1 each for a tie), 4, 2, 0 at a
table of three and 6, 4, 2, 0 at a table of four. Partners share their side's points. A bye
counts as a win: the points of a table's first place.

The order: match points, then Buchholz (the sum of the final match points of every opponent
met, once per meeting; partners are not opponents, a bye has none), then the sum of the unit's
own scores, then the unit's number (join order: the one who joined first ranks higher).
"""

from __future__ import annotations

from collections.abc import Sequence

from msgspec import Struct


class Outcome(Struct, frozen=True):
    """A finished table: its sides (units) and each side's final score."""

    sides: list[list[int]]
    scores: list[int]


class Bye(Struct, frozen=True):
    """A round sat out by `unit`, worth `points` (first place at a full table)."""

    unit: int
    points: int


class Standing(Struct, frozen=True):
    """One unit's line in the standings."""

    unit: int
    match_points: int
    buchholz: int
    score: int
    played: int
    byes: int


def place_points(scores: Sequence[int]) -> list[int]:
    """Each side's match points: 2 per side with a lower score, 1 per side with the same."""
    # Counting every side, a side ties with itself: the 1 that gives it is taken off.
    return [
        sum(2 if mine > theirs else 1 if mine == theirs else 0 for theirs in scores) - 1
        for mine in scores
    ]


def bye_points(sides: int) -> int:
    """What a bye is worth at tables of `sides` sides: a win, first place."""
    return 2 * (sides - 1)


def standings(units: int, results: Sequence[Outcome | Bye]) -> list[Standing]:
    """The standings of units 0..units-1 after `results`, best first (the module's order)."""
    points = [0] * units
    scores = [0] * units
    played = [0] * units
    byes = [0] * units
    opponents: list[list[int]] = [[] for _ in range(units)]
    for result in results:
        if isinstance(result, Bye):
            points[result.unit] += result.points
            byes[result.unit] += 1
            continue
        won = place_points(result.scores)
        for index, side in enumerate(result.sides):
            others = [
                unit for at, other in enumerate(result.sides) if at != index for unit in other
            ]
            for unit in side:
                points[unit] += won[index]
                scores[unit] += result.scores[index]
                played[unit] += 1
                opponents[unit].extend(others)
    lines = [
        Standing(
            unit=unit,
            match_points=points[unit],
            buchholz=sum(points[other] for other in opponents[unit]),
            score=scores[unit],
            played=played[unit],
            byes=byes[unit],
        )
        for unit in range(units)
    ]
    return sorted(lines, key=order_key)


def order_key(line: Standing) -> tuple[int, int, int, int]:
    """The sort key of a line: match points, Buchholz, score (each highest first), then unit."""
    return (-line.match_points, -line.buchholz, -line.score, line.unit)
