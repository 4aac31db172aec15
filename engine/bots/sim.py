"""A lean copy of a hand for search: the same rules as `engine.match`, on plain ints, for speed.

A `Position` holds only what the rest of a hand needs (hands, boneyard, open ends, scores, whose
turn). `playout` plays a move and then the rest of the hand with a noisy greedy policy; the
search calls it thousands of times per decision, so it works on local variables, not objects.
"""

from __future__ import annotations

import random
from collections.abc import Sequence

from engine.kernel import ADDS, POINTS, SUITX, others, place
from engine.layout import Layout
from engine.match import Match
from engine.rules import Rules
from engine.scoring import blocked_points, domino_points
from engine.tiles import PIPS, SUIT, pips_of


class Position:
    """The state of a hand in progress, on plain ints (hands as bitmasks, the boneyard in order)."""

    __slots__ = (
        "bone",
        "hands",
        "open",
        "passes",
        "rules",
        "scores",
        "sides",
        "spinner",
        "turn",
        "weight",
    )

    @classmethod
    def of_match(cls, match: Match) -> Position:
        """The position of a full engine state (the seat to play, the undrawn boneyard)."""
        return cls(
            match.rules,
            list(match.hands),
            match.boneyard[match.drawn :],
            match.layout,
            match.turn,
            match.passes,
            list(match.scores),
        )

    def __init__(
        self,
        rules: Rules,
        hands: list[int],
        bone: list[int],
        layout: Layout,
        turn: int,
        passes: int,
        scores: list[int],
    ) -> None:
        self.rules = rules
        self.hands = hands
        self.bone = bone
        self.open = list(layout.open)
        self.weight = list(layout.weight)
        self.spinner = layout.spinner
        self.sides = (layout.spinner_sides[0], layout.spinner_sides[1])
        self.turn = turn
        self.passes = passes
        self.scores = scores

    @property
    def empty(self) -> bool:
        """Whether nothing has been led yet."""
        return self.open[0] < 0


def playout(
    pos: Position, tile: int, end: int, rng: random.Random, noise: float
) -> tuple[list[int], bool]:
    """Play `tile` at `end` for the seat to play, then the hand out; returns the scores and whether the match ended.

    Every seat follows the greedy policy (most points, then the heaviest tile), except that with
    probability `noise` it plays a random legal move instead.
    """
    rules = pos.rules
    players = rules.players
    side_of = [rules.side_of(s) for s in range(players)]
    target = rules.target_score
    hands = list(pos.hands)
    bone = pos.bone
    drawn = 0
    last = len(bone) - rules.reserve
    o = list(pos.open)
    w = list(pos.weight)
    sp = pos.spinner
    s0, s1 = pos.sides
    scores = list(pos.scores)
    seat = pos.turn
    passes = pos.passes
    rand = rng.random
    while True:
        hands[seat] &= ~(1 << tile)
        sp, s0, s1, total = place(o, w, sp, s0, s1, tile, end)
        if total % 5 == 0 and total:
            side = side_of[seat]
            scores[side] += total
            if scores[side] >= target:
                return scores, True
        if not hands[seat]:
            pips = [pips_of(x) for x in hands]
            return _end_hand(rules, scores, domino_points(rules, seat, pips), target)
        passes = 0
        playable = SUITX[o[0]] | SUITX[o[1]] | SUITX[o[2]] | SUITX[o[3]]
        # The next seats: draw, pass, or choose a move.
        while True:
            seat = seat + 1 if seat + 1 < players else 0
            hand = hands[seat]
            forced = -1
            if not hand & playable:
                while drawn < last:
                    t = bone[drawn]
                    drawn += 1
                    hand |= 1 << t
                    if playable >> t & 1:
                        forced = t
                        break
                hands[seat] = hand
                if forced < 0:
                    passes += 1
                    if passes >= players:
                        pips = [pips_of(x) for x in hands]
                        return _end_hand(rules, scores, blocked_points(rules, pips), target)
                    continue
            break
        # Choose a move: from the forced tile, or from the whole hand.
        candidates = (1 << forced) if forced >= 0 else hand
        best_key = -1
        count = 0
        tile = end = -1
        pick = rand() < noise
        for e in range(4):
            n = o[e]
            if n < 0:
                continue
            fits = candidates & SUIT[n]
            if not fits:
                continue
            if pick:
                while fits:
                    low_bit = fits & -fits
                    fits ^= low_bit
                    # Reservoir sampling: a uniformly random legal move.
                    count += 1
                    if rand() * count < 1:
                        tile, end = low_bit.bit_length() - 1, e
                continue
            # `engine.kernel.greedy_plays`, inlined: this loop runs for every move of every playout.
            rest = others(w, sp, s0, s1, e)
            adds = ADDS[n]
            while fits:
                low_bit = fits & -fits
                fits ^= low_bit
                t = low_bit.bit_length() - 1
                tot = rest + adds[t]
                key = POINTS[tot] * 64 + PIPS[t]
                if key > best_key:
                    best_key, tile, end = key, t, e


def _end_hand(
    rules: Rules, scores: list[int], points: Sequence[int], target: int
) -> tuple[list[int], bool]:
    for side, p in enumerate(points):
        scores[side] += p
    return scores, any(s >= target for s in scores)
