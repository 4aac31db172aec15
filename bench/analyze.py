"""Post-game analysis: its speed, and whether its verdicts rank the bots the way they play.

1. Time per decision at the analysis's default budget and at the server's review budget
   (`Config.bots.review_budget_ms`, what `GET /api/games/ID/review` costs its lane), and for a whole
   2-player match to 250 (hard against normal, every decision of both seats), over `--timed`
   matches.
2. On `--matches` 3-player matches of easy, normal and hard (the seats rotate from match to
   match), every decision analysed at `--rank-budget-ms`: the expected game points each level
   loses a move and per hand, and its accuracy (the mean of its moves'). The review should rank
   them easy > normal > hard by loss, and easy < normal < hard by accuracy.

The hard bot in these matches searches a fixed number of deals (`--bot-deals`), so a run is the
same on any machine except for its times. Prints `name: value` lines.

    uv run python bench/analyze.py [--matches 200] [--rank-budget-ms 20] [--timed 3] [--workers 1]
"""

from __future__ import annotations

import argparse
import statistics
import time
from concurrent.futures import ProcessPoolExecutor

from bridge.records import record_of
from bridge.reviews import review_record
from engine import Match, Rules
from engine.analysis import DEFAULT_BUDGET_MS
from engine.bots import HardBot, make_bot
from protocol.records import Record
from server.config import Config

LEVELS = ("easy", "normal", "hard")
SERVER_BUDGET_MS = Config().bots.review_budget_ms


def bot_match(rules: Rules, levels: list[str], seed: int, bot_deals: int) -> Record:
    """The record of one match between bots."""
    match = Match.new(rules, seed=seed)
    bots = [
        HardBot(seed * 8 + s, budget_ms=None, max_samples=bot_deals)
        if level == "hard"
        else make_bot(level, seed * 8 + s)
        for s, level in enumerate(levels)
    ]
    while not match.over:
        match.apply(match.turn, bots[match.turn].choose(match.view_for(match.turn)))
    return record_of(match, levels, computed=False)


def timed_match(seed: int, bot_deals: int, budget_ms: float) -> tuple[float, int]:
    """Seconds to review a whole 2-player match to 250, and how many decisions it held."""
    record = bot_match(Rules(players=2), ["hard", "normal"], seed, bot_deals)
    began = time.perf_counter()
    report = review_record(record, None, budget_ms, seed=1)
    return time.perf_counter() - began, len(report.moves)


def ranked_match(task: tuple[int, float, int]) -> dict[str, tuple[float, int, int, float]]:
    """Each level's expected game points lost, hands played, decisions and the sum of its
    moves' accuracies in one 3-player match."""
    seed, budget_ms, bot_deals = task
    shift = seed % 3
    levels = [LEVELS[(s + shift) % 3] for s in range(3)]
    record = bot_match(Rules(players=3), levels, seed, bot_deals)
    report = review_record(record, None, budget_ms, seed=1)
    accuracy = {
        p.seat: sum(m.accuracy or 0.0 for m in report.moves if m.seat == p.seat)
        for p in report.players
    }
    return {
        player.name: (player.lost, player.hands, player.decisions, accuracy[player.seat])
        for player in report.players
    }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--matches", type=int, default=200, help="3-player matches to rank")
    parser.add_argument("--rank-budget-ms", type=float, default=20.0)
    parser.add_argument("--timed", type=int, default=3, help="2-player matches timed")
    parser.add_argument("--bot-deals", type=int, default=200, help="deals the hard bot searches")
    parser.add_argument("--workers", type=int, default=1)
    parser.add_argument("--seed", type=int, default=1)
    args = parser.parse_args()

    # The analysis's own budget (`allfives analyze`, `/review` done by the client) and the
    # server's review lane's (`Config.bots.review_budget_ms`, `GET /api/games/ID/review`).
    for label, budget in (("analysis", DEFAULT_BUDGET_MS), ("server review", SERVER_BUDGET_MS)):
        seconds, decisions = 0.0, 0
        per_match = []
        for k in range(args.timed):
            took, count = timed_match(args.seed + k, args.bot_deals, budget)
            seconds += took
            decisions += count
            per_match.append(took)
        if per_match:
            print(f"{label} budget ms: {budget:g}")
            print(f"{label} ms per decision: {1000 * seconds / max(1, decisions):.1f}")
            print(f"decisions per 2-player match to 250: {decisions / len(per_match):.1f}")
            print(f"{label} s per 2-player match to 250: {statistics.mean(per_match):.1f}")

    tasks = [(args.seed + k, args.rank_budget_ms, args.bot_deals) for k in range(args.matches)]
    lost = dict.fromkeys(LEVELS, 0.0)
    hands = dict.fromkeys(LEVELS, 0)
    decided = dict.fromkeys(LEVELS, 0)
    accuracy = dict.fromkeys(LEVELS, 0.0)
    began = time.perf_counter()
    if args.workers > 1:
        with ProcessPoolExecutor(args.workers) as pool:
            results = list(pool.map(ranked_match, tasks))
    else:
        results = [ranked_match(task) for task in tasks]
    for result in results:
        for level, (points, count, decisions, kept) in result.items():
            lost[level] += points
            hands[level] += count
            decided[level] += decisions
            accuracy[level] += kept
    print(f"ranked matches: {args.matches} (3 players, rank budget ms {args.rank_budget_ms:g})")
    print(f"ranking s: {time.perf_counter() - began:.1f}")
    for level in LEVELS:
        print(f"{level} points lost per hand: {lost[level] / max(1, hands[level]):.2f}")
        print(f"{level} points lost a move: {lost[level] / max(1, decided[level]):.2f}")
        print(f"{level} accuracy: {accuracy[level] / max(1, decided[level]):.1f}")
    order = sorted(LEVELS, key=lambda level: -lost[level] / max(1, hands[level]))
    print(f"ranked by loss: {' > '.join(order)}")
    order = sorted(LEVELS, key=lambda level: accuracy[level] / max(1, decided[level]))
    print(f"ranked by accuracy: {' < '.join(order)}")


if __name__ == "__main__":
    main()
