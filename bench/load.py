"""Load on one server process: R rooms of 4 scripted WebSocket players each, over loopback.

The server runs in a process of its own (`allfives serve`); this process holds every client.
Human pace: each room makes a move every `--interval` seconds (2 s), as people would; full speed:
each room moves as soon as the last one reached all four players. For each move the delay is
measured from the play being sent to the last of the room's four players receiving its patch.
Memory per room is the server's resident memory growth divided by the rooms (connections
included). The ceiling is a bare `websockets` server, also in its own process, that answers each
message by sending a message of the same size as our average patch to the 4 clients of its group.

The clients' own CPU is printed too (`clients cpu busy`): when it nears 1, one process cannot
keep up with the rooms and the delays measure the clients; `--client-processes N` then runs the
human-pace clients in N processes. Each client process freezes its set-up objects out of its
garbage collector's way before play begins, so its collections do not pause the moves measured.

Usage: uv run python bench/load.py [--rooms 1000] [--seconds 20] [--full-rooms 40]
                                   [--full-seconds 10] [--mode both|pace|full]
                                   [--client-processes 1] [--spectators 0]
`--spectators N` adds N watching connections to each full-speed room (they count among the
receivers a move must reach); no ceiling or ratio is measured then.
Each figure is printed as `name: value` (targets: `pace p99 ms` < 50 with 1,000 rooms;
`ratio` of full-speed messages to the bare ceiling >= 0.5).
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import gc
import json
import os
import random
import statistics
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

# Run as a script, this file's folder comes first on sys.path and would hide nothing we need,
# but the project root must be importable for the bare server mode.
ROOT = Path(__file__).resolve().parent.parent
if str(ROOT) not in sys.path:
    sys.path.insert(0, str(ROOT))

import msgspec  # noqa: E402
from websockets.asyncio.client import ClientConnection, connect  # noqa: E402
from websockets.exceptions import ConnectionClosed  # noqa: E402

decode = msgspec.json.decode

PLAY_SIZE = len('{"type":"play","tile":"5-3","end":"east"}')


# -- a small JSON Patch applier (add, remove, replace: what the server sends) -----------------


def apply_patch(document: dict[str, Any], operations: list[dict[str, Any]]) -> None:
    """Apply RFC 6902 add/remove/replace operations in place."""
    for operation in operations:
        path = operation["path"]
        if path == "":
            document.clear()
            document.update(operation["value"])
            continue
        tokens = [t.replace("~1", "/").replace("~0", "~") for t in path[1:].split("/")]
        parent: Any = document
        for token in tokens[:-1]:
            parent = parent[int(token)] if isinstance(parent, list) else parent[token]
        last = tokens[-1]
        op = operation["op"]
        if isinstance(parent, list):
            index = len(parent) if last == "-" else int(last)
            if op == "add":
                parent.insert(index, operation["value"])
            elif op == "remove":
                del parent[index]
            else:
                parent[index] = operation["value"]
        elif op == "remove":
            del parent[last]
        else:
            parent[last] = operation["value"]


# -- scripted players ----------------------------------------------------------------------------


class Player:
    """One connection that follows its document and reports patch arrivals to its table."""

    def __init__(self, socket: ClientConnection, table: Table) -> None:
        self.socket = socket
        self.table = table
        self.document: dict[str, Any] = {}
        self.seq = -1
        self.replies: asyncio.Queue[dict[str, Any]] = asyncio.Queue()

    async def read(self) -> None:
        """Apply snapshots and patches; hand other messages to whoever waits for a reply."""
        stats = self.table.stats
        receive = self.socket.recv
        while True:
            try:
                frame = await receive(decode=False)
            except ConnectionClosed:
                return
            message = decode(frame)
            kind = message["type"]
            if kind == "patch":
                apply_patch(self.document, message["ops"])
                self.seq = message["seq"]
                stats.patch_bytes += len(frame)
                stats.patches += 1
                self.table.arrived(self.seq)
            elif kind == "snapshot":
                self.document, self.seq = message["state"], message["seq"]
                self.table.arrived(self.seq)
            else:
                await self.replies.put(message)

    async def request(self, message: dict[str, Any]) -> dict[str, Any]:
        """Send a command and wait for its reply."""
        await self.socket.send(json.dumps(message))
        reply = await self.replies.get()
        if reply["type"] == "error":
            raise RuntimeError(f"{message['type']}: {reply['message']}")
        return reply

    def my_turn(self) -> bool:
        """Whether the held document says this player is to move."""
        game = self.document.get("game")
        return bool(game and game["turn"] == self.document["you"] and game["legal"])


class Stats:
    """What the run measured."""

    def __init__(self) -> None:
        self.delays: list[float] = []
        self.moves = 0
        self.patches = 0
        self.patch_bytes = 0
        self.elapsed = 0.0


class Table:
    """A room with four players and the moves waiting for all four to see them."""

    def __init__(self, stats: Stats, rng: random.Random) -> None:
        self.stats = stats
        self.rng = rng
        self.players: list[Player] = []
        self.waiting_seq = -1
        self.seen = 0
        self.done = asyncio.Event()

    def arrived(self, seq: int) -> None:
        """A player reached `seq`: when the fourth does, the move is complete."""
        if seq >= self.waiting_seq >= 0:
            self.seen += 1
            if self.seen == len(self.players):
                self.done.set()

    async def until_all_reach(self, seq: int) -> None:
        """Wait until every player holds `seq` or later."""
        self.waiting_seq, self.seen = seq, sum(1 for p in self.players if p.seq >= seq)
        self.done.clear()
        if self.seen < len(self.players):
            await self.done.wait()
        self.waiting_seq = -1

    async def move(self) -> None:
        """One move by whoever is to play; records its delay."""
        host = self.players[0]
        if host.document["phase"] != "playing":
            await host.request({"type": "rematch", "id": 1})
            await host.request({"type": "start", "id": 2})
            await self.until_all_reach(max(p.seq for p in self.players))
        mover = next(p for p in self.players if p.my_turn())
        choice = self.rng.choice(mover.document["game"]["legal"])
        play = {"type": "pass"} if choice.get("pass") else {"type": "play", **choice}
        target = mover.seq + 1
        started = time.perf_counter()
        await mover.socket.send(json.dumps(play))
        await self.until_all_reach(target)
        self.stats.delays.append(time.perf_counter() - started)
        self.stats.moves += 1


async def open_table(url: str, stats: Stats, rng: random.Random, spectators: int = 0) -> Table:
    """Create a room, seat four players (and `spectators` watchers), and start."""
    table = Table(stats, rng)
    for index in range(4):
        socket = await connect(url, compression=None, open_timeout=60, max_size=2**20)
        player = Player(socket, table)
        table.players.append(player)
        asyncio.get_running_loop().create_task(player.read())
        await player.request({"type": "hello", "version": 1, "name": f"P{index}"})
        if index == 0:
            rules = {"players": 4, "teams": True, "public": False}
            joined = await player.request({"type": "create_room", "rules": rules})
        else:
            joined = await player.request({"type": "join", "room": joined["room"]})
    for index in range(spectators):
        socket = await connect(url, compression=None, open_timeout=60, max_size=2**20)
        watcher = Player(socket, table)
        table.players.append(watcher)
        asyncio.get_running_loop().create_task(watcher.read())
        await watcher.request({"type": "hello", "version": 1, "name": f"W{index}"})
        await watcher.request({"type": "spectate", "room": joined["room"]})
    await table.players[0].request({"type": "start", "id": 1})
    await table.until_all_reach(max(p.seq for p in table.players))
    return table


async def open_tables(
    url: str, count: int, stats: Stats, seed: int = 0, spectators: int = 0
) -> list[Table]:
    """Open `count` tables, a few at a time."""
    tables: list[Table] = []
    batch = 50
    for first in range(0, count, batch):
        size = min(batch, count - first)
        tables += await asyncio.gather(
            *(
                open_table(url, stats, random.Random(seed + first + i), spectators)
                for i in range(size)
            )
        )
    return tables


async def play(tables: list[Table], seconds: float, interval: float) -> None:
    """Every table moves every `interval` seconds (0: as fast as it can) for `seconds`."""
    stop = time.perf_counter() + seconds

    async def run(table: Table, offset: float) -> None:
        await asyncio.sleep(offset)
        while time.perf_counter() < stop:
            started = time.perf_counter()
            await table.move()
            if interval:
                await asyncio.sleep(max(0.0, interval - (time.perf_counter() - started)))

    await asyncio.gather(*(run(t, interval * i / len(tables)) for i, t in enumerate(tables)))


async def close_tables(tables: list[Table]) -> None:
    """Close every connection."""
    await asyncio.gather(*(p.socket.close() for t in tables for p in t.players))


# -- processes ---------------------------------------------------------------------------------


def start_process(arguments: list[str]) -> tuple[subprocess.Popen[str], str]:
    """Start a server process and read the URL it prints."""
    process = subprocess.Popen(
        [sys.executable, *arguments], cwd=ROOT, stdout=subprocess.PIPE, text=True
    )
    assert process.stdout is not None
    line = process.stdout.readline()
    if "ws://" not in line:
        process.kill()
        raise RuntimeError(f"the server did not start: {line!r}")
    return process, line.split()[-1]


def start_game_server() -> tuple[subprocess.Popen[str], str]:
    """`allfives serve` with limits opened up for one address holding every client."""
    return start_process(
        [
            "-m", "allfives.cli", "serve", "--port", "0", "--bot-delay", "0",
            "--max-connections-per-ip", "100000", "--max-rooms-per-ip", "100000",
            "--max-connections", "100000",
            "--rate", "1000", "--burst", "1000", "--log-level", "WARNING",
        ]
    )  # fmt: skip


def resident_kib(pid: int) -> int:
    """A process's resident memory in KiB."""
    for line in Path(f"/proc/{pid}/status").read_text().splitlines():
        if line.startswith("VmRSS:"):
            return int(line.split()[1])
    return 0


