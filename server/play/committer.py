"""Storing and publishing a room's changes: one interface, three implementations.

A change runs under the room's lock, on its one path (`server.play.live.LiveRoom.run`): the
command changes the room and says its events; the committer stores the new state, and only
then is every receiver sent its patch (`publish`). `LocalCommitter` is the one
process that holds its rooms in a store of its own; `MemoryCommitter` is one whose store holds
the live rooms themselves (`MemoryStore`, the default): nothing is encoded and nothing can fail;
`server.cluster.shared.SharedCommitter` is one of several processes on one Redis. The wiring
(`server.app.committer_for`) picks one at start-up, so neither path asks which one it is on.
"""

from __future__ import annotations

import abc
import asyncio
import logging
from collections.abc import Coroutine, Mapping
from typing import Any, Protocol

import msgspec

from protocol import messages as msg
from protocol.views import AnyEvent
from server.config import Clock, Timing
from server.play.live import Change, LiveRoom, T, stored_state
from server.play.registry import Registry
from server.play.upkeep import LocalUpkeep
from server.rooms.room import Room
from server.rooms.tables import RoomGone
from server.storage.store import Store, StoreUnavailable

log = logging.getLogger("allfives.server")


class Hooks(Protocol):
    """What the committer asks of the rest of the server."""

    def published(self, live: LiveRoom) -> None:
        """A change reached the room's clients: records, counts, the bots and clock."""

    def kick(self, live: LiveRoom) -> None:
        """Make sure a due bot move gets made and the turn clock is set."""

    def keep(self, live: LiveRoom, kept: bool) -> None:
        """Start or stop running a room's bots and clock here."""

    def spawn(self, coroutine: Coroutine[Any, Any, Any]) -> asyncio.Task[Any]:
        """Run a task that ends with the server."""


class Committer(abc.ABC):
    """Applies, stores and publishes room changes."""

    #: Whether rooms are shared with other processes (the server then joins them after
    #: listening, and is not ready until it has).
    shared = False

    def __init__(
        self, timing: Timing, clock: Clock, store: Store, registry: Registry, hooks: Hooks
    ) -> None:
        #: How long seats and rooms wait, and the upkeep's beat (`server.play.upkeep`).
        self.timing = timing
        self.clock = clock
        self.store = store
        self.registry = registry
        self.hooks = hooks
        #: Changes another process stored first, so this one applied them again.
        self.conflicts = 0

    @property
    def presence_id(self) -> str:
        """This process's id in room presence ("" alone)."""
        return ""

    def holds(self, live: LiveRoom) -> bool:
        """Whether this copy is still the room held under its code."""
        return self.registry.holds(live)

    @abc.abstractmethod
    async def change(self, live: LiveRoom, apply: Change[T], rollback: bool = True) -> T:
        """Under the room's lock: apply a change, store it, send it; its result.

        `rollback`: a change that cannot be stored is undone (StoreUnavailable); without, a
        single process keeps it (and stores it with the next one).
        """

    @abc.abstractmethod
    async def load_rooms(self) -> None:
        """Before listening: hold the rooms the store has (with others: none yet)."""

    @abc.abstractmethod
    async def join(self, name: str) -> None:
        """After listening: start the upkeep (and with others, join them as `name`)."""

    @abc.abstractmethod
    async def close(self) -> None:
        """Stop (the store is closed by the server)."""

    async def new_code(self) -> str:
        """A code for a new room."""
        return self.registry.new_code()

    async def seat_of_token(self, live: LiveRoom, token: str) -> int | None:
        """Under the lock: the seat a resume token holds."""
        return live.room.seat_of_token(token)

    @abc.abstractmethod
    async def abandon(self, live: LiveRoom) -> None:
        """A new room whose first command failed (it is forgotten already)."""

    async def public_rooms(self) -> list[msg.RoomSummary]:
        """The public rooms waiting for players."""
        return self.registry.public_rooms()

    def problems(self) -> list[str]:
        """Why the server should not get players now, as far as storing goes."""
        return []

    def adopted(self) -> Mapping[str, int] | None:
        """Other processes' changes taken here, by kind (None: alone, there are none)."""
        return None

    async def unheld(self, code: str) -> Room | None:
        """A room this process does not hold, as the store has it (one being loaded at
        start-up, or one forgotten after it expired while the store did not answer); RoomGone
        when the store does not have it either: it is gone for good. None where it may not be
        read here (with several processes, another process plays it)."""
        stored = await self.store.load_room(code)
        if stored is None:
            raise RoomGone(code)
        return self.registry.room_of(stored_state(code, stored.state, stored.moves))

    def restore(self, live: LiveRoom) -> None:
        """Put a room back as it was last published (a change that could not be stored)."""
        live.room = self.registry.room_of(live.saved)

    def publish(self, live: LiveRoom, state: bytes, events: list[AnyEvent] | msgspec.Raw) -> None:
        """A change is stored: it is what a later failure goes back to; send it to everyone."""
        live.saved = state
        self.send(live, events)

    def send(self, live: LiveRoom, events: list[AnyEvent] | msgspec.Raw) -> None:
        """Send a stored change (`live.saved` holds it) to everyone."""
        room = live.room
        live.saved_seq = room.seq
        live.broadcast(live.feed.publish(room, events))
        self.hooks.published(live)


