"""A room's turn clock: when the current human turn runs out, and which bot plays when it has.

When the room has `turn_seconds`, each human turn has that long; at the limit a bot plays that
turn. A seat whose player is away (disconnected) waits for `turn_seconds`, or for `away_seconds`
when the room has no clock; after that a bot (a stand-in) plays every turn of that seat until the
player comes back. In a room without a clock a connected player who does not move is bounded
too: `idle_seconds` (the server's `--idle-seconds`, 0: no bound) from the start of their turn,
then the stand-in takes the seat as it does an away player's, until the player takes it back
(`back`); so a player who stops moving cannot freeze a match. The idle bound counts from the
turn's start (`idle_deadline`): going away and coming back does not start it again. The deadline
is stored with the room (`deadline`, and `deadline_move`, the move it is for), so it survives a
restart and any server process can act on it.
"""

from __future__ import annotations

import math

import msgspec

from engine import Match
from protocol.views import BotLevel
from server.rooms.room_state import RoomState

#: The level of the bot that plays for an away or out-of-time player.
STAND_IN_LEVEL: BotLevel = "normal"
#: How long an away player's turn waits in a room without a turn clock.
DEFAULT_AWAY_SECONDS = 60.0
#: How long a connected player's turn waits in a room without a turn clock (0: for ever).
DEFAULT_IDLE_SECONDS = 300.0


def _after(now: float, seconds: float) -> float:
    """`seconds` from `now`, to the millisecond below: a deadline is sent in every seat's patch
    at each turn, and the digits past the millisecond only lengthen it."""
    return math.floor((now + seconds) * 1000) / 1000


def overdue(state: RoomState, now: float) -> bool:
    """Whether the current turn's deadline has passed."""
    return (
        state.deadline is not None and state.deadline_move == state.moves and now >= state.deadline
    )


def arm(
    state: RoomState,
    match: Match | None,
    away_seconds: float,
    now: float,
    idle_seconds: float = 0.0,
) -> None:
    """Set or clear the current turn's deadline after a move or a seat's coming and going."""
    if state.phase != "playing" or match is None or match.over:
        _clear(state)
        return
    held = state.seats[match.turn]
    if held is None or held.kind == "bot" or held.stand_in:
        _clear(state)
        return
    limit = state.rules.turn_seconds
    same_turn = state.deadline_move == state.moves and state.deadline is not None
    if limit is not None:
        if not same_turn:
            state.deadline, state.deadline_move = _after(now, limit), state.moves
        return
    kept = state.idle_deadline if same_turn else msgspec.UNSET
    fresh = _after(now, idle_seconds) if idle_seconds > 0 else None
    idle = kept if kept is not msgspec.UNSET else fresh
    if not held.connected:
        if same_turn and state.deadline != idle:
            return  # the away deadline set when the player went
        away = _after(now, away_seconds)
        deadline = away if idle is None else min(away, idle)
    elif idle is not None:
        deadline = idle
    else:
        _clear(state)
        return
    state.deadline, state.deadline_move = deadline, state.moves
    state.idle_deadline = msgspec.UNSET if idle is None else idle


def idle_overdue(state: RoomState, now: float) -> bool:
    """Whether a connected player's idle bound has passed on their turn (no turn clock)."""
    return (
        state.rules.turn_seconds is None
        and state.idle_deadline is not msgspec.UNSET
        and state.deadline == state.idle_deadline
        and overdue(state, now)
    )


def _clear(state: RoomState) -> None:
    state.deadline, state.deadline_move = None, -1
    state.idle_deadline = msgspec.UNSET


def level_due(state: RoomState, match: Match | None, now: float) -> BotLevel | None:
    """The level of the bot that must move now, if one must: a bot's turn, or a human's whose
    time is up or who has a stand-in."""
    if state.phase != "playing" or match is None or match.over:
        return None
    held = state.seats[match.turn]
    if held is None:
        return None
    if held.kind == "bot":
        return held.level or STAND_IN_LEVEL
    if held.stand_in or overdue(state, now):
        return STAND_IN_LEVEL
    return None


def timed_seat(state: RoomState, match: Match | None) -> int | None:
    """The seat whose turn runs against `state.deadline` now, if any."""
    timed = state.deadline is not None and state.deadline_move == state.moves
    return match.turn if timed and match is not None else None


def stand_in_for(state: RoomState, seat: int, now: float) -> bool:
    """Before a bot's move for `seat`: True if the seat is a person's (the move is a stand-in's),
    and a person away or idle past the bound keeps the stand-in until they come back (or, idle,
    take the seat back)."""
    held = state.seats[seat]
    if held is None or held.kind != "human":
        return False
    if not held.connected or idle_overdue(state, now):
        held.stand_in = True
    return True
