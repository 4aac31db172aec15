"""A tournament's table as a room, sans-I/O (`server/rooms/tables.py`): its seats reserved, its
match dealt at once, each entrant's player seated in its own seat whatever seat it asks for
(once: a second connection resumes with the token), anyone else refused with nothing changed,
its final scores by seat, and no rematch."""

from __future__ import annotations

import msgspec
import pytest
from hypothesis import given
from hypothesis import strategies as st

from engine import PASS
from protocol.rules import RoomRules
from server.rooms.documents import SPECTATORS, room_view
from server.rooms.room import Room, RoomError
from server.rooms.room_state import TableOf
from server.rooms.tables import Sitter

OF = TableOf("QWRTZ", 0, 0)


@st.composite
def tables(draw: st.DrawFn) -> tuple[RoomRules, list[Sitter]]:
    """Rules of a table of 2 to 4 (in teams or not) and who sits at each seat: people by their
    player ids, bots by level."""
    players = draw(st.integers(2, 4))
    rules = RoomRules(players=players, teams=draw(st.booleans()), target=50)
    people = draw(st.lists(st.booleans(), min_size=players, max_size=players))
    sitters = [
        Sitter(name=f"P{seat}", player=f"id-{seat}")
        if person
        else Sitter(name=f"bot:easy {seat}", level="easy")
        for seat, person in enumerate(people)
    ]
    return rules, sitters


def opened(rules: RoomRules, sitters: list[Sitter]) -> Room:
    room = Room.create("BCDF", rules, now=10.0)
    room.open_table(OF, sitters, now=10.0, seed=7)
    return room


@given(table=tables(), asked=st.none() | st.integers(0, 3))
def test_each_entrant_takes_its_own_seat_and_nobody_else_any(
    table: tuple[RoomRules, list[Sitter]], asked: int | None
) -> None:
    rules, sitters = table
    room = opened(rules, sitters)
    assert room.phase == "playing" and room.state.host is None
    for seat, sitter in enumerate(sitters):
        held = room.seats[seat]
        assert held is not None and held.name == sitter.name
        assert held.kind == ("human" if sitter.player else "bot")
        assert not (sitter.player and held.connected)  # away until they come
    for stranger in ("someone-else", None):
        before = room.to_bytes()
        with pytest.raises(RoomError) as refused:
            room.sit("Cid", asked, now=11.0, player=stranger)
        assert (refused.value.code, refused.value.reason) == ("room_full", "seat_taken")
        assert room.to_bytes() == before
    for seat, sitter in enumerate(sitters):
        if sitter.player is None:
            continue
        taken, token = room.sit(sitter.name, asked, now=12.0, player=sitter.player)
        assert taken == seat and room.seat_of_token(token) == seat
        held = room.seats[seat]
        assert held is not None and held.connected and not held.stand_in
        # Taken: a second connection of theirs resumes it with its token, not by joining.
        before = room.to_bytes()
        with pytest.raises(RoomError) as twice:
            room.sit(sitter.name, asked, now=13.0, player=sitter.player)
        assert (twice.value.code, twice.value.reason) == ("invalid", "already_seated")
        assert room.to_bytes() == before
        room.disconnect(seat, now=14.0)
        again, fresh = room.sit(sitter.name, None, now=15.0, player=sitter.player)
        assert again == seat and room.seat_of_token(fresh) == seat != room.seat_of_token(token)


def test_a_finished_table_gives_its_scores_by_seat_partners_alike_and_no_rematch() -> None:
    rules = RoomRules(players=4, teams=True, target=5)
    room = opened(rules, [Sitter(name=f"bot:easy {n}", level="easy") for n in range(4)])
    assert room.table_scores() is None
    while room.phase == "playing":
        assert room.match is not None
        legal = room.match.legal_moves()
        room.play(room.match.turn, legal[0] if legal else PASS, now=20.0)
    scores = room.table_scores()
    assert scores is not None and scores[0] == scores[2] and scores[1] == scores[3]
    assert max(scores) >= 5
    before = room.to_bytes()
    with pytest.raises(RoomError) as refused:
        room.rematch(0, now=30.0)
    assert refused.value.code == "wrong_phase" and room.to_bytes() == before


@given(table=tables())
def test_every_receiver_of_a_table_reads_that_it_is_one_and_not_which_tournament(
    table: tuple[RoomRules, list[Sitter]],
) -> None:
    rules, sitters = table
    room = opened(rules, sitters)
    for receiver in [SPECTATORS, *range(rules.players)]:
        document = room_view(room, receiver)
        assert document.tournament_table
        # A private tournament's code stays with its entrants: no receiver's document holds it.
        assert OF.code.encode() not in msgspec.json.encode(document)
    ordinary = Room.create("BCDG", rules, now=10.0)
    assert not room_view(ordinary, SPECTATORS).tournament_table
