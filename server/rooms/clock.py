"""A room's turn clock: when the current human turn runs out, and which bot plays when it has.

When the room has `turn_seconds`, each human turn has that long; at the limit a bot plays that
turn. A seat whose player is away (disconnected) waits for `turn_seconds`, or for `away_seconds`
when the room has no clock; after that a bot (a stand-in) plays every turn of that seat until the
player comes back. The deadline is stored with the room (`deadline`, and `deadline_move`, the
move it is for), so it survives a restart and any server process can act on it.
"""

from __future__ import annotations

from engine import Match
from protocol.views import BotLevel
from server.rooms.room_state import RoomState

#: The level of the bot that plays for an away or out-of-time player.
STAND_IN_LEVEL: BotLevel = "normal"
#: How long an away player's turn waits in a room without a turn clock.
DEFAULT_AWAY_SECONDS = 60.0


def overdue(state: RoomState, now: float) -> bool:
    """Whether the current turn's deadline has passed."""
    return (
        state.deadline is not None and state.deadline_move == state.moves and now >= state.deadline
    )


def arm(state: RoomState, match: Match | None, away_seconds: float, now: float) -> None:
    """Set or clear the current turn's deadline after a move or a seat's coming and going."""
    if state.phase != "playing" or match is None or match.over:
        state.deadline, state.deadline_move = None, -1
        return
    held = state.seats[match.turn]
    if held is None or held.kind == "bot" or held.stand_in:
        state.deadline, state.deadline_move = None, -1
        return
    limit = state.rules.turn_seconds
    same_turn = state.deadline_move == state.moves and state.deadline is not None
    if limit is not None:
        if not same_turn:
            state.deadline, state.deadline_move = now + limit, state.moves
    elif not held.connected:
        if not same_turn:
            state.deadline, state.deadline_move = now + away_seconds, state.moves
    else:
        state.deadline, state.deadline_move = None, -1


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
