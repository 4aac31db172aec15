"""Hidden information: no frame sent to anyone names a tile its receiver may not see.

Every frame every connection received during whole matches is checked against the match's own
record: a frame may name the receiver's own tiles at that moment and tiles already played in the
current hand, nothing else (so never another seat's hand, and never the boneyard's order;
tests/hidden_helpers.py).
"""

from __future__ import annotations

import asyncio
import random

import pytest
from hidden_helpers import check_frames
from server_helpers import fast_config
from ws_client_helpers import Client, caught_up, play_out, seat_players

from bridge.records import record_of
from engine import Match, Rules
from protocol import messages as msg
from protocol.records import encode_record
from server.app import run_server


@pytest.mark.parametrize(("players", "teams"), [(2, False), (3, False), (4, True), (4, False)])
async def test_no_frame_names_a_tile_its_receiver_may_not_see(players: int, teams: bool) -> None:
    async with run_server(fast_config()) as server:
        clients = await seat_players(server.url, players, players, teams=teams, target=100)
        watcher = await Client.open(server.url, "Watcher")
        await watcher.request("spectate", room=clients[0].room)
        await clients[0].request("start")
        rng = random.Random(players)
        await asyncio.gather(
            *(play_out(c, random.Random(rng.random())) for c in clients),
            watcher.until(lambda m: watcher.document["phase"] == "finished", timeout=30),
        )
        await caught_up(server, *clients, watcher)
        record_json = await server.store.load_record(f"{clients[0].room}/1")
        assert record_json is not None
        for client in clients:
            assert check_frames(client, record_json) > 20
        check_frames(watcher, record_json)
        assert watcher.document["game"]["hand"] is None


def test_the_witness_notices_a_leak() -> None:
    """The check itself: a frame naming a tile held by another seat is caught."""
    match = Match.new(Rules(players=2), seed=3)
    match.apply(match.turn, match.legal_moves()[0])
    record_json = encode_record(record_of(match, ["A", "B"]))
    seat = match.turn
    other_tile = str(match.hand_of(1 - seat)[0])
    spy = Client.__new__(Client)
    spy.frames = [
        msg.encode(msg.Joined(room="ROOM", seat=seat, seat_token="t")).decode(),
        f'{{"type":"pong","id":null,"note":"{other_tile}"}}',
    ]
    with pytest.raises(AssertionError, match=other_tile):
        check_frames(spy, record_json, complete=False)
