"""`allfives analyze RECORD`: the hard bot reviews every decision of a match, seat by seat.

For each move of the chosen seats (all by default) that had a choice, the seat's view at that
moment is rebuilt from the record (only what it could see) and the hard bot's search weighs the
move played against the others (`engine.analysis`). It prints, per move, the move played, the
best move, the expected points lost and a reason in words where one applies; then per player
the points lost per hand and the three costliest moves (`??` marks a move that cost 10 or more).
`--json` prints the same as one document. Exit status as `allfives replay`: 0 done, 1 a record
that is not legal, 2 a file that is not a record.

`review_record` is the same analysis as a function, for programs that hold a record already
(the terminal client's `/review`).
"""

from __future__ import annotations

import argparse
import sys
from collections.abc import Callable, Sequence

import msgspec
from rich.text import Text

from allfives.replay import NOT_A_RECORD, load
from protocol.records import Record, RecordFormatError, check_record

DEFAULT_BUDGET_MS = 200.0
MARK = "??"


class MoveValue(msgspec.Struct):
    """One legal move and its expected value for the seat's side."""

    move: str
    value: float


class MoveLine(msgspec.Struct, kw_only=True):
    """One decision: hand and move number (from 1), the seat, what it played and what was best."""

    hand: int
    move: int
    seat: int
    played: str
    best: str
    lost: float
    costly: bool
    reason: str | None
    values: list[MoveValue]
    deals: int
    exact: bool


class PlayerLine(msgspec.Struct, kw_only=True):
    """One seat's decisions added up."""

    seat: int
    name: str
    hands: int
    decisions: int
    lost: float
    lost_per_hand: float
    costly: int
    costliest: list[MoveLine]


class Report(msgspec.Struct, kw_only=True):
    """The whole analysis: the settings, the players' summaries, and every decision in order."""

    budget_ms: float
    seed: int
    deals: int
    players: list[PlayerLine]
    moves: list[MoveLine]


class AnalysisError(ValueError):
    """The record cannot be analysed (not well formed, or not legal); the message says why."""


