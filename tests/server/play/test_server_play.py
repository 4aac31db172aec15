"""Whole matches through a real server: scripted humans choosing from `legal`, bots, spectators."""

from __future__ import annotations

import asyncio
import json
import random
from collections.abc import AsyncIterator
from typing import Any

import msgspec
import pytest
from server_helpers import fast_config
from ws_client_helpers import (
    Client,
    References,
    caught_up,
    check_against,
    next_mover,
    play_out,
    play_out_one,
    seat_players,
    until_archived,
    until_someone_to_play,
)

from bridge.records import match_of
from protocol import messages as msg
from server.app import Server, run_server


@pytest.fixture
async def server() -> AsyncIterator[Server]:
    """A running server on an ephemeral port."""
    async with run_server(fast_config()) as running:
        yield running


async def finish_and_check(clients: list[Client], seed: int) -> None:
    """Play the match out, then check each client's state against a fresh snapshot and the record."""
    await asyncio.gather(*(play_out(c, random.Random(seed + i)) for i, c in enumerate(clients)))
    for client in clients:
        await until_archived(client)  # the archive's change comes after the match's end
        held, seq = json.dumps(client.document, sort_keys=True), client.state.seq
        snapshot = await client.request("resync")
        assert isinstance(snapshot, msg.Snapshot) and snapshot.seq == seq
        assert json.dumps(client.document, sort_keys=True) == held
    host = clients[0]
    record = await host.request("record")
    assert isinstance(record, msg.RecordReply)
    replayed = match_of(record.record)
    game = host.document["game"]
    assert replayed.over and game["over"]
    assert list(replayed.scores) == game["scores"] == record.record.scores
    winner = replayed.winner
    assert (list(winner) if isinstance(winner, tuple) else winner) == game["winner"]
    # Every play changed the room (forced passes ride along), and every change reached every player.
    plays = sum(1 for hand in record.record.hands for move in hand.moves if not move.pass_)
    assert all(client.patches >= plays for client in clients), (plays, [c.patches for c in clients])


@pytest.mark.parametrize(
    ("players", "humans", "bots", "rules"),
    [
        (2, 2, "easy", {"target": 100}),
        (3, 3, "easy", {"target": 100, "end_scoring": "penalty"}),
        (3, 1, "normal", {"target": 100}),
        (4, 4, "easy", {"teams": True, "target": 100}),
        (4, 2, "hard", {"teams": True, "target": 100, "reserve": 2}),
        (4, 3, "normal", {"teams": False, "target": 100, "hand_size": "five"}),
    ],
)
async def test_a_match_is_played_to_the_end(
    server: Server,
    references: References,
    players: int,
    humans: int,
    bots: str,
    rules: dict[str, Any],
) -> None:
    clients = await seat_players(server.url, players, humans, bots, **rules)
    for client in clients:
        check_against(references, client)
    watcher = await Client.open(server.url, "Watcher")
    assert isinstance(await watcher.request("spectate", room=clients[0].room), msg.Joined)
    await watcher.until(lambda m: isinstance(m, msg.Snapshot))
    check_against(references, watcher)
    assert isinstance(await clients[0].request("start"), msg.Ack)
    await asyncio.gather(
        finish_and_check(clients, players * 10 + humans),
        watcher.until(lambda m: watcher.document["phase"] == "finished", timeout=30),
    )
    assert watcher.document["game"]["hand"] is None
    assert watcher.document["game"]["scores"] == clients[0].document["game"]["scores"]
    last = watcher.document["game"]["last_hand"]
    if last["kind"] != "won":  # the end-of-hand count says where its points came from
        added = [0] * len(last["points"])
        for count in last["counts"]:
            added[count["side"]] += count["points"]
            assert count["pips"] == sum(last["pips"][seat] for seat in count["seats"]) / (
                2 if count.get("halved") else 1
            )
        assert added == last["points"]
    assert server.metrics.matches_finished == 1
    stored = await server.store.load_record(f"{clients[0].room}/1")
    assert stored is not None


async def test_a_rematch_returns_the_room_to_waiting_with_the_same_seats(server: Server) -> None:
    clients = await seat_players(server.url, 2, 1, "easy", target=50)
    host = clients[0]
    await host.request("start")
    await play_out(host, random.Random(1))
    first = await host.request("record")
    assert isinstance(first, msg.RecordReply)
    assert isinstance(await host.request("rematch"), msg.Ack)
    assert host.document["phase"] == "waiting"
    assert [s["name"] if s else None for s in host.document["seats"]] == ["P0", "bot:easy"]
    await host.request("start")
    # The last finished match stays downloadable until the next one finishes.
    during = await host.request("record")
    assert isinstance(during, msg.RecordReply) and during.record == first.record
    await play_out(host, random.Random(2))
    after = await host.request("record")
    assert isinstance(after, msg.RecordReply) and after.record != first.record
    assert host.document["rules"]["teams"] is False  # no teams with two players
    assert server.metrics.matches_finished == 2


