"""The room as a state machine: commands, seats, the clock, storing; no sockets involved."""

from __future__ import annotations

import base64
import random

import msgspec
import pytest
from room_harness import room_with

from bridge.records import record_of
from engine import PASS, Match, Move
from protocol import messages as msg
from protocol.rules import RoomRules, Rules
from server.rooms import commands
from server.rooms.room import Caller, Room, RoomError


def test_a_refused_command_changes_nothing() -> None:
    room = room_with(players=2, humans=2)
    room.start(0, seed=7)
    before, seq = room.to_bytes(), room.seq
    match = room.match
    assert match is not None
    other = 1 - match.turn
    with pytest.raises(RoomError) as refused:
        room.play(other, match.legal_moves()[0])
    assert refused.value.code == "not_your_turn"
    with pytest.raises(RoomError) as illegal:
        room.play(match.turn, PASS)
    assert illegal.value.code == "illegal_move"
    assert "rule 4.1" in illegal.value.message
    with pytest.raises(RoomError) as host_only:
        commands.handle(room, Caller("H1", seat=1), msg.Rematch())
    assert host_only.value.code == "not_host"
    assert room.to_bytes() == before and room.seq == seq


def test_only_the_host_manages_bots_and_only_while_waiting() -> None:
    room = Room.create("TEST", RoomRules(players=3))
    room.sit("H0")
    room.sit("H1")
    with pytest.raises(RoomError, match="only the host"):
        room.add_bot(1, None, "hard")
    room.add_bot(0, 2, "hard")
    with pytest.raises(RoomError) as full:
        room.sit("late")
    assert full.value.code == "room_full"
    with pytest.raises(RoomError) as not_bot:
        room.remove_bot(0, 1)
    assert not_bot.value.code == "invalid"
    room.start(0, seed=1)
    with pytest.raises(RoomError) as phase:
        room.remove_bot(0, 2)
    assert phase.value.code == "wrong_phase"


def test_a_room_cannot_start_with_a_free_seat() -> None:
    room = Room.create("TEST", RoomRules(players=3))
    room.sit("H0")
    with pytest.raises(RoomError, match="free: 1, 2"):
        room.start(0)
    assert room.phase == "waiting"


def test_the_server_passes_for_a_seat_that_can_do_nothing_else() -> None:
    rng = random.Random(3)
    passes = 0
    for seed in range(40):
        room = room_with(players=4, humans=4, hand_size="five")
        room.start(0, seed=seed)
        match = room.match
        assert match is not None
        while room.phase == "playing":
            assert match.legal_moves() != [PASS], "a forced pass was left to the player"
            events = room.play(match.turn, rng.choice(match.legal_moves()))
            passes += sum(1 for e in events if type(e).__name__ == "Passed")
    assert passes > 0


def test_a_room_survives_a_round_trip_through_bytes() -> None:
    room = room_with(players=4, humans=2)
    room.start(0, seed=5)
    room.say(0, "H0", "good luck")
    copy = Room.from_bytes(room.to_bytes())
    assert copy.seq == room.seq and copy.names() == room.names()
    assert copy.to_bytes() == room.to_bytes()
    assert copy.all_away() and copy.seq == room.seq + 1
    assert copy.match is not None and room.match is not None
    assert copy.match.to_bytes() == room.match.to_bytes()
    assert copy.state.chat == room.state.chat
    assert not any(seat.connected for seat in copy.seats if seat is not None)
    assert b"token" not in room.to_bytes() or all(
        seat is None or seat.token_hash is None or len(seat.token_hash) == 64 for seat in room.seats
    )


def test_a_room_stored_with_its_match_as_bytes_of_its_own_still_loads() -> None:
    room = room_with(players=3, humans=1)
    room.start(0, seed=8)
    match = room.match
    assert match is not None
    room.play(match.turn, match.legal_moves()[0])
    room.state.match = match.to_bytes()
    try:
        older = msgspec.msgpack.encode(room.state)
    finally:
        room.state.match = None
    loaded = Room.from_bytes(older)
    assert loaded.match is not None and loaded.match.to_bytes() == match.to_bytes()
    assert loaded.to_bytes() == room.to_bytes()


def test_seat_tokens_are_kept_only_as_hashes() -> None:
    room = Room.create("TEST", RoomRules(players=2))
    seat, token = room.sit("H0")
    assert token.encode() not in room.to_bytes()
    assert room.seat_of_token(token) == seat
    assert room.seat_of_token(token + "x") is None


