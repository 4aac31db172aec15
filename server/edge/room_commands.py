"""A room's side of a session's commands: each one on the room's one path (`LiveRoom.run`).

`RoomCommands.command` runs a command there (`server.rooms.commands` applies it, the committer
stores and publishes the room), and only then carries out what it asks of the sender's
connection (`Effect`s: a reply, a seat, a snapshot...), the same way for every command. Opening a room, a returning player's seat, and a connection leaving its
room are here too: everything a session (`server.edge.session`) does inside a room.
"""

from __future__ import annotations

import logging
from collections.abc import Awaitable, Callable

from protocol import errors
from protocol import messages as msg
from server.config import Clock
from server.edge.connection import CLOSE_SEAT_RESUMED, Connection
from server.metrics import Metrics
from server.play.committer import Committer
from server.play.live import LiveRoom
from server.play.registry import Registry
from server.rooms import codes
from server.rooms.room import Caller, Room, RoomError
from server.rooms.room_state import (
    Outcome,
    SeatState,
)
from server.rooms.server_commands import Depart, Resume
from server.storage.archive import Player
from server.storage.store import StoreUnavailable

log = logging.getLogger("allfives.server")

#: The messages that are moves (a room command like any other, and most of what is sent).
MOVES = frozenset({msg.Play, msg.Pass})


class RoomCommands:
    """What a session does in a room (see the module docstring)."""

    def __init__(
        self, clock: Clock, registry: Registry, committer: Committer, metrics: Metrics
    ) -> None:
        self.clock = clock
        self.registry = registry
        self.committer = committer
        self.metrics = metrics

    def _caller(self, live: LiveRoom, connection: Connection) -> Caller:
        """Who the connection is to `live` (a seat or a spectator there, or neither yet)."""
        here = connection.room is live
        return Caller(
            name=connection.name,
            seat=connection.seat if here else None,
            spectating=connection.spectating if here else False,
            process=self.committer.presence_id,
            player=None if connection.player is None else connection.player.id,
        )

    async def resume(
        self,
        connection: Connection,
        live: LiveRoom,
        hello: msg.Hello,
        check: Callable[[SeatState, Player | None], Awaitable[None]],
        found: Callable[[], None],
        code: str,
    ) -> None:
        """Give a returning player their seat back and what they missed, once `check` lets the
        connection's player take the seat (a key's seat needs that key). `found` is called as
        soon as the hello's token is seen to hold a seat: before waiting for the room's lock
        (held while another change is stored) when the copy here shows it already."""
        token = hello.token
        assert token is not None
        if live.room.seat_of_token(token) is not None:
            found()

        async def admit() -> Caller:
            seat = await self.committer.seat_of_token(live, token)
            if seat is None:
                raise RoomError(errors.BAD_TOKEN, codes.no_seat(code))
            found()
            held = live.room.seats[seat]
            if held is not None:
                await check(held, connection.player)
            live.close_seat(seat, CLOSE_SEAT_RESUMED, "this seat was resumed by another connection")
            return self._caller(live, connection)

        # Not stored (several processes, Redis away), the seat is served anyway: upkeep stores it.
        resume = Resume(token, hello.last_seq, hello.id)
        await live.run(self.committer, resume, admit, rollback=False, member=connection)

    async def open(self, connection: Connection, message: msg.CreateRoom) -> None:
        code = await self.committer.new_code()
        invite = None if message.rules.public else codes.new_invite()
        room = Room.create(code, message.rules, connection.address, self.clock(), invite)
        live = self.registry.fresh(room)
        self.registry.open(live)
        join = msg.Join(id=message.id, room=room.code, seat=message.seat)
        try:
            await self.command(live, connection, join)
        except (RoomError, StoreUnavailable):
            self.registry.forget(live)
            await self.committer.abandon(live)
            raise
        log.info("room %s created by %s", room.code, connection.address)

    async def command(
        self, live: LiveRoom, connection: Connection, message: msg.ClientMessage
    ) -> Outcome:
        """Run one room command on the room's one path (`LiveRoom.run`): apply, store, send,
        then its effects for the sender.

        A command that puts the connection in this room (`join`, `spectate`) takes it out of the
        room it was in only once it succeeded: a refused one leaves it where it was.
        """

        async def admit() -> Caller:
            return self._caller(live, connection)

        outcome = await live.run(self.committer, message, admit, member=connection)
        if outcome.changed:
            if type(message) in MOVES:
                self.metrics.moves += 1
            elif isinstance(message, msg.Start):
                self.metrics.matches_started += 1
        return outcome

    async def leave(self, connection: Connection, disconnected: bool) -> None:
        """Take a connection out of its room: its seat stays (away) when it only dropped."""
        live = connection.room
        if live is None:
            return

        async def admit() -> Caller | None:
            if connection.room is not live:
                return None
            live.discard(connection)
            caller = self._caller(live, connection)
            connection.detach()
            return caller

        await live.run(self.committer, Depart(disconnected), admit, rollback=False)


__all__ = ["MOVES", "RoomCommands"]
