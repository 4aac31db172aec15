"""A move made again from its note (`notes.replay_move`) gives the same room and the same events.

This is what lets a process that follows a room take another process's move as the move alone
(docs/persistence.md): the copy must end byte for byte where the writer's room is, through hand
ends, new deals from the seed, forced passes, the turn clock and stand-ins.
"""

from __future__ import annotations

from hypothesis import given, settings
from hypothesis import strategies as st
from protocol_helpers import examples
from room_harness import room_with

from server.rooms.notes import replay_move
from server.rooms.room import Room
from server.rooms.room_state import encode_note


@settings(max_examples=examples(25), deadline=None)
@given(
    seed=st.integers(0, 2**32),
    players=st.sampled_from([2, 3, 4]),
    choices=st.lists(st.integers(0, 50), min_size=1, max_size=400),
    stand_ins=st.sets(st.integers(0, 399), max_size=20),
    away=st.sampled_from([30.0, 5.0]),
)
def test_a_replayed_move_gives_the_writers_room_and_events(
    seed: int, players: int, choices: list[int], stand_ins: set[int], away: float
) -> None:
    writer = room_with(players, humans=players, target=100)
    writer.away_seconds = away
    writer.start(0, now=1000.0, seed=seed)
    copy = Room.from_bytes(writer.to_bytes())  # another process's copy, its own away time
    assert writer.to_bytes() == copy.to_bytes()
    now = 1000.0
    for index, choice in enumerate(choices):
        match = writer.match
        if match is None or writer.phase != "playing":
            break
        now += 1.5
        seat = match.turn
        move = match.legal_moves()[choice % len(match.legal_moves())]
        if index in stand_ins:
            # The next player goes away (a change of its own, which followers take as the state):
            # this move sets the clock of their turn from the writer's away time.
            following = (seat + 1) % players
            held = writer.seats[following]
            if held is not None and held.connected:
                writer.disconnect(following, now)
                copy = Room.from_bytes(writer.to_bytes())
        held = writer.seats[seat]
        assert held is not None
        if not held.connected:
            # Their time is up: the stand-in bot plays for them (`Room.bot_play`).
            now += 10_000
            turn = writer.bot_turn(now)
            assert turn is not None and turn.seat == seat
            events = writer.bot_play(turn, move, now)
            assert events is not None
        else:
            events = writer.play(seat, move, now)
        move_seq, note = writer.last_move
        assert move_seq == writer.seq and note is not None
        assert replay_move(copy, encode_note(note)) == events
        assert copy.to_bytes() == writer.to_bytes(), f"move {index} differs"
