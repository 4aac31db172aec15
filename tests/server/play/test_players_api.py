"""Players, ratings, the archive and the HTTP API against a real server (embedded and Redis)."""

from __future__ import annotations

import asyncio
import json
import urllib.parse
from pathlib import Path

import msgspec
import pytest
from cluster_helpers import cluster_config, two_servers
from redis_server import REDIS, RedisServer
from server_helpers import api_get, fast_config, new_key, samples_of
from waiting import until
from ws_client_helpers import Client, finish_match, play_together, until_archived, until_holds

from bridge.positions import positions_of
from protocol import errors
from protocol import messages as msg
from protocol.positions import Position
from server.app import Server, run_server
from server.storage.archive import Archived, Committed, Conflict, Exists, RatingWrite
from server.storage.archive_redis import RedisLedger
from server.storage.redis_store import RedisStore
from server.storage.store import StoreUnavailable

pytestmark = pytest.mark.asyncio


async def test_a_finished_match_is_rated_archived_and_answered(running: Server) -> None:
    key = new_key()
    client = await finish_match(running.url, "Ann", key, bot="hard")
    await until_holds(client, lambda d: d.get("ratings") is not None)
    ratings = client.document["ratings"]
    held = json.dumps(client.document, sort_keys=True)
    snapshot = await client.request("resync")
    assert isinstance(snapshot, msg.Snapshot)
    assert json.dumps(client.document, sort_keys=True) == held  # the patches built the same
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
    assert client.document["game_id"] == summary["id"]  # the room names its archived game
    game = await api_get(running.url, f"/api/games/{summary['id']}")
    assert game.status == 200
    assert game.json["record"]["format"] == "allfives-record/1"
    assert game.json["changes"] == ratings
    for answer in (ladder, page, mine, games, game):
        assert key.encode() not in answer.body
    metrics = samples_of((await api_get(running.url, "/metrics")).body.decode())
    assert metrics["allfives_games_archived_total"] == 1
    await client.close()


async def test_an_unrated_match_still_names_its_archived_game(running: Server) -> None:
    guest = await finish_match(running.url, "Gus", None, public=True)
    await until_holds(guest, lambda d: d.get("game_id") is not None)
    assert guest.document["ratings"] is None  # a guest's match is not rated
    game = await api_get(running.url, f"/api/games/{guest.document['game_id']}")
    assert game.status == 200 and game.json["changes"] == []
    assert isinstance(await guest.request("rematch"), msg.Ack)
    await until_holds(guest, lambda d: d["phase"] == "waiting")
    assert guest.document["game_id"] is None  # the document names the match it shows
    await guest.close()


async def test_a_name_belongs_to_the_first_key(running: Server) -> None:
    first = await Client.open(running.url, "Bea", key=new_key())
    other = await Client.open(running.url, "x", hello=False)
    refused = await other.error_for(
        "hello", version=msg.PROTOCOL_VERSION, name="bea", key=new_key()
    )
    assert refused.code == errors.NAME_TAKEN
    guest = await other.error_for("hello", version=msg.PROTOCOL_VERSION, name="BEA ")
    assert guest.code == errors.NAME_TAKEN
    welcome = await other.request("hello", version=msg.PROTOCOL_VERSION, name="Cid")
    assert isinstance(welcome, msg.Welcome) and welcome.player is None
    for client in (first, other):
        await client.close()


async def test_a_private_rooms_game_is_its_players_alone(running: Server) -> None:
    key = new_key()
    ann = await finish_match(running.url, "Ann", key, public=False)
    await until_archived(ann)
    assert ann.document["ratings"] is None  # a private room's match is unrated by default
    mine = await api_get(running.url, "/api/players/Ann/games", key)
    (game,) = mine.json["games"]
    assert game["private"]
    shown = await api_get(running.url, f"/api/games/{game['id']}", key)
    assert shown.status == 200 and shown.json["id"] == game["id"]
    missing = await api_get(running.url, "/api/games/no-such-game")
    assert missing.status == 404 and missing.json["error"] == "not_found"
    other = new_key()
    await (await Client.open(running.url, "Stranger", key=other)).close()
    for asker in (None, other, new_key()):
        refused = await api_get(running.url, f"/api/games/{game['id']}", asker)
        assert (refused.status, refused.body) == (missing.status, missing.body)
        hidden = await api_get(running.url, f"/api/games/{game['id']}/positions", asker)
        assert (hidden.status, hidden.body) == (missing.status, missing.body)
        listed = await api_get(running.url, "/api/players/Ann/games", asker)
        assert listed.json["total"] == 0 and listed.json["games"] == []
        page = await api_get(running.url, "/api/players/Ann", asker)
        assert page.json["games"] == 0 and page.json["history"] == []
    # The bot's page does not show it either.
    bot = await api_get(running.url, "/api/players/bot:easy/games")
    assert bot.json["total"] == 0
    await ann.close()


