"""Who sits with whom in a round of a tournament: pure functions of the standings and the past.

Everything here works on units (an individual, or a team of fixed partners), named by number;
a ranking is a list of units, best first. Each function returns a `Draw`: the tables of the
round, each a list of units in seat order, and the units that sit the round out (byes).

- `round_robin`: the circle method, one round at a time (an odd count adds a bye each round).
- `swiss_pairs`: tables of two sides, a maximum-weight matching (networkx) in which a pair that
  has not met outweighs every pair of close rank, so a rematch happens only where no pairing
  of the round avoids it.
- `groups`: tables of 3 or 4 individuals (with partners rotating at 4), a bounded
  branch-and-bound search over groups in ranking order (docs/tournaments.md).
- `first_bracket`, `elimination_draw`: a seeded single-elimination bracket.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from itertools import combinations

import networkx as nx

#: Each time two units have sat at one table (partners or opponents), keyed by `pair_key`.
Meetings = Mapping[tuple[int, int], int]

#: The groups search looks at this many next units for each group's first (all of them when
#: fewer are left), and past `SEARCH_BUDGET` groups tried it only completes its best line.
SEARCH_WINDOW = 9
SEARCH_BUDGET = 1500
#: The weights of a group's cost: a repeated partner outweighs every repeated meeting, which
#: outweighs every difference of rank.
PARTNER_WEIGHT = 10**8
MEETING_WEIGHT = 10**4


@dataclass(frozen=True)
class Draw:
    """A round: its tables (units in seat order) and its byes."""

    tables: list[list[int]] = field(default_factory=list)
    byes: list[int] = field(default_factory=list)


def pair_key(a: int, b: int) -> tuple[int, int]:
    """The key of a pair in `Meetings`, the same either way round."""
    return (a, b) if a < b else (b, a)


def pick_byes(ranking: Sequence[int], byes_had: Mapping[int, int], count: int) -> list[int]:
    """The `count` units to sit out: the fewest byes so far first, among those the lowest-ranked."""
    place = {unit: index for index, unit in enumerate(ranking)}
    order = sorted(ranking, key=lambda unit: (byes_had.get(unit, 0), -place[unit]))
    return order[:count]


# -- round robin (tables of two sides) ----------------------------------------------------------


def round_robin_rounds(count: int) -> int:
    """How many rounds a round robin of `count` units takes: each meets each other once."""
    return count if count % 2 else count - 1


def round_robin(count: int, index: int) -> Draw:
    """Round `index` (from 0) of the circle method for units 0..count-1.

    The units stand in a circle round one fixed place; each round the circle turns by one and
    each unit plays the one across. With an odd count the fixed place is empty: whoever faces
    it has the bye, so each unit has exactly one bye over the rounds.
    """
    if count < 2 or not 0 <= index < round_robin_rounds(count):
        raise ValueError(f"no round {index} in a round robin of {count}")
    places: list[int | None] = [None, *range(count)] if count % 2 else list(range(count))
    size = len(places)
    fixed, others = places[0], places[1:]
    turn = index % (size - 1)
    circle = others[size - 1 - turn :] + others[: size - 1 - turn]
    line = [fixed, *circle]
    draw = Draw()
    for position in range(size // 2):
        a, b = line[position], line[size - 1 - position]
        if a is None or b is None:
            draw.byes.extend(unit for unit in (a, b) if unit is not None)
        else:
            # Whoever sits first changes from round to round.
            draw.tables.append([a, b] if (index + position) % 2 == 0 else [b, a])
    return draw


# -- Swiss (tables of two sides) ----------------------------------------------------------------


def swiss_pairs(ranking: Sequence[int], met: Meetings, byes_had: Mapping[int, int]) -> Draw:
    """Pair the units of `ranking` (best first) for a Swiss round of tables of two sides.

    The bye (an odd count) goes to the lowest-ranked unit with the fewest byes. The others are
    paired by a maximum-weight matching of maximum cardinality over every pair: a pair's weight
    is `fresh` if the two have not met, plus n² less the square of their distance in rank. One
    more fresh pair outweighs all the closeness of a round (at most n/2 · n² < n³ < fresh), so
    the matching has the fewest rematches any pairing has, and among those, the closest ranks.
    """
    byes = pick_byes(ranking, byes_had, len(ranking) % 2)
    players = [unit for unit in ranking if unit not in byes]
    size = len(players)
    fresh = size**3 + 1
    graph: nx.Graph[int] = nx.Graph()
    graph.add_nodes_from(range(size))
    for i, j in combinations(range(size), 2):
        closeness = size * size - (j - i) ** 2
        weight = closeness + (0 if met.get(pair_key(players[i], players[j]), 0) else fresh)
        graph.add_edge(i, j, weight=weight)
    matching = nx.max_weight_matching(graph, maxcardinality=True)
    pairs = sorted((min(i, j), max(i, j)) for i, j in matching)
    return Draw(tables=[[players[i], players[j]] for i, j in pairs], byes=byes)


# -- tables of 3 or 4 individuals ---------------------------------------------------------------

#: The ways four seats split into two partnerships (seats 0+2 and 1+3 are partners): positions
#: in the group, in seat order.
PARTNER_SEATINGS = ((0, 1, 2, 3), (0, 2, 1, 3), (0, 1, 3, 2))


def groups(
    ranking: Sequence[int],
    size: int,
    met: Meetings,
    byes_had: Mapping[int, int],
    partnered: Meetings | None = None,
) -> Draw:
    """Seat the units of `ranking` (best first) at tables of `size` individuals.

    count % size units sit out (`pick_byes`). The others are grouped by a branch-and-bound
    search: the best-ranked unit left opens a group with `size - 1` of the next `SEARCH_WINDOW`
    units, each choice tried cheapest first, and a line is dropped when it already costs as
    much as the best one found. A group costs, in this order of weight, its repeated partners
    (with `partnered`: tables of four in partnerships, each group seated in the way of its
    three with the fewest), each earlier meeting of two of its members, and the spread of its
    ranks. With at most 9 units to seat the whole search fits in its budget, so it is exact: the
    round has the fewest repeated partners, then meetings, of any grouping. Past
    `SEARCH_BUDGET` groups tried it completes its current line greedily and stops, so 64 units
    take a few hundredths of a second.
    """
    if size not in (3, 4) or (partnered is not None and size != 4):
        raise ValueError(f"no tables of {size} individuals (partners only at tables of 4)")
    byes = pick_byes(ranking, byes_had, len(ranking) % size)
    players = [unit for unit in ranking if unit not in byes]

    def cost(members: tuple[int, ...]) -> tuple[int, list[int]]:
        units = [players[m] for m in members]
        meetings = sum(met.get(pair_key(a, b), 0) for a, b in combinations(units, 2))
        base = MEETING_WEIGHT * meetings + members[-1] - members[0]
        if partnered is None:
            return base, units
        options = []
        for seating in PARTNER_SEATINGS:
            seats = [units[p] for p in seating]
            repeats = partnered.get(pair_key(seats[0], seats[2]), 0)
            repeats += partnered.get(pair_key(seats[1], seats[3]), 0)
            options.append((base + PARTNER_WEIGHT * repeats, seats))
        return min(options)

    found = _search(len(players), size, cost)
    return Draw(tables=found, byes=byes)


def _search(
    count: int, size: int, cost: Callable[[tuple[int, ...]], tuple[int, list[int]]]
) -> list[list[int]]:
    """The cheapest split of positions 0..count-1 into groups of `size` (see `groups`)."""
    best: list[list[int]] | None = None
    best_cost = 0
    tried = 0

    def walk(left: tuple[int, ...], chosen: list[list[int]], spent: int) -> None:
        nonlocal best, best_cost, tried
        if best is not None and spent >= best_cost:
            return
        if not left:
            best, best_cost = list(chosen), spent
            return
        if tried > SEARCH_BUDGET and best is not None:
            return
        first, rest = left[0], left[1:]
        window = rest if len(rest) <= SEARCH_WINDOW else rest[:SEARCH_WINDOW]
        options = sorted(
            (*cost((first, *others)), others) for others in combinations(window, size - 1)
        )
        tried += len(options)
        if tried > SEARCH_BUDGET:
            options = options[:1]  # out of budget: finish this line with its cheapest groups
        for price, seats, others in options:
            remaining = tuple(unit for unit in rest if unit not in others)
            walk(remaining, [*chosen, seats], spent + price)

    walk(tuple(range(count)), [], 0)
    assert best is not None
    return best


# -- single elimination -------------------------------------------------------------------------


def bracket_order(size: int) -> list[int]:
    """The seeds (0 the top) in bracket order for a bracket of `size`, a power of two: seed s
    meets seed size-1-s in round 1, and the top two seeds can meet only in the final."""
    order = [0]
    while len(order) < size:
        double = 2 * len(order)
        order = [seed for top in order for seed in (top, double - 1 - top)]
    return order


def first_bracket(count: int) -> list[int | None]:
    """The slots of round 1 for `count` units seeded 0..count-1: the bracket is the next power
    of two, and its empty slots (None) fall opposite the top seeds, who so have the byes."""
    size = 1
    while size < count:
        size *= 2
    return [seed if seed < count else None for seed in bracket_order(size)]


def elimination_draw(slots: Sequence[int | None]) -> Draw:
    """A round of the bracket: each two neighbouring slots play (the better seed first), and a
    unit beside an empty slot has a bye."""
    draw = Draw()
    for a, b in zip(slots[0::2], slots[1::2], strict=True):
        if a is None or b is None:
            draw.byes.extend(unit for unit in (a, b) if unit is not None)
        else:
            draw.tables.append([min(a, b), max(a, b)])
    return draw


def advance(slots: Sequence[int | None], winners: set[int]) -> list[int | None]:
    """The slots of the next round: from each two neighbours, the one in `winners` (a bye's
    holder is in it too)."""
    following: list[int | None] = []
    for a, b in zip(slots[0::2], slots[1::2], strict=True):
        following.append(a if a is not None and a in winners else b)
    return following


def count_meetings(tables: Sequence[Sequence[int]], met: Counter[tuple[int, int]]) -> None:
    """Add each two units at one of `tables` to `met`."""
    for table in tables:
        for a, b in combinations(table, 2):
            if a != b:
                met[pair_key(a, b)] += 1
