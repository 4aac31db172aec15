"""The pairings of a tournament's rounds (server/tournaments/pairing.py, docs/tournaments.md).

Round robin meets every pair once; Swiss has the fewest rematches any pairing has (checked
against every pairing, up to 10 units) and gives the bye to the lowest-ranked without one; the
bracket gives its byes to the top seeds and crowns the last one standing; tables of 3 and 4 seat
everyone once a round with the fewest repeated partners and meetings (checked against every
grouping, up to 9 units).
"""

from __future__ import annotations

import random
from collections import Counter
from collections.abc import Iterator, Sequence
from itertools import combinations

from hypothesis import given, settings
from hypothesis import strategies as st
from protocol_helpers import examples

from server.tournaments.pairing import (
    PARTNER_SEATINGS,
    Draw,
    advance,
    elimination_draw,
    first_bracket,
    groups,
    pair_key,
    round_robin,
    round_robin_rounds,
    swiss_pairs,
)
from server.tournaments.standings import Bye, Outcome, bye_points, standings


def seated_once(draw: Draw, units: Sequence[int], size: int) -> None:
    """Every unit is at exactly one table of `size`, or has a bye."""
    seen = [unit for table in draw.tables for unit in table] + draw.byes
    assert sorted(seen) == sorted(units)
    assert all(len(table) == size for table in draw.tables)


@st.composite
def histories(draw: st.DrawFn, most: int) -> tuple[list[int], dict[tuple[int, int], int]]:
    """A ranking of 2..`most` units (in a random order) and earlier meetings among them."""
    count = draw(st.integers(2, most))
    ranking = draw(st.permutations(list(range(count))))
    pairs = list(combinations(range(count), 2))
    met = draw(st.dictionaries(st.sampled_from(pairs), st.integers(1, 3), max_size=len(pairs)))
    return ranking, met


# -- round robin --------------------------------------------------------------------------------


@given(st.integers(2, 24))
def test_round_robin_meets_every_pair_exactly_once(count: int) -> None:
    met: Counter[tuple[int, int]] = Counter()
    byes: Counter[int] = Counter()
    for index in range(round_robin_rounds(count)):
        draw = round_robin(count, index)
        seated_once(draw, range(count), 2)
        met.update(pair_key(a, b) for a, b in draw.tables)
        byes.update(draw.byes)
    assert met == Counter(combinations(range(count), 2))
    # Byes are fair: with an odd count each has exactly one, with an even count nobody has one.
    assert byes == (Counter(range(count)) if count % 2 else Counter())


def test_round_robin_changes_who_sits_first() -> None:
    firsts = Counter(round_robin(6, index).tables[0][0] for index in range(5))
    assert len(firsts) > 1


# -- Swiss --------------------------------------------------------------------------------------


def pairings(units: list[int]) -> Iterator[list[tuple[int, int]]]:
    """Every way to pair an even number of units."""
    if not units:
        yield []
        return
    first, rest = units[0], units[1:]
    for index, other in enumerate(rest):
        for more in pairings(rest[:index] + rest[index + 1 :]):
            yield [(first, other), *more]


def rematches(pairs: Sequence[Sequence[int]], met: dict[tuple[int, int], int]) -> int:
    return sum(1 for a, b in pairs if met.get(pair_key(a, b), 0))


@settings(max_examples=examples(200), deadline=None)
@given(histories(10), st.data())
def test_swiss_has_the_fewest_rematches_of_any_pairing(
    history: tuple[list[int], dict[tuple[int, int], int]], data: st.DataObject
) -> None:
    ranking, met = history
    byes_had = data.draw(st.dictionaries(st.sampled_from(ranking), st.integers(1, 2)))
    draw = swiss_pairs(ranking, met, byes_had)
    seated_once(draw, ranking, 2)
    # The bye: the lowest-ranked of those with the fewest byes (without one, if anyone).
    if len(ranking) % 2:
        fewest = min(byes_had.get(unit, 0) for unit in ranking)
        lowest = [unit for unit in ranking if byes_had.get(unit, 0) == fewest][-1]
        assert draw.byes == [lowest]
    else:
        assert draw.byes == []
    players = [unit for unit in ranking if unit not in draw.byes]
    best = min(rematches(pairs, met) for pairs in pairings(players))
    assert rematches(draw.tables, met) == best


