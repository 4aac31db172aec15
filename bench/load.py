"""Load on one server process: R rooms of 4 scripted WebSocket players each, over loopback.

The server runs in a process of its own (`allfives serve`); this process holds every client.
Human pace: each room makes a move every `--interval` seconds (2 s), as people would; full speed:
each room moves as soon as the last one reached all four players. For each move the delay is
measured from the play being sent to the last of the room's four players receiving its patch.
Memory per room is the server's resident memory growth divided by the rooms (connections
included). The ceiling is a bare `websockets` server, also in its own process, that answers each
message by sending a message of the same size as our average patch to the 4 clients of its group.

The clients' own CPU is printed too (`clients cpu busy`, and per move): when it nears 1, one
process cannot keep up with the rooms and the delays measure the clients; `--client-processes N`
then runs the human-pace clients in N processes. At full speed on a small machine the clients'
CPU per move bounds the ratio as much as the server's does, so both are printed: the ceiling's
clients only receive bytes, ours read each patch for what they play from (bench/load_clients.py).
Each client process freezes its set-up objects out of its garbage collector's way before play
begins, so its collections do not pause the moves measured.

Usage: uv run python bench/load.py [--rooms 1000] [--seconds 20] [--full-rooms 40]
                                   [--full-seconds 10] [--mode both|pace|full]
                                   [--client-processes 1] [--spectators 0] [--rounds 1]
`--spectators N` adds N watching connections to each full-speed room (they count among the
receivers a move must reach); no ceiling or ratio is measured then.
Each figure is printed as `name: value` (targets: `pace p99 ms` < 50 with 1,000 rooms;
`ratio` of full-speed messages to the bare ceiling >= 0.5). A host that slows the machine for a
while moves one run's ratio a lot: `--rounds N` alternates N full-speed runs with their ceiling
runs and prints every round's ratio and their median as `ratio`.

This file holds the runs and their report; the scripted players are in bench/load_clients.py,
the bare ceiling in bench/load_ceiling.py, process CPU/memory and `report` in bench/measure.py.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import statistics
import subprocess
import sys
import time
from pathlib import Path

# bench/ is first on sys.path when this file runs as a script.
from load_ceiling import ceiling_run
from load_clients import Stats, close_tables, open_tables, play, quiet_collector
from measure import (
    ROOT,
    collector,
    cpu_seconds,
    percentile,
    report,
    report_collector,
    resident_kib,
    start_process,
    stop_after,
)

#: How long a server may take to stop: with thousands of connections it first stores each
#: departure of the clients that just closed (16,000 at 4,000 rooms).
STOP_SECONDS = 90


def start_game_server() -> tuple[subprocess.Popen[str], str]:
    """`allfives serve` with limits opened up for one address holding every client."""
    return start_process(
        [
            "-m", "allfives.cli", "serve", "--port", "0", "--bot-delay", "0",
            "--max-connections-per-ip", "100000", "--max-rooms-per-ip", "100000", "--rooms-burst", "100000", "--max-rooms", "100000",
            "--max-connections", "100000",
            "--rate", "1000", "--burst", "1000", "--log-level", "WARNING",
        ]
    )  # fmt: skip


def report_run(
    prefix: str, stats: Stats, elapsed: float, cpu: float, own: float, kib_per_room: float
) -> None:
    """A run's figures: throughput, server and client CPU, delays, memory per room."""
    report(f"{prefix} moves", stats.moves)
    report(f"{prefix} moves/s", stats.moves / elapsed)
    report(f"{prefix} messages/s", stats.patches / elapsed)
    report(f"{prefix} server cpu ms per move", 1000 * cpu / max(1, stats.moves))
    report(f"{prefix} server cpu us per move", 1e6 * cpu / max(1, stats.moves))
    report(f"{prefix} server cpu busy", cpu / elapsed)
    report(f"{prefix} clients cpu ms per move", 1000 * own / max(1, stats.moves))
    report(f"{prefix} clients cpu busy", own / elapsed)
    report(f"{prefix} p50 ms", 1000 * statistics.median(stats.delays))
    report(f"{prefix} p99 ms", 1000 * percentile(stats.delays, 0.99))
    report(f"{prefix} memory per room KiB", kib_per_room)


