"""A finished match's record as the server stores and names it: its bytes are made once for the
record saved and archived, and are always that record's encoding."""

from __future__ import annotations

import random

from server_helpers import room_with

from protocol.records import encode_record
from server.play.finish import archived_of, encoded_record, game_id
from server.rooms.room import Room


def finished_room(seed: int) -> Room:
    rng = random.Random(seed)
    room = room_with(players=3, humans=3, target=60)
    room.start(0, seed=seed)
    match = room.match
    assert match is not None
    while room.phase == "playing":
        room.play(match.turn, rng.choice(match.legal_moves()))
    return room


def test_the_stored_record_and_the_archived_games_id_come_from_the_same_bytes() -> None:
    room = finished_room(5)
    record = room.finished_record()
    stored = encoded_record(record)  # what `RecordSaver` stores
    assert stored == encode_record(record)
    assert encoded_record(record) is stored  # asked again for the same record: made once
    archived = archived_of(room, 1000.0)
    assert archived.detail.id == game_id(encode_record(record))
    assert archived.detail.record == record


def test_another_finished_match_gets_its_own_bytes() -> None:
    first, second = finished_room(5), finished_room(6)
    one = encoded_record(first.finished_record())
    two = encoded_record(second.finished_record())
    assert one != two
    assert two == encode_record(second.finished_record())
    assert archived_of(second, 1000.0).detail.id == game_id(two) != game_id(one)
