"""The standings of a tournament (server/tournaments/standings.py, docs/tournaments.md).

Match points by place (2 per side beaten, 1 per side tied, a bye a win), then Buchholz, then
the sum of scores, then join order; the same results in any order give the same standings.
"""

from __future__ import annotations

import random
from itertools import combinations

from hypothesis import given
from hypothesis import strategies as st

from server.tournaments.standings import (
    Bye,
    Outcome,
    Standing,
    bye_points,
    place_points,
    standings,
)


@given(st.lists(st.integers(0, 300), min_size=2, max_size=4))
def test_match_points_follow_the_places(scores: list[int]) -> None:
    points = place_points(scores)
    sides = len(scores)
    # Each two sides share 2 points: 2 to the higher score, 1 each for a tie.
    assert sum(points) == sides * (sides - 1)
    for a, b in combinations(range(sides), 2):
        assert (points[a] > points[b]) == (scores[a] > scores[b])
        assert (points[a] == points[b]) == (scores[a] == scores[b])
    assert max(points) <= bye_points(sides)


def test_match_points_of_each_table_size() -> None:
    assert place_points([250, 120]) == [2, 0]
    assert place_points([120, 120]) == [1, 1]
    assert place_points([90, 200, 150]) == [0, 4, 2]
    assert place_points([200, 30, 200, 10]) == [5, 2, 5, 0]
    assert [bye_points(sides) for sides in (2, 3, 4)] == [2, 4, 6]


def test_the_order_of_a_small_tournament_worked_by_hand() -> None:
    results: list[Outcome | Bye] = [
        # Round 1: 0 beats 1, 2 beats 3, 4 has the bye.
        Outcome(sides=[[0], [1]], scores=[250, 200]),
        Outcome(sides=[[2], [3]], scores=[250, 100]),
        Bye(unit=4, points=2),
        # Round 2: 4 beats 0, 1 beats 2, 3 has the bye.
        Outcome(sides=[[4], [0]], scores=[255, 240]),
        Outcome(sides=[[1], [2]], scores=[250, 245]),
        Bye(unit=3, points=2),
    ]
    lines = standings(5, results)
    # Match points: 0, 1, 2, 3, 4 all have 2, but 4 (bye and a win) has 4.
    assert [line.unit for line in lines] == [4, 0, 2, 1, 3]
    by_unit = {line.unit: line for line in lines}
    assert by_unit[4] == Standing(unit=4, match_points=4, buchholz=2, score=255, played=1, byes=1)
    # 0 met 1 and 4 (2 + 4): Buchholz 6; 2 met 3 and 1 (2 + 2): 4; 1 met 0 and 2 (2 + 2): 4.
    assert (by_unit[0].buchholz, by_unit[2].buchholz, by_unit[1].buchholz) == (6, 4, 4)
    # 2 and 1 tie on Buchholz: 2 scored 495, 1 scored 450.
    assert (by_unit[2].score, by_unit[1].score) == (495, 450)


def test_join_order_breaks_the_last_tie() -> None:
    lines = standings(
        4, [Outcome(sides=[[0], [1]], scores=[5, 5]), Outcome(sides=[[3], [2]], scores=[5, 5])]
    )
    assert [line.unit for line in lines] == [0, 1, 2, 3]


def test_partners_share_points_and_are_not_opponents() -> None:
    lines = standings(4, [Outcome(sides=[[0, 2], [1, 3]], scores=[200, 150])])
    by_unit = {line.unit: line for line in lines}
    assert [by_unit[unit].match_points for unit in range(4)] == [2, 0, 2, 0]
    # 0's opponents are 1 and 3 (0 points each); 1's are 0 and 2 (2 each).
    assert [by_unit[unit].buchholz for unit in range(4)] == [0, 4, 0, 4]
    assert [by_unit[unit].score for unit in range(4)] == [200, 150, 200, 150]


@st.composite
def results(draw: st.DrawFn) -> tuple[int, list[Outcome | Bye]]:
    """Units and random finished tables of 2 to 4 sides (some of two partners) and byes."""
    units = draw(st.integers(4, 12))
    found: list[Outcome | Bye] = []
    for _ in range(draw(st.integers(0, 12))):
        if draw(st.booleans()) and draw(st.booleans()):
            found.append(Bye(unit=draw(st.integers(0, units - 1)), points=2))
            continue
        seated = draw(st.permutations(list(range(units))))
        if draw(st.booleans()):
            sides = [[seated[0], seated[2]], [seated[1], seated[3]]]
        else:
            sides = [[unit] for unit in seated[: draw(st.integers(2, 4))]]
        scores = draw(st.lists(st.integers(0, 300), min_size=len(sides), max_size=len(sides)))
        found.append(Outcome(sides=sides, scores=scores))
    return units, found


@given(results(), st.randoms(use_true_random=False))
def test_standings_are_a_recount_in_the_documented_order(
    given_results: tuple[int, list[Outcome | Bye]], chance: random.Random
) -> None:
    units, found = given_results
    lines = standings(units, found)
    # A recount, by the rules of docs/tournaments.md written out again.
    points = dict.fromkeys(range(units), 0)
    scores = dict.fromkeys(range(units), 0)
    met: dict[int, list[int]] = {unit: [] for unit in range(units)}
    for result in found:
        if isinstance(result, Bye):
            points[result.unit] += 2
            continue
        for index, side in enumerate(result.sides):
            mine = result.scores[index]
            beaten = sum(1 for theirs in result.scores if theirs < mine)
            tied = sum(1 for theirs in result.scores if theirs == mine) - 1
            for unit in side:
                points[unit] += 2 * beaten + tied
                scores[unit] += mine
                met[unit] += [u for at, s in enumerate(result.sides) if at != index for u in s]
    buchholz = {unit: sum(points[other] for other in met[unit]) for unit in range(units)}
    expected = sorted(range(units), key=lambda u: (-points[u], -buchholz[u], -scores[u], u))
    assert [line.unit for line in lines] == expected
    assert all(
        (line.match_points, line.buchholz, line.score)
        == (points[line.unit], buchholz[line.unit], scores[line.unit])
        for line in lines
    )
    # The same results told in another order give the same standings.
    shuffled = list(found)
    chance.shuffle(shuffled)
    assert standings(units, shuffled) == lines
