"""A room's side of a session's commands: each one under the room's lock, through the committer.

`RoomCommands.command` applies a command (`server.rooms.commands`), has the committer store the
room, and only then carries out what it asks of the sender's connection (`Effect`s: a reply,
a seat, a snapshot...). Opening a room, a returning player's seat, and a connection leaving its
room are here too: everything a session (`server.edge.session`) does inside a room.
"""

from __future__ import annotations

import logging
from collections.abc import Awaitable, Callable

from protocol import errors
from protocol import messages as msg
from protocol.views import AnyEvent
from server.config import Config
from server.edge.connection import CLOSE_REMOVED, CLOSE_SEAT_RESUMED, Connection
from server.metrics import Metrics
from server.play.committer import Committer
from server.play.live import LiveRoom
from server.play.registry import Registry
from server.rooms import codes, commands
from server.rooms.room import Caller, Room, RoomError
from server.rooms.room_state import (
    Document,
    Effect,
    HintAsked,
    Left,
    Outcome,
    Removed,
    Reply,
    Seated,
    SeatState,
)
from server.storage.archive import Player
from server.storage.store import StoreUnavailable

log = logging.getLogger("allfives.server")

#: The messages that are moves (a room command like any other, and most of what is sent).
MOVES = frozenset({msg.Play, msg.Pass})


class RoomCommands:
    """What a session does in a room (see the module docstring)."""

    def __init__(
        self, config: Config, registry: Registry, committer: Committer, metrics: Metrics
    ) -> None:
        self.config = config
        self.clock = config.clock
        self.registry = registry
        self.committer = committer
        self.metrics = metrics

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
        async with live.lock:
            seat = await self.committer.seat_of_token(live, token)
            if seat is None:
                raise RoomError(errors.BAD_TOKEN, no_seat(codes.normalise(code)))
            found()
            held = live.room.seats[seat]
            if held is not None:
                await check(held, connection.player)
            live.close_seat(seat, CLOSE_SEAT_RESUMED, "this seat was resumed by another connection")
            here = self.committer.presence_id

            def back(room: Room) -> tuple[None, list[AnyEvent]]:
                room.connect(seat, self.clock(), here)
                return None, []

            try:
                await self.committer.change(live, back, rollback=False)
            except StoreUnavailable as error:
                # Several processes: the seat is served anyway; upkeep stores it later.
                log.warning(
                    "room %s: seat %d is back, not stored yet: %s", live.room.code, seat, error
                )
            connection.room, connection.seat, connection.spectating = live, seat, False
            live.add(connection)
            connection.send_message(
                msg.Joined(room=live.room.join_code, seat=seat, seat_token=token, id=hello.id)
            )
            for frame in live.feed.catch_up(live.room, seat, hello.last_seq):
                connection.send(frame)

    async def open(self, connection: Connection, message: msg.CreateRoom) -> None:
        code = await self.committer.new_code()
        invite = None if message.rules.public else codes.new_invite()
        room = Room.create(code, message.rules, connection.address, self.clock(), invite)
        room.away_seconds = self.config.timing.away_seconds
        room.idle_seconds = self.config.timing.idle_seconds
        live = LiveRoom(room, self.config.storage.keep_patches)
        live.saved = room.to_bytes()
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
        """Apply one room command under the room's lock: apply, store, then send.

        A command that puts the connection in this room (`join`, `spectate`) takes it out of the
        room it was in only once it succeeded: a refused one leaves it where it was.
        """
        async with live.lock:
            self.registry.require_open(live)
            here = connection.room is live
            caller = Caller(
                name=connection.name,
                seat=connection.seat if here else None,
                spectating=connection.spectating if here else False,
                process=self.committer.presence_id,
                player=None if connection.player is None else connection.player.id,
            )

            def handle(room: Room) -> tuple[Outcome, list[AnyEvent]]:
                outcome = commands.handle(room, caller, message, self.clock())
                return outcome, outcome.events

            outcome = await self.committer.change(live, handle)
            if outcome.changed:
                if type(message) in MOVES:
                    self.metrics.moves += 1
                elif isinstance(message, msg.Start):
                    self.metrics.matches_started += 1
            left = self._carry_out(live, connection, outcome.effects)
        if left is not None:
            await self._depart(*left, disconnected=False)
        return outcome

    def _carry_out(
        self, live: LiveRoom, connection: Connection, effects: list[Effect]
    ) -> tuple[LiveRoom, int | None, bool] | None:
        """Under the lock: what a stored command asks, in order, the same for every command.
        Returns the room the sender was in before this one took it (left once unlocked)."""
        left = None
        for effect in effects:
            match effect:
                case Reply(message):
                    connection.send_message(message)
                case Seated(seat):
                    before = connection.room
                    if before is not None and before is not live:
                        before.discard(connection)
                        left = (before, connection.seat, connection.spectating)
                    live.discard(connection)
                    connection.room, connection.seat = live, seat
                    connection.spectating = seat is None
                    live.add(connection)
                case Document():
                    connection.send(live.feed.snapshot(live.room, connection.receiver))
                case Left():
                    live.discard(connection)
                    connection.detach()
                case Removed(seat):
                    live.close_seat(seat, CLOSE_REMOVED, "the host removed you from the room")
                case HintAsked():
                    pass  # the hint lane takes it (`Sessions._hint`)
        return left

    async def leave(self, connection: Connection, disconnected: bool) -> None:
        """Take a connection out of its room: its seat stays (away) when it only dropped."""
        live = connection.room
        if live is None:
            return
        async with live.lock:
            if connection.room is not live:
                return
            live.discard(connection)
            seat, spectating = connection.seat, connection.spectating
            connection.detach()
            await self._gone(live, seat, spectating, disconnected)

    async def _depart(
        self, live: LiveRoom, seat: int | None, spectating: bool, disconnected: bool
    ) -> None:
        """A connection already taken out of `live` (it went to another room): note it there."""
        async with live.lock:
            await self._gone(live, seat, spectating, disconnected)

    async def _gone(
        self, live: LiveRoom, seat: int | None, spectating: bool, disconnected: bool
    ) -> None:
        """Under the lock: store that a seat (or a spectator) left or dropped."""
        if not self.registry.holds(live):
            return
        here = self.committer.presence_id

        def gone(room: Room) -> tuple[None, list[AnyEvent]]:
            now = self.clock()
            if seat is not None:
                if disconnected:
                    room.disconnect(seat, now, here)
                else:
                    room.leave(seat, now)
            elif spectating:
                room.watch(-1, now, here)
            return None, []

        try:
            await self.committer.change(live, gone, rollback=False)
        except StoreUnavailable as error:
            # Several processes: upkeep stores it once Redis answers.
            log.warning("room %s: a departure not stored yet: %s", live.room.code, error)


def no_seat(code: str) -> str:
    """What a token that holds no seat in room `code` is told (a missing room says the same)."""
    return f"that token holds no seat in room {code!r} (or there is no such room)"


__all__ = ["MOVES", "RoomCommands", "no_seat"]
