"""Counting at the end of a hand: the points each side scores when a seat dominoes or the hand
is blocked, by the rules' end scoring (7.3, 7.4). Pure functions of the seats' pips.

`domino_counts` and `blocked_counts` are the rule itself: which side counts whose pips, and what
that makes rounded to five. The points per side (`domino_points`, `blocked_points`) are those
counts added up, and the counts go to the clients with the hand's result so that they explain
the score without working it out again.
"""

from __future__ import annotations

from collections.abc import Sequence

from engine.events import Count, HandEnded
from engine.rules import Rules, round5
from engine.tiles import pips_of


def all_pips(hands: Sequence[int]) -> tuple[int, ...]:
    """The pips left in each seat's hand (hands as tile masks)."""
    return tuple(pips_of(h) for h in hands)


def side_pips(rules: Rules, pips: Sequence[int]) -> tuple[int, ...]:
    """The pips each side (team, or seat) holds, from each seat's."""
    held = [0] * rules.sides
    for seat, seat_pips in enumerate(pips):
        held[rules.side_of(seat)] += seat_pips
    return tuple(held)


def domino_result(rules: Rules, hands: Sequence[int], seat: int) -> HandEnded:
    """The end of a hand that `seat` dominoed (went out)."""
    pips = all_pips(hands)
    counts = domino_counts(rules, seat, pips)
    return HandEnded("domino", seat, points_of(rules, counts), pips, counts)


def blocked_result(rules: Rules, hands: Sequence[int]) -> HandEnded:
    """The end of a hand in which nobody can play."""
    pips = all_pips(hands)
    counts = blocked_counts(rules, pips)
    return HandEnded("blocked", None, points_of(rules, counts), pips, counts)


def points_of(rules: Rules, counts: Sequence[Count]) -> tuple[int, ...]:
    """The end-of-hand points per side that `counts` make."""
    points = [0] * rules.sides
    for count in counts:
        points[count.side] += count.points
    return tuple(points)


def _penalties(rules: Rules, pips: Sequence[int]) -> tuple[Count, ...]:
    """Penalty scoring (7.4): each seat loses its own pips, rounded to five."""
    return tuple(Count(rules.side_of(s), (s,), p, -round5(p)) for s, p in enumerate(pips))


def domino_counts(rules: Rules, seat: int, pips: Sequence[int]) -> tuple[Count, ...]:
    """The counts when `seat` went out, given every seat's pips (7.3, 7.4): its side counts
    the pips left in its opponents' hands (a partner's count for nobody)."""
    if rules.end_scoring == "penalty":
        return _penalties(rules, pips)
    mine = rules.side_of(seat)
    others = tuple(s for s in range(len(pips)) if rules.side_of(s) != mine)
    left = sum(pips[s] for s in others)
    return (Count(mine, others, left, round5(left)),)


def blocked_counts(rules: Rules, pips: Sequence[int]) -> tuple[Count, ...]:
    """The counts when nobody can play (7.3, 7.4): the side with the fewest pips counts the
    others'; equal fewest score nothing, but for two of three players, who share half of the
    third's."""
    if rules.end_scoring == "penalty":
        return _penalties(rules, pips)
    if rules.partnership:
        team = [pips[0] + pips[2], pips[1] + pips[3]]
        if team[0] == team[1]:
            return ()
        low = 0 if team[0] < team[1] else 1
        high = 1 - low
        return (Count(low, (high, high + 2), team[high], round5(team[high])),)
    fewest = min(pips)
    lows = [s for s, p in enumerate(pips) if p == fewest]
    if len(lows) == 1:
        others = tuple(s for s in range(len(pips)) if s != lows[0])
        held = sum(pips[s] for s in others)
        return (Count(lows[0], others, held, round5(held)),)
    if len(lows) == 2 and rules.players == 3:
        third = next(s for s in range(3) if s not in lows)
        half: int | float = pips[third] / 2 if pips[third] % 2 else pips[third] // 2
        return tuple(Count(s, (third,), half, round5(half), halved=True) for s in lows)
    return ()


def domino_points(rules: Rules, seat: int, pips: Sequence[int]) -> tuple[int, ...]:
    """End-of-hand points per side when `seat` went out, given every seat's pips (7.3, 7.4)."""
    return points_of(rules, domino_counts(rules, seat, pips))


def blocked_points(rules: Rules, pips: Sequence[int]) -> tuple[int, ...]:
    """End-of-hand points per side when nobody can play, given every seat's pips (7.3, 7.4)."""
    return points_of(rules, blocked_counts(rules, pips))
