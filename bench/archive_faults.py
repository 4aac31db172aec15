"""The match archive under faults: every finished match archived once, every rating chain whole.

Starts a redis-server (append-only file, tests/redis_server.py) and two `allfives serve --redis`
processes on loopback (deploy/topology.py's `Server`, each on a port of its own that a restart
keeps, as a supervisor does). R rooms of 2, 3 and 4 players (private, first to `--target`), each
human a scripted player with its own key and its own loopback address, bots in some seats
(bench/archive_players.py). The humans play random legal moves; each room's host asks for the
record of every match that finishes, waits for the room to name its `game_id`, and starts a
rematch. A player whose connection drops comes back with its seat token, to whichever server
answers. Meanwhile
`--faults` faults go off evenly over `--seconds`, in turn: a server SIGKILLed, a server sent
SIGTERM, Redis stalled (SIGSTOP, then SIGCONT after 3 s), a server's process group SIGKILLed,
Redis restarted (its append-only file kept); a killed server is started again after a second.

Then play stops (bots finish their turns), and the archive is read through the HTTP API with
each player's key and checked:

- every finished match a client saw (its id worked out from the room's record, as the server
  does) is in each of its keyed players' `/api/players/NAME/games` exactly once (`missing`,
  `doubled`), with the final scores the client's document showed, and the room named that
  `game_id` (`not named`, `named otherwise`); nothing else is archived;
- each player's rating points (`/api/players/NAME` history, kept in the order the archive wrote
  them) with the games' `changes` form an unbroken chain per ladder from the first rating
  (each `before` the previous `after`), whose last `after` and game count are the player's entry
  on `/api/ladder` (`broken links`, `ladder mismatches`);
- `allfives_games_archived_total`, read from every process (each incarnation, every second and
  before each kill), summed, against the games archived: it may fall short only by games a
  process wrote after its last answer before it was killed; more would count a game twice.

Prints `name: value` lines; exits with status 1 when a check fails. Everything is bounded.

Usage: uv run python bench/archive_faults.py [--rooms 6] [--seconds 120] [--faults 6]
                                             [--target 50] [--seed 0]
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import json
import math
import os
import signal
import sys
import tempfile
import time
import urllib.request
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
# Run as a script, bench/ comes first on sys.path, where engine.py is a benchmark: use the root.
sys.path[0:1] = [str(ROOT), str(ROOT / "tests")]
sys.path.append(str(ROOT / "bench"))  # last: bench's modules, nothing above it hidden

from archive_players import Human, Seen, open_room, seat_humans  # noqa: E402
from load_clients import quiet_collector  # noqa: E402
from measure import percentile, report, stop_after  # noqa: E402
from redis_server import RedisServer  # noqa: E402

from deploy.topology import Server, free_port, get  # noqa: E402
from protocol.api import MAX_HISTORY_POINTS  # noqa: E402
from server.play.ratings import MU, SIGMA  # noqa: E402

FAULTS = (
    "server SIGKILL",
    "server SIGTERM",
    "redis SIGSTOP",
    "server group SIGKILL",
    "redis restart",
)
STALL_SECONDS = 3.0


@dataclass
class Run:
    """What the run started: Redis, the servers (their starts), what each process counted."""

    redis: RedisServer
    servers: list[Server]
    #: allfives_games_archived_total per process incarnation, as last read.
    counted: dict[tuple[int, int], int] = field(default_factory=dict)
    starts: list[int] = field(default_factory=lambda: [0, 0])
    up: list[bool] = field(default_factory=lambda: [False, False])

    def http(self, index: int) -> str:
        return f"http://127.0.0.1:{self.servers[index].port}"


# -- the servers and the faults ----------------------------------------------------------


def server_options(bot_delay: float) -> list[str]:
    """Each server's options: bots quick, the HTTP API open to the checks, little logging."""
    return [
        "--bot-delay", str(bot_delay), "--api-burst", "10000", "--api-per-second", "10000",
        "--rate", "100", "--burst", "100", "--log-level", "WARNING",
    ]  # fmt: skip


async def launch(run: Run, index: int) -> None:
    """Start server `index` on its port (from this thread: it dies with this script)."""
    server = run.servers[index]
    server.launch()
    await asyncio.to_thread(server.wait_listening, time.monotonic() + 60)
    run.starts[index] += 1
    run.up[index] = True


async def read_counts(run: Run, index: int) -> None:
    """Note what server `index` says it archived (allfives_games_archived_total)."""
    if not run.up[index]:
        return
    incarnation = (index, run.starts[index])
    with contextlib.suppress(OSError, ValueError):
        status, page = await asyncio.to_thread(get, run.http(index) + "/metrics", 1.0)
        for line in page.splitlines() if status == 200 else []:
            if line.startswith("allfives_games_archived_total "):
                run.counted[incarnation] = int(float(line.split()[1]))


async def keep_reading_counts(run: Run) -> None:
    while True:
        await asyncio.gather(read_counts(run, 0), read_counts(run, 1))
        await asyncio.sleep(1.0)