async def test_a_games_replay_positions_and_each_seats_side_come_from_the_server(
    running: Server,
) -> None:
    ann = await finish_match(running.url, "Ann", new_key(), players=4, target=40)
    await until_archived(ann)
    assert ann.document["sides"] == [0, 1, 0, 1]  # the room says each seat's team
    reply = await ann.request("record")
    assert isinstance(reply, msg.RecordReply)
    record = reply.record
    # The room's record comes with the engine's positions of it, and so does the game's API.
    assert reply.positions == positions_of(record)
    game_id = ann.document["game_id"]
    game = await api_get(running.url, f"/api/games/{game_id}")
    assert [player["side"] for player in game.json["players"]] == [0, 1, 0, 1]
    listed = await api_get(running.url, "/api/players/Ann/games")
    assert [player["side"] for player in listed.json["games"][0]["players"]] == [0, 1, 0, 1]
    answer = await api_get(running.url, f"/api/games/{game_id}/positions")
    assert answer.status == 200 and answer.json["id"] == game_id
    positions = msgspec.convert(answer.json["positions"], list[Position])
    assert positions == reply.positions
    results = [position for position in positions if position.kind == "hand_ended"]
    assert len(results) == len(record.hands) and results[-1].scores == record.scores
    # A position shows the record's tiles and no other: each seat's, as dealt and drawn.
    for position in positions:
        hand = record.hands[position.hand - 1]
        tiles = {tile for seat in position.tiles for tile in seat}
        assert tiles <= {tile for seat in hand.deal for tile in seat} | set(hand.boneyard)
    missing = await api_get(running.url, "/api/games/no-such-game/positions")
    assert missing.status == 404 and missing.json["error"] == "not_found"
    await ann.close()


#: What a stranger may read about Ann, Bořek and the hard bot.
STRANGERS_PATHS = [
    "/api/ladder",
    *(
        f"/api/players/{urllib.parse.quote(name)}{tail}"
        for name in ("Ann", "Bořek", "bot:hard")
        for tail in ("", "/games")
    ),
]


async def test_a_private_unrated_match_leaves_no_trace_for_strangers(running: Server) -> None:
    ann_key, borek_key, stranger_key = new_key(), new_key(), new_key()
    ann = await Client.open(running.url, "Ann", key=ann_key)
    borek = await Client.open(running.url, "Bořek", key=borek_key)
    await (await Client.open(running.url, "Stranger", key=stranger_key)).close()
    askers = (None, stranger_key)
    before = [(await api_get(running.url, path)).body for path in STRANGERS_PATHS]

    joined = await ann.request("create_room", rules={"players": 3, "target": 5, "public": False})
    assert isinstance(joined, msg.Joined)
    assert isinstance(await borek.request("join", room=ann.room), msg.Joined)
    assert isinstance(await ann.request("add_bot", level="hard"), msg.Ack)
    assert ann.document["rules"]["rated"] is False  # a private room is unrated unless asked
    ids = []
    for match in range(2):
        if match:
            assert isinstance(await ann.request("rematch"), msg.Ack)
        assert isinstance(await ann.request("start"), msg.Ack)
        for client in (ann, borek):
            await until_holds(client, lambda d: d["phase"] == "playing")
        await play_together([ann, borek], seed=match * 10)
        for client in (ann, borek):
            await until_archived(client)
            assert client.document["ratings"] is None  # no rating moved
        ids.append(ann.document["game_id"])

    after = [(await api_get(running.url, path)).body for path in STRANGERS_PATHS]
    assert after == before  # the ladder, the pages, the lists: byte for byte as before
    missing = await api_get(running.url, "/api/games/no-such-game")
    for asker in askers:
        for id in ids:
            refused = await api_get(running.url, f"/api/games/{id}", asker)
            assert (refused.status, refused.body) == (missing.status, missing.body)
    # Ann herself has both games, and her page agrees with itself: two games, none rated.
    mine = (await api_get(running.url, "/api/players/Ann", ann_key)).json
    listed = (await api_get(running.url, "/api/players/Ann/games", ann_key)).json
    assert mine["games"] == listed["total"] == 2
    assert sorted(game["id"] for game in listed["games"]) == sorted(ids)
    assert mine["ratings"] == [] and mine["history"] == []
    assert all(game["private"] and game["ladder"] is None for game in listed["games"])
    for client in (ann, borek):
        await client.close()


