"""Bot speed on one core: playouts per second and the hard bot's decision time (p50, p99).

Positions come from normal-vs-normal matches (2 players, then 4 in partnerships); the hard bot
decides each one with its default budget. Prints `name: value` lines.

    uv run python bench/bots.py [--decisions 300] [--budget-ms 200]
"""

from __future__ import annotations

import argparse
import random
import time

from engine import Match, Rules, View
from engine.bots import HardBot, NormalBot
from engine.bots.sim import Position, playout


def positions(rules: Rules, count: int, seed: int) -> list[View]:
    """Views with a real choice, from greedy self-play."""
    views: list[View] = []
    game = seed
    while len(views) < count:
        match = Match.new(rules, seed=game)
        bots = [NormalBot(game * 8 + s) for s in range(rules.players)]
        while not match.over and len(views) < count:
            view = match.view_for(match.turn)
            if len(view.legal) > 1:
                views.append(view)
            match.apply(match.turn, bots[match.turn].choose(view))
        game += 1
    return views


def playouts_per_second(rules: Rules, seconds: float = 1.0) -> float:
    """Whole-hand playouts per second from the first position of a match."""
    match = Match.new(rules, seed=3)
    pos = Position.of_match(match)
    rng = random.Random(1)
    legal = match.legal_moves()
    done = 0
    began = time.perf_counter()
    while time.perf_counter() - began < seconds:
        move = legal[done % len(legal)]
        playout(pos, int(move.tile), -1, rng, 0.1)  # type: ignore[arg-type]
        done += 1
    return done / (time.perf_counter() - began)


def percentile(values: list[float], q: float) -> float:
    ordered = sorted(values)
    return ordered[max(0, int(-(-len(ordered) * q // 100)) - 1)]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--decisions", type=int, default=300)
    parser.add_argument("--budget-ms", type=float, default=200.0)
    args = parser.parse_args()
    for name, rules in (("2p", Rules(players=2)), ("4p teams", Rules(players=4))):
        print(f"playouts per second {name}: {playouts_per_second(rules):.0f}")
        times = []
        for i, view in enumerate(positions(rules, args.decisions // 2, seed=100)):
            bot = HardBot(seed=i, budget_ms=args.budget_ms)
            began = time.perf_counter()
            bot.choose(view)
            times.append((time.perf_counter() - began) * 1000.0)
        print(f"hard decision p50 ms {name}: {percentile(times, 50):.1f}")
        print(f"hard decision p99 ms {name}: {percentile(times, 99):.1f}")
        print(f"hard decision max ms {name}: {max(times):.1f}")


if __name__ == "__main__":
    main()
