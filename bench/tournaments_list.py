"""The public tournaments' list (`GET /api/tournaments`): latency of a page with the store full.

A server (in this process, under a temporary `--data` directory, or `--redis URL`) holds
`--tournaments` tournaments (the default is `--max-tournaments`'s, 1000), three in four public,
each with 16 entrants, made through the store as the desk makes them. Then the first page and a
page near the end (`limit=20`) are each asked `--requests` times over fresh HTTP connections.
Prints p50/p99 per page and, for comparison, the time to load and decode every stored
tournament once (what each list request did before the list read one page of an index).

    uv run python bench/tournaments_list.py [--tournaments 1000] [--requests 200] [--redis URL]
"""

from __future__ import annotations

import argparse
import asyncio
import secrets
import sys
import tempfile
import time
from pathlib import Path

# bench/ is first on sys.path when this file runs as a script; the project comes after it.
ROOT = Path(__file__).resolve().parent.parent
if str(ROOT) not in sys.path:
    sys.path.append(str(ROOT))

from api import get, percentile  # noqa: E402
from measure import stop_after  # noqa: E402

from protocol.rules import Rules  # noqa: E402
from server.app import Config, Server, run_server  # noqa: E402
from server.desk.kept import Kept, decode, encode  # noqa: E402
from server.storage.tournaments import Bounds  # noqa: E402
from server.tournaments import state  # noqa: E402


def sixteen(number: int) -> bytes:
    """A stored tournament of 16 entrants, public unless `number` is a multiple of four."""
    command = state.Create(
        name=f"Cup {number}", format="swiss", table_size=2, rules=Rules(players=2), host="h",
        swiss_rounds=5, public=number % 4 != 0,
    )  # fmt: skip
    tournament = state.apply(None, command)
    for entrant in range(16):
        tournament = state.apply(tournament, state.Join(by=f"p{entrant}", name=f"P{entrant}"))
    return encode(Kept(tournament=tournament, host_name="Host"))


async def fill(server: Server, count: int) -> None:
    bounds = Bounds(maker="bench", per_maker=count, most=count, now=time.time())
    for number in range(count):
        code = "".join(secrets.choice("BCDFGHJKLMNPQRSTVWXZ") for _ in range(5))
        state_bytes = sixteen(number)
        await server.store.tournaments.create(code, state_bytes, number % 4 != 0, bounds)


async def every_tournament_loaded(server: Server) -> float:
    """Seconds to load and decode every stored tournament once."""
    began = time.perf_counter()
    tournaments = server.store.tournaments
    for code in await tournaments.codes():
        stored = await tournaments.load(code)
        assert stored is not None
        decode(stored.state)
    return time.perf_counter() - began


async def run(args: argparse.Namespace, data: str) -> None:
    config = Config.of(
        port=0,
        data=None if args.redis else data,
        api_burst=args.requests * 3,
        api_per_second=1000.0,
        max_tournaments=args.tournaments,
    )
    if args.redis:
        from server.storage.redis_store import RedisStore

        prefix = f"bench-tournaments-{secrets.token_hex(4)}:"
        config.store = RedisStore(args.redis, prefix=prefix)
    async with run_server(config) as server:
        await fill(server, args.tournaments)
        public = args.tournaments - (args.tournaments + 3) // 4
        pages = {"first page": "/api/tournaments?limit=20", "a late page": ""}
        pages["a late page"] = f"/api/tournaments?offset={max(0, public - 20)}&limit=20"
        print(f"{args.tournaments} tournaments stored, {public} public, on "
              f"{'Redis' if args.redis else '--data'}")  # fmt: skip
        for name, path in pages.items():
            times = []
            for _ in range(args.requests):
                began = time.perf_counter()
                status, body = await get(server.port, path)
                times.append(time.perf_counter() - began)
                assert status == 200, body
            print(
                f"{name:12s} p50 {percentile(times, 50) * 1000:7.2f} ms"
                f"  p99 {percentile(times, 99) * 1000:7.2f} ms  ({len(body)} bytes)"
            )
        whole = await every_tournament_loaded(server)
        print(f"every stored tournament loaded and decoded once: {whole * 1000:.1f} ms")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--tournaments", type=int, default=1000)
    parser.add_argument("--requests", type=int, default=200)
    parser.add_argument("--redis", help="a Redis URL (default: a temporary --data directory)")
    parser.add_argument("--stop-after", type=float, default=600.0)
    args = parser.parse_args()
    stop_after(args.stop_after, "bench/tournaments_list.py")
    with tempfile.TemporaryDirectory() as data:
        asyncio.run(run(args, data))


if __name__ == "__main__":
    main()
