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

`--through-nginx` runs the layouts `nginx-one` and `nginx-two` instead: docker-compose.yml's
topology on this machine (deploy/topology.py, what deploy/local.sh starts: Redis as compose runs
it, Debian's nginx in front of one or two processes), every player connecting to nginx, which
spreads the connections over the processes as it does in production (a room's players on both or
on one, as it happens). nginx itself is not capped; its CPU per move is printed.

Runs alternate (`--rounds`) so a warm or busy machine favours none. The clients all run in this
one process, on the same cores as the servers: on a small machine a second server can only take
CPU from them. `--server-cpu 0.5` caps every server process at half a core (cgroups, as root),
so that each stands for a server with a core of its own and the clients keep the same share of
the machine in every layout: what scaling out to a second machine or core would give.

Usage: uv run python bench/cluster.py [--rooms 40] [--seconds 8] [--rounds 1]
                                      [--layouts one split spread] [--server-cpu 0.5]
                                      [--through-nginx]
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
from measure import CpuCap, cpu_seconds, percentile, report, start_process, stop_after
from persistence import start_redis

from deploy.topology import Topology

LAYOUTS = ("one", "split", "spread")
NGINX_LAYOUTS = ("nginx-one", "nginx-two")
#: Limits opened up for one address holding every client (behind nginx too: its X-Real-IP).
OPEN_LIMITS = [
    "--bot-delay", "0", "--max-connections-per-ip", "100000", "--max-rooms-per-ip", "100000", "--max-rooms", "100000",
    "--max-connections", "100000", "--rooms-burst", "100000", "--rooms-per-hour", "1000000",
    "--rate", "1000", "--burst", "1000", "--log-level", "WARNING",
]  # fmt: skip


def start_server(redis_url: str) -> tuple[subprocess.Popen[str], str]:
    """`allfives serve --redis` with limits opened up for one address holding every client."""
    return start_process(
        ["-m", "allfives.cli", "serve", "--port", "0", "--redis", redis_url, *OPEN_LIMITS]
    )


class Totals(Stats):
    """Moves, delays and server CPU summed over the runs of one layout."""

    def __init__(self) -> None:
        super().__init__()
        self.server_cpu = 0.0
        self.nginx_cpu = 0.0


async def measure(
    urls: list[list[str]], pids: list[int], rooms: int, seconds: float, total: Totals
) -> list[float]:
    """Open `rooms` tables (room i's players round `urls[i % len(urls)]`), play at full speed
    for `seconds`, add the moves, delays and time to `total`; returns the CPU seconds each of
    `pids` used while playing."""
    stats = Stats()
    tables = []
    for index in range(rooms):
        tables.append(await open_table(urls[index % len(urls)], stats, random.Random(index)))
    stats.delays.clear()
    stats.moves = 0
    cpu = [cpu_seconds(pid) for pid in pids]
    started = time.perf_counter()
    await play(tables, seconds, 0.0)
    total.elapsed += time.perf_counter() - started
    used = [cpu_seconds(pid) - before for pid, before in zip(pids, cpu, strict=True)]
    total.moves += stats.moves
    total.delays += stats.delays
    await close_tables(tables)
    return used


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
        pids = [process.pid for process, _ in servers]
        layouts = [urls] if layout == "split" else [[url] for url in urls]
        used = await measure(layouts, pids, rooms, seconds, total)
        total.server_cpu += sum(used)
    finally:
        for process, _ in servers:
            process.terminate()
        for process, _ in servers:
            process.wait(10)
        if cap is not None:
            cap.remove()


def nginx_pids(topology: Topology) -> list[int]:
    """nginx's master and worker processes."""
    assert topology.nginx is not None
    master = topology.nginx.pid
    children = Path(f"/proc/{master}/task/{master}/children").read_text().split()
    return [master, *map(int, children)]


async def run_through_nginx(
    layout: str, rooms: int, seconds: float, directory: Path, total: Totals, cap: CpuCap | None
) -> None:
    """deploy/topology.py's topology with one or two servers, every player through nginx."""
    count = 1 if layout == "nginx-one" else 2
    with Topology(directory, servers=count, server_options=OPEN_LIMITS) as topology:
        try:
            if cap is not None:
                for server in topology.servers:
                    cap.add(server.pid)
            servers = [server.pid for server in topology.servers]
            proxy = nginx_pids(topology)
            used = await measure([[topology.url]], servers + proxy, rooms, seconds, total)
            total.server_cpu += sum(used[: len(servers)])
            total.nginx_cpu += sum(used[len(servers) :])
        finally:
            topology.stop()  # the servers first gone, then their cgroups
            if cap is not None:
                cap.remove()


async def main(args: argparse.Namespace) -> None:
    if args.through_nginx:
        await main_through_nginx(args)
        return
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


async def main_through_nginx(args: argparse.Namespace) -> None:
    totals = {layout: Totals() for layout in NGINX_LAYOUTS}
    cap = CpuCap(args.server_cpu) if args.server_cpu else None
    runs = itertools.count(1)
    with tempfile.TemporaryDirectory(prefix="allfives-bench-nginx-") as data:
        for _ in range(args.rounds):
            for layout in NGINX_LAYOUTS:
                directory = Path(data) / f"run{next(runs)}"
                await run_through_nginx(
                    layout, args.rooms, args.seconds, directory, totals[layout], cap
                )
    report("rooms", args.rooms)
    report("cores", os.cpu_count() or 0)
    report("server cpu cap", args.server_cpu or "none")
    for layout, total in totals.items():
        report(f"{layout} moves/s", total.moves / total.elapsed)
        report(f"{layout} p50 ms", 1000 * percentile(total.delays, 0.5))
        report(f"{layout} p99 ms", 1000 * percentile(total.delays, 0.99))
        report(f"{layout} server cpu ms per move", 1000 * total.server_cpu / max(1, total.moves))
        report(f"{layout} nginx cpu ms per move", 1000 * total.nginx_cpu / max(1, total.moves))
    one, two = (totals[layout].moves / totals[layout].elapsed for layout in NGINX_LAYOUTS)
    report("nginx two/one throughput ratio", two / one)


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
    parser.add_argument(
        "--through-nginx",
        action="store_true",
        help="layouts nginx-one and nginx-two: deploy/local.sh's topology, players through nginx",
    )
    args = parser.parse_args()
    layouts = len(args.layouts) + (2 if args.through_nginx else 0)
    stop_after(120 + layouts * args.rounds * (args.seconds + 90), "bench/cluster.py")
    asyncio.run(main(args))
    os._exit(0)