async def fault(run: Run, kind: str, index: int) -> None:
    """Put one fault in place and end it (a server started again, Redis running)."""
    redis_pid = run.redis._process.pid if run.redis._process is not None else 0
    if kind.startswith("server"):
        await read_counts(run, index)
        server = run.servers[index]
        run.up[index] = False
        if "group" in kind:
            os.killpg(server.pid, signal.SIGKILL)
        sig = signal.SIGTERM if "SIGTERM" in kind else signal.SIGKILL
        await asyncio.to_thread(server.end, sig)
        await asyncio.sleep(1.0)
        await launch(run, index)
    elif kind == "redis SIGSTOP":
        os.kill(redis_pid, signal.SIGSTOP)
        try:
            await asyncio.sleep(STALL_SECONDS)
        finally:
            os.kill(redis_pid, signal.SIGCONT)
    else:
        await asyncio.to_thread(run.redis.stop)
        await asyncio.to_thread(run.redis.start)


async def inject(run: Run, count: int, seconds: float) -> None:
    """`count` faults evenly over `seconds`, FAULTS in turn, the servers' faults alternating."""
    started = time.monotonic()
    servers = 0
    for number in range(count):
        at = started + seconds * (number + 0.5) / count
        await asyncio.sleep(max(0.0, at - time.monotonic()))
        kind = FAULTS[number % len(FAULTS)]
        index = servers % 2
        took = time.monotonic()
        await fault(run, kind, index)
        where = ""
        if kind.startswith("server"):
            servers += 1
            where = f" (server {index})"
        print(
            f"fault {number + 1}: {kind}{where} at {took - started:.0f} s,"
            f" over in {time.monotonic() - took:.1f} s",
            flush=True,
        )


# -- the checks --------------------------------------------------------------------------


def api(run: Run, path: str, key: str) -> Any:
    """A GET of the HTTP API with a player's key, from whichever server answers."""
    for index in (0, 1, 0, 1):
        request = urllib.request.Request(run.http(index) + path)
        request.add_header("Authorization", f"Key {key}")
        with contextlib.suppress(OSError), urllib.request.urlopen(request, timeout=10) as answer:
            return json.loads(answer.read())
    raise RuntimeError(f"no server answered {path}")


def games_of(run: Run, human: Human) -> list[dict[str, Any]]:
    """Every game in the player's list (with the key), newest first."""
    games: list[dict[str, Any]] = []
    while True:
        page = api(run, f"/api/players/{human.name}/games?offset={len(games)}&limit=50", human.key)
        games += page["games"]
        if not page["games"] or len(games) >= page["total"]:
            return games


def same(a: dict[str, float], b: dict[str, float]) -> bool:
    return all(math.isclose(a[k], b[k], rel_tol=1e-12, abs_tol=1e-12) for k in ("mu", "sigma"))


def chain_faults(
    human: Human, games: list[dict[str, Any]], page: dict[str, Any], ladders: dict[str, Any]
) -> tuple[int, int]:
    """Broken links in the player's rating chain, and mismatches with the ladder's entry."""
    by_id = {game["id"]: game for game in games}
    after: dict[str, dict[str, float]] = {}
    whole = len(page["history"]) < MAX_HISTORY_POINTS  # else the first points are gone
    counted: dict[str, int] = {}
    broken = 0
    for point in page["history"]:
        game = by_id.get(point["game"])
        changes = [c for c in game["changes"] if c["name"] == human.name] if game else []
        if len(changes) != 1:
            broken += 1  # a rating point with no game, or no change, in the player's list
            continue
        change, ladder = changes[0], point["ladder"]
        first = {"mu": MU, "sigma": SIGMA} if whole else change["before"]
        if not same(change["before"], after.get(ladder, first)):
            broken += 1
        if not math.isclose(point["rating"], change["after"]["rating"], abs_tol=1e-12):
            broken += 1
        after[ladder] = change["after"]
        counted[ladder] = counted.get(ladder, 0) + 1
    rated = sum(1 for g in games for c in g["changes"] if c["name"] == human.name)
    if rated != len(page["history"]) and whole:
        broken += abs(rated - len(page["history"]))  # points missing or extra
    mismatched = 0
    for ladder, last in after.items():
        entries = {e["name"]: e for e in ladders[ladder]["entries"]}
        entry = entries.get(human.name)
        if entry is None and ladders[ladder]["total"] > len(entries):  # past the first 100
            entry = next((r for r in page["ratings"] if r["ladder"] == ladder), None)
        games_differ = whole and entry is not None and entry["games"] != counted[ladder]
        if entry is None or not same(entry["rating"], last) or games_differ:
            mismatched += 1
    return broken, mismatched


