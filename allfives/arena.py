"""`allfives arena`: bots play each other on duplicate deals, over every core, and we count.

Each deal (one seed) is played once per seating: with two entries, again with their seats swapped
(in partnerships, team A takes seats 1 and 3 instead of 0 and 2); with three, in each rotation.
For each entry it prints match wins with a 95% Wilson interval (a shared win counts half), the
mean points per hand its side scored, and its decision times (moves with a real choice only).
"""

from __future__ import annotations

import argparse
import math
import os
import sys
import time
from collections.abc import Iterator, Sequence
from dataclasses import dataclass, field
from typing import Any

LEVEL_NAMES = ("easy", "normal", "hard")


def add_arguments(parser: argparse.ArgumentParser) -> None:
    """The arena's command-line options."""
    parser.add_argument(
        "--players", type=int, choices=(2, 3, 4), default=2, help="players at the table (default 2)"
    )
    parser.add_argument(
        "--bots",
        default="hard,normal",
        help="levels, comma-separated: one per seat, or with --teams one per team (A, then B); "
        "default hard,normal",
    )
    parser.add_argument(
        "--teams", action="store_true", help="4 players in two partnerships (default: no teams)"
    )
    parser.add_argument(
        "--matches", type=int, default=100, help="matches to play in all (default 100)"
    )
    parser.add_argument("--seed", type=int, default=1, help="the first deal's seed (default 1)")
    parser.add_argument(
        "--hand-size",
        choices=("standard", "five", "seven-five"),
        help="tiles dealt: standard (9/7/5 for 2/3/4 players), five, seven-five (default standard)",
    )
    parser.add_argument("--target", type=int, help="points to win (default 250, or 200 for 3-4)")
    parser.add_argument(
        "--end-scoring",
        choices=("opponents", "penalty"),
        help="who scores the pips left when a hand ends (default opponents)",
    )
    parser.add_argument(
        "--reserve",
        type=int,
        choices=range(0, 8),
        metavar="0-7",
        help="boneyard tiles never drawn (default 0)",
    )
    parser.add_argument(
        "--budget-ms",
        type=float,
        default=200.0,
        help="the hard bot's time per decision (default 200)",
    )
    parser.add_argument("--workers", type=int, default=0, help="processes (default: every core)")


class ArenaError(ValueError):
    """Options that do not describe a game the arena can play."""


@dataclass(frozen=True)
class Plan:
    """What to play: the rules, the entries (one per side of the table), and the seatings."""

    rules: dict[str, Any]
    entries: tuple[str, ...]
    names: tuple[str, ...]
    deals: int
    seed: int
    budget_ms: float

    @property
    def seatings(self) -> int:
        """How many times each deal is played (once per rotation of the entries)."""
        return len(self.entries)

    def seats_of(self, entry: int, rotation: int) -> list[int]:
        """The seats an entry holds in a rotation."""
        position = (entry + rotation) % len(self.entries)
        players = int(self.rules["players"])
        return [s for s in range(players) if s % len(self.entries) == position]


@dataclass
class Tally:
    """One entry's results so far."""

    matches: int = 0
    wins: float = 0.0
    hands: int = 0
    points: int = 0
    times_ms: list[float] = field(default_factory=list)


def plan_from(args: argparse.Namespace) -> Plan:
    """Check the options and turn them into a plan; raises ArenaError with what is wrong."""
    from engine import Rules, RulesError

    levels = tuple(b.strip() for b in args.bots.split(",") if b.strip())
    for level in levels:
        if level not in LEVEL_NAMES:
            raise ArenaError(f"unknown bot level {level!r} (choose from {', '.join(LEVEL_NAMES)})")
    rules: dict[str, Any] = {"players": args.players, "teams": bool(args.teams)}
    for key in ("hand_size", "target", "end_scoring", "reserve"):
        if getattr(args, key) is not None:
            rules[key] = getattr(args, key)
    try:
        Rules(**rules)
    except RulesError as error:
        raise ArenaError(str(error)) from error
    if args.teams and args.players != 4:
        raise ArenaError("--teams needs --players 4")
    wanted = 2 if args.teams else args.players
    if len(levels) != wanted:
        what = "one per team" if args.teams else "one per seat"
        raise ArenaError(f"--bots needs {wanted} levels ({what}), got {len(levels)}")
    if args.matches < 1:
        raise ArenaError("--matches must be at least 1")
    if args.budget_ms <= 0:
        raise ArenaError("--budget-ms must be positive")
    names = tuple(
        level if levels.count(level) == 1 else f"{level}#{levels[: i + 1].count(level)}"
        for i, level in enumerate(levels)
    )
    return Plan(
        rules=rules,
        entries=levels,
        names=names,
        deals=math.ceil(args.matches / len(levels)),
        seed=args.seed,
        budget_ms=args.budget_ms,
    )


