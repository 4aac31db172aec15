"""What a store costs: the same full-speed load on `allfives serve` with memory and with `--redis`
(or, with `--against data`, with `--data DIR`: rooms in SQLite).

Each run starts its own redis-server (from PATH, or $ALLFIVES_REDIS_SERVER) on a free port with
the production settings `appendonly yes` and `appendfsync everysec` (`--fsync always` to see
that setting), and its own server process per store; against `data`, each run of the server
gets a fresh directory. The load is bench/load.py's: R rooms of 4
scripted players, each room moving as soon as all four players saw the last move; a move's delay
runs from sending the play to the last of the four receiving its patch. Memory and Redis runs
alternate (`--rounds`) so a warm or busy machine favours neither.

Usage: uv run python bench/persistence.py [--rooms 40] [--seconds 8] [--rounds 2]
                                          [--fsync everysec|always] [--against redis|data]
Prints `name: value` lines, with the CPU time per move of the server and of redis-server (steadier
than moves per second on a busy machine); the target is `redis throughput ratio` >= 0.7 (Redis costs at most
30% of the moves per second). Against `data` the lines say `data` where they say `redis`.
"""

from __future__ import annotations

import argparse
import asyncio
import os
import shutil
import socket
import subprocess
import sys
import tempfile
import time
from pathlib import Path

# bench/load_clients.py holds the scripted players; this file's folder is first on sys.path.
from load_clients import Stats, Table, close_tables, open_tables, play
from measure import cpu_seconds, percentile, report, start_process, stop_after

#: Tables opened at once.
OPENING = 10


def free_port() -> int:
    """A loopback port nothing listens on right now."""
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        port: int = probe.getsockname()[1]
        return port


def start_redis(data_dir: Path, fsync: str) -> tuple[subprocess.Popen[bytes], str]:
    """A redis-server with an append-only file in `data_dir`; returns it and its URL."""
    binary = os.environ.get("ALLFIVES_REDIS_SERVER") or shutil.which("redis-server")
    if binary is None:
        sys.exit("no redis-server: install it (apt-get install redis-server)")
    port = free_port()
    process = subprocess.Popen(
        [
            binary, "--port", str(port), "--bind", "127.0.0.1", "--dir", str(data_dir),
            "--save", "", "--appendonly", "yes", "--appendfsync", fsync,
            "--protected-mode", "no", "--logfile", str(data_dir / "redis.log"),
        ],
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
    )  # fmt: skip
    deadline = time.monotonic() + 10
    while time.monotonic() < deadline:
        try:
            with socket.create_connection(("127.0.0.1", port), timeout=0.2) as probe:
                probe.sendall(b"PING\r\n")
                if probe.recv(16).startswith(b"+PONG"):
                    return process, f"redis://127.0.0.1:{port}/0"
        except OSError:
            time.sleep(0.05)
    process.kill()
    sys.exit(f"redis-server did not start: see {data_dir / 'redis.log'}")


def start_server(store: list[str]) -> tuple[subprocess.Popen[str], str]:
    """`allfives serve` with the store's options (none: memory), limits opened up for one
    address."""
    arguments = [
        "-m", "allfives.cli", "serve", "--port", "0", "--bot-delay", "0",
        "--max-connections-per-ip", "100000", "--max-rooms-per-ip", "100000", "--rooms-burst", "100000", "--max-rooms", "100000",
        "--max-connections", "100000",
        "--rate", "1000", "--burst", "1000", "--log-level", "WARNING",
    ]  # fmt: skip
    return start_process(arguments + store)


class Totals(Stats):
    """Moves, delays and CPU seconds summed over the runs of one store."""

    def __init__(self) -> None:
        super().__init__()
        self.server_cpu = 0.0
        self.redis_cpu = 0.0


async def run_once(
    rooms: int,
    seconds: float,
    redis: subprocess.Popen[bytes] | None,
    store: list[str],
    total: Totals,
) -> None:
    """Open rooms on a fresh server, play at full speed, add what was measured to `total`."""
    process, ws_url = start_server(store)
    try:
        stats = Stats()
        tables: list[Table] = []
        # A few tables at a time: joins waiting on a store's save hold a room-lookup token
        # each, and one address has 20 (server.edge.limits.LookupBudget).
        for first in range(0, rooms, OPENING):
            count = min(OPENING, rooms - first)
            tables += await open_tables(ws_url, count, stats, seed=first)
        stats.delays.clear()
        stats.moves = 0
        server_cpu = cpu_seconds(process.pid)
        redis_cpu = cpu_seconds(redis.pid) if redis else 0.0
        started = time.perf_counter()
        await play(tables, seconds, 0.0)
        total.elapsed += time.perf_counter() - started
        total.server_cpu += cpu_seconds(process.pid) - server_cpu
        total.redis_cpu += cpu_seconds(redis.pid) - redis_cpu if redis else 0.0
        total.moves += stats.moves
        total.delays += stats.delays
        await close_tables(tables)
    finally:
        process.terminate()
        process.wait(10)


async def main(args: argparse.Namespace) -> None:
    memory, kept = Totals(), Totals()
    name = args.against
    with tempfile.TemporaryDirectory(prefix=f"allfives-bench-{name}-") as data:
        server: subprocess.Popen[bytes] | None = None
        if name == "redis":
            server, redis_url = start_redis(Path(data), args.fsync)
        try:
            for round in range(args.rounds):
                store = ["--redis", redis_url] if server else ["--data", f"{data}/{round}"]
                await run_once(args.rooms, args.seconds, None, [], memory)
                await run_once(args.rooms, args.seconds, server, store, kept)
        finally:
            if server is not None:
                server.terminate()
                server.wait(10)
    report("rooms", args.rooms)
    if name == "redis":
        report("redis appendfsync", args.fsync)
    report("memory moves", memory.moves)
    report(f"{name} moves", kept.moves)
    report("memory moves/s", memory.moves / memory.elapsed)
    report(f"{name} moves/s", kept.moves / kept.elapsed)
    report("memory p50 ms", 1000 * percentile(memory.delays, 0.5))
    report(f"{name} p50 ms", 1000 * percentile(kept.delays, 0.5))
    report("memory p99 ms", 1000 * percentile(memory.delays, 0.99))
    report(f"{name} p99 ms", 1000 * percentile(kept.delays, 0.99))
    report("memory server cpu ms per move", 1000 * memory.server_cpu / max(1, memory.moves))
    report(f"{name} server cpu ms per move", 1000 * kept.server_cpu / max(1, kept.moves))
    if name == "redis":
        report("redis-server cpu ms per move", 1000 * kept.redis_cpu / max(1, kept.moves))
    ratio = (kept.moves / kept.elapsed) / (memory.moves / memory.elapsed)
    report(f"{name} throughput ratio", ratio)


if __name__ == "__main__":
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--rooms", type=int, default=40, help="rooms playing at full speed")
    parser.add_argument("--seconds", type=float, default=8.0, help="seconds per run")
    parser.add_argument("--rounds", type=int, default=2, help="memory/store run pairs")
    parser.add_argument("--fsync", choices=["everysec", "always"], default="everysec")
    parser.add_argument(
        "--against",
        choices=["redis", "data"],
        default="redis",
        help="the store set against memory: Redis, or SQLite under --data",
    )
    args = parser.parse_args()
    stop_after(120 + 2 * args.rounds * (args.seconds + 60), "bench/persistence.py")
    asyncio.run(main(args))
    os._exit(0)