async def check(run: Run, seen: Seen, tables: list[list[Human]]) -> bool:
    """Read the archive and print the checks; True when every one holds."""
    humans = [human for table in tables for human in table]
    finished = seen.finished
    ends = time.monotonic() + 30
    while True:  # the last matches' archiving may still be under way after a late fault
        lists = await asyncio.gather(*(asyncio.to_thread(games_of, run, h) for h in humans))
        held = {h.name: [g["id"] for g in games] for h, games in zip(humans, lists, strict=True)}
        missing = sum(1 for f in finished.values() if any(f.id not in held[n] for n in f.names))
        if not missing or time.monotonic() > ends:
            break
        await asyncio.sleep(1.0)
    await asyncio.gather(read_counts(run, 0), read_counts(run, 1))
    doubled = sum(1 for f in finished.values() if any(held[n].count(f.id) > 1 for n in f.names))
    summaries = {game["id"]: game for games in lists for game in games}
    other_scores = sum(
        1 for f in finished.values() if f.id in summaries and summaries[f.id]["scores"] != f.scores
    )
    archived = {id for ids in held.values() for id in ids}
    unseen = len(archived - set(finished))
    not_named = sum(1 for f in finished.values() if f.named is None)
    named_otherwise = sum(1 for f in finished.values() if f.named not in (None, f.id))
    ladders = {
        ladder["ladder"]: ladder for ladder in api(run, "/api/ladder", humans[0].key)["ladders"]
    }
    broken = mismatched = points = 0
    for human, games in zip(humans, lists, strict=True):
        page = await asyncio.to_thread(api, run, f"/api/players/{human.name}", human.key)
        links, ladder = chain_faults(human, games, page, ladders)
        broken, mismatched, points = (
            broken + links,
            mismatched + ladder,
            points + len(page["history"]),
        )
    counted = sum(run.counted.values())
    named_after = [f.named_after for f in finished.values() if f.named_after is not None]
    report("finished matches seen by the clients", len(finished))
    report("archived games (in the players' lists)", len(archived))
    report("missing (a finished match not in one of its players' lists)", missing)
    report("doubled (a finished match twice in a player's list)", doubled)
    report("archived but never seen finished", unseen)
    report("archived with other scores than the finish shown", other_scores)
    report("game_id named by the room", len(finished) - not_named)
    report("game_id not named within the wait", not_named)
    report("game_id named otherwise than the record's", named_otherwise)
    if named_after:
        report("game_id named after the finish, median s", percentile(named_after, 0.5))
        report("game_id named after the finish, longest s", max(named_after))
    report("keyed players", len(humans))
    report("rating points checked", points)
    report("broken links in rating chains", broken)
    report("ladder entries not the chain's last", mismatched)
    report("allfives_games_archived_total summed over the processes", counted)
    report(
        "archived games the counters did not see (written after a process's last answer)",
        len(archived) - counted,
    )
    return (
        missing == doubled == unseen == other_scores == not_named == named_otherwise == 0
        and broken == mismatched == 0
        and counted <= len(archived)
        and len(finished) > 0
    )


async def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--rooms", type=int, default=6)
    parser.add_argument("--seconds", type=float, default=120.0)
    parser.add_argument("--faults", type=int, default=6)
    parser.add_argument("--target", type=int, default=50)
    parser.add_argument("--bot-delay", type=float, default=0.05)
    parser.add_argument("--id-wait", type=float, default=15.0, help="seconds for game_id")
    parser.add_argument("--seed", type=int, default=0)
    args = parser.parse_args()
    # Set-up, play and the checks take the run's seconds and a few minutes at most.
    stop_after(args.seconds + 240, "bench/archive_faults.py")
    quiet_collector()
    with tempfile.TemporaryDirectory() as workdir:
        directory = Path(workdir)
        redis = RedisServer(directory / "redis")
        redis.start()
        servers, urls = [], []
        for index in range(2):
            server = Server(index, redis.url, directory, server_options(args.bot_delay))
            port = free_port()  # kept by every restart, as a supervisor does
            server.command[server.command.index("--port") + 1] = str(port)
            servers.append(server)
            urls.append(f"ws://127.0.0.1:{port}/")
        run = Run(redis, servers)
        seen = Seen(urls, args.id_wait)
        try:
            await asyncio.gather(launch(run, 0), launch(run, 1))
            tables = seat_humans(seen, args.rooms, args.seed)
            for index, seated in enumerate(tables):
                await open_room(index, args.target, seated)
            counts = asyncio.get_running_loop().create_task(keep_reading_counts(run))
            players = [asyncio.ensure_future(h.live()) for t in tables for h in t]
            started = time.monotonic()
            await inject(run, args.faults, args.seconds)
            await asyncio.sleep(max(0.0, args.seconds - (time.monotonic() - started)))
            seen.stopping = True
            await asyncio.gather(*players)
            await asyncio.gather(*(h.settle() for t in tables for h in t))
            played = time.monotonic() - started
            for human in (h for t in tables for h in t):
                await human.drop()
            report("rooms", args.rooms)
            report("seconds played", played)
            report("faults", args.faults)
            report("server starts", sum(run.starts))
            report("moves acknowledged", seen.moves)
            report("reconnections", seen.reconnects)
            for code, times in sorted(seen.refused.items()):
                report(f"commands refused {code}", times)
            passed = await check(run, seen, tables)
            counts.cancel()
        finally:
            for server in servers:
                server.end()
            redis.stop()
    report("archive checks", "passed" if passed else "FAILED")
    return 0 if passed else 1


if __name__ == "__main__":
    sys.exit(asyncio.run(main()))
