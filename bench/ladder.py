"""The bot levels on the ladders: a simulated round robin rated by the server's rating code.

Matches are played by the engine alone (no server): on "2p" every pair of levels, on "3p" the
three levels at one table, on "teams" every pair of levels as two partnerships; seats rotate
from match to match. Each finished match is rated with `server.play.ratings.rate_match`, as the
server rates it, in the order the matches were dealt. Prints each level's rating (mu - 3 sigma),
mu and sigma per ladder, and whether the ladder orders easy < normal < hard; exits 1 if one does
not. Ends by itself (status 3) if it runs past `--stop-after` seconds.

    uv run python bench/ladder.py [--matches 40] [--budget-ms 20] [--workers 2] [--formats 2p,3p,teams]
"""

from __future__ import annotations

import argparse
import itertools
import sys
import time
from concurrent.futures import ProcessPoolExecutor
from pathlib import Path

# bench/ is first on sys.path when this file runs as a script; the project comes after it.
ROOT = Path(__file__).resolve().parent.parent
if str(ROOT) not in sys.path:
    sys.path.append(str(ROOT))

from measure import stop_after  # noqa: E402

from engine import Match, Rules  # noqa: E402
from engine.bots import make_bot  # noqa: E402
from server.play.ratings import RatedSeat, Standing, ladder_of, rate_match  # noqa: E402

LEVELS = ("easy", "normal", "hard")

#: One match to play: the ladder's rules, the level in each seat, a seed.
Job = tuple[int, bool, tuple[str, ...], int, float]


def jobs(matches: int, budget_ms: float, formats: set[str]) -> list[Job]:
    """Every match of the round robin, `matches` per pair of levels and format (the three-player
    table holds the three pairs at once: it plays 3 x `matches`), seats rotated."""
    found: list[Job] = []
    seed = 1
    for a, b in itertools.combinations(LEVELS, 2):
        for n in range(matches):
            if "2p" in formats:
                found.append((2, False, (a, b) if n % 2 else (b, a), seed, budget_ms))
            if "teams" in formats:
                seats = (a, b, a, b) if n % 2 else (b, a, b, a)
                found.append((4, True, seats, seed + 1, budget_ms))
            seed += 2
    orders = list(itertools.permutations(LEVELS))
    if "3p" in formats:
        for n in range(3 * matches):
            found.append((3, False, orders[n % len(orders)], seed, budget_ms))
            seed += 1
    return found


def play(job: Job) -> tuple[Job, list[int], int | tuple[int, ...] | None]:
    """Play one match to its end; its scores and winner."""
    players, teams, levels, seed, budget_ms = job
    match = Match.new(Rules(players=players, teams=teams), seed=seed)
    bots = [make_bot(level, seed * 8 + s, budget_ms) for s, level in enumerate(levels)]
    while not match.over:
        match.apply(match.turn, bots[match.turn].choose(match.view_for(match.turn)))
    return job, list(match.scores), match.winner


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--matches", type=int, default=40, help="matches per pair and format")
    parser.add_argument("--budget-ms", type=float, default=20.0, help="the hard bot budget")
    parser.add_argument("--workers", type=int, default=2)
    parser.add_argument("--formats", default="2p,3p,teams", help="ladders to play, comma-separated")
    parser.add_argument("--stop-after", type=float, default=900.0)
    args = parser.parse_args()
    stop_after(args.stop_after, "bench/ladder.py")
    began = time.perf_counter()
    ratings: dict[str, dict[str, Standing]] = {"2p": {}, "3p": {}, "teams": {}}
    formats = {part.strip() for part in args.formats.split(",")}
    todo = jobs(args.matches, args.budget_ms, formats)
    with ProcessPoolExecutor(args.workers) as pool:
        for job, scores, winner in pool.map(play, todo, chunksize=4):
            players, teams, levels, _, _ = job
            rules = Rules(players=players, teams=teams)
            ladder = ladder_of(rules)
            assert ladder is not None
            seats = [RatedSeat(f"bot:{level}") for level in levels]
            won = list(winner) if isinstance(winner, tuple) else winner
            changes = rate_match(rules, seats, scores, won, ratings[ladder])
            assert changes is not None
            for seat, (_, new) in changes.items():
                ratings[ladder][seats[seat].player or ""] = new
    seconds = time.perf_counter() - began
    print(f"matches: {len(todo)} ({args.matches} per pair of levels and format), {seconds:.0f} s")
    print(f"hard bot budget: {args.budget_ms:g} ms")
    ordered = True
    for shown, held in ratings.items():
        if shown not in formats:
            continue
        for level in LEVELS:
            standing = held.get(f"bot:{level}", Standing())
            print(
                f"{shown} bot:{level}: rating {standing.ordinal:.1f} "
                f"(mu {standing.mu:.2f}, sigma {standing.sigma:.2f}), "
                f"{standing.games} games, {standing.wins} wins"
            )
        figures = [held.get(f"bot:{level}", Standing()).ordinal for level in LEVELS]
        fits = figures == sorted(figures) and len(set(figures)) == len(figures)
        ordered = ordered and fits
        print(f"{shown} easy < normal < hard: {'yes' if fits else 'NO'}")
    return 0 if ordered else 1


if __name__ == "__main__":
    sys.exit(main())
