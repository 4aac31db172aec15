"""`allfives analyze RECORD`: the hard bot reviews every decision of a match, seat by seat.

For each move of the chosen seats (all by default) that had a choice, the seat's view at that
moment is rebuilt from the record (only what it could see) and the hard bot's search weighs the
move played against the others (`engine.analysis`). It prints, per move, the move played, the
best move, the expected game points lost (the hard bot's match premium kept out) and a reason
in words where one applies; then per player its accuracy, the points lost a move, each hand's,
its moves graded and the three costliest moves (`??` marks a blunder: 10 points or more).
`--json` prints the same as one document. Exit status as `allfives replay`: 0 done, 1 a record
that is not legal, 2 a file that is not a record.

The review itself is `bridge.reviews.review_record` (the engine's `engine.review` on the
record's decisions, as the protocol's `protocol.review.Review`), the one the server's review lane
runs too; its words are the terminal client's (`clients.cli.review_words`).
"""

from __future__ import annotations

import argparse
import sys
from collections.abc import Sequence

import msgspec
from rich.text import Text

from allfives.replay import NOT_A_RECORD, load
from bridge.reviews import review_record
from clients.cli.review_words import review_text
from engine.analysis import DEFAULT_BUDGET_MS
from protocol.records import Record
from protocol.review import Review


def add_arguments(parser: argparse.ArgumentParser) -> None:
    """The analyze command's options."""
    parser.add_argument("file", help="the record to analyse (- for standard input)")
    parser.add_argument(
        "--seat",
        type=int,
        action="append",
        help="analyse this seat only, numbered from 1 as the report and the tables show them "
        "(may be given more than once; default every seat; --json keeps the record's seats, "
        "from 0)",
    )
    parser.add_argument("--json", action="store_true", help="print the analysis as JSON")
    parser.add_argument(
        "--budget-ms",
        type=float,
        default=DEFAULT_BUDGET_MS,
        help="search per decision, as the hard bot's budget (counted in deals: the same on "
        f"every machine; default {DEFAULT_BUDGET_MS:g})",
    )
    parser.add_argument("--seed", type=int, default=0, help="the search's seed")


def run(args: argparse.Namespace) -> int:
    """Analyse the record and print the report (text, or JSON with --json)."""
    if args.budget_ms <= 0:
        print("allfives analyze: --budget-ms must be positive", file=sys.stderr)
        return NOT_A_RECORD
    loaded = load(args.file, "analyze")
    if isinstance(loaded, int):
        return loaded
    record, _ = loaded
    players = record.rules.players
    for number in args.seat or ():
        if not 1 <= number <= players:
            print(
                f"allfives analyze: there is no seat {number} with {players} players "
                f"(1 to {players})",
                file=sys.stderr,
            )
            return NOT_A_RECORD
    # Seats as a player reads them, from 1 (the record's and the review's seat 0 is seat 1).
    seats = [number - 1 for number in args.seat] if args.seat else None
    report = _with_progress(record, seats, args.budget_ms, args.seed)
    if args.json:
        sys.stdout.buffer.write(msgspec.json.encode(report) + b"\n")
    else:
        from rich.console import Console

        Console(highlight=False, soft_wrap=True).print(*text_of(report, record), sep="\n")
    return 0


def _with_progress(
    record: Record, seats: Sequence[int] | None, budget_ms: float, seed: int
) -> Review:
    """The analysis, with a progress bar on stderr when it is a terminal."""
    from rich.console import Console
    from rich.progress import BarColumn, MofNCompleteColumn, Progress, TimeRemainingColumn

    console = Console(stderr=True)
    columns = (
        "[progress.description]{task.description}",
        BarColumn(),
        MofNCompleteColumn(),
        TimeRemainingColumn(),
    )
    with Progress(
        *columns, console=console, transient=True, disable=not console.is_terminal
    ) as bar:
        job = bar.add_task("analysing", total=None)

        def progress(done: int, total: int) -> None:
            bar.update(job, completed=done, total=total)

        return review_record(record, seats, budget_ms, seed, progress)


def text_of(report: Review, record: Record) -> list[Text | str]:
    """The report as lines for a rich console: every decision per player, then the summary."""
    rules = record.rules
    hands = len(record.hands)
    heading = (
        f"{rules.players} players, {hands} hand{'' if hands == 1 else 's'}; each decision weighed"
        f" by the hard bot's search on at most {report.deals} deals (--budget-ms {report.budget_ms:g},"
        f" --seed {report.seed})"
    )
    return review_text(report, record.names, heading)
