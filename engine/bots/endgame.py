"""Exact search of the rest of a hand once nobody can draw: alpha-beta over one sampled deal.

With the boneyard spent (or down to the reserve) a sampled deal leaves no chance in the hand, so
for two sides (two players, or two partnerships) the rest is a game of perfect information: one
side maximises the outcome's value, the other minimises it.
"""

from __future__ import annotations

import math
import time
from collections.abc import Callable

from engine.bots.sim import Position
from engine.kernel import SUITX, greedy_plays, place
from engine.scoring import blocked_points, domino_points
from engine.tiles import pips_of

Value = Callable[[list[int], bool], float]


class TooDeep(Exception):
    """The search would visit more positions than it is allowed."""


class Endgame:
    """Solves the rest of a hand exactly for one side, within `limit` positions and a `deadline`."""

    def __init__(
        self, pos: Position, value: Value, my_side: int, limit: int, deadline: float = math.inf
    ) -> None:
        rules = pos.rules
        self.rules = rules
        self.players = rules.players
        self.side_of = [rules.side_of(s) for s in range(rules.players)]
        self.target = rules.target_score
        self.pos = pos
        self.value = value
        self.my_side = my_side
        self.limit = limit
        self.deadline = deadline
        self.nodes = 0

    def value_of(self, tile: int, end: int) -> float:
        """The exact value of playing `tile` at `end` for the seat to play, then best play."""
        p = self.pos
        s0, s1 = p.sides
        return self._play(
            list(p.hands),
            p.open,
            p.weight,
            p.spinner,
            s0,
            s1,
            list(p.scores),
            p.turn,
            tile,
            end,
            -1e18,
            1e18,
        )

    def _play(
        self,
        hands: list[int],
        o_in: list[int],
        w_in: list[int],
        sp: int,
        s0: bool,
        s1: bool,
        scores: list[int],
        seat: int,
        tile: int,
        end: int,
        alpha: float,
        beta: float,
    ) -> float:
        self.nodes += 1
        if self.nodes & 1023 == 0 and (
            self.nodes > self.limit or time.perf_counter() > self.deadline
        ):
            raise TooDeep
        o = list(o_in)
        w = list(w_in)
        hands[seat] &= ~(1 << tile)
        sp, s0, s1, total = place(o, w, sp, s0, s1, tile, end)
        if total % 5 == 0 and total:
            scores = list(scores)
            scores[self.side_of[seat]] += total
            if scores[self.side_of[seat]] >= self.target:
                return self.value(scores, True)
        if not hands[seat]:
            pips = [pips_of(x) for x in hands]
            return self._ended(scores, domino_points(self.rules, seat, pips))
        playable = SUITX[o[0]] | SUITX[o[1]] | SUITX[o[2]] | SUITX[o[3]]
        passes = 0
        while True:
            seat = seat + 1 if seat + 1 < self.players else 0
            if hands[seat] & playable:
                break
            passes += 1
            if passes >= self.players:
                pips = [pips_of(x) for x in hands]
                return self._ended(scores, blocked_points(self.rules, pips))
        moves = _ordered_moves(hands[seat], o, w, sp, s0, s1)
        maximising = self.side_of[seat] == self.my_side
        best = -1e18 if maximising else 1e18
        for t, e in moves:
            v = self._play(list(hands), o, w, sp, s0, s1, scores, seat, t, e, alpha, beta)
            if maximising:
                if v > best:
                    best = v
                    if v > alpha:
                        alpha = v
            else:
                if v < best:
                    best = v
                    if v < beta:
                        beta = v
            if alpha >= beta:
                break
        return best

    def _ended(self, scores: list[int], points: tuple[int, ...]) -> float:
        final = [s + p for s, p in zip(scores, points, strict=True)]
        return self.value(final, any(s >= self.target for s in final))


def _ordered_moves(
    hand: int, o: list[int], w: list[int], sp: int, s0: bool, s1: bool
) -> list[tuple[int, int]]:
    """The legal plays of a hand, the greedy ones first (it makes alpha-beta cut sooner)."""
    keyed = greedy_plays(hand, o, w, sp, s0, s1)
    keyed.sort(reverse=True)
    return [(t, e) for _, t, e in keyed]
