"""Counting at the end of a hand: the points each side scores when a seat dominoes or the hand
is blocked, by the rules' end scoring (7.3, 7.4). Pure functions of the seats' pips."""

from __future__ import annotations

from collections.abc import Sequence

from engine.events import HandEnded
from engine.rules import Rules, round5
from engine.tiles import pips_of


def all_pips(hands: Sequence[int]) -> tuple[int, ...]:
    """The pips left in each seat's hand (hands as tile masks)."""
    return tuple(pips_of(h) for h in hands)


def domino_result(rules: Rules, hands: Sequence[int], seat: int) -> HandEnded:
    """The end of a hand that `seat` dominoed (went out)."""
    pips = all_pips(hands)
    return HandEnded("domino", seat, domino_points(rules, seat, pips), pips)


def blocked_result(rules: Rules, hands: Sequence[int]) -> HandEnded:
    """The end of a hand in which nobody can play."""
    pips = all_pips(hands)
    return HandEnded("blocked", None, blocked_points(rules, pips), pips)


def domino_points(rules: Rules, seat: int, pips: Sequence[int]) -> tuple[int, ...]:
    """End-of-hand points per side when `seat` went out, given every seat's pips (7.3, 7.4)."""
    points = [0] * rules.sides
    if rules.end_scoring == "penalty":
        for s, p in enumerate(pips):
            points[rules.side_of(s)] -= round5(p)
    else:
        mine = rules.side_of(seat)
        left = sum(p for s, p in enumerate(pips) if rules.side_of(s) != mine)
        points[mine] = round5(left)
    return tuple(points)


def blocked_points(rules: Rules, pips: Sequence[int]) -> tuple[int, ...]:
    """End-of-hand points per side when nobody can play, given every seat's pips (7.3, 7.4)."""
    points = [0] * rules.sides
    if rules.end_scoring == "penalty":
        for s, p in enumerate(pips):
            points[rules.side_of(s)] -= round5(p)
    elif rules.partnership:
        team = [pips[0] + pips[2], pips[1] + pips[3]]
        if team[0] != team[1]:
            low = 0 if team[0] < team[1] else 1
            points[low] = round5(team[1 - low])
    else:
        fewest = min(pips)
        lows = [s for s, p in enumerate(pips) if p == fewest]
        if len(lows) == 1:
            points[lows[0]] = round5(sum(pips) - fewest)
        elif len(lows) == 2 and rules.players == 3:
            third = next(p for s, p in enumerate(pips) if s not in lows)
            for s in lows:
                points[s] = round5(third / 2)
    return tuple(points)
