"""Hidden information, checked against a match's record: what each receiver may see, frame by
frame (`check_frames`: a frame may name the receiver's own tiles at that moment and tiles
already played in the current hand, nothing else)."""

from __future__ import annotations

import re
from typing import Any

import msgspec
from ws_client_helpers import Client

from engine import PASS, Deal, End, Match, Move, Played, Tile
from protocol import messages as msg
from protocol.patch import events_in
from protocol.records import decode_record
from protocol.tiles import normalize_tile

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

    def move_to(self, done: int) -> None:
        """Follow the record up to its move number `done` (a snapshot shows that many)."""
        while self.done < done:
            self.advance()


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
        if isinstance(message, msg.Change):
            for event in events_in(message):
                if type(event).__name__ in ("Played", "Passed"):
                    allowed |= witness.advance() | witness.visible(seat)
        named = {normalize_tile(tile) for tile in TILE_TEXT.findall(frame)}
        assert named <= allowed, f"seat {seat} was shown {sorted(named - allowed)} in {frame}"
        checked += len(named)
    assert witness.done == len(witness.moves) or not complete
    return checked


def check_room_frames(frames: list[str], room: str, record_json: bytes) -> int:
    """Like `check_frames`, for a connection that came into `room` at any point of its match
    (a tournament's table is dealt before its players arrive) and may have been in other rooms
    before and after: only the frames from its `joined` to `room` until it left are checked,
    the record followed from the move its first snapshot shows. Returns the tiles checked."""
    witness = Witness(record_json)
    hands = decode_record(record_json).hands
    seat: int | None = None
    inside = False
    checked = 0
    for frame in frames:
        message = msg.decode_server(frame)
        if isinstance(message, msg.Joined):
            inside = message.room == room
            seat = message.seat
            continue
        if not inside:
            continue
        if isinstance(message, msg.Snapshot):
            document = msgspec.json.decode(frame)["state"]
            witness.move_to(_moves_before(document, hands))
        allowed = witness.visible(seat)
        if isinstance(message, msg.Change):
            for event in events_in(message):
                if type(event).__name__ in ("Played", "Passed"):
                    allowed |= witness.advance() | witness.visible(seat)
        named = {normalize_tile(tile) for tile in TILE_TEXT.findall(frame)}
        assert named <= allowed, f"seat {seat} was shown {sorted(named - allowed)} in {frame}"
        checked += len(named)
    return checked


def _moves_before(document: dict[str, Any], hands: list[Any]) -> int:
    """How many moves of the record a snapshot's document has seen."""
    game = document.get("game")
    if game is None:
        return sum(len(hand.moves) for hand in hands) if document["phase"] == "finished" else 0
    number = game["hand_number"] - 1
    earlier = sum(len(hand.moves) for hand in hands[:number])
    made = sum(1 for event in game["history"] if event.get("type") in ("played", "passed"))
    return earlier + made