def cpu_seconds(pid: int) -> float:
    """User and system CPU time a process has used."""
    fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


def report_run(
    prefix: str, stats: Stats, elapsed: float, cpu: float, own: float, kib_per_room: float
) -> None:
    """A run's figures: throughput, server and client CPU, delays, memory per room."""
    report(f"{prefix} moves", stats.moves)
    report(f"{prefix} moves/s", stats.moves / elapsed)
    report(f"{prefix} messages/s", stats.patches / elapsed)
    report(f"{prefix} server cpu ms per move", 1000 * cpu / max(1, stats.moves))
    report(f"{prefix} server cpu busy", cpu / elapsed)
    report(f"{prefix} clients cpu busy", own / elapsed)
    report(f"{prefix} p50 ms", 1000 * statistics.median(stats.delays))
    report(f"{prefix} p99 ms", 1000 * percentile(stats.delays, 0.99))
    report(f"{prefix} memory per room KiB", kib_per_room)


def percentile(values: list[float], fraction: float) -> float:
    """The value below which `fraction` of the values lie."""
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(fraction * len(ordered)))]


def report(name: str, value: float | int | str) -> None:
    """Print one figure."""
    shown = f"{value:.2f}" if isinstance(value, float) else str(value)
    print(f"{name}: {shown}", flush=True)


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
        started = time.perf_counter()
        cpu = cpu_seconds(process.pid)
        own = time.process_time()
        await play(tables, seconds, interval)
        cpu = cpu_seconds(process.pid) - cpu
        own = time.process_time() - own
        elapsed = stats.elapsed = time.perf_counter() - started
        grown = resident_kib(process.pid) - base
        report_run(prefix, stats, elapsed, cpu, own, grown / rooms)
        await close_tables(tables)
        return stats
    finally:
        process.terminate()
        process.wait(10)