def test_an_away_players_turn_waits_then_a_bot_plays_it_until_they_return() -> None:
    room = room_with(players=2, humans=2)
    room.away_seconds = 30
    room.start(0, now=100.0, seed=2)
    match = room.match
    assert match is not None
    seat = match.turn
    room.disconnect(seat, now=101.0)
    assert room.bot_turn(now=130.0) is None
    turn = room.bot_turn(now=131.5)
    assert turn is not None and turn.seat == seat and turn.view.seat == seat
    room.bot_play(turn, turn.view.legal[0], now=131.5)
    seats = room.seats
    held = seats[seat]
    assert held is not None and held.stand_in
    while match.turn != seat and room.phase == "playing":
        room.play(match.turn, match.legal_moves()[0], now=132.0)
    if room.phase == "playing":
        assert room.bot_turn(now=132.0) is not None, "the stand-in plays at once"
        room.connect(seat, now=133.0)
        assert room.bot_turn(now=133.0 + room.idle_seconds - 1) is None, (
            "the player is back: no clock without turn_seconds, the idle bound only"
        )


def test_the_turn_clock_plays_for_a_player_who_runs_out_of_time() -> None:
    room = room_with(players=2, humans=2, turn_seconds=10)
    room.start(0, now=0.0, seed=4)
    assert room.deadline == 10.0
    assert room.bot_turn(now=9.9) is None
    turn = room.bot_turn(now=10.0)
    assert turn is not None
    room.bot_play(turn, turn.view.legal[0], now=10.0)
    held = room.seats[turn.seat]
    assert held is not None and not held.stand_in, "a connected player only loses that turn"
    assert room.deadline == 20.0


def test_a_stale_bot_move_is_dropped() -> None:
    room = room_with(players=2, humans=1)
    room.start(0, seed=11)
    match = room.match
    assert match is not None
    if match.turn == 0:
        room.play(0, match.legal_moves()[0])
    turn = room.bot_turn(now=0.0)
    assert turn is not None
    room.bot_play(turn, turn.view.legal[0], now=0.0)
    assert room.bot_play(turn, Move(), now=0.0) is None


#: A 2-player room as an earlier version stored it: Ann (seat 0) away since 110.0 after three
#: moves of hand 1, the easy bot (seat 1) to play, a 30-second turn clock.
STORED_ROOM = base64.b64decode(
    "3gAUpGNvZGWkQUJDRKVydWxlc4mncGxheWVycwKldGVhbXPCqWhhbmRfc2l6ZaRmaXZlpnRhcmdldMCrZW5kX3Njb3Jp"
    "bmepb3Bwb25lbnRzp3Jlc2VydmUArHR1cm5fc2Vjb25kcx6mcHVibGljw65zcGVjdGF0b3JfY2hhdMClc2VhdHOSh6Ru"
    "YW1lo0FubqRraW5kpWh1bWFupWxldmVswKp0b2tlbl9oYXNo2UBlMDI1YTg4YTYxNmIwZDg0OWIxMTQ3OWRjN2M2MzU3"
    "NmZlM2JjMjUxZjMzOTFiZjM5MjczMDRjM2JiYTVjNmQ1qWNvbm5lY3RlZMKoc3RhbmRfaW7CqmF3YXlfc2luY2XLQFuA"
    "AAAAAACHpG5hbWWoYm90OmVhc3mka2luZKNib3SlbGV2ZWykZWFzeap0b2tlbl9oYXNowKljb25uZWN0ZWTCqHN0YW5k"
    "X2luwqphd2F5X3NpbmNlwKRob3N0AKVwaGFzZadwbGF5aW5no3NlcQekY2hhdJClbWF0Y2jeABSlcnVsZXOGp3BsYXll"
    "cnMCpXRlYW1zwqloYW5kX3NpemWkZml2ZaZ0YXJnZXTAq2VuZF9zY29yaW5nqW9wcG9uZW50c6dyZXNlcnZlAKRzZWVk"
    "C6toYW5kX251bWJlcgGmbGVhZGVyAKVoYW5kc5LOAIYAAM4EUQLMqGJvbmV5YXJk3AASEAMaBgoTDw0ABQsEFRgBGwgM"
    "pWRyYXduBaZsYXlvdXSIpGxlYWSSBASkb3BlbpQABgQEpndlaWdodJQABgAAp3NwaW5uZXIEq3NwaW5uZXJfZW5k/61z"
    "cGlubmVyX3NpZGVzksLCpmNoYWluc5SRkgQAkZIEBpCQqHBsYXlhYmxlzg/o/EukdHVybgGmcGFzc2VzAKZmb3JjZWT/"
    "pXN0dWNrwqZzY29yZXOSAACkb3ZlcsKmd2lubmVywKZldmVudHOVg6R0eXBlrGhhbmRfc3RhcnRlZKZudW1iZXIBpmxl"
    "YWRlcgCHpHR5cGWmcGxheWVkpHNlYXQApHRpbGUOo2VuZMCldG90YWwIpnBvaW50cwCnZmxpcHBlZMKEpHR5cGWkZHJl"
    "d6RzZWF0AaVjb3VudAWkb3BlbpEEh6R0eXBlpnBsYXllZKRzZWF0AaR0aWxlCqNlbmQApXRvdGFsCKZwb2ludHMAp2Zs"
    "aXBwZWTCh6R0eXBlpnBsYXllZKRzZWF0AKR0aWxlGaNlbmQBpXRvdGFsBqZwb2ludHMAp2ZsaXBwZWTCpnJlY29yZJGD"
    "pGRlYWyDpWhhbmRzkpUOERIXGZUCBwkUFqhib25leWFyZNwAEhADGgYKEw8NAAULBBUYARsIDKZsZWFkZXIApW1vdmVz"
    "k5cADv8ACADClwEKAAUIAMKXABkBAAYAwqZyZXN1bHTAqWxhc3RfaGFuZMCtcGVuZGluZ19kZWFsc5CuZHJld190aGlz"
    "X3R1cm4AqGZpbmlzaGVkwK5maW5pc2hlZF9uYW1lc5CnbWF0Y2hlcwGlbW92ZXMEqGRlYWRsaW5lwK1kZWFkbGluZV9t"
    "b3Zl/6pzcGVjdGF0b3JzAKVvd25lcqCrZW1wdHlfc2luY2XLQFuAAAAAAAClbGlua3OAqHdhdGNoZXJzgKZpbnZpdGXA"
)