async def game_run(
    rooms: int,
    seconds: float,
    interval: float,
    prefix: str,
    client_processes: int = 1,
    spectators: int = 0,
) -> Stats:
    """Open rooms on a fresh server, play, print the figures; returns them."""
    if client_processes > 1:
        return await spread_run(rooms, seconds, interval, prefix, client_processes)
    process, url = start_game_server()
    try:
        await asyncio.sleep(0.5)
        base = resident_kib(process.pid)
        stats = Stats()
        started = time.perf_counter()
        tables = await open_tables(url, rooms, stats, spectators=spectators)
        report(f"{prefix} rooms", rooms)
        report(f"{prefix} connections", (4 + spectators) * rooms)
        report(f"{prefix} setup seconds", time.perf_counter() - started)
        stats.delays.clear()
        stats.moves = stats.patches = stats.patch_bytes = 0
        quiet_collector()
        passes = collector(url)
        started = time.perf_counter()
        cpu = cpu_seconds(process.pid)
        own = time.process_time()
        await play(tables, seconds, interval)
        cpu = cpu_seconds(process.pid) - cpu
        own = time.process_time() - own
        elapsed = stats.elapsed = time.perf_counter() - started
        grown = resident_kib(process.pid) - base
        report_run(prefix, stats, elapsed, cpu, own, grown / rooms)
        report_collector(prefix, passes, url)
        await close_tables(tables)
        return stats
    finally:
        process.terminate()
        process.wait(STOP_SECONDS)


async def worker(url: str, rooms: int, seconds: float, interval: float, seed: int) -> None:
    """One client process of `--client-processes`: open rooms, wait for "go", play, report JSON."""
    stats = Stats()
    tables = await open_tables(url, rooms, stats, seed)
    stats.delays.clear()
    stats.moves = stats.patches = stats.patch_bytes = 0
    quiet_collector()
    print("ready", flush=True)
    await asyncio.get_running_loop().run_in_executor(None, sys.stdin.readline)
    own = time.process_time()
    await play(tables, seconds, interval)
    result = {
        "delays": stats.delays,
        "moves": stats.moves,
        "patches": stats.patches,
        "patch_bytes": stats.patch_bytes,
        "cpu": time.process_time() - own,
    }
    print(json.dumps(result), flush=True)
    await close_tables(tables)


