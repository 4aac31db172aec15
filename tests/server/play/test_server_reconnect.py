"""Dropping and coming back: seat tokens, `last_seq`, stand-in bots, and a server restart."""

from __future__ import annotations

import asyncio
import json
import random
import time

from server_helpers import fast_config
from websockets.exceptions import ConnectionClosed
from ws_client_helpers import (
    Client,
    References,
    caught_up,
    check_against,
    live_of,
    next_mover,
    play_out,
    play_out_one,
    seat_players,
    until_holds,
)

from protocol import messages as msg
from server.app import run_server
from server.storage.store import MemoryStore


async def wait_for_turn(client: Client, others: list[Client]) -> None:
    """Read until it is the client's turn; the others play whenever it is theirs."""
    taken: dict[str, tuple[int, int]] = {}
    while (mover := await next_mover([client, *others], taken)) is not client:
        assert mover is not None
        await play_out_one(mover)


async def resume(
    url: str, old: Client, last_seq: int | None
) -> tuple[Client, msg.AnyServerMessage]:
    """Reconnect with the old client's token; the new client keeps the old one's state."""
    client = await Client.open(url, old.name, hello=False)
    client.state, client.room, client.token = old.state, old.room, old.token
    id = await client.send(
        "hello",
        version=msg.PROTOCOL_VERSION,
        name=old.name,
        token=old.token,
        room=old.room,
        last_seq=last_seq,
    )
    welcome = await client.until(lambda m: getattr(m, "id", None) == id)
    assert isinstance(welcome, msg.Welcome)
    joined = await client.receive()
    return client, joined


async def test_a_player_who_drops_mid_hand_gets_the_patches_they_missed(
    references: References,
) -> None:
    async with run_server(fast_config()) as server:
        ann, bob = await seat_players(server.url, 2, 2)
        check_against(references, ann)
        await ann.request("start")
        await wait_for_turn(bob, [ann])
        await caught_up(server, ann)
        last_seq = ann.state.seq
        await ann.close()
        await until_holds(bob, lambda document: document["seats"][0]["connected"] is False)
        await play_out_one(bob)
        assert bob.state.seq is not None and last_seq is not None and bob.state.seq > last_seq + 1
        ann, joined = await resume(server.url, ann, last_seq)
        assert isinstance(joined, msg.Joined) and joined.seat == 0
        check_against(references, ann)
        missed = [await ann.receive() for _ in range(bob.state.seq - last_seq + 1)]
        assert all(isinstance(m, msg.Change) for m in missed), missed
        await caught_up(server, bob)
        assert ann.state.seq == bob.state.seq
        assert ann.document["seats"][0]["connected"] is True
        await check_with_snapshot(ann)
        await asyncio.gather(*(play_out(c, random.Random(i)) for i, c in enumerate([ann, bob])))


async def test_a_player_away_too_long_gets_a_snapshot() -> None:
    async with run_server(fast_config(keep_patches=3)) as server:
        ann, bob = await seat_players(server.url, 2, 2)
        await ann.request("start")
        await caught_up(server, ann)
        last_seq = ann.state.seq
        await ann.close()
        for index in range(5):
            await bob.request("chat", text=f"where are you? ({index})")
        ann, joined = await resume(server.url, ann, last_seq)
        assert isinstance(joined, msg.Joined)
        snapshot = await ann.receive()
        assert isinstance(snapshot, msg.Snapshot)
        assert ann.document["chat"][-1]["text"] == "where are you? (4)"
        assert ann.document["game"]["hand"] is not None


async def test_a_wrong_token_or_room_gets_its_error_and_no_seat() -> None:
    async with run_server(fast_config()) as server:
        (ann,) = await seat_players(server.url, 2, 1)
        stranger = await Client.open(server.url, "Mallory", hello=False)
        id = await stranger.send(
            "hello", version=msg.PROTOCOL_VERSION, name="Mallory", token="x" * 24, room=ann.room
        )
        await stranger.until(lambda m: isinstance(m, msg.Welcome))
        error = await stranger.receive()
        assert isinstance(error, msg.Error)
        assert (error.code, error.command, error.id) == ("bad_token", "hello", id)
        lost = await Client.open(server.url, "Lost", hello=False)
        await lost.send(
            "hello", version=msg.PROTOCOL_VERSION, name="Lost", token=ann.token, room="ZZZZ"
        )
        await lost.until(lambda m: isinstance(m, msg.Welcome))
        error = await lost.receive()
        # A room that does not exist answers as one where the token holds no seat.
        assert isinstance(error, msg.Error) and error.code == "bad_token"
        assert (await stranger.error_for("start")).code == "not_in_room"