async def test_a_rated_private_room_is_public_and_every_count_agrees(running: Server) -> None:
    key = new_key()
    rated = await finish_match(running.url, "Ann", key, public=False, rated=True)
    assert rated.document["rules"]["rated"] is True
    await until_holds(rated, lambda d: d.get("ratings") is not None)
    casual = await finish_match(running.url, "Ann", key, seed=2, public=False)
    await until_archived(casual)
    for asker, games in ((key, 2), (None, 1), (new_key(), 1)):
        page = (await api_get(running.url, "/api/players/Ann", asker)).json
        listed = (await api_get(running.url, "/api/players/Ann/games", asker)).json
        assert page["games"] == listed["total"] == len(listed["games"]) == games
        on_ladder = [game for game in listed["games"] if game["ladder"] is not None]
        assert sum(rating["games"] for rating in page["ratings"]) == len(on_ladder) == 1
        assert len(page["history"]) == 1
        (shown,) = on_ladder
        assert not shown["private"]  # its result is on the ladder: its game is no secret
        assert (await api_get(running.url, f"/api/games/{shown['id']}", asker)).status == 200
    ladder = (await api_get(running.url, "/api/ladder")).json["ladders"][0]
    assert [entry["games"] for entry in ladder["entries"] if entry["name"] == "Ann"] == [1]
    for client in (rated, casual):
        await client.close()


async def test_a_farm_loop_of_throwaway_keys_does_not_climb_the_ladder(running: Server) -> None:
    # A main key beats fresh keys in public rooms to 5, one after another: each match counts
    # as a game, and the main key's rating stays where it started (docs/ratings.md). Eight, as
    # one address makes ten new keys at once; tests/server/play/test_rating_weights.py loops 60 times.
    main_key = new_key()
    main = await Client.open(running.url, "Main", key=main_key)
    matches = 8
    for index in range(matches):
        joined = await main.request("create_room", rules={"players": 2, "target": 5})
        assert isinstance(joined, msg.Joined)
        throwaway = await Client.open(running.url, f"Throwaway{index}", key=new_key())
        assert isinstance(await throwaway.request("join", room=main.room), msg.Joined)
        assert isinstance(await main.request("start"), msg.Ack)
        for client in (main, throwaway):
            await until_holds(client, lambda d: d["phase"] == "playing")
        await play_together([main, throwaway], seed=index)
        await until_holds(main, lambda d: d.get("ratings") is not None)
        for change in main.document["ratings"]:
            # A provisional player at the table: nothing counted, and the change says so.
            assert change["after"] == change["before"] and change["counted"] == 0
        await throwaway.close()
        assert isinstance(await main.request("leave"), msg.Ack)
    page = (await api_get(running.url, "/api/players/Main")).json
    ((two,),) = ([rating for rating in page["ratings"] if rating["ladder"] == "2p"],)
    assert two["games"] == matches and two["rating"]["rating"] == 0.0
    assert two["provisional"]  # 8 matches to 5 are far from 5 whole ones
    ladder = (await api_get(running.url, "/api/ladder")).json["ladders"][0]["entries"]
    assert {entry["name"]: entry["provisional"] for entry in ladder}["Main"]
    assert not any(entry["provisional"] for entry in ladder if entry["bot"])
    await main.close()


async def test_pages_are_bounded_and_bad_requests_refused(running: Server) -> None:
    key = new_key()
    for seed in range(3):
        client = await finish_match(running.url, "Ann", key, seed=seed)
        await until_holds(client, lambda d: d.get("ratings") is not None)
        await client.close()
    first = await api_get(running.url, "/api/players/Ann/games?limit=2")
    assert first.json["total"] == 3 and len(first.json["games"]) == 2
    rest = await api_get(running.url, "/api/players/Ann/games?offset=2&limit=2")
    assert len(rest.json["games"]) == 1
    ids = [g["id"] for g in first.json["games"] + rest.json["games"]]
    assert len(set(ids)) == 3
    times = [g["finished_at"] for g in first.json["games"] + rest.json["games"]]
    assert times == sorted(times, reverse=True)
    history = (await api_get(running.url, "/api/players/Ann")).json["history"]
    assert [point["game"] for point in history] == ids[::-1]
    for path in (
        "/api/players/Ann/games?limit=51",
        "/api/players/Ann/games?offset=-1",
        "/api/players/Ann/games?limit=x",
        "/api/players/" + "A" * 30,
        "/api/players/%FF",
    ):
        refused = await api_get(running.url, path)
        assert refused.status == 400 and refused.json["error"] == "bad_request", path
    for path in ("/api/players/Nobody", "/api/players/Nobody/games", "/api/nothing"):
        assert (await api_get(running.url, path)).status == 404, path
    bad_key = await api_get(running.url, "/api/ladder", "short")
    assert bad_key.status == 400


