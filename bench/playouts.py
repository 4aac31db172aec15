"""Random-playout speed of the engine: plays random matches on one core and prints moves per second.

Usage: uv run python bench/playouts.py [--seconds 5] [--players 2,3,4]
The last line is `moves/s: N` (target: at least 100,000 on one core of the CI machine).
"""

from __future__ import annotations

import argparse
import random
import sys
import time
from pathlib import Path

# Run as a script, this file's folder comes first on sys.path and its name would hide the package.
if sys.path and Path(sys.path[0]).resolve() == Path(__file__).resolve().parent:
    sys.path.pop(0)

from engine import Match, Rules


def playout_speed(
    seconds: float, players: list[int], seed: int = 1
) -> tuple[int, int, float, float]:
    """Play random matches for about `seconds`; returns (moves, matches, wall seconds, CPU seconds).

    CPU time is what this one process used of one core, so the figure holds on a busy machine too.
    """
    rng = random.Random(seed)
    pick = rng.random
    moves = matches = 0
    start = time.perf_counter()
    cpu_start = time.process_time()
    deadline = start + seconds
    while time.perf_counter() < deadline:
        match = Match.new(Rules(players=players[matches % len(players)]), seed=rng.getrandbits(32))
        while not match.over:
            legal = match.legal_moves()
            match.apply(match.turn, legal[int(pick() * len(legal))])
            moves += 1
        matches += 1
    return moves, matches, time.perf_counter() - start, time.process_time() - cpu_start


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--seconds", type=float, default=5.0)
    parser.add_argument("--players", default="2,3,4")
    args = parser.parse_args()
    players = [int(p) for p in args.players.split(",")]
    moves, matches, wall, cpu = playout_speed(args.seconds, players)
    print(f"matches: {matches}")
    print(f"moves: {moves}")
    print(f"wall seconds: {wall:.2f}")
    print(f"cpu seconds: {cpu:.2f}")
    print(f"moves/s (wall): {moves / wall:.0f}")
    print(f"moves/s: {moves / cpu:.0f}")


if __name__ == "__main__":
    main()
