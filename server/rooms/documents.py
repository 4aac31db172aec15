"""The whole document a receiver holds, built fresh from the room: what a `snapshot` carries.

A seat's game comes from `match.view_for(seat)` (the engine's one place where hidden tiles are
removed), the spectators' from `match.view_for(None)`. Patches (server.rooms.patches) must keep every
receiver's document equal to this; tests/server/rooms/test_server_feed.py checks it after every change.
"""

from __future__ import annotations

from typing import Any

import msgspec

from bridge import convert
from protocol import views as wire
from server.rooms import results, tables
from server.rooms.room import Room

#: A receiver: a seat number, or SPECTATORS.
Receiver = int | None
SPECTATORS: Receiver = None


def room_view(room: Room, receiver: Receiver) -> wire.RoomView:
    """A receiver's whole document, as the wire's RoomView."""
    state = room.state
    return wire.RoomView(
        code=state.code,
        rules=state.rules,
        seats=room.seat_infos(),
        you=receiver,
        host=state.host,
        phase=state.phase,
        sides=seat_sides(room),
        spectators=state.spectators,
        game=game_view(room, receiver),
        deadline=room.turn_deadline(),
        chat=list(state.chat),
        ratings=results.ratings_shown(state),
        game_id=results.game_shown(state),
        tournament_table=tables.is_table(state),
    )


def game_view(room: Room, receiver: Receiver) -> wire.GameView | None:
    """A receiver's game, its history saying which moves a stand-in made."""
    if room.match is None:
        return None
    game = convert.game_view(room.match.view_for(receiver))
    game.history = room.history(game.history)
    return game


def seat_sides(room: Room) -> list[int]:
    """Each seat's index in the scores: its team in a partnership, else the seat."""
    rules = room.state.rules
    return [rules.side_of(seat) for seat in range(rules.players)]


def public_game(room: Room) -> dict[str, Any]:
    """The spectators' game with an empty history (a new hand's lines follow as operations)."""
    assert room.match is not None
    view = room.match.view_for(None)
    view.history = []
    game: dict[str, Any] = msgspec.to_builtins(convert.game_view(view))
    return game