def add_arguments(parser: argparse.ArgumentParser) -> None:
    """The analyze command's options."""
    parser.add_argument("file", help="the record to analyse (- for standard input)")
    parser.add_argument(
        "--seat",
        type=int,
        action="append",
        help="analyse this seat only (may be given more than once; default every seat)",
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
    for seat in args.seat or ():
        if not 0 <= seat < players:
            print(
                f"allfives analyze: there is no seat {seat} with {players} players "
                f"(0 to {players - 1})",
                file=sys.stderr,
            )
            return NOT_A_RECORD
    report = _with_progress(record, args.seat, args.budget_ms, args.seed)
    if args.json:
        sys.stdout.buffer.write(msgspec.json.encode(report) + b"\n")
    else:
        from rich.console import Console

        Console(highlight=False, soft_wrap=True).print(*text_of(report, record), sep="\n")
    return 0


def _with_progress(
    record: Record, seats: Sequence[int] | None, budget_ms: float, seed: int
) -> Report:
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


def review_record(
    record: Record,
    seats: Sequence[int] | None = None,
    budget_ms: float = DEFAULT_BUDGET_MS,
    seed: int = 0,
    progress: Callable[[int, int], None] | None = None,
) -> Report:
    """Analyse a record's decisions for `seats` (all by default); deterministic for a seed.

    Raises AnalysisError when the record is not well formed or not legal (a record from a server
    is checked like a file). `progress(done, total)` is called after each decision.
    """
    from bridge.records import ReplayError, decisions_of
    from engine import RulesError
    from engine.analysis import analyse, deals_for, summarise

    try:
        check_record(record)
        decisions = decisions_of(record, seats)
    except (RecordFormatError, RulesError) as error:
        raise AnalysisError(f"not a record: {error}") from error
    except ReplayError as error:
        raise AnalysisError(f"illegal: {error}") from error
    names = [display_name(record, seat) for seat in range(record.rules.players)]
    reviews = analyse(decisions, budget_ms, seed, names, progress)
    lines = [
        MoveLine(
            hand=r.hand,
            move=r.number,
            seat=r.seat,
            played=str(r.played),
            best=str(r.best),
            lost=round(r.lost, 2),
            costly=r.costly,
            reason=r.reason,
            values=[MoveValue(str(m), round(v, 2)) for m, v in r.values],
            deals=r.deals,
            exact=r.exact,
        )
        for r in reviews
    ]
    by_review = {id(r): line for r, line in zip(reviews, lines, strict=True)}
    chosen = sorted(set(seats)) if seats else list(range(record.rules.players))
    players = []
    for seat in chosen:
        summary = summarise(reviews, seat, len(record.hands))
        players.append(
            PlayerLine(
                seat=seat,
                name=names[seat],
                hands=summary.hands,
                decisions=summary.decisions,
                lost=round(summary.lost, 2),
                lost_per_hand=round(summary.per_hand, 2),
                costly=summary.costly,
                costliest=[by_review[id(r)] for r in summary.costliest],
            )
        )
    return Report(
        budget_ms=budget_ms, seed=seed, deals=deals_for(budget_ms), players=players, moves=lines
    )


def display_name(record: Record, seat: int) -> str:
    """A seat's name as a person reads it (control characters made visible), or `seat N`."""
    name = record.names[seat] if seat < len(record.names) else ""
    shown = "".join(c if c.isprintable() else f"\\x{ord(c):02x}" for c in name)
    return shown or f"seat {seat}"


# -- text -------------------------------------------------------------------------------------


def text_of(report: Report, record: Record) -> list[Text | str]:
    """The report as lines for a rich console: every decision per player, then the summary."""
    rules = record.rules
    rows: list[Text | str] = [
        Text(
            f"{rules.players} players, {len(record.hands)} hands; each decision weighed by the "
            f"hard bot's search on at most {report.deals} deals (--budget-ms {report.budget_ms:g},"
            f" --seed {report.seed})"
        )
    ]
    for player in report.players:
        rows += ["", Text(f"{player.name} (seat {player.seat})", style="bold")]
        mine = [line for line in report.moves if line.seat == player.seat]
        if not mine:
            rows.append(Text("  no move with a choice", style="dim"))
        rows += [move_text(line) for line in mine]
    rows += ["", Text("Summary", style="bold")]
    for player in report.players:
        rows += summary_text(player)
    return rows


def move_text(line: MoveLine, indent: str = "  ") -> Text:
    """One decision on one line: where, what was played, what was best and what it cost."""
    text = Text(f"{indent}hand {line.hand:>2} move {line.move:>2}  played {line.played:<10}")
    if line.lost == 0:
        return text.append(" best move", style="green")
    text.append(f" best {line.best:<10} lost {line.lost:5.1f}")
    text.append(f" {MARK}" if line.costly else "   ", style="bold red")
    if line.reason:
        text.append(f"  {line.reason}", style="dim")
    return text


def summary_text(player: PlayerLine) -> list[Text]:
    """A player's points lost per hand and costliest moves."""
    head = Text(f"  {player.name} (seat {player.seat}): ")
    head.append(f"{player.lost_per_hand:.1f} points lost per hand", style="bold")
    head.append(
        f" ({player.lost:.1f} over {_count(player.hands, 'hand')}, "
        f"{_count(player.decisions, 'decision')}); "
        f"{_count(player.costly, 'move')} cost 10 or more"
    )
    rows: list[Text] = [head]
    if player.costliest:
        rows.append(Text("    costliest moves:"))
        rows += [move_text(line, indent="      ") for line in player.costliest]
    return rows


def _count(number: int, noun: str) -> str:
    return f"{number} {noun}" if number == 1 else f"{number} {noun}s"