@settings(max_examples=examples(60), deadline=None)
@given(st.integers(2, 10), st.integers(2, 6), st.randoms(use_true_random=False))
def test_swiss_rounds_after_random_results_avoid_every_avoidable_rematch(
    count: int, rounds: int, chance: random.Random
) -> None:
    results: list[Outcome | Bye] = []
    met: Counter[tuple[int, int]] = Counter()
    byes_had: Counter[int] = Counter()
    for _ in range(rounds):
        ranking = [line.unit for line in standings(count, results)]
        draw = swiss_pairs(ranking, met, byes_had)
        seated_once(draw, ranking, 2)
        if count % 2:
            # The bye: the lowest-ranked of those who have not had one (or had fewest).
            fewest = min(byes_had[unit] for unit in ranking)
            assert draw.byes == [[u for u in ranking if byes_had[u] == fewest][-1]]
        players = [unit for unit in ranking if unit not in draw.byes]
        # A rematch only where every pairing of the round has one.
        if rematches(draw.tables, met):
            assert all(rematches(pairs, met) for pairs in pairings(players))
        for a, b in draw.tables:
            scores = [chance.randrange(0, 300, 5), chance.randrange(0, 300, 5)]
            results.append(Outcome(sides=[[a], [b]], scores=scores))
            met[pair_key(a, b)] += 1
        results += [Bye(unit=unit, points=bye_points(2)) for unit in draw.byes]
        byes_had.update(draw.byes)


@given(st.integers(2, 16))
def test_swiss_without_history_pairs_neighbours_in_rank(count: int) -> None:
    ranking = list(reversed(range(count)))
    draw = swiss_pairs(ranking, {}, {})
    place = {unit: index for index, unit in enumerate(ranking)}
    assert [[place[unit] for unit in table] for table in draw.tables] == [
        [index, index + 1] for index in range(0, count - 1, 2)
    ]
    assert draw.byes == ([ranking[-1]] if count % 2 else [])


def test_swiss_moves_a_pair_apart_only_to_avoid_a_rematch() -> None:
    # 0 and 1 met already: 0 plays 2 and 1 plays 3 rather than meet again.
    assert swiss_pairs([0, 1, 2, 3], {(0, 1): 1}, {}).tables == [[0, 2], [1, 3]]
    # Everyone met everyone: rematches cannot be avoided, so the closest ranks play.
    everyone = {pair: 1 for pair in combinations(range(4), 2)}
    assert swiss_pairs([0, 1, 2, 3], everyone, {}).tables == [[0, 1], [2, 3]]


# -- single elimination -------------------------------------------------------------------------


@settings(max_examples=examples(100), deadline=None)
@given(st.integers(2, 64), st.randoms(use_true_random=False))
def test_the_bracket_advances_winners_to_one_champion(count: int, chance: random.Random) -> None:
    slots = first_bracket(count)
    size = len(slots)
    assert size >= count > size // 2
    # Byes go to the top seeds: exactly the seeds 0..size-count-1.
    first = elimination_draw(slots)
    assert sorted(first.byes) == list(range(size - count))
    standing = set(range(count))
    rounds = 0
    while len(slots) > 1:
        draw = elimination_draw(slots)
        seated_once(draw, sorted(standing), 2)
        if rounds:
            assert draw.byes == []  # byes only in round 1
        winners = {chance.choice(table) for table in draw.tables} | set(draw.byes)
        slots = advance(slots, winners)
        assert set(slots) == winners
        standing = winners
        rounds += 1
    assert len(standing) == 1 and slots == [next(iter(standing))]
    assert 2**rounds == size


def test_the_top_two_seeds_can_meet_only_in_the_final() -> None:
    slots = first_bracket(8)
    assert slots.index(0) < 4 <= slots.index(1)
    assert elimination_draw(slots).tables == [[0, 7], [3, 4], [1, 6], [2, 5]]
    # Five entrants: the top three sit out round 1 and 3 plays 4.
    draw = elimination_draw(first_bracket(5))
    assert draw.tables == [[3, 4]] and sorted(draw.byes) == [0, 1, 2]
    # The winners advance: 4 beat 3, and meets the top seed in the semi-final.
    following = advance(first_bracket(5), {0, 1, 2, 4})
    assert elimination_draw(following).tables == [[0, 4], [1, 2]]


