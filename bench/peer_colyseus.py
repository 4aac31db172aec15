"""allfives against a Colyseus 0.16 server, side by side: server CPU per move at full speed.

Both servers get the same shape of work, one after the other in each round: R rooms (40) of 4
players at full speed, each room moving as soon as all four players have seen the last move
(`bench/load.py --mode full`). allfives runs as there (`allfives serve`, its players in this
process: bench/load_clients.py); the peer is bench/peers/colyseus/: a room whose schema state
changes a little each move (a hand loses a tile; the line, its ends, the total, the scores, the
turn and the legal moves change) and is patched to the room's 4 clients at once with
`broadcastPatch()`, each hand and its legal moves filtered to its owner by `StateView`, driven
by colyseus.js clients in Node processes of their own (`--client-processes`). Its room sends
what allfives' document holds (`--room full`: each legal move a schema with its total and
points, the hand's history) or less (`--room lean`: legal moves as strings, no history).

Each server's CPU is read from /proc of its process over the seconds of play, as bench/load.py
reads allfives'. The rounds alternate which server goes first; each prints both servers' server
CPU per move and moves/s, and its ratio: Colyseus' CPU per move over allfives'. `ratio` is their
median (>= 1.0: a move costs allfives at most what it costs Colyseus).

A benchmark, not a test: it needs Node 20 or later and npm (Debian's `nodejs` and `npm`), and
installs the peer's packages pinned by its package-lock.json with `npm ci` on its first run
(into bench/peers/colyseus/node_modules). Without them it says so and exits with status 2.

Usage: uv run python bench/peer_colyseus.py [--rounds 5] [--rooms 40] [--seconds 10]
                                            [--client-processes 1] [--room full|lean]
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import shutil
import statistics
import subprocess
import sys
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import NoReturn

# bench/ is first on sys.path when this file runs as a script.
from load import STOP_SECONDS, start_game_server
from load_clients import Stats, close_tables, open_tables, play, quiet_collector
from measure import cpu_seconds, percentile, report, stop_after

PEER = Path(__file__).resolve().parent / "peers" / "colyseus"

#: The oldest Node the peer is written for.
NODE_MAJOR = 20


@dataclass
class Run:
    """What one server did over one run's seconds of play."""

    moves: int
    seconds: float
    server_cpu: float
    clients_cpu: float
    patches: int
    patch_bytes: int
    delays: list[float] = field(default_factory=list)

    def report(self, prefix: str) -> None:
        """Print the run's figures as `name: value` lines."""
        moves = max(1, self.moves)
        report(f"{prefix} moves", self.moves)
        report(f"{prefix} moves/s", self.moves / self.seconds)
        report(f"{prefix} server cpu ms per move", 1000 * self.server_cpu / moves)
        report(f"{prefix} server cpu busy", self.server_cpu / self.seconds)
        report(f"{prefix} clients cpu ms per move", 1000 * self.clients_cpu / moves)
        report(f"{prefix} clients cpu busy", self.clients_cpu / self.seconds)
        report(f"{prefix} message size bytes", self.patch_bytes // max(1, self.patches))
        if self.delays:
            report(f"{prefix} p50 ms", 1000 * statistics.median(self.delays))
            report(f"{prefix} p99 ms", 1000 * percentile(self.delays, 0.99))

    @property
    def cpu_per_move(self) -> float:
        return self.server_cpu / max(1, self.moves)


def fail(message: str) -> NoReturn:
    """Say why the benchmark cannot run, and exit with status 2."""
    print(f"bench/peer_colyseus.py: {message}", file=sys.stderr, flush=True)
    sys.exit(2)


def node_tools() -> tuple[str, str]:
    """Node and npm, or a clear message and exit status 2 where either is missing or too old."""
    node, npm = shutil.which("node"), shutil.which("npm")
    if node is None or npm is None:
        missing = " and ".join(name for name, path in (("node", node), ("npm", npm)) if not path)
        fail(
            f"needs Node {NODE_MAJOR}+ and npm: {missing} not found "
            "(on Debian: apt-get install nodejs npm)"
        )
    version = subprocess.run([node, "--version"], capture_output=True, text=True).stdout.strip()
    if int(version.lstrip("v").split(".")[0] or 0) < NODE_MAJOR:
        fail(f"needs Node {NODE_MAJOR}+, found {version}")
    return node, npm


def install(npm: str) -> None:
    """The peer's packages as package-lock.json pins them (`npm ci`), unless installed already."""
    if (PEER / "node_modules" / ".package-lock.json").exists():
        return
    print("installing the Colyseus peer's packages (npm ci)", file=sys.stderr, flush=True)
    done = subprocess.run([npm, "ci", "--no-audit", "--no-fund"], cwd=PEER, stdout=sys.stderr)
    if done.returncode != 0:
        fail(f"npm ci in {PEER} failed (exit status {done.returncode}): see above")


async def allfives_run(rooms: int, seconds: float) -> Run:
    """bench/load.py's full-speed run (`game_run`'s steps): a fresh server, its rooms, play."""
    process, url = start_game_server()
    try:
        await asyncio.sleep(0.5)
        stats = Stats()
        tables = await open_tables(url, rooms, stats)
        stats.delays.clear()
        stats.moves = stats.patches = stats.patch_bytes = 0
        quiet_collector()
        started = time.perf_counter()
        cpu = cpu_seconds(process.pid)
        own = time.process_time()
        await play(tables, seconds, 0.0)
        cpu = cpu_seconds(process.pid) - cpu
        own = time.process_time() - own
        elapsed = time.perf_counter() - started
        await close_tables(tables)
        return Run(stats.moves, elapsed, cpu, own, stats.patches, stats.patch_bytes, stats.delays)
    finally:
        process.terminate()
        process.wait(STOP_SECONDS)


def colyseus_run(node: str, rooms: int, seconds: float, client_processes: int, room: str) -> Run:
    """The peer: its server (its `room`, full or lean), `client_processes` Node processes of
    players (rooms split evenly) that each say "ready" once dealt, play on "go" and print their
    figures as one JSON line."""
    arguments = [node, "server.js", room]
    server = subprocess.Popen(arguments, cwd=PEER, stdout=subprocess.PIPE, text=True)
    clients: list[subprocess.Popen[str]] = []
    try:
        assert server.stdout is not None
        line = server.stdout.readline()
        if "ws://" not in line:
            raise RuntimeError(f"the Colyseus server did not start: {line!r}")
        url = line.split()[-1]
        shares = [
            rooms // client_processes + (i < rooms % client_processes)
            for i in range(client_processes)
        ]
        for share in shares:
            arguments = [node, "clients.js", url, str(share), str(seconds)]
            clients.append(
                subprocess.Popen(
                    arguments, cwd=PEER, stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True
                )
            )
        for child in clients:
            assert child.stdout is not None
            line = child.stdout.readline()
            if line.strip() != "ready":
                raise RuntimeError(
                    f"a Colyseus client process ended before it was ready ({line!r})"
                )
        cpu = cpu_seconds(server.pid)
        started = time.perf_counter()
        for child in clients:
            assert child.stdin is not None
            child.stdin.write("go\n")
            child.stdin.flush()
        results = []
        for child in clients:
            assert child.stdout is not None
            results.append(json.loads(child.stdout.readline()))
        elapsed = time.perf_counter() - started
        cpu = cpu_seconds(server.pid) - cpu
        return Run(
            moves=sum(r["moves"] for r in results),
            seconds=elapsed,
            server_cpu=cpu,
            clients_cpu=sum(r["cpu"] for r in results),
            patches=sum(r["patches"] for r in results),
            patch_bytes=sum(r["patch_bytes"] for r in results),
            delays=[delay for r in results for delay in r["delays"]],
        )
    finally:
        for child in clients:
            child.kill()
            child.wait()
        server.terminate()
        server.wait(STOP_SECONDS)


async def main(args: argparse.Namespace) -> None:
    node, npm = node_tools()
    install(npm)
    report("colyseus room", args.room)
    report("load average at start", f"{os.getloadavg()[0]:.2f}")
    ratios = []
    for number in range(1, args.rounds + 1):
        report("round", number)
        order = ["allfives", "colyseus"] if number % 2 else ["colyseus", "allfives"]
        runs: dict[str, Run] = {}
        for name in order:
            if name == "allfives":
                runs[name] = await allfives_run(args.rooms, args.seconds)
            else:
                runs[name] = colyseus_run(
                    node, args.rooms, args.seconds, args.client_processes, args.room
                )
            runs[name].report(name)
        ratios.append(runs["colyseus"].cpu_per_move / runs["allfives"].cpu_per_move)
        report("round ratio", ratios[-1])
    report("load average at end", f"{os.getloadavg()[0]:.2f}")
    report("ratios", " ".join(f"{ratio:.2f}" for ratio in ratios))
    report("ratio", statistics.median(ratios))


if __name__ == "__main__":
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--rounds", type=int, default=5, help="rounds, each running both servers")
    parser.add_argument("--rooms", type=int, default=40, help="rooms of 4 players at full speed")
    parser.add_argument("--seconds", type=float, default=10.0, help="seconds of play per run")
    parser.add_argument(
        "--client-processes",
        type=int,
        default=1,
        help="Node processes for the Colyseus players (the rooms split among them)",
    )
    parser.add_argument(
        "--room",
        choices=["full", "lean"],
        default="full",
        help="the peer's room: full (legal moves as schemas with their totals and points, a "
        "history) or lean (legal moves as strings, no history)",
    )
    args = parser.parse_args()
    stop_after(300 + args.rounds * (2 * args.seconds + 120), "bench/peer_colyseus.py")
    asyncio.run(main(args))
    os._exit(0)
