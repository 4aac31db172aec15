"""Hidden information: no frame sent to anyone names a tile its receiver may not see.

Every frame every connection received during whole matches is checked against the match's own
record: a frame may name the receiver's own tiles at that moment and tiles already played in the
current hand, nothing else (so never another seat's hand, and never the boneyard's order).
"""

from __future__ import annotations

import asyncio
import random
import re

import pytest
from server_helpers import Client, caught_up, fast_config, play_out, seat_players

from bridge.records import record_of
from engine import PASS, Deal, End, Match, Move, Played, Rules, Tile
from protocol import messages as msg
from protocol.patch import events_of
from protocol.records import decode_record, encode_record
from protocol.tiles import normalize_tile
from server.app import run_server

TILE_TEXT = re.compile(r'"([0-6]-[0-6])"')


class Witness:
    """The match replayed from its record, move by move, to say what each receiver may see."""

    def __init__(self, record_json: bytes) -> None:
        record = decode_record(record_json)
        deals = [
            Deal(
                tuple(tuple(int(Tile.parse(t)) for t in seat) for seat in hand.deal),
                tuple(int(Tile.parse(t)) for t in hand.boneyard),
                hand.leader,
            )
            for hand in record.hands
        ]
        self.moves = [move for hand in record.hands for move in hand.moves]
        self.match = Match.new(record.rules, seed=0, deals=deals)
        self.done = 0

    def visible(self, seat: int | None) -> set[str]:
        """The tiles `seat` may see now: its own hand and what this hand has put on the table."""
        played = {str(Tile(e.tile)) for e in self.match.events if isinstance(e, Played)}
        own = {str(t) for t in self.match.hand_of(seat)} if seat is not None else set()
        return played | own

    def advance(self) -> set[str]:
        """Apply the next move of the record; returns the tile it put on the table, if any."""
        move = self.moves[self.done]
        self.done += 1
        if move.pass_:
            self.match.apply(move.seat, PASS)
            return set()
        assert move.tile is not None
        end = None if move.end is None else End[move.end.upper()]
        self.match.apply(move.seat, Move.written(move.tile, end))
        return {normalize_tile(move.tile)}


def check_frames(client: Client, record_json: bytes, complete: bool = True) -> int:
    """Walk the client's frames alongside the record; returns how many tiles were checked."""
    witness = Witness(record_json)
    seat = None
    checked = 0
    for frame in client.frames:
        message = msg.decode_server(frame)
        if isinstance(message, msg.Joined):
            seat = message.seat
        allowed = witness.visible(seat)
        if isinstance(message, msg.Patch):
            for event in events_of(message.ops):
                if type(event).__name__ in ("Played", "Passed"):
                    allowed |= witness.advance() | witness.visible(seat)
        named = {normalize_tile(tile) for tile in TILE_TEXT.findall(frame)}
        assert named <= allowed, f"seat {seat} was shown {sorted(named - allowed)} in {frame}"
        checked += len(named)
    assert witness.done == len(witness.moves) or not complete
    return checked


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