#: The earlier version's match rules (engine.rules.Rules) and the defaults it read in.
EARLIER_DEFAULTS = {
    "players": 4,
    "teams": True,
    "hand_size": "standard",
    "target": None,
    "end_scoring": "opponents",
    "reserve": 0,
}


def test_a_room_stored_by_an_earlier_version_loads_unchanged_and_plays_on() -> None:
    room = Room.from_bytes(STORED_ROOM)
    # As stored, but for the rules' `rated`, which that version did not have: a public room's
    # default (rated) is filled in (docs/ratings.md).
    stored = msgspec.msgpack.decode(STORED_ROOM)
    stored["rules"]["rated"] = True
    saved = msgspec.msgpack.decode(room.to_bytes())
    # The match's rules are saved with the variants at their defaults left out (as records write
    # them); the earlier version, whose defaults were the same, filled them in on reading.
    saved_rules, stored_rules = saved["match"].pop("rules"), stored["match"].pop("rules")
    assert {**EARLIER_DEFAULTS, **saved_rules} == stored_rules
    assert saved == stored
    assert Room.from_bytes(room.to_bytes()).to_bytes() == room.to_bytes()
    assert room.names() == ["Ann", "bot:easy"] and room.phase == "playing" and room.seq == 7
    ann = room.seats[0]
    assert ann is not None and not ann.connected and ann.away_since == 110.0
    match = room.match
    assert match is not None and match.hand_number == 1 and match.turn == 1
    assert [h.bit_count() for h in match.hands] == [3, 9] and match.total() == 6
    assert len(match.record[0].moves) == 3 and room.rules.turn_seconds == 30
    turn = room.bot_turn(now=111.0)
    assert turn is not None and turn.seat == 1 and turn.level == "easy"
    events = room.bot_play(turn, match.legal_moves()[0], now=111.0)
    assert events and room.seq == 8 and room.deadline == 141.0


def test_a_match_stored_as_bytes_by_an_earlier_version_loads_and_gives_its_record() -> None:
    # A finished match (and a match in rooms older still) is stored as the match's own bytes.
    stored = msgspec.msgpack.decode(STORED_ROOM)
    earlier = msgspec.msgpack.encode(stored["match"])
    match = Match.from_bytes(earlier)
    assert match.rules == Rules(players=2, teams=False, hand_size="five")
    assert match.rules.tiles_per_hand == 5 and match.rules.target_score == 250
    loaded = Room.from_bytes(STORED_ROOM).match
    assert loaded is not None and match.to_bytes() == loaded.to_bytes()
    record = record_of(match, ["Ann", "bot:easy"])
    assert record.rules == match.rules and len(record.hands[0].moves) == 3


def _play_to_the_end(room: Room, rng: random.Random) -> None:
    match = room.match
    assert match is not None
    while room.phase == "playing":
        room.play(match.turn, rng.choice(match.legal_moves()))


def test_a_finished_matchs_record_is_made_once_and_each_finished_match_has_its_own() -> None:
    rng = random.Random(11)
    room = room_with(players=2, humans=2, target=60)
    room.start(0, seed=3)
    _play_to_the_end(room, rng)
    first = room.finished_record()
    assert room.finished_record() is first  # asked again (saved, then archived): made once
    finished = room.state.finished
    assert finished is not None
    assert first == record_of(Match.from_bytes(finished), room.state.finished_names)
    # The same match read back from its bytes (another object) gives the same record.
    assert Room.from_bytes(room.to_bytes()).finished_record() == first
    room.rematch(0)
    room.start(0, seed=4)
    _play_to_the_end(room, rng)
    second = room.finished_record()
    finished = room.state.finished
    assert finished is not None
    assert second == record_of(Match.from_bytes(finished), room.state.finished_names)
    assert second.hands != first.hands
