"""What the seats tell everyone about the turn clock and the stand-in bot.

The seat to play carries its turn's `deadline` while a clock runs for it; a stand-in bot's move
for a player raises that seat's `stand_in_moves` in the same change (away, or out of time), and
`stand_in` is true while the stand-in plays every turn of an away player. A browser labels those
plays and counts down to the stand-in from these fields alone.
"""

from __future__ import annotations

from server_helpers import room_with

from server.rooms.documents import room_view
from server.rooms.room import Room


def started(turn_seconds: int | None) -> Room:
    """Two players, H0 and H1, a match started at t=1000 with H0 or H1 to play."""
    room = room_with(players=2, humans=2, turn_seconds=turn_seconds)
    room.start(0, now=1000.0, seed=5)
    return room


def deadlines(room: Room) -> list[float | None]:
    view = room_view(room, None)
    return [seat.deadline if seat is not None else None for seat in view.seats]


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
    assert deadlines(room) == [None, None]  # no clock while everyone is here
    room.disconnect(turn, now=1005.0)
    assert deadlines(room)[turn] == 1005.0 + room.away_seconds
    bot = room.bot_turn(now=1005.0 + room.away_seconds)
    assert bot is not None
    assert room.bot_play(bot, bot.view.legal[0], now=1100.0)
    seat = room_view(room, None).seats[turn]
    assert seat is not None and seat.stand_in and seat.stand_in_moves == 1
    assert not seat.connected and seat.deadline is None
    room.connect(turn, now=1101.0)
    seat = room_view(room, turn).seats[turn]
    assert seat is not None and not seat.stand_in and seat.stand_in_moves == 1
    # A new match counts afresh.
    room.state.phase = "waiting"
    room.match = None
    room.start(0, now=1200.0, seed=6)
    assert all(s is not None and s.stand_in_moves == 0 for s in room_view(room, None).seats)
