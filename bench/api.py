"""The HTTP API and the archive: latency of each route under the rate limit, bytes per match.

A server (in this process, the embedded ledger in a temporary `--data` directory, or `--redis
URL`) gets `--matches` finished matches: a player with a key against an easy bot, two players
and partnerships, moving the first legal move. Then each route (`/api/ladder`,
`/api/players/NAME`, `.../games`, `/api/games/ID`) is asked `--requests` times, paced just under
the server's per-address limit (`--api-per-second`, given to the server), over fresh HTTP
connections. Prints p50/p99 per route, requests refused (must be 0 under the limit), and the
archive's bytes per match (the archived game as stored, record included). Ends by itself
(status 3) past `--stop-after` seconds.

    uv run python bench/api.py [--matches 12] [--requests 200] [--api-per-second 50] [--redis URL]
"""

from __future__ import annotations

import argparse
import asyncio
import base64
import secrets
import sys
import tempfile
import time
from pathlib import Path

# bench/ is first on sys.path when this file runs as a script; the project comes after it.
ROOT = Path(__file__).resolve().parent.parent
if str(ROOT) not in sys.path:
    sys.path.append(str(ROOT))

import msgspec  # noqa: E402
from measure import stop_after  # noqa: E402
from scripted import Player  # noqa: E402
from websockets.asyncio.client import connect  # noqa: E402

from protocol import messages as msg  # noqa: E402
from server.app import Config, Server, run_server  # noqa: E402
from server.storage.archive import Archived  # noqa: E402

_encoder = msgspec.json.Encoder()


async def one_match(url: str, name: str, key: str, players: int) -> None:
    """`name` plays a match against easy bots to its end, and until it is rated."""
    player = Player(await connect(url))
    await player.request("hello", version=msg.PROTOCOL_VERSION, name=name, key=key)
    await player.request("create_room", rules={"players": players})
    for _ in range(players - 1):
        await player.request("add_bot", level="easy")
    await player.request("start")
    while True:
        document = player.state.document
        if document is not None and document["phase"] == "finished" and document["ratings"]:
            break
        game = document["game"] if document else None
        if game and document and game["turn"] == document["you"] and game["legal"]:
            choice = game["legal"][0]
            if choice.get("pass"):
                reply = await player.request("pass")
            else:
                reply = await player.request("play", tile=choice["tile"], end=choice.get("end"))
            if isinstance(reply, msg.Error):
                raise RuntimeError(f"the server refused a move: {reply.code}: {reply.message}")
        else:
            await player.receive()
    await player.socket.close()


async def get(port: int, path: str) -> tuple[int, bytes]:
    """One GET on a fresh connection: the status and the body."""
    reader, writer = await asyncio.open_connection("127.0.0.1", port)
    writer.write(
        f"GET {path} HTTP/1.1\r\nHost: 127.0.0.1:{port}\r\nConnection: close\r\n\r\n".encode()
    )
    data = await reader.read()
    writer.close()
    head, _, body = data.partition(b"\r\n\r\n")
    return int(head.split(b" ", 2)[1]), body


def percentile(values: list[float], q: float) -> float:
    ordered = sorted(values)
    return ordered[max(0, int(-(-len(ordered) * q // 100)) - 1)]


async def archive_bytes(server: Server, ids: list[str]) -> list[int]:
    sizes = []
    for id in ids:
        found: Archived | None = await server.ledger.game(id)
        if found is not None:
            sizes.append(len(_encoder.encode(found)))
    return sizes


async def run(args: argparse.Namespace, data: str) -> None:
    config = Config.of(
        port=0,
        bot_delay=0.0,
        bot_processes=False,
        rate=1000.0,
        burst=1000,
        data=None if args.redis else data,
        api_burst=int(args.api_per_second),
        api_per_second=args.api_per_second,
        max_rooms_per_ip=args.matches + 4,
        rooms_burst=args.matches + 4,
    )
    if args.redis:
        from server.storage.redis_store import RedisStore

        config.store = RedisStore(args.redis, prefix=f"bench-api-{secrets.token_hex(4)}:")
    async with run_server(config) as server:
        began = time.perf_counter()
        key = base64.urlsafe_b64encode(secrets.token_bytes(32)).rstrip(b"=").decode()
        for index in range(args.matches):
            await one_match(server.url, "Ann", key, (2, 3, 4)[index % 3])
        played = time.perf_counter() - began
        port = server.port
        status, body = await get(port, "/api/players/Ann/games?limit=50")
        games = msgspec.json.decode(body)["games"]
        ids = [game["id"] for game in games]
        routes = {
            "ladder": "/api/ladder",
            "player": "/api/players/Ann",
            "games": "/api/players/Ann/games?limit=20",
            "game": f"/api/games/{ids[0]}",
        }
        await asyncio.sleep(2.0)  # the bucket refills after the requests above
        gap = 1.0 / (args.api_per_second * 0.8)
        for route, path in routes.items():
            times: list[float] = []
            refused = 0
            for _ in range(args.requests):
                started = time.perf_counter()
                status, _ = await get(port, path)
                spent = time.perf_counter() - started
                if status == 200:
                    times.append(spent)
                else:
                    refused += 1
                await asyncio.sleep(max(0.0, gap - spent))
            print(
                f"api {route}: p50 {percentile(times, 50) * 1000:.2f} ms, "
                f"p99 {percentile(times, 99) * 1000:.2f} ms, "
                f"{len(times)} answered, {refused} refused"
            )
        sizes = await archive_bytes(server, ids)
        print(f"store: {'redis' if args.redis else 'embedded (SQLite file)'}")
        print(f"matches: {args.matches} played in {played:.1f} s (2p, 3p, partnerships in turn)")
        print(
            f"archive bytes per match: mean {sum(sizes) / len(sizes):.0f}, "
            f"min {min(sizes)}, max {max(sizes)}"
        )


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--matches", type=int, default=12)
    parser.add_argument("--requests", type=int, default=200, help="requests per route")
    parser.add_argument("--api-per-second", type=float, default=50.0)
    parser.add_argument("--redis", default=None, help="a redis:// URL (default: embedded)")
    parser.add_argument("--stop-after", type=float, default=600.0)
    args = parser.parse_args()
    stop_after(args.stop_after, "bench/api.py")
    with tempfile.TemporaryDirectory() as data:
        asyncio.run(run(args, data))


if __name__ == "__main__":
    main()