class LocalCommitter(Committer):
    """One process holding its rooms: a change is applied and saved, nothing to wait for."""

    async def change(self, live: LiveRoom, apply: Change[T], rollback: bool = True) -> T:
        room = live.room
        seq = room.seq
        result, events = apply(room)
        if room.seq == seq:
            return result
        state = self._encode(room)
        try:
            await self._store(room, state)
        except StoreUnavailable:
            if rollback:
                self.restore(live)
                raise
            log.warning("room %s: change %d not stored", room.code, room.seq)
        self.publish(live, state, events)
        return result

    def _encode(self, room: Room) -> bytes:
        """A room's state as the store takes it (and a later failure goes back to)."""
        return room.to_bytes()

    async def _store(self, room: Room, state: bytes) -> None:
        await self.store.save_room(room.code, room.seq, state)

    async def load_rooms(self) -> None:
        now = self.clock()
        for code in await self.store.room_codes():
            stored = await self.store.load_room(code)
            if stored is None:
                continue
            state = stored_state(code, stored.state, stored.moves)
            room = self.registry.room_of(state)
            if room.all_away(now):
                # Whoever was connected is gone: that is a change, stored under a new seq.
                state = self._encode(room)
                await self._store(room, state)
            live = self.registry.held(room, state)
            self.registry.open(live)
            # Kept here: a finished match its last process did not archive is archived now.
            self.hooks.keep(live, True)
            self.hooks.kick(live)
        if self.registry.rooms:
            count = len(self.registry.rooms)
            log.info("resumed %d room%s", count, "" if count == 1 else "s")

    async def join(self, name: str) -> None:
        self.hooks.spawn(LocalUpkeep(self).run())

    async def close(self) -> None:
        return None

    async def abandon(self, live: LiveRoom) -> None:
        return None  # nothing was stored


class MemoryCommitter(LocalCommitter):
    """A store that holds the live rooms (`MemoryStore`): a change is held, not encoded.

    Such a store cannot fail, so there is no state to go back to: `LiveRoom.saved` stays empty.
    """

    async def change(self, live: LiveRoom, apply: Change[T], rollback: bool = True) -> T:
        # `LocalCommitter.change` without what cannot happen here: no encoding, no failure.
        room = live.room
        seq = room.seq
        result, events = apply(room)
        if room.seq != seq:
            self.store.hold(room.code, room.seq, room)
            self.publish(live, b"", events)
        return result

    def _encode(self, room: Room) -> bytes:
        return b""

    async def _store(self, room: Room, state: bytes) -> None:
        self.store.hold(room.code, room.seq, room)


__all__ = [
    "Change",
    "Committer",
    "Hooks",
    "LocalCommitter",
    "MemoryCommitter",
]