async def spread_run(rooms: int, seconds: float, interval: float, prefix: str, count: int) -> Stats:
    """`game_run` with the clients in `count` processes of their own (rooms split evenly)."""
    process, url = start_game_server()
    workers: list[subprocess.Popen[str]] = []
    finished = False
    try:
        await asyncio.sleep(0.5)
        base = resident_kib(process.pid)
        started = time.perf_counter()
        shares = [rooms // count + (1 if i < rooms % count else 0) for i in range(count)]
        for index, share in enumerate(shares):
            arguments = [str(Path(__file__).resolve()), "--worker", url, str(share)]
            arguments += [str(seconds), str(interval), str(index * 100_000)]
            workers.append(
                subprocess.Popen(
                    [sys.executable, *arguments],
                    cwd=ROOT,
                    stdin=subprocess.PIPE,
                    stdout=subprocess.PIPE,
                    text=True,
                )
            )
        loop = asyncio.get_running_loop()
        for child in workers:
            assert child.stdout is not None
            line = await loop.run_in_executor(None, child.stdout.readline)
            if line.strip() != "ready":
                raise RuntimeError(
                    f"a client process ended before it was ready ({line!r}): its error is "
                    "above (a server that is full answers 503)"
                )
        report(f"{prefix} rooms", rooms)
        report(f"{prefix} connections", 4 * rooms)
        report(f"{prefix} client processes", count)
        report(f"{prefix} setup seconds", time.perf_counter() - started)
        passes = collector(url)
        cpu = cpu_seconds(process.pid)
        started = time.perf_counter()
        for child in workers:
            assert child.stdin is not None
            child.stdin.write("go\n")
            child.stdin.flush()
        results = []
        for child in workers:
            assert child.stdout is not None
            results.append(json.loads(await loop.run_in_executor(None, child.stdout.readline)))
        elapsed = time.perf_counter() - started
        cpu = cpu_seconds(process.pid) - cpu
        stats = Stats()
        for result in results:
            stats.delays += result["delays"]
            stats.moves += result["moves"]
            stats.patches += result["patches"]
            stats.patch_bytes += result["patch_bytes"]
        stats.elapsed = elapsed
        own = sum(result["cpu"] for result in results)
        grown = resident_kib(process.pid) - base
        report_run(prefix, stats, elapsed, cpu, own, grown / rooms)
        report_collector(prefix, passes, url)
        finished = True
        return stats
    finally:
        for child in workers:
            if not finished:  # the others wait for "go", or play on: end them now
                child.kill()
            try:
                child.wait(30)
            except subprocess.TimeoutExpired:
                child.kill()
                child.wait()
        process.terminate()
        process.wait(STOP_SECONDS)


async def main(args: argparse.Namespace) -> None:
    if args.mode in ("both", "pace"):
        await game_run(args.rooms, args.seconds, args.interval, "pace", args.client_processes)
    if args.mode in ("both", "full"):
        ratios = []
        for _ in range(args.rounds):
            stats = await game_run(
                args.full_rooms, args.full_seconds, 0.0, "full", spectators=args.spectators
            )
            if args.spectators:
                continue  # the ceiling's groups are four players: no ratio with watchers
            size = stats.patch_bytes // max(1, stats.patches)
            ours = stats.patches / stats.elapsed
            ceiling = await ceiling_run(args.full_rooms, args.full_seconds, size)
            report("message size bytes", size)
            report("ceiling messages/s", ceiling)
            ratios.append(ours / ceiling)
            report("round ratio" if args.rounds > 1 else "ratio", ratios[-1])
        if len(ratios) > 1:
            report("ratios", " ".join(f"{ratio:.2f}" for ratio in ratios))
            report("ratio", statistics.median(ratios))


if __name__ == "__main__":
    if len(sys.argv) == 7 and sys.argv[1] == "--worker":
        url, rooms, seconds, interval, seed = sys.argv[2:]
        asyncio.run(worker(url, int(rooms), float(seconds), float(interval), int(seed)))
        os._exit(0)
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--rooms", type=int, default=1000, help="rooms at human pace")
    parser.add_argument("--seconds", type=float, default=20.0, help="seconds of human-pace play")
    parser.add_argument(
        "--interval", type=float, default=2.0, help="seconds between a room's moves"
    )
    parser.add_argument("--full-rooms", type=int, default=40, help="rooms at full speed")
    parser.add_argument("--full-seconds", type=float, default=10.0, help="seconds at full speed")
    parser.add_argument("--mode", choices=["both", "pace", "full"], default="both")
    parser.add_argument(
        "--rounds",
        type=int,
        default=1,
        help="full-speed runs, each followed by its ceiling run; `ratio` is then their median",
    )
    parser.add_argument(
        "--spectators", type=int, default=0, help="spectators per room at full speed"
    )
    parser.add_argument(
        "--client-processes",
        type=int,
        default=1,
        help="run the human-pace clients in this many processes (when one cannot keep up)",
    )
    args = parser.parse_args()
    full = 0 if args.mode == "pace" else args.rounds * (2 * args.full_seconds + 90)
    pace = 0 if args.mode == "full" else args.seconds + 120 + args.rooms * 0.1
    stop_after(120 + full + pace, "bench/load.py")
    asyncio.run(main(args))
    os._exit(0)
