"""The hard bot: determinized Monte Carlo search over deals that agree with what it has seen.

For each decision it samples the unseen tiles into the other hands and the boneyard, consistent
with the counts and the voids it inferred (`infer.Knowledge`), plays every candidate move out to
the end of the hand on each sample (`sim.playout`, a noisy greedy policy for every seat), and
keeps the move with the best average outcome for its side. Outcomes are valued by the match, not
the hand: the points its side gains less the opponents', with a large premium for reaching the
target first. Playouts settle what heuristics would guess: leaving a total an opponent can
count, keeping or spending doubles, shedding heavy tiles before the count, and (since the score is
the team's) helping the partner.
"""

from __future__ import annotations

import math
import random
import time
from collections.abc import Callable

from engine.bots.endgame import Endgame, TooDeep
from engine.bots.infer import Knowledge
from engine.bots.sim import LEAD, Position, playout
from engine.bots.simple import decision_rng, greedy_moves
from engine.moves import Move
from engine.rules import Rules
from engine.view import View

#: What reaching the target first is worth, in points.
WIN_VALUE = 150.0
#: The z-score at which a move is dropped as clearly worse than the best.
DROP_Z = 3.0
#: Exact search once nobody can draw and at most this many tiles are left in the hands.
EXACT_TILES = 14
#: The most positions one exact search may visit before the bot falls back to playouts.
EXACT_NODES = 4000


class HardBot:
    """Searches sampled deals within a time budget per decision; plays to win the match."""

    level = "hard"

    def __init__(
        self,
        seed: int = 0,
        budget_ms: float | None = 200.0,
        max_samples: int = 1000,
        min_samples: int = 24,
        noise: float = 0.1,
        exact: bool = True,
    ) -> None:
        self.seed = seed
        self.budget_ms = budget_ms
        self.max_samples = max_samples
        self.min_samples = min_samples
        self.noise = noise
        self.exact = exact
        #: How many deals the last decision searched.
        self.last_samples = 0

    def choose(self, view: View) -> Move:
        """The move with the best average outcome over sampled deals (a lone legal move at once)."""
        legal = view.legal
        if not legal:
            raise ValueError(f"seat {view.seat} has no move to make: it is not its turn")
        if len(legal) == 1:
            return legal[0]
        start = time.perf_counter()
        deadline = math.inf if self.budget_ms is None else start + self.budget_ms / 1000.0
        rng = decision_rng(self.seed, view)
        knowledge = Knowledge.of_view(view)
        value = outcome_value(view)
        assert view.seat is not None and view.hand is not None and view.turn is not None
        me = view.seat
        own = 0
        for t in view.hand:
            own |= 1 << t
        moves = [(int(m.tile), LEAD if m.end is None else int(m.end)) for m in legal]  # type: ignore[arg-type]
        results: list[list[float]] = [[] for _ in legal]
        active = list(range(len(legal)))
        samples = 0
        slowest = 0.0
        exact = (
            self.exact
            and view.drawable == 0
            and view.rules.sides == 2
            and sum(view.hand_counts) <= EXACT_TILES
        )
        my_side = view.rules.side_of(me)
        while samples < self.max_samples and len(active) > 1:
            began = time.perf_counter()
            if began + slowest > deadline:
                break
            hands, boneyard = knowledge.sample(rng)
            hands[me] = own
            pos = Position(view.rules, hands, boneyard, view.layout, view.turn, 0, view.scores)
            playout_seed = rng.getrandbits(32)
            if exact:
                try:
                    solver = Endgame(pos, value, my_side, EXACT_NODES)
                    values = [solver.value_of(*moves[k]) for k in active]
                except TooDeep:
                    exact = False
            if not exact:
                values = []
                for k in active:
                    tile, end = moves[k]
                    scores, over = playout(pos, tile, end, random.Random(playout_seed), self.noise)
                    values.append(value(scores, over))
            for k, v in zip(active, values, strict=True):
                results[k].append(v)
            samples += 1
            slowest = max(slowest, time.perf_counter() - began)
            if samples >= self.min_samples and samples % 8 == 0:
                active = _still_in_contention(results, active)
        self.last_samples = samples
        return _best(view, legal, results, active)


def outcome_value(view: View) -> Callable[[list[int], bool], float]:
    """How good final scores are for the viewing seat's side: points gained against the others."""
    rules: Rules = view.rules
    assert view.seat is not None
    mine = rules.side_of(view.seat)
    before = list(view.scores)
    target = rules.winning_score
    others = [s for s in range(rules.sides) if s != mine]

    def value(scores: list[int], over: bool) -> float:
        gain = scores[mine] - before[mine]
        rival = sum(scores[s] - before[s] for s in others) / len(others)
        v = gain - rival
        if over:
            best = max(scores)
            if scores[mine] == best and scores[mine] >= target:
                v += WIN_VALUE
            else:
                v -= WIN_VALUE
        return v

    return value


def _still_in_contention(results: list[list[float]], active: list[int]) -> list[int]:
    """The moves not clearly worse than the best so far (paired comparison on the same deals)."""
    means = {k: sum(results[k]) / len(results[k]) for k in active}
    best = max(active, key=lambda k: means[k])
    keep = [best]
    for k in active:
        if k == best:
            continue
        diffs = [a - b for a, b in zip(results[best], results[k], strict=True)]
        n = len(diffs)
        mean = sum(diffs) / n
        var = sum((d - mean) ** 2 for d in diffs) / (n - 1)
        if (var == 0.0 and mean == 0.0) or mean <= DROP_Z * math.sqrt(var / n):
            keep.append(k)
    return sorted(keep)


def _best(view: View, legal: list[Move], results: list[list[float]], active: list[int]) -> Move:
    """The active move with the best mean; ties go to the greedy choice."""
    greedy = set(greedy_moves(view))
    return legal[
        max(
            active,
            key=lambda k: (sum(results[k]) / max(1, len(results[k])), legal[k] in greedy, -k),
        )
    ]