def play_match(plan: Plan, deal: int, rotation: int) -> list[Tally]:
    """Play one deal in one seating; returns each entry's tally for that match."""
    from engine import Match, Rules
    from engine.bots import make_bot

    rules = Rules(**plan.rules)
    deal_seed = plan.seed * 1_000_003 + deal
    match = Match.new(rules, seed=deal_seed)
    owner = [0] * rules.players
    for entry in range(len(plan.entries)):
        for seat in plan.seats_of(entry, rotation):
            owner[seat] = entry
    bots = [
        make_bot(plan.entries[owner[s]], seed=deal_seed * 8 + s, budget_ms=plan.budget_ms)
        for s in range(rules.players)
    ]
    tallies = [Tally(matches=1) for _ in plan.entries]
    while not match.over:
        seat = match.turn
        view = match.view_for(seat)
        began = time.perf_counter()
        move = bots[seat].choose(view)
        elapsed = (time.perf_counter() - began) * 1000.0
        if len(view.legal) > 1:
            tallies[owner[seat]].times_ms.append(elapsed)
        match.apply(seat, move)
    winners = match.winner if isinstance(match.winner, tuple) else (match.winner,)
    for entry, tally in enumerate(tallies):
        sides = {rules.side_of(s) for s in plan.seats_of(entry, rotation)}
        tally.hands = match.hand_number
        tally.points = sum(match.scores[side] for side in sides)
        won = [w for w in winners if w in sides]
        tally.wins = len(won) / len(winners)
    return tallies


def _play_task(task: tuple[Plan, int, int]) -> list[Tally]:
    return play_match(*task)


def run_plan(plan: Plan, workers: int, progress: bool = True) -> list[Tally]:
    """Play every deal in every seating over `workers` processes; returns the totals per entry."""
    from rich.console import Console
    from rich.progress import Progress

    tasks = [(plan, d, r) for d in range(plan.deals) for r in range(plan.seatings)]
    totals = [Tally() for _ in plan.entries]
    console = Console(stderr=True)
    with Progress(console=console, transient=False, disable=not progress) as bar:
        job = bar.add_task("arena", total=len(tasks))
        for result in _results(tasks, workers):
            for total, one in zip(totals, result, strict=True):
                total.matches += one.matches
                total.wins += one.wins
                total.hands += one.hands
                total.points += one.points
                total.times_ms.extend(one.times_ms)
            bar.advance(job)
    return totals


def _results(tasks: list[tuple[Plan, int, int]], workers: int) -> Iterator[list[Tally]]:
    if workers <= 1:
        for task in tasks:
            yield _play_task(task)
        return
    from concurrent.futures import ProcessPoolExecutor, as_completed

    with ProcessPoolExecutor(max_workers=workers) as pool:
        futures = [pool.submit(_play_task, task) for task in tasks]
        try:
            for future in as_completed(futures):
                yield future.result()
        except BaseException:
            pool.shutdown(cancel_futures=True)
            raise


def wilson(successes: float, n: int, z: float = 1.96) -> tuple[float, float]:
    """The 95% Wilson score interval of a proportion."""
    if n == 0:
        return 0.0, 1.0
    p = successes / n
    denominator = 1 + z * z / n
    centre = (p + z * z / (2 * n)) / denominator
    half = z * math.sqrt(p * (1 - p) / n + z * z / (4 * n * n)) / denominator
    return max(0.0, centre - half), min(1.0, centre + half)


def percentile(values: Sequence[float], q: float) -> float:
    """The q-th percentile (nearest rank) of some values; 0 for none."""
    if not values:
        return 0.0
    ordered = sorted(values)
    rank = max(1, math.ceil(q / 100 * len(ordered)))
    return ordered[rank - 1]


def report(plan: Plan, totals: list[Tally], seconds: float) -> list[str]:
    """The arena's figures as `name: value` lines."""
    matches = totals[0].matches
    lines = [f"matches: {matches}", f"deals: {plan.deals}", f"seconds: {seconds:.1f}"]
    for name, tally in zip(plan.names, totals, strict=True):
        low, high = wilson(tally.wins, tally.matches)
        rate = tally.wins / tally.matches if tally.matches else 0.0
        per_hand = tally.points / tally.hands if tally.hands else 0.0
        lines += [
            f"{name} match wins: {rate:.2f} [{low:.2f}, {high:.2f}]",
            f"{name} points/hand: {per_hand:.1f}",
            f"{name} decision p50 ms: {_ms(percentile(tally.times_ms, 50))}",
            f"{name} decision p99 ms: {_ms(percentile(tally.times_ms, 99))}",
        ]
    return lines


def _ms(value: float) -> str:
    return f"{value:.1f}" if value >= 1 else f"{value:.3f}"


def run(args: argparse.Namespace) -> int:
    """Run the arena from parsed options; prints the figures, returns the exit status."""
    try:
        plan = plan_from(args)
    except ArenaError as error:
        print(f"allfives arena: error: {error}", file=sys.stderr)
        return 2
    workers = args.workers or os.cpu_count() or 1
    began = time.perf_counter()
    totals = run_plan(plan, workers)
    for line in report(plan, totals, time.perf_counter() - began):
        print(line)
    return 0
