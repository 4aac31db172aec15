"""A finished match's record as the server stores and names it: its bytes are made once for the
record saved and archived, and are always that record's encoding."""

from __future__ import annotations

import random

from room_harness import room_with

from protocol.records import encode_record
from server.play.finish import archived_of, game_id
from server.rooms.results import finished_bytes
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
    stored = finished_bytes(room)  # what `RecordSaver` stores
    assert stored == encode_record(record)
    assert finished_bytes(room) is stored  # asked again for the same match: made once
    archived = archived_of(room, 1000.0)
    assert archived.detail.id == game_id(encode_record(record))
    assert archived.detail.record == record


def test_another_finished_match_gets_its_own_bytes() -> None:
    first, second = finished_room(5), finished_room(6)
    one = finished_bytes(first)
    two = finished_bytes(second)
    assert one != two
    assert two == encode_record(second.finished_record())
    assert archived_of(second, 1000.0).detail.id == game_id(two) != game_id(one)


def test_each_room_keeps_its_own_finished_record_whatever_other_rooms_ask() -> None:
    """Rooms finishing side by side (in one server, or in several servers of one process) are
    saved and archived in turn: each room's record and bytes are made once, for it alone."""
    first, second = finished_room(5), finished_room(6)
    record, data = first.finished_record(), finished_bytes(first)
    assert second.finished_record() != record and finished_bytes(second) != data
    assert first.finished_record() is record and finished_bytes(first) is data
    assert archived_of(first, 1000.0).detail.record is record
    assert archived_of(first, 1000.0).detail.id == game_id(data)
    # The same match read back from its bytes (another room object) makes its own, alike.
    again = Room.from_bytes(first.to_bytes())
    assert again.finished_record() is not record and finished_bytes(again) == data
