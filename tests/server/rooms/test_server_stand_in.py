"""What the seats tell everyone about the turn clock and the stand-in bot.

The room's `deadline` is the turn's while a clock runs for the seat to play; a stand-in bot's move
for a player raises that seat's `stand_in_moves` in the same change (away, or out of time), and
`stand_in` is true while the stand-in plays every turn of an away player, or of one who stayed
idle on their turn past the idle bound in a room without a clock (until they send `back`). A
browser labels those plays and counts down to the stand-in from these fields alone.
"""

from __future__ import annotations

import pytest
from room_harness import room_with

from protocol import errors
from server.rooms.documents import room_view
from server.rooms.room import Room, RoomError


def started(turn_seconds: int | None) -> Room:
    """Two players, H0 and H1, a match started at t=1000 with H0 or H1 to play."""
    room = room_with(players=2, humans=2, turn_seconds=turn_seconds)
    room.start(0, now=1000.0, seed=5)
    return room


def deadlines(room: Room) -> list[float | None]:
    """Each seat's deadline as a client reads it: the room's `deadline` is the seat to play's."""
    view = room_view(room, None)
    turn = view.game.turn if view.game is not None else None
    assert turn is not None or view.deadline is None
    return [view.deadline if seat == turn else None for seat in range(len(view.seats))]


def test_the_seat_to_play_carries_its_turn_clock_and_a_timed_out_move_is_the_stand_ins() -> None:
    room = started(turn_seconds=30)
    match = room.match
    assert match is not None
    turn = match.turn
    expected: list[float | None] = [None, None]
    expected[turn] = 1030.0
    assert deadlines(room) == expected
    # The player's own move: no stand-in, and the other seat's clock starts.
    room.play(turn, match.legal_moves()[0], now=1010.0)
    other = match.turn
    assert other != turn and deadlines(room)[other] == 1040.0 and deadlines(room)[turn] is None
    assert [s.stand_in_moves for s in room_view(room, None).seats if s is not None] == [0, 0]
    # Out of time: the stand-in plays that one turn; the player, still here, keeps the seat.
    bot = room.bot_turn(now=1040.5)
    assert bot is not None and bot.seat == other
    assert room.bot_play(bot, bot.view.legal[0], now=1040.5)
    seat = room_view(room, None).seats[other]
    assert seat is not None and seat.stand_in_moves == 1 and not seat.stand_in


def test_an_away_player_gets_a_countdown_then_a_stand_in_that_stays_until_they_are_back() -> None:
    room = started(turn_seconds=None)
    match = room.match
    assert match is not None
    turn = match.turn
    idle: list[float | None] = [None, None]
    idle[turn] = 1000.0 + room.idle_seconds  # no clock while everyone is here: the idle bound
    assert deadlines(room) == idle
    room.disconnect(turn, now=1005.0)
    assert deadlines(room)[turn] == 1005.0 + room.away_seconds
    bot = room.bot_turn(now=1005.0 + room.away_seconds)
    assert bot is not None
    assert room.bot_play(bot, bot.view.legal[0], now=1100.0)
    seat = room_view(room, None).seats[turn]
    assert seat is not None and seat.stand_in and seat.stand_in_moves == 1
    assert not seat.connected and deadlines(room)[turn] is None
    room.connect(turn, now=1101.0)
    seat = room_view(room, turn).seats[turn]
    assert seat is not None and not seat.stand_in and seat.stand_in_moves == 1
    # A new match counts afresh.
    room.state.phase = "waiting"
    room.match = None
    room.start(0, now=1200.0, seed=6)
    assert all(s is not None and s.stand_in_moves == 0 for s in room_view(room, None).seats)


def test_an_idle_player_gets_a_countdown_then_a_stand_in_until_they_take_the_seat_back() -> None:
    room = started(turn_seconds=None)
    match = room.match
    assert match is not None
    idler = match.turn
    assert room.idle_seconds == 300.0 and deadlines(room)[idler] == 1300.0
    assert room.bot_turn(now=1299.0) is None  # still the player's turn
    bot = room.bot_turn(now=1300.0)
    assert bot is not None and bot.seat == idler
    assert room.bot_play(bot, bot.view.legal[0], now=1300.0)
    seat = room_view(room, None).seats[idler]
    assert seat is not None and seat.connected and seat.stand_in and seat.stand_in_moves == 1
    # The other player moves; the idler's next turn is the stand-in's at once, with no wait.
    other = match.turn
    assert other != idler and deadlines(room)[other] == 1300.0 + room.idle_seconds
    room.play(other, match.legal_moves()[0], now=1310.0)
    assert match.turn == idler and deadlines(room) == [None, None]
    bot = room.bot_turn(now=1310.0)
    assert bot is not None and bot.seat == idler
    # `back`: the seat is the player's again, and their next turn has the whole bound.
    before = room.seq
    room.back(idler, now=1320.0)
    seat = room_view(room, None).seats[idler]
    assert seat is not None and not seat.stand_in and room.seq == before + 1
    assert deadlines(room)[idler] == 1320.0 + room.idle_seconds
    assert room.bot_turn(now=1320.0) is None


def test_going_away_and_back_does_not_start_the_idle_bound_again() -> None:
    room = started(turn_seconds=None)
    match = room.match
    assert match is not None
    idler = match.turn
    room.disconnect(idler, now=1200.0)
    assert deadlines(room)[idler] == 1200.0 + room.away_seconds  # the sooner of the two
    room.connect(idler, now=1210.0)
    assert deadlines(room)[idler] == 1300.0  # from the start of the turn, as before
    room.disconnect(idler, now=1290.0)
    assert deadlines(room)[idler] == 1300.0


def test_back_without_a_stand_in_is_refused_and_changes_nothing() -> None:
    room = started(turn_seconds=None)
    before = room.to_bytes()
    for seat in (0, 1, None):
        with pytest.raises(RoomError) as refused:
            room.back(seat, now=1001.0)
        assert refused.value.code in (errors.INVALID, errors.NOT_IN_ROOM)
    assert room.to_bytes() == before


def test_without_an_idle_bound_a_connected_players_turn_waits() -> None:
    room = room_with(players=2, humans=2)
    room.idle_seconds = 0.0
    room.start(0, now=1000.0, seed=5)
    assert deadlines(room) == [None, None]
    assert room.bot_turn(now=10**9) is None