async def test_a_hint_is_a_legal_move_for_the_asking_seat(server: Server) -> None:
    clients = await seat_players(server.url, 2, 2)
    await clients[0].request("start")
    mover = await until_someone_to_play(clients)
    reply = await mover.request("hint")
    assert isinstance(reply, msg.HintReply)
    legal = mover.document["game"]["legal"]
    # The hint is written as `legal` lists it (no end where the tile fits one end only), with
    # what it would make: the same entry, total and points included.
    assert msgspec.to_builtins(reply.move) in legal
    assert reply.move.total is not None


async def test_a_lead_sent_low_number_first_puts_that_number_west(server: Server) -> None:
    clients = await seat_players(server.url, 2, 2)
    await clients[0].request("start")
    leader = await until_someone_to_play(clients)
    tile = next(t for t in leader.document["game"]["hand"] if t[0] != t[2])
    high, low = int(tile[0]), int(tile[2])
    reply = await leader.request("play", tile=f"{low}-{high}")
    assert isinstance(reply, msg.Ack), reply
    for client in clients:
        while client.state.seq != leader.state.seq:
            await client.receive()
        game = client.document["game"]
        assert game["layout"]["line"] == [[low, high]]
        assert (game["ends"]["west"], game["ends"]["east"]) == (low, high)
        lead = next(e for e in game["history"] if e["type"] == "played")
        assert lead["tile"] == f"{low}-{high}" and lead["end"] is None


async def test_the_hard_bot_thinks_in_another_process() -> None:
    budget = 0.3
    async with run_server(fast_config(bot_processes=True, hard_budget_ms=1000 * budget)) as running:
        (host,) = await seat_players(running.url, 2, 1, "hard")
        await host.request("start")
        loop = asyncio.get_running_loop()
        pings: list[float] = []
        bot_turns = 0
        while bot_turns < 3 and host.document["phase"] == "playing":
            if host.my_turn():
                await play_out_one(host)
                bot_turns += 1
                continue
            started = loop.time()
            reply = await host.request("ping")
            assert isinstance(reply, msg.Pong)
            pings.append(loop.time() - started)
            # The probe, not a wait: a ping each 10 ms or so while the bot thinks, to time
            # the event loop's answers (and stay well under the rate limit).
            await asyncio.sleep(0.01)
        assert type(running.bots.bots._pool).__name__ == "ProcessPoolExecutor"
        assert len(pings) >= 12
        assert sorted(pings)[len(pings) // 2] < budget / 3, "the event loop waited for the bot"


async def test_chat_reaches_everyone_in_the_room_and_is_bounded(server: Server) -> None:
    clients = await seat_players(server.url, 2, 2, spectator_chat=True)
    watcher = await Client.open(server.url, "Eve")
    await watcher.request("spectate", room=clients[0].room)
    for index in range(55):
        assert isinstance(await clients[0].request("chat", text=f"line {index}"), msg.Ack)
    await watcher.request("chat", text="hi from the stands")
    await caught_up(server, *clients, watcher)
    for client in [*clients, watcher]:
        chat = client.document["chat"]
        assert len(chat) == 50
        assert chat[-1] == {
            "type": "chat",
            "seat": None,
            "name": "Eve",
            "text": "hi from the stands",
        }


async def test_public_waiting_rooms_are_listed(server: Server) -> None:
    host = await Client.open(server.url, "Host")
    await host.request("create_room", rules={"players": 3})
    private = await Client.open(server.url, "Shy")
    await private.request("create_room", rules={"players": 2, "public": False})
    looker = await Client.open(server.url, "Looker")
    reply = await looker.request("list_rooms")
    assert isinstance(reply, msg.Rooms)
    assert [(r.code, r.seats, r.free_seats) for r in reply.rooms] == [
        (host.room, ["Host", None, None], [1, 2])
    ]


async def test_partners_can_choose_opposite_seats(server: Server) -> None:
    host = await Client.open(server.url, "Ann")
    await host.request("create_room", rules={"players": 4, "teams": True}, seat=0)
    partner = await Client.open(server.url, "Cid")
    assert host.room is not None
    joined = await partner.request("join", room=host.room.lower(), seat=2)
    assert isinstance(joined, msg.Joined) and joined.seat == 2
    await partner.until(lambda m: isinstance(m, msg.Snapshot))
    assert partner.document["seats"][2]["name"] == "Cid"
    assert partner.document["you"] == 2


async def test_a_match_goes_on_when_the_bot_process_dies() -> None:
    async with run_server(fast_config(bot_processes=True)) as running:
        (host,) = await seat_players(running.url, 2, 1, "hard", target=50)
        await host.request("start")
        taken: dict[str, tuple[int, int]] = {}

        def pool_started() -> bool:
            return running.bots.bots._pool is not None

        # The bot's first search starts the pool; its move follows, so reading sees it.
        while (mover := await next_mover([host], taken, pool_started)) is not None:
            await play_out_one(mover)
        pool = running.bots.bots._pool
        for process in list(getattr(pool, "_processes", {}).values()):
            process.kill()
        await play_out(host, random.Random(3))
        assert host.document["phase"] == "finished"
