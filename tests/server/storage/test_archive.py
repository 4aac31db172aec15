"""Every finished match reaches the archive when it finishes: one room, several matches, with
the embedded store and with Redis, and across a server stopped between a match's end and its
archiving."""

from __future__ import annotations

import asyncio
import logging
import random
from collections.abc import AsyncIterator
from pathlib import Path

import pytest
from cluster_helpers import cluster_config
from redis_server import REDIS, FaultProxy, RedisServer
from server_helpers import api_get, fast_config, metrics_of, new_key
from storage_helpers import Held, archived_game, ask
from waiting import until
from ws_client_helpers import Client, live_of, play_out, until_archived, until_holds

from protocol import messages as msg
from server.app import Server, run_server
from server.storage.archive import Archived, Committed, Conflict, Exists, RatingWrite
from server.storage.archive_redis import RedisLedger
from server.storage.redis_store import RedisStore
from server.storage.store import StoreUnavailable

pytestmark = pytest.mark.asyncio

MATCHES = 3


class ArchivesNothingNew(RedisLedger):
    """The ledger of a process that stops before it archives the match that just finished:
    a game it holds already is found (as ever), a new one is never written."""

    async def commit_game(
        self, archived: Archived, writes: list[RatingWrite], now: float
    ) -> Committed | Conflict | Exists:
        held = await self.game(archived.detail.id)
        if held is not None:
            return Exists(held)
        raise StoreUnavailable("this process stops before it archives")


@pytest.fixture(params=["embedded", REDIS])
async def running(request: pytest.FixtureRequest, tmp_path: Path) -> AsyncIterator[Server]:
    """A server with the embedded store (its ledger in a file), or one of several processes on
    real Redis, whose upkeep tends its rooms every half second."""
    if request.param == "embedded":
        async with run_server(fast_config(data=str(tmp_path / "data"))) as server:
            yield server
    else:
        redis: RedisServer = request.getfixturevalue("redis_server")
        async with run_server(cluster_config(redis)) as server:
            yield server


async def play_match(server: Server, client: Client, seed: int) -> None:
    """Start the room's next match and play it out, the server's upkeep forced after every
    move the client sends (as a busy room sees its upkeep's tick between moves)."""
    assert isinstance(await client.request("start"), msg.Ack)
    live = live_of(server, client)
    await play_out(client, random.Random(seed), between=lambda: server.hooks.keep(live, True))


async def games_of(server: Server, name: str, key: str) -> list[dict[str, object]]:
    answer = await api_get(server.url, f"/api/players/{name}/games?limit=20", key)
    assert answer.status == 200, answer.body
    games = answer.json["games"]
    assert answer.json["total"] == len(games)
    return list(games)


async def test_each_match_of_a_room_is_archived_and_rated_when_it_finishes(
    running: Server,
) -> None:
    key = new_key()
    ann = await Client.open(running.url, "Ann", key=key)
    joined = await ann.request("create_room", rules={"players": 2, "target": 50})
    assert isinstance(joined, msg.Joined), joined
    assert isinstance(await ann.request("add_bot", level="easy"), msg.Ack)
    named: list[str] = []
    for match in range(1, MATCHES + 1):
        await play_match(running, ann, seed=match)
        assert ann.document["phase"] == "finished"
        await until_archived(ann)  # the room names the game it archived ...
        await until_holds(ann, lambda d: d.get("ratings") is not None)  # ... and its ratings
        game_id = ann.document["game_id"]
        assert game_id not in named
        named.append(game_id)
        games = await games_of(running, "Ann", key)
        assert [game["id"] for game in games] == named[::-1]  # listed at once, newest first
        detail = await api_get(running.url, f"/api/games/{game_id}", key)
        assert detail.json["changes"] == ann.document["ratings"]
        if match < MATCHES:
            assert isinstance(await ann.request("rematch"), msg.Ack)
            await until_holds(ann, lambda d: d["phase"] == "waiting" and d["game_id"] is None)
    page = await api_get(running.url, "/api/players/Ann")
    (rating,) = page.json["ratings"]
    assert rating["games"] == MATCHES and page.json["games"] == MATCHES
    assert len(page.json["history"]) == MATCHES
    metrics = await metrics_of(running)
    assert metrics["allfives_games_archived_total"] == MATCHES
    await ann.close()


@pytest.mark.redis
async def test_a_later_match_finished_before_a_stop_is_archived_by_the_next_process(
    redis_server: RedisServer,
) -> None:
    """Match 1 is archived; match 2 ends on a process that stops before it archives it (its
    upkeep ticking all along); the next process on the same Redis archives and rates it."""
    key = new_key()
    store = RedisStore(redis_server.url)
    async with run_server(cluster_config(redis_server, store=store)) as first:
        ann = await Client.open(first.url, "Ann", key=key)
        joined = await ann.request("create_room", rules={"players": 2, "target": 50})
        assert isinstance(joined, msg.Joined), joined
        assert isinstance(await ann.request("add_bot", level="easy"), msg.Ack)
        await play_match(first, ann, seed=1)
        await until_archived(ann)
        assert isinstance(await ann.request("rematch"), msg.Ack)
        first.finisher.ledger = ArchivesNothingNew(store)  # from here on: no new game written
        await play_match(first, ann, seed=2)
        assert ann.document["phase"] == "finished"
        assert len(await games_of(first, "Ann", key)) == 1
        await ann.close()
    async with run_server(cluster_config(redis_server)) as second:

        async def archived_twice() -> bool:
            answer = await api_get(second.url, "/api/players/Ann/games", key)
            return answer.status == 200 and answer.json["total"] == 2

        await until(archived_twice, what="the next process archiving the room's second match")
        page = await api_get(second.url, "/api/players/Ann")
        assert [rating["games"] for rating in page.json["ratings"]] == [2]


@pytest.mark.redis
async def test_a_review_the_store_cannot_keep_is_a_warning_and_kept_once_it_answers(
    redis_server: RedisServer, caplog: pytest.LogCaptureFixture
) -> None:
    """A Redis stall while a review is worked out: the answer is the review, the log says why
    it is not kept yet (a warning, no traceback), and the store has it once Redis answers."""
    proxy = FaultProxy(redis_server)
    await proxy.start()
    held = Held()
    store = RedisStore(proxy.url, timeout=0.5)
    try:
        async with run_server(fast_config(store=store, review_budget_ms=2.0)) as server:
            server.reviews.compute = held
            game = await archived_game(server, "Ann", new_key())
            with caplog.at_level(logging.WARNING, logger="allfives.server"):
                answer = asyncio.create_task(ask(server, game))
                await until(lambda: held.started.is_set())
                proxy.hold_requests = True  # Redis stops answering while the review is worked
                held.release.set()
                reviewed = await answer
                assert reviewed.status == 200
                await until(lambda: bool(server.reviews.unkept), what="the review not kept yet")
                proxy.release()
                await until(lambda: not server.reviews.unkept, what="the review kept")
            kept = await RedisStore(redis_server.url).load_record(f"review/{game}")
            assert kept is not None
            errors = [r for r in caplog.records if r.levelno >= logging.ERROR]
            assert errors == [], [r.getMessage() for r in errors]
            warned = [r.getMessage() for r in caplog.records if "review" in r.getMessage()]
            assert any("not kept with the game yet" in line for line in warned), warned
            assert all(r.exc_info is None for r in caplog.records)
    finally:
        proxy.release()
        await proxy.close()
