"""Where a server at full speed spends its CPU: a py-spy profile, as a table of functions.

Starts `allfives serve` and the full-speed load of bench/load.py (`--rooms` rooms of 4 scripted
players, each room moving as soon as its last move reached all four), lets play settle for
`--warmup` seconds, then records the server process with py-spy (`py-spy record --format raw`,
samples by function, or by line with `--lines`) for `--seconds` while play goes on.

Prints the `--top` functions by their share of the samples, twice: by `self`, the samples taken
in the function itself, then by `total`, the samples with the function anywhere on the stack (a
function counts once per sample, however deep it recurses). C code (a gc pass, a socket write)
counts as the Python function that called it. `--show TEXT` lists every function whose name
holds TEXT, however small its share. Shares are of the samples py-spy took from busy threads; a
thread blocked waiting for work can count among them (the ledger's worker, `_worker` in
concurrent/futures/thread.py).

The figures before the tables are `name: value` lines, the moves and the server's CPU per move
included, so two profiles can be compared. So are the server's garbage-collector passes over the
recording and their time, from its /metrics page: a pass Python starts by itself counts in the
profile as whatever function allocated when it came, so its share is read there. `--raw FILE`
keeps py-spy's own output (flame-graph tools read it).

py-spy reads another process's memory: it needs ptrace permission, which root has; elsewhere run
it as root or allow it (`sysctl kernel.yama.ptrace_scope=0`).

Usage: uv run python bench/profile_server.py [--seconds 12] [--rooms 40] [--top 25] [--rate 100]
                                      [--warmup 2] [--lines] [--show TEXT] [--raw FILE]
"""

from __future__ import annotations

import argparse
import asyncio
import os
import shutil
import sys
import tempfile
import time
from collections import Counter
from dataclasses import dataclass, field
from pathlib import Path

# bench/ is first on sys.path when this file runs as a script.
from load import STOP_SECONDS, start_game_server
from load_clients import Stats, close_tables, open_tables, play, quiet_collector
from measure import collector, cpu_seconds, report, stop_after


@dataclass
class Profile:
    """Samples counted by function: in the function itself, and with it anywhere on the stack."""

    samples: int = 0
    own: Counter[str] = field(default_factory=Counter)
    total: Counter[str] = field(default_factory=Counter)

    def add(self, stack: list[str], count: int) -> None:
        """One line of py-spy's raw output: a stack (outermost first) and how often it was seen."""
        self.samples += count
        if stack:
            self.own[stack[-1]] += count
        for frame in set(stack):
            self.total[frame] += count

    def rows(self, count: int, by_total: bool) -> list[tuple[str, float, float]]:
        """The `count` functions with the most samples in themselves (or with the most on the
        stack, `by_total`): (function, self %, total %)."""
        share = 100.0 / max(1, self.samples)
        counts = self.total if by_total else self.own
        return [
            (n, share * self.own[n], share * self.total[n]) for n, _ in counts.most_common(count)
        ]

    def matching(self, text: str) -> list[tuple[str, float, float]]:
        """Every function whose name holds `text`, by total share."""
        share = 100.0 / max(1, self.samples)
        found = [n for n, _ in self.total.most_common() if text in n]
        return [(n, share * self.own[n], share * self.total[n]) for n in found]


def parse(text: str) -> Profile:
    """py-spy's raw format ("frame;frame;... count" a line, frames `function (file:line)`)."""
    profile = Profile()
    for line in text.splitlines():
        stack, _, count = line.rpartition(" ")
        if stack and count.isdigit():
            profile.add([shorten(frame) for frame in stack.split(";")], int(count))
    return profile


def shorten(frame: str) -> str:
    """`function (path:line)` with the path from the repository or site-packages down."""
    name, _, where = frame.partition(" (")
    where = where.rstrip(")")
    for marker in ("/site-packages/", "/lib/python3"):
        if marker in where:
            where = where.split(marker, 1)[1]
            break
    else:
        root = str(Path(__file__).resolve().parent.parent) + "/"
        where = where.removeprefix(root)
    return f"{name} ({where})" if where else name


