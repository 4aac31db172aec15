"""Two `allfives serve` processes on one Redis against one: moves per second and p99 delay.

Starts a redis-server (from PATH, or $ALLFIVES_REDIS_SERVER) with `appendonly yes` and
`appendfsync everysec`, then for each layout fresh server processes with `--redis`, and plays
bench/load.py's full-speed load (R rooms of 4 scripted players; a move's delay runs from sending
the play to the last of the four receiving its patch):

- `one`: one process, every player on it (what bench/persistence.py calls redis);
- `split`: two processes, each room's players two and two on both, so every move is saved by
  one process and reaches the other through Redis (a notice) before its players see it;
- `spread`: two processes, each room wholly on one of them (alternating): what a second process
  adds when nginx happens to put a room's players together.

Runs alternate (`--rounds`) so a warm or busy machine favours none. The clients all run in this
one process, on the same cores as the servers: on a small machine a second server can only take
CPU from them. `--server-cpu 0.5` caps every server process at half a core (cgroups, as root),
so that each stands for a server with a core of its own and the clients keep the same share of
the machine in every layout: what scaling out to a second machine or core would give.

Usage: uv run python bench/cluster.py [--rooms 40] [--seconds 8] [--rounds 1]
                                      [--layouts one split spread] [--server-cpu 0.5]
Prints `name: value` lines.
"""

from __future__ import annotations

import argparse
import asyncio
import itertools
import os
import random
import subprocess
import tempfile
import time
from pathlib import Path

# bench/ is first on sys.path when this file runs as a script.
from load_clients import Stats, close_tables, open_table, play
from measure import CpuCap, cpu_seconds, percentile, report, start_process
from persistence import start_redis

LAYOUTS = ("one", "split", "spread")


def start_server(redis_url: str) -> tuple[subprocess.Popen[str], str]:
    """`allfives serve --redis` with limits opened up for one address holding every client."""
    return start_process(
        [
            "-m", "allfives.cli", "serve", "--port", "0", "--bot-delay", "0",
            "--redis", redis_url,
            "--max-connections-per-ip", "100000", "--max-rooms-per-ip", "100000",
            "--max-connections", "100000",
            "--rate", "1000", "--burst", "1000", "--log-level", "WARNING",
        ]
    )  # fmt: skip


class Totals(Stats):
    """Moves, delays and server CPU summed over the runs of one layout."""

    def __init__(self) -> None:
        super().__init__()
        self.server_cpu = 0.0


async def run_once(
    layout: str, rooms: int, seconds: float, redis_url: str, total: Totals, cap: CpuCap | None
) -> None:
    """Fresh servers for one layout, the load at full speed; adds what was measured to `total`."""
    count = 1 if layout == "one" else 2
    servers = [start_server(redis_url) for _ in range(count)]
    urls = [url for _, url in servers]
    try:
        if cap is not None:
            for process, _ in servers:
                cap.add(process.pid)
        stats = Stats()
        tables = []
        for index in range(rooms):
            chosen = urls if layout == "split" else [urls[index % count]]
            tables.append(await open_table(chosen, stats, random.Random(index)))
        stats.delays.clear()
        stats.moves = 0
        cpu = sum(cpu_seconds(process.pid) for process, _ in servers)
        started = time.perf_counter()
        await play(tables, seconds, 0.0)
        total.elapsed += time.perf_counter() - started
        total.server_cpu += sum(cpu_seconds(process.pid) for process, _ in servers) - cpu
        total.moves += stats.moves
        total.delays += stats.delays
        await close_tables(tables)
    finally:
        for process, _ in servers:
            process.terminate()
        for process, _ in servers:
            process.wait(10)
        if cap is not None:
            cap.remove()


async def main(args: argparse.Namespace) -> None:
    totals = {layout: Totals() for layout in LAYOUTS}
    cap = CpuCap(args.server_cpu) if args.server_cpu else None
    databases = itertools.count(1)
    with tempfile.TemporaryDirectory(prefix="allfives-bench-cluster-") as data:
        redis, redis_url = start_redis(Path(data), "everysec")
        base = redis_url.rsplit("/", 1)[0]
        try:
            for _ in range(args.rounds):
                for layout in args.layouts:
                    # A database of its own per run: no rooms left over from the one before.
                    url = f"{base}/{next(databases)}"
                    await run_once(layout, args.rooms, args.seconds, url, totals[layout], cap)
        finally:
            redis.terminate()
            redis.wait(10)
    report("rooms", args.rooms)
    report("cores", os.cpu_count() or 0)
    report("server cpu cap", args.server_cpu or "none")
    for layout, total in totals.items():
        if not total.moves:
            continue
        report(f"{layout} moves/s", total.moves / total.elapsed)
        report(f"{layout} p50 ms", 1000 * percentile(total.delays, 0.5))
        report(f"{layout} p99 ms", 1000 * percentile(total.delays, 0.99))
        report(f"{layout} server cpu ms per move", 1000 * total.server_cpu / max(1, total.moves))
    if not all(totals[layout].moves for layout in LAYOUTS):
        return
    one = totals["one"].moves / totals["one"].elapsed
    report("split/one throughput ratio", totals["split"].moves / totals["split"].elapsed / one)
    report("spread/one throughput ratio", totals["spread"].moves / totals["spread"].elapsed / one)


if __name__ == "__main__":
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--rooms", type=int, default=40, help="rooms playing at full speed")
    parser.add_argument("--seconds", type=float, default=8.0, help="seconds per run")
    parser.add_argument("--rounds", type=int, default=1, help="runs of each layout")
    parser.add_argument(
        "--layouts", nargs="+", choices=LAYOUTS, default=list(LAYOUTS), help="layouts to run"
    )
    parser.add_argument(
        "--server-cpu",
        type=float,
        default=0.0,
        help="cap each server process at this share of a core (cgroups, root): 0.5 stands for "
        "a server per core on a 2-core machine that also runs the clients",
    )
    asyncio.run(main(parser.parse_args()))
    os._exit(0)
