"""The commands the server itself gives a room, beside the ones clients send.

A seat taken back by its token, a tournament's table opened, a connection gone, a bot's move, a stand-in's, a player's
presence fixed, seats released, a finished match's rating changes: each is a command handled
by `server.rooms.commands.handle` like a client's, so every change to a room takes one path
(command, stored, published, effects). `Chore`s are the ones nobody waits for an answer to: on
a room no longer held they do nothing; `Resume` answers a client's `hello`. Sans-I/O.
"""

from __future__ import annotations

from dataclasses import dataclass

from engine import Move
from protocol.ratings import RatingChange
from server.rooms.room_state import BotTurn, TableOf
from server.rooms.tables import Sitter


@dataclass(frozen=True, slots=True)
class Resume:
    """A returning player takes back the seat `token` holds, and is sent what it missed after
    `last_seq` (`hello` with a token; `id` is the hello's)."""

    token: str
    last_seq: int | None
    id: int | None


@dataclass(frozen=True, slots=True)
class Connect:
    """This process serves the player in `seat` (its presence noted as it is)."""

    seat: int


@dataclass(frozen=True, slots=True)
class Disconnect:
    """This process no longer serves the player in `seat` (away, its seat kept)."""

    seat: int


@dataclass(frozen=True, slots=True)
class Watch:
    """`delta` spectators more (or fewer) follow the room from this process."""

    delta: int


@dataclass(frozen=True, slots=True)
class Depart:
    """The caller's connection left the room (`disconnected`: it dropped; a seat stays away)."""

    disconnected: bool


@dataclass(frozen=True, slots=True)
class BotMove:
    """A bot's (or a stand-in's) move for `turn`, made only while that turn is still current."""

    turn: BotTurn
    move: Move


@dataclass(frozen=True, slots=True)
class SetRatings:
    """Finished match `match` was archived as `game_id` with these rating changes."""

    match: int
    changes: list[RatingChange]
    game_id: str | None


@dataclass(frozen=True, slots=True)
class ReleaseAway:
    """Seats of players away for `after` seconds freed (waiting rooms), hosts passed on."""

    after: float


@dataclass(frozen=True, slots=True)
class DropLinks:
    """The processes in `dead` stopped: their players are away."""

    dead: frozenset[str]


@dataclass(frozen=True, slots=True)
class OpenTable:
    """A new room becomes tournament table `of`: its seats reserved for `sitters` (one a seat,
    in order) and the match dealt at once (`server.rooms.tables`)."""

    of: TableOf
    sitters: list[Sitter]


#: The server's commands nobody waits for: on a room that closed meanwhile they do nothing.
Chore = Connect | Disconnect | Watch | Depart | BotMove | SetRatings | ReleaseAway | DropLinks
#: Every command the server gives a room itself.
ServerCommand = Resume | OpenTable | Chore

__all__ = [
    "BotMove",
    "Chore",
    "Connect",
    "Depart",
    "Disconnect",
    "DropLinks",
    "OpenTable",
    "ReleaseAway",
    "Resume",
    "ServerCommand",
    "SetRatings",
    "Watch",
]