def py_spy() -> str:
    """The py-spy command (a dev dependency, installed beside this interpreter)."""
    beside = Path(sys.executable).parent / "py-spy"
    found = str(beside) if beside.exists() else shutil.which("py-spy")
    if found is None:
        raise SystemExit("py-spy is not installed: `uv sync` installs the dev dependencies")
    return found


async def record(pid: int, seconds: float, rate: int, raw: Path, lines: bool) -> None:
    """Record `pid` for `seconds` into `raw` (py-spy's raw format, samples by function or, with
    `lines`, by line)."""
    command = [py_spy(), "record", "--pid", str(pid), "--duration", str(max(1, round(seconds)))]
    command += ["--rate", str(rate), "--format", "raw", "--output", str(raw)]
    command += [] if lines else ["--function"]
    process = await asyncio.create_subprocess_exec(
        *command, stdout=asyncio.subprocess.DEVNULL, stderr=asyncio.subprocess.PIPE
    )
    _, errors = await process.communicate()
    if process.returncode != 0:
        raise SystemExit(f"py-spy failed ({process.returncode}): {errors.decode().strip()}")


def show(title: str, rows: list[tuple[str, float, float]]) -> None:
    """One table: self and total shares in percent, then the function."""
    print(f"\n{title}:\n{'self %':>7} {'total %':>7}  function")
    for name, own, total in rows:
        print(f"{own:7.1f} {total:7.1f}  {name}")
    if not rows:
        print("(no samples)")


async def main(args: argparse.Namespace) -> None:
    server, url = start_game_server()
    try:
        await asyncio.sleep(0.5)
        stats = Stats()
        tables = await open_tables(url, args.rooms, stats)
        quiet_collector()
        playing = asyncio.create_task(play(tables, args.warmup + args.seconds + 30, 0.0))
        await asyncio.sleep(args.warmup)
        passes = collector(url)
        moves, cpu, started = stats.moves, cpu_seconds(server.pid), time.perf_counter()
        with tempfile.TemporaryDirectory() as folder:
            raw = Path(args.raw) if args.raw else Path(folder) / "profile.txt"
            await record(server.pid, args.seconds, args.rate, raw, args.lines)
            elapsed = time.perf_counter() - started
            cpu, moves = cpu_seconds(server.pid) - cpu, stats.moves - moves
            profile = parse(raw.read_text())
        passes_after = collector(url)
        playing.cancel()
        report("rooms", args.rooms)
        report("seconds recorded", elapsed)
        report("moves", moves)
        report("moves/s", moves / elapsed)
        report("server cpu ms per move", 1000 * cpu / max(1, moves))
        report("server gc passes", passes_after[0] - passes[0])
        report("server gc ms", 1000 * (passes_after[1] - passes[1]))
        report("server gc share of cpu %", 100 * (passes_after[1] - passes[1]) / max(1e-9, cpu))
        report("samples", profile.samples)
        show("by self", profile.rows(args.top, by_total=False))
        show("by total", profile.rows(args.top, by_total=True))
        for text in args.show:
            show(f"matching {text!r}", profile.matching(text))
        await close_tables(tables)
    finally:
        server.terminate()
        server.wait(STOP_SECONDS)


if __name__ == "__main__":
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--seconds", type=float, default=12.0, help="seconds recorded")
    parser.add_argument("--rooms", type=int, default=40, help="rooms of 4 at full speed")
    parser.add_argument("--top", type=int, default=25, help="functions shown (by self share)")
    parser.add_argument("--rate", type=int, default=100, help="py-spy samples a second")
    parser.add_argument("--warmup", type=float, default=2.0, help="seconds of play before")
    parser.add_argument("--lines", action="store_true", help="count samples by line")
    parser.add_argument(
        "--show",
        action="append",
        default=[],
        metavar="TEXT",
        help="also list every function whose name holds TEXT (repeatable)",
    )
    parser.add_argument("--raw", help="keep py-spy's raw output in this file")
    args = parser.parse_args()
    stop_after(180 + args.warmup + args.seconds + args.rooms * 0.1, "bench/profile_server.py")
    asyncio.run(main(args))
    os._exit(0)