def quiet_collector() -> None:
    """Keep this (client) process's garbage collector from pausing the measured moves.

    Thousands of client connections make every full collection long; they were all made during
    set-up, so they are frozen out of the collector's way (the server is left as it is).
    """
    gc.collect()
    gc.freeze()


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
                raise RuntimeError(f"a client process did not start: {line!r}")
        report(f"{prefix} rooms", rooms)
        report(f"{prefix} connections", 4 * rooms)
        report(f"{prefix} client processes", count)
        report(f"{prefix} setup seconds", time.perf_counter() - started)
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
        return stats
    finally:
        for child in workers:
            child.wait(30)
        process.terminate()
        process.wait(10)


# -- the bare ceiling ----------------------------------------------------------------------------


def bare_server(size: int) -> None:
    """A bare websockets server: a message from a group's member goes, resized, to all 4 of them."""
    from websockets.asyncio.server import broadcast, serve

    groups: dict[str, set[Any]] = {}
    payload = "x" * size

    async def handler(socket: Any) -> None:
        group = groups.setdefault(socket.request.path, set())
        group.add(socket)
        async for _ in socket:
            broadcast(group, payload)

    async def main() -> None:
        async with serve(handler, "127.0.0.1", 0, compression=None) as server:
            port = next(iter(server.sockets)).getsockname()[1]
            print(f"bare server on ws://127.0.0.1:{port}", flush=True)
            await asyncio.Future()

    asyncio.run(main())


