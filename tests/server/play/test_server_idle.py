"""A connected player who stops moving cannot freeze a match (a room without a turn clock):
the room's `deadline` for their turn is the idle bound, then the stand-in takes the seat, the
match ends, and it is archived and rated as docs/ratings.md says; `back` gives the seat back."""

from __future__ import annotations

import time
from collections.abc import AsyncIterator
from pathlib import Path

import pytest
from redis_server import REDIS, RedisServer
from server_helpers import api_get, fast_config, new_key
from ws_client_helpers import Client, until_archived, until_holds

from protocol import messages as msg
from server.app import Server, run_server
from server.storage.redis_store import RedisStore

pytestmark = pytest.mark.asyncio

IDLE = 0.5


@pytest.fixture(params=["embedded", REDIS])
async def idle_server(request: pytest.FixtureRequest, tmp_path: Path) -> AsyncIterator[Server]:
    """A server whose idle bound is short, on each store."""
    store = None
    if request.param == "redis":
        redis: RedisServer = request.getfixturevalue("redis_server")
        store = RedisStore(redis.url)
    config = fast_config(idle_seconds=IDLE, data=str(tmp_path / "data"), store=store)
    async with run_server(config) as server:
        yield server


async def idler_against(url: str, key: str, bot: str = "easy", target: int = 5) -> Client:
    """A player with a key, alone with a bot in a started two-player match (to 5)."""
    client = await Client.open(url, "Idler", key=key)
    joined = await client.request("create_room", rules={"players": 2, "target": target})
    assert isinstance(joined, msg.Joined), joined
    assert isinstance(await client.request("add_bot", level=bot), msg.Ack)
    assert isinstance(await client.request("start"), msg.Ack)
    return client


async def test_an_idle_player_is_replaced_and_the_abandoned_match_ends_and_counts(
    idle_server: Server,
) -> None:
    before = time.time()
    # To 50: a first move never ends the match before the idler's first turn (to 5 it could).
    client = await idler_against(idle_server.url, new_key(), target=50)
    await until_holds(client, lambda d: d["phase"] == "playing" and d["game"]["turn"] == 0)
    # The turn says when the stand-in takes over: the idle bound from the turn's start.
    seat = client.document["seats"][0]
    assert seat["connected"] and not seat["stand_in"]
    assert before + IDLE <= client.document["deadline"] <= time.time() + IDLE
    # The player never moves: the stand-in takes the seat (still connected) and plays on.
    await until_holds(client, lambda d: d["seats"][0]["stand_in"])
    assert client.document["seats"][0]["connected"]
    await until_holds(client, lambda d: d["phase"] == "finished", timeout=60)
    await until_archived(client)
    assert client.document["seats"][0]["stand_in_moves"] > 0
    # Counted: archived on the player's games, and rated on the two-player ladder.
    games = (await api_get(idle_server.url, "/api/players/Idler/games")).json
    assert games["total"] == 1 and games["games"][0]["ladder"] == "2p"
    player = (await api_get(idle_server.url, "/api/players/Idler")).json
    assert player["games"] == 1
    await client.close()


async def test_back_takes_the_seat_back_from_the_idle_stand_in() -> None:
    # Bots slow enough that the match is still on when the player comes back.
    async with run_server(fast_config(idle_seconds=IDLE, bot_delay=0.2)) as server:
        client = await idler_against(server.url, new_key(), target=150)
        await until_holds(client, lambda d: d["seats"][0]["stand_in"])
        assert isinstance(await client.request("back"), msg.Ack)
        await until_holds(client, lambda d: not d["seats"][0]["stand_in"])
        assert client.document["phase"] == "playing"
        # No stand-in plays for the player now: `back` again is refused.
        refused = await client.error_for("back")
        assert refused.code == "invalid", refused
        await client.close()
