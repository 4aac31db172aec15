"""Players, ratings, the archive and the HTTP API against a real server (embedded and Redis)."""

from __future__ import annotations

from collections.abc import AsyncIterator
from pathlib import Path

import pytest
from redis_server import RedisServer
from server_helpers import Client, api_get, fast_config, finish_match, new_key, until_holds

from protocol import errors
from protocol import messages as msg
from server.app import Server, run_server
from server.storage.redis_store import RedisStore

pytestmark = pytest.mark.asyncio


@pytest.fixture(params=["embedded", "redis"])
async def running(request: pytest.FixtureRequest, tmp_path: Path) -> AsyncIterator[Server]:
    """A server with the embedded store (its ledger in a file) or with real Redis."""
    if request.param == "embedded":
        config = fast_config(data=str(tmp_path / "data"))
        async with run_server(config) as server:
            yield server
    else:
        redis: RedisServer = request.getfixturevalue("redis_server")
        async with run_server(fast_config(store=RedisStore(redis.url))) as server:
            yield server


async def test_a_finished_match_is_rated_archived_and_answered(running: Server) -> None:
    key = new_key()
    client = await finish_match(running.url, "Ann", key, bot="hard")
    await until_holds(client, lambda d: d.get("ratings") is not None)
    ratings = client.document["ratings"]
    assert {change["name"] for change in ratings} == {"Ann", "bot:hard"}
    assert all(change["ladder"] == "2p" for change in ratings)

    ladder = await api_get(running.url, "/api/ladder")
    assert ladder.status == 200 and ladder.headers["content-type"] == "application/json"
    assert "content-security-policy" in ladder.headers
    two = ladder.json["ladders"][0]
    assert two["ladder"] == "2p"
    names = [entry["name"] for entry in two["entries"]]
    assert set(names) == {"Ann", "bot:easy", "bot:normal", "bot:hard"}

    page = await api_get(running.url, "/api/players/ann")
    assert page.status == 200
    assert page.json["name"] == "Ann" and page.json["games"] == 1 and not page.json["you"]
    assert [point["ladder"] for point in page.json["history"]] == ["2p"]
    mine = await api_get(running.url, "/api/players/Ann", key)
    assert mine.json["you"]

    games = await api_get(running.url, "/api/players/Ann/games?limit=5")
    assert games.status == 200 and games.json["total"] == 1
    (summary,) = games.json["games"]
    game = await api_get(running.url, f"/api/games/{summary['id']}")
    assert game.status == 200
    assert game.json["record"]["format"] == "allfives-record/1"
    assert game.json["changes"] == ratings
    for answer in (ladder, page, mine, games, game):
        assert key.encode() not in answer.body
    await client.close()


async def test_a_name_belongs_to_the_first_key(running: Server) -> None:
    first = await Client.open(running.url, "Bea", key=new_key())
    other = await Client.open(running.url, "x", hello=False)
    refused = await other.error_for("hello", version=1, name="bea", key=new_key())
    assert refused.code == errors.NAME_TAKEN
    guest = await other.error_for("hello", version=1, name="BEA ")
    assert guest.code == errors.NAME_TAKEN
    welcome = await other.request("hello", version=1, name="Cid")
    assert isinstance(welcome, msg.Welcome) and welcome.player is None
    for client in (first, other):
        await client.close()