async def ceiling_run(groups: int, seconds: float, size: int) -> float:
    """Messages per second delivered by the bare server with the same pattern as a full-speed room."""
    process, url = start_process([str(Path(__file__).resolve()), "--bare-server", str(size)])
    try:
        sockets = []
        for group in range(groups):
            members = [
                await connect(f"{url}/g{group}", compression=None, max_size=2**20) for _ in range(4)
            ]
            sockets.append(members)
        await asyncio.sleep(0.2)
        delivered = 0
        stop = time.perf_counter() + seconds
        play = "y" * PLAY_SIZE

        async def run(members: list[ClientConnection]) -> None:
            nonlocal delivered
            seen = 0
            done = asyncio.Event()

            async def read(member: ClientConnection) -> None:
                nonlocal seen
                with contextlib.suppress(ConnectionClosed):
                    while True:
                        await member.recv(decode=False)
                        seen += 1
                        if seen == 4:
                            done.set()

            readers = [asyncio.get_running_loop().create_task(read(m)) for m in members]
            turn = 0
            while time.perf_counter() < stop:
                seen = 0
                done.clear()
                await members[turn % 4].send(play)
                await done.wait()
                delivered += 4
                turn += 1
            for reader in readers:
                reader.cancel()

        started = time.perf_counter()
        cpu = cpu_seconds(process.pid)
        await asyncio.gather(*(run(m) for m in sockets))
        elapsed = time.perf_counter() - started
        cpu = cpu_seconds(process.pid) - cpu
        rate = delivered / elapsed
        report("ceiling server cpu ms per move", 1000 * cpu / max(1, delivered / 4))
        report("ceiling server cpu busy", cpu / elapsed)
        await asyncio.gather(*(s.close() for m in sockets for s in m))
        return rate
    finally:
        process.terminate()
        process.wait(10)


async def main(args: argparse.Namespace) -> None:
    if args.mode in ("both", "pace"):
        await game_run(args.rooms, args.seconds, args.interval, "pace", args.client_processes)
    if args.mode in ("both", "full"):
        stats = await game_run(
            args.full_rooms, args.full_seconds, 0.0, "full", spectators=args.spectators
        )
        if args.spectators:
            return  # the ceiling's groups are four players: no ratio with watchers
        size = stats.patch_bytes // max(1, stats.patches)
        ours = stats.patches / stats.elapsed
        ceiling = await ceiling_run(args.full_rooms, args.full_seconds, size)
        report("message size bytes", size)
        report("ceiling messages/s", ceiling)
        report("ratio", ours / ceiling)


if __name__ == "__main__":
    if len(sys.argv) == 3 and sys.argv[1] == "--bare-server":
        bare_server(int(sys.argv[2]))
        sys.exit(0)
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
        "--spectators", type=int, default=0, help="spectators per room at full speed"
    )
    parser.add_argument(
        "--client-processes",
        type=int,
        default=1,
        help="run the human-pace clients in this many processes (when one cannot keep up)",
    )
    asyncio.run(main(parser.parse_args()))
    os._exit(0)
