"""The hard bot: determinized Monte Carlo search over deals that agree with what it has seen.

For each decision it samples the unseen tiles into the other hands and the boneyard, consistent
with the counts and the voids it inferred (`infer.Knowledge`), favouring deals that explain the
plays it has seen (`tells.Tells`: a player who passed up points probably could not score). On
each deal it plays every candidate move out to the end of the hand (`sim.playout`, a noisy
greedy policy for every seat) and keeps the move with the best average outcome for its side.
Outcomes are valued by the match, not the hand: the points its side gains less the opponents',
with a large premium for reaching the target first. Playouts settle what heuristics would guess:
leaving a total an opponent can count, keeping or spending doubles, shedding heavy tiles before
the count, and (since the score is the team's) helping the partner. Once nothing is hidden (two
players, the boneyard empty) it solves the rest of the hand exactly (`endgame.Endgame`). Moves
that fall clearly behind are dropped early, so easy decisions take less than the budget.
"""

from __future__ import annotations

import math
import random
import time

from engine.bots.endgame import Endgame, TooDeep, Value
from engine.bots.infer import Knowledge
from engine.bots.sim import Position, playout
from engine.bots.simple import decision_rng, greedy_moves
from engine.bots.tells import Tells
from engine.kernel import LEAD
from engine.moves import Move
from engine.rules import Rules
from engine.view import View

#: What reaching the target first is worth, in points.
WIN_VALUE = 150.0
#: The z-score at which a move is dropped as clearly worse than the best.
DROP_Z = 3.0
#: Points by which a move may trail the best and still be dropped as no better (ties end early).
INDIFFERENT = 0.25
#: The share of the budget spent searching; the rest is headroom for the slowest decisions.
BUDGET_SHARE = 0.85
#: Deals drawn for each one searched, the likeliest kept more often (1: no reading of plays).
TELL_DRAWS = 4
#: The most positions the exact endgame search may visit before the bot falls back to playouts.
EXACT_NODES = 200_000


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
        exact_nodes: int = EXACT_NODES,
        tell_draws: int = TELL_DRAWS,
    ) -> None:
        self.seed = seed
        self.budget_ms = budget_ms
        self.max_samples = max_samples
        self.min_samples = min_samples
        self.noise = noise
        self.exact = exact
        self.exact_nodes = exact_nodes
        self.tell_draws = tell_draws
        #: How many deals the last decision searched.
        self.last_samples = 0

    def choose(self, view: View) -> Move:
        """The move with the best average outcome over sampled deals (a lone legal move at once)."""
        return self.evaluate(view).best

    def evaluate(self, view: View, split: bool = False) -> Evaluation:
        """Every legal move's expected value for the seat's side, from the bot's search.

        A lone legal move is returned at once, unsearched (value 0). With `budget_ms` None the
        search stops only at `max_samples` deals (or when one move is left in contention), so
        the same seed and view give the same values on any machine. With `split` the verdict
        also carries each move's game points alone (`Evaluation.points`: the values without
        the match term), on the same deals; the search and its choice are unchanged.
        """
        legal = view.legal
        if not legal:
            raise ValueError(f"seat {view.seat} has no move to make: it is not its turn")
        if len(legal) == 1:
            self.last_samples = 0
            return Evaluation(view, legal, [[0.0]], [0], False, 0, [[0.0]] if split else None)
        start = time.perf_counter()
        share = math.inf if self.budget_ms is None else BUDGET_SHARE * self.budget_ms / 1000.0
        deadline = start + share
        deals = Deals(view, decision_rng(self.seed, view), self.tell_draws)
        value = outcome_value(view)
        points = outcome_points(view) if split else None
        moves = [(int(m.tile), LEAD if m.end is None else int(m.end)) for m in legal]  # type: ignore[arg-type]
        if self.exact and nothing_hidden(view):
            solved = self._solve(deals, moves, value, points, start + share / 2)
            if solved is not None:
                self.last_samples = 1
                every = list(range(len(legal)))
                values = [[v] for v, _ in solved]
                kept = [[p] for _, p in solved] if split else None
                return Evaluation(view, legal, values, every, True, 1, kept)
        results, active, kept = self._sample(deals, moves, value, points, deadline)
        return Evaluation(view, legal, results, active, False, self.last_samples, kept)

    def _solve(
        self,
        deals: Deals,
        moves: list[tuple[int, int]],
        value: Value,
        points: Value | None,
        deadline: float,
    ) -> list[tuple[float, float]] | None:
        """Each move's exact value, and with `points` the game points of the line that value
        comes from, when nothing is hidden (None if the search runs too long)."""
        judged = value if points is None else _lexicographic(value, points)
        solver = Endgame(deals.next(), judged, deals.my_side, self.exact_nodes, deadline)
        try:
            solved = [solver.value_of(tile, end) for tile, end in moves]
        except TooDeep:
            return None
        if points is None:
            return [(v, 0.0) for v in solved]
        return [_unpack(v) for v in solved]

    def _sample(
        self,
        deals: Deals,
        moves: list[tuple[int, int]],
        value: Value,
        points: Value | None,
        deadline: float,
    ) -> tuple[list[list[float]], list[int], list[list[float]] | None]:
        """Play each move out on sampled deals, dropping moves that fall clearly behind.

        Every move is played out with the same random choices on a deal (common random numbers),
        so moves are compared pairwise on equal terms. Returns the values, the moves left, and
        with `points` each playout's game points.
        """
        results: list[list[float]] = [[] for _ in moves]
        kept: list[list[float]] | None = None if points is None else [[] for _ in moves]
        active = list(range(len(moves)))
        samples = 0
        slowest = 0.0
        while samples < self.max_samples and len(active) > 1:
            began = time.perf_counter()
            if began + slowest > deadline:
                break
            pos = deals.next()
            playout_seed = deals.rng.getrandbits(32)
            for k in active:
                tile, end = moves[k]
                scores, over = playout(pos, tile, end, random.Random(playout_seed), self.noise)
                results[k].append(value(scores, over))
                if kept is not None and points is not None:
                    kept[k].append(points(scores, over))
            samples += 1
            slowest = max(slowest, time.perf_counter() - began)
            if samples >= self.min_samples and samples % 8 == 0:
                active = _still_in_contention(results, active)
        self.last_samples = samples
        return results, active, kept