async def test_the_api_is_rate_limited_per_address(tmp_path: Path) -> None:
    config = fast_config(data=str(tmp_path), api_burst=5, api_per_second=0.01)
    async with run_server(config) as server:
        answers = [await api_get(server.url, "/api/ladder") for _ in range(7)]
        assert [a.status for a in answers] == [200] * 5 + [429] * 2
        assert answers[-1].json["error"] == "rate_limited"
        assert int(answers[-1].headers["retry-after"]) >= 1


@pytest.mark.parametrize("kind", ["embedded", REDIS])
async def test_a_restart_keeps_the_ladder_and_the_history(
    kind: str, tmp_path: Path, request: pytest.FixtureRequest
) -> None:
    key = new_key()
    if kind == "embedded":
        configs = [fast_config(data=str(tmp_path / "data")) for _ in range(2)]
    else:
        redis: RedisServer = request.getfixturevalue("redis_server")
        configs = [fast_config(store=RedisStore(redis.url)) for _ in range(2)]
    async with run_server(configs[0]) as first:
        ann = await finish_match(first.url, "Ann", key, bot="normal")
        await until_holds(ann, lambda d: d.get("ratings") is not None)
        before = [
            (await api_get(first.url, path)).json
            for path in ("/api/ladder", "/api/players/Ann", "/api/players/Ann/games")
        ]
        await ann.close()
    async with run_server(configs[1]) as second:
        after = [
            (await api_get(second.url, path)).json
            for path in ("/api/ladder", "/api/players/Ann", "/api/players/Ann/games")
        ]
        assert after == before
        assert after[1]["games"] == 1
        (game,) = after[2]["games"]
        detail = await api_get(second.url, f"/api/games/{game['id']}")
        assert detail.status == 200
        back = await Client.open(second.url, "Other name", key=key)
        await back.close()


@pytest.mark.redis
async def test_matches_finishing_at_once_on_two_processes_all_count(
    redis_server: RedisServer,
) -> None:
    async with two_servers(redis_server) as (a, b):
        keys = [new_key() for _ in range(6)]

        async def one(index: int) -> None:
            server = (a, b)[index % 2]
            client = await finish_match(server.url, f"P{index}", keys[index], seed=index)
            await until_holds(client, lambda d: d.get("ratings") is not None)
            await client.close()

        await asyncio.gather(*(one(index) for index in range(6)))
        bot = (await api_get(a.url, "/api/players/bot:easy")).json
        (two,) = [rating for rating in bot["ratings"] if rating["ladder"] == "2p"]
        assert two["games"] == 6 and bot["games"] == 6
        assert len(bot["history"]) == 6
        assert (await api_get(b.url, "/api/players/bot:easy/games")).json["total"] == 6


class NeverArchives(RedisLedger):
    """The ledger of a process that dies before it archives: every archive write fails."""

    async def commit_game(
        self, archived: Archived, writes: list[RatingWrite], now: float
    ) -> Committed | Conflict | Exists:
        raise StoreUnavailable("this process stops before it archives")


@pytest.mark.redis
async def test_a_match_finished_by_a_process_that_stopped_is_archived_by_the_next(
    redis_server: RedisServer,
) -> None:
    store = RedisStore(redis_server.url)
    config = cluster_config(redis_server, store=store, ledger=NeverArchives(store))
    key = new_key()
    async with run_server(config) as first:
        ann = await finish_match(first.url, "Ann", key)
        assert ann.document["phase"] == "finished"
        await ann.close()
        assert (await api_get(first.url, "/api/players/bot:easy/games")).json["total"] == 0
    async with run_server(cluster_config(redis_server)) as second:

        async def archived() -> bool:
            games = await api_get(second.url, "/api/players/Ann/games", key)
            return games.status == 200 and games.json["total"] == 1

        await until(archived, what="the next process archiving the finished match")
        page = await api_get(second.url, "/api/players/Ann")
        assert [rating["games"] for rating in page.json["ratings"]] == [1]
