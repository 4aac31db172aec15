"""A tournament's table as a room: every seat reserved for its entrant, the match dealt at once.

Plain functions on a `RoomState` (sans-I/O, no clock, no `seq`); `server.rooms.room.Room` counts
each change. A table's room (`RoomState.tournament` set) differs from an ordinary one in four
ways (docs/tournaments.md, "How a round is played"):

- its seats are taken when it opens (`seat`): a person's seat is reserved for that entrant's
  player (held, away, with no token yet), a bot entrant's bot sits in its own;
- its match is dealt at once, whoever is there: a person not at the table yet is a player away,
  and the stand-in rules of any room apply (`server.rooms.clock`), so a table never waits;
- a `join` from the player a seat is reserved for takes that seat, whatever seat it asks for
  (`claim`), and anyone else's `join` is refused;
- it has no host, and so no rematch: the tournament says what is played next.
"""

from __future__ import annotations

import msgspec

from protocol import errors
from protocol.views import BotLevel
from server.rooms import presence
from server.rooms.room_state import (
    RoomError,
    RoomState,
    SeatState,
    TableOf,
    new_token,
    token_hash,
)


class Sitter(msgspec.Struct, frozen=True, kw_only=True):
    """Who a table's seat is for: a person (`player`, the id of their key) or a bot (`level`),
    by the name the tournament shows."""

    name: str
    player: str | None = None
    level: BotLevel | None = None


class TableResult(msgspec.Struct, frozen=True, kw_only=True):
    """A table's finished match: its final scores by seat, and its archived game's id (None
    until the archive has it)."""

    scores: list[int]
    game: str | None = None


class RoomGone(Exception):
    """A table's room is gone for good: neither held by the process nor in the store. `code`
    is the room's code alone (a private room's invite is not said)."""

    def __init__(self, code: str) -> None:
        super().__init__(code)
        self.code = code


def is_table(state: RoomState) -> bool:
    """Whether the room plays a tournament's table."""
    return state.tournament is not msgspec.UNSET


def seat(state: RoomState, of: TableOf, sitters: list[Sitter], now: float) -> None:
    """Fill a new room's seats for table `of` (one sitter a seat, in order); no host."""
    if len(sitters) != len(state.seats):
        raise RoomError(errors.INVALID, f"{len(state.seats)} sitters are needed, one a seat")
    for index, sitter in enumerate(sitters):
        if sitter.player is not None:
            held = SeatState(name=sitter.name, kind="human", away_since=now)
            held.player = sitter.player
        else:
            held = SeatState(name=sitter.name, kind="bot", level=sitter.level or "normal")
        state.seats[index] = held
    state.tournament = of
    state.host = None


def claim(
    state: RoomState, player: str | None, now: float, process: str, watching: bool
) -> tuple[int, str]:
    """The seat reserved for `player` taken by its connection: a fresh token, connected (a
    stand-in playing for it stops). RoomError `room_full` (`seat_taken`) for anyone else, and
    `invalid` (`already_seated`) while another connection of theirs holds it."""
    mine = [
        index
        for index, held in enumerate(state.seats)
        if player is not None
        and held is not None
        and held.kind == "human"
        and held.player is not msgspec.UNSET
        and held.player == player
    ]
    if not mine:
        raise RoomError(
            errors.ROOM_FULL,
            f"the seats of room {state.code} are reserved for a tournament's entrants",
            errors.SEAT_TAKEN,
        )
    index = mine[0]
    held = state.seats[index]
    assert held is not None
    if held.connected:
        # Another connection of theirs holds the seat: it is resumed with its token, as in any
        # room (`hello`), which closes the other; a second `join` would leave two.
        raise RoomError(
            errors.INVALID,
            f"you sit at seat {index} here already, from another connection: "
            "resume it with its seat token",
            errors.ALREADY_SEATED,
        )
    if watching:
        presence.watch(state, -1, process)
    token = new_token()
    held.token_hash = token_hash(token)
    held.connected, held.stand_in, held.away_since = True, False, None
    presence.link(state, index, process)
    return index, token


def final_scores(state: RoomState, finished: list[int] | None) -> list[int] | None:
    """A table's final scores by seat (partners carry their side's), from the finished match's
    scores by side, once the room's match is over; None while it plays."""
    if state.phase != "finished" or finished is None:
        return None
    sides = len(finished)
    return [finished[index % sides] for index in range(len(state.seats))]