class Deals:
    """Random full positions that agree with a view: its own hand, and guesses for the rest.

    With `draws` > 1, each position is picked among that many deals in proportion to how well
    it explains the plays seen (`tells.Tells`): sampling-importance-resampling.
    """

    def __init__(self, view: View, rng: random.Random, draws: int = 1) -> None:
        assert view.seat is not None and view.hand is not None and view.turn is not None
        self.view = view
        self.rng = rng
        self.knowledge = Knowledge.of_view(view)
        self.tells = Tells(view) if draws > 1 else None
        self.draws = draws
        self.my_side = view.rules.side_of(view.seat)
        self.own = 0
        for t in view.hand:
            self.own |= 1 << t

    def next(self) -> Position:
        """Another sampled position, the viewing seat to play."""
        view = self.view
        hands, boneyard = self._draw()
        hands[self.knowledge.seat] = self.own
        turn = view.turn if view.turn is not None else 0
        return Position(view.rules, hands, boneyard, view.layout, turn, 0, view.scores)

    def _draw(self) -> tuple[list[int], list[int]]:
        sample = self.knowledge.sample
        if not self.tells:
            return sample(self.rng)
        deals = [sample(self.rng) for _ in range(self.draws)]
        weights = [self.tells.likelihood(hands) for hands, _ in deals]
        pick = self.rng.random() * sum(weights)
        for deal, weight in zip(deals, weights, strict=True):
            pick -= weight
            if pick <= 0:
                return deal
        return deals[-1]


def nothing_hidden(view: View) -> bool:
    """Whether the view shows every tile: two players and an empty boneyard (the rest is the other's)."""
    return view.rules.players == 2 and view.boneyard_size == 0