async def test_resuming_from_a_second_connection_closes_the_first() -> None:
    async with run_server(fast_config()) as server:
        (ann,) = await seat_players(server.url, 2, 1)
        second, joined = await resume(server.url, ann, None)
        assert isinstance(joined, msg.Joined)
        try:
            while True:
                await ann.receive(2.0)
        except ConnectionClosed as closed:
            assert closed.rcvd is not None and closed.rcvd.code == 4000
        assert isinstance(await second.request("chat", text="still me"), msg.Ack)


async def test_a_bot_plays_for_an_away_player_until_they_return() -> None:
    away = 0.3
    async with run_server(fast_config(away_seconds=away, bot_delay=0.02)) as server:
        ann, bob = await seat_players(server.url, 2, 2, target=250)
        await ann.request("start")
        await wait_for_turn(ann, [bob])
        moves_before = ann.document["game"]["hand_counts"][0]
        loop = asyncio.get_running_loop()
        closed = loop.time()
        await ann.close()
        await until_holds(bob, lambda document: document["seats"][0]["connected"] is False)
        assert isinstance(await bob.request("ping"), msg.Pong)  # all sent before it has come
        assert bob.document["game"]["turn"] == 0, "the away player's turn waits"
        later = time.time() + 3600
        assert live_of(server, bob).room.bot_level_due(later) is not None, "and not forever"

        async def stand_in_played() -> None:
            while bob.document["game"]["turn"] == 0:
                await bob.receive(2.0)

        await stand_in_played()
        assert loop.time() - closed >= away, "the stand-in came before `away_seconds`"
        assert bob.document["game"]["hand_counts"][0] <= moves_before
        if bob.my_turn():
            await play_out_one(bob)
        await caught_up(server, bob)
        ann, joined = await resume(server.url, ann, None)
        assert isinstance(joined, msg.Joined)
        assert isinstance(await ann.receive(), msg.Snapshot)
        await wait_for_turn(ann, [bob])
        assert isinstance(await ann.request("ping"), msg.Pong)
        await caught_up(server, bob)
        assert ann.document["game"]["turn"] == bob.document["game"]["turn"] == 0
        assert ann.document["seats"][0]["connected"] is True
        # Back: no stand-in and no turn clock for her seat, so no bot move is due before the
        # idle bound (`idle_seconds` from the start of her turn).
        later = time.time() + server.config.timing.idle_seconds - 5
        assert live_of(server, ann).room.bot_level_due(later) is None, "back: a bot plays for her"


async def test_rooms_resume_after_a_restart_with_the_same_store(references: References) -> None:
    store = MemoryStore()
    async with run_server(fast_config(store=store)) as first:
        ann, bob = await seat_players(first.url, 2, 2, target=100)
        await ann.request("start")
        for _ in range(3):
            mover = ann if ann.my_turn() else bob
            await wait_for_turn(mover, [ann if mover is bob else bob])
            await play_out_one(mover)
        await caught_up(first, ann, bob)
        seq_before = ann.state.seq
        hand_before = ann.document["game"]["hand"]
    async with run_server(fast_config(store=store)) as second:
        assert ann.room in second.rooms
        ann, joined_ann = await resume(second.url, ann, seq_before)
        bob, joined_bob = await resume(second.url, bob, seq_before)
        assert joined_ann.seat == 0 and joined_bob.seat == 1  # type: ignore[union-attr]
        snapshot = await ann.until(lambda m: isinstance(m, msg.Snapshot | msg.Change))
        assert ann.document["game"]["hand"] == hand_before
        assert seq_before is not None and getattr(snapshot, "seq", 0) >= seq_before
        await caught_up(second, bob, ann)
        check_against(references, ann)
        check_against(references, bob)
        await asyncio.gather(*(play_out(c, random.Random(i)) for i, c in enumerate([ann, bob])))
        record = await ann.request("record")
        assert isinstance(record, msg.RecordReply)


async def check_with_snapshot(client: Client) -> None:
    """The client's patched document equals a fresh snapshot of it."""
    held = json.dumps(client.document, sort_keys=True)
    snapshot = await client.request("resync")
    assert isinstance(snapshot, msg.Snapshot)
    assert json.dumps(client.document, sort_keys=True) == held