# -- tables of 3 and 4 individuals --------------------------------------------------------------


def groupings(units: list[int], size: int) -> Iterator[list[list[int]]]:
    """Every way to split the units into groups of `size`."""
    if not units:
        yield []
        return
    first, rest = units[0], units[1:]
    for others in combinations(rest, size - 1):
        left = [unit for unit in rest if unit not in others]
        for more in groupings(left, size):
            yield [[first, *others], *more]


def meetings_of(tables: Sequence[Sequence[int]], met: dict[tuple[int, int], int]) -> int:
    return sum(met.get(pair_key(a, b), 0) for table in tables for a, b in combinations(table, 2))


def partner_repeats(table: Sequence[int], partnered: dict[tuple[int, int], int]) -> int:
    return partnered.get(pair_key(table[0], table[2]), 0) + partnered.get(
        pair_key(table[1], table[3]), 0
    )


@settings(max_examples=examples(150), deadline=None)
@given(histories(9), st.sampled_from([3, 4]), st.booleans(), st.data())
def test_groups_seat_everyone_once_with_the_fewest_repeats(
    history: tuple[list[int], dict[tuple[int, int], int]],
    size: int,
    partners: bool,
    data: st.DataObject,
) -> None:
    ranking, met = history
    if len(ranking) < size:
        return
    partnered = None
    if partners and size == 4:
        partnered = data.draw(st.dictionaries(st.sampled_from(sorted(met) or [(0, 1)]), st.just(1)))
    draw = groups(ranking, size, met, {}, partnered)
    seated_once(draw, ranking, size)
    assert sorted(draw.byes) == sorted(ranking[len(ranking) - len(ranking) % size :])
    players = [unit for unit in ranking if unit not in draw.byes]
    if partnered is None:
        best = min(meetings_of(split, met) for split in groupings(players, size))
        assert meetings_of(draw.tables, met) == best
        return

    def cost(split: list[list[int]]) -> tuple[int, int]:
        partners = sum(
            min(
                partner_repeats([group[p] for p in seating], partnered)
                for seating in PARTNER_SEATINGS
            )
            for group in split
        )
        return partners, meetings_of(split, met)

    best_pair = min(cost(split) for split in groupings(players, size))
    got = (
        sum(partner_repeats(table, partnered) for table in draw.tables),
        meetings_of(draw.tables, met),
    )
    assert got == best_pair


def test_four_players_take_each_partner_once_in_three_rounds() -> None:
    met: Counter[tuple[int, int]] = Counter()
    partnered: Counter[tuple[int, int]] = Counter()
    for _ in range(3):
        (table,) = groups([0, 1, 2, 3], 4, met, {}, partnered).tables
        met.update(pair_key(a, b) for a, b in combinations(table, 2))
        partnered.update([pair_key(table[0], table[2]), pair_key(table[1], table[3])])
    assert partnered == Counter(combinations(range(4), 2))


def test_rotating_partners_change_from_round_to_round() -> None:
    # Eight players, three rounds: nobody partners anyone twice, as a grouping allows it.
    met: Counter[tuple[int, int]] = Counter()
    partnered: Counter[tuple[int, int]] = Counter()
    for _ in range(3):
        draw = groups(list(range(8)), 4, met, {}, partnered)
        for table in draw.tables:
            met.update(pair_key(a, b) for a, b in combinations(table, 2))
            partnered.update([pair_key(table[0], table[2]), pair_key(table[1], table[3])])
    assert max(partnered.values()) == 1 and len(partnered) == 12


@settings(max_examples=examples(10), deadline=None)
@given(st.sampled_from([3, 4]), st.permutations(list(range(64))))
def test_groups_of_sixty_four_are_whole(size: int, ranking: list[int]) -> None:
    met = {pair_key(a, b): 1 for a, b in combinations(range(64), 2) if (a * b) % 3 == 0}
    draw = groups(ranking, size, met, {}, {} if size == 4 else None)
    seated_once(draw, ranking, size)