def outcome_points(view: View) -> Value:
    """The game points of final scores for the viewing seat's side: the points it gained less
    the others' (their mean), without the match term `outcome_value` adds."""
    rules: Rules = view.rules
    assert view.seat is not None
    mine = rules.side_of(view.seat)
    before = list(view.scores)
    others = [s for s in range(rules.sides) if s != mine]

    def points(scores: list[int], over: bool) -> float:
        rival = sum(scores[s] - before[s] for s in others) / len(others)
        return scores[mine] - before[mine] - rival

    return points


#: Packing a value with game points for the exact search: points shifted into [0, PACK).
PACK = 4096.0


def _lexicographic(value: Value, points: Value) -> Value:
    """A value that orders lines by `value`, then by game points, as one exact number.

    Only for the exact search, which runs with two players: there every value and every
    game-points figure is a whole number far below `PACK / 2` (a hand holds 168 pips), so
    `value * PACK + points + PACK / 2` keeps both exactly and `_unpack` gives them back.
    """

    def packed(scores: list[int], over: bool) -> float:
        return value(scores, over) * PACK + points(scores, over) + PACK / 2

    return packed


def _unpack(packed: float) -> tuple[float, float]:
    """The value and the game points `_lexicographic` packed."""
    low = packed % PACK
    return (packed - low) / PACK, low - PACK / 2


def outcome_value(view: View) -> Value:
    """How good final scores are for the viewing seat's side: points gained against the others."""
    rules: Rules = view.rules
    assert view.seat is not None
    mine = rules.side_of(view.seat)
    before = list(view.scores)
    target = rules.target_score
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
    """The moves that may still be better than the best so far (paired, on the same deals).

    A move is dropped once it is worse with confidence, or no better than the best by more
    than `INDIFFERENT` points with confidence (so moves that always come out equal end early).
    """
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


class Evaluation:
    """The search's verdict on a decision: each legal move's mean value over the deals it was
    played out on, and which moves were still in contention when the search stopped.

    Values are points for the seat's side less the others' to the end of the hand, with
    `WIN_VALUE` for reaching the target first (the match value near the target). A move dropped
    early as clearly worse keeps the mean of the deals it was played on.
    """

    def __init__(
        self,
        view: View,
        legal: list[Move],
        results: list[list[float]],
        active: list[int],
        exact: bool,
        deals: int,
        points: list[list[float]] | None = None,
    ) -> None:
        self.moves = list(legal)
        self.values = [sum(r) / len(r) if r else -math.inf for r in results]
        #: Each move's mean game points alone (the values without the match term) on the same
        #: deals, when the search was asked to split them (`HardBot.evaluate`), else None.
        self.points = None if points is None else [sum(p) / len(p) if p else 0.0 for p in points]
        #: Deals each move was played out on.
        self.counts = [len(r) for r in results]
        #: Indices of the moves still in contention (`best` is one of them).
        self.contenders = list(active)
        #: Whether the values are exact (nothing hidden: the rest of the hand was solved).
        self.exact = exact
        #: How many deals were searched.
        self.deals = deals
        self.best = _best(view, legal, results, active)

    def value_of(self, move: Move) -> float:
        """The mean value of a legal move."""
        return self.values[self.moves.index(move)]

    def as_dict(self) -> dict[Move, float]:
        """Every legal move's mean value."""
        return dict(zip(self.moves, self.values, strict=True))

    def points_dict(self) -> dict[Move, float]:
        """Every legal move's mean game points (the search must have split them)."""
        assert self.points is not None, "evaluate(view, split=True) gives the game points"
        return dict(zip(self.moves, self.points, strict=True))


def evaluate(
    view: View, budget_ms: float | None = 200.0, seed: int = 0, max_samples: int = 1000
) -> Evaluation:
    """The hard bot's search on a view: every legal move's value (see `HardBot.evaluate`)."""
    return HardBot(seed, budget_ms=budget_ms, max_samples=max_samples).evaluate(view)


def _best(view: View, legal: list[Move], results: list[list[float]], active: list[int]) -> Move:
    """The active move with the best mean; ties go to the greedy choice."""
    greedy = set(greedy_moves(view))
    return legal[
        max(
            active,
            key=lambda k: (sum(results[k]) / max(1, len(results[k])), legal[k] in greedy, -k),
        )
    ]
