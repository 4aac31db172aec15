"""Several server processes on one Redis: the shared committer (`server.cluster.membership` underneath).

A save is a compare-and-set on the room's version; when another process changed the room first
(`RoomChanged`), this one catches up (`server.cluster.replica`: from the notices every save publishes,
or from Redis) and applies the command again. A save that got no answer (`SaveInDoubt`) was
answered `unavailable`, which means unchanged: it is fenced off before the room changes again
(`settle`). Only the room's keeper runs its bots and turn clock. See docs/persistence.md,
"Several server processes".
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
from collections.abc import Mapping
from dataclasses import dataclass

import msgspec

from protocol import messages as msg
from protocol.views import AnyEvent
from server.cluster.follow import follow
from server.cluster.membership import Cluster, Save
from server.cluster.place import Place
from server.cluster.replica import Replica, listing
from server.cluster.upkeep import SharedUpkeep
from server.config import Clock, Timing
from server.play.committer import Committer, Hooks
from server.play.finder import Finder
from server.play.live import Change, LiveRoom, T
from server.play.registry import Registry
from server.rooms.room import Room, RoomError
from server.rooms.room_state import encode_note
from server.rooms.tables import RoomGone
from server.storage.redis_store import RedisStore
from server.storage.store import RoomChanged, SaveInDoubt, StoreUnavailable

log = logging.getLogger("allfives.server")

#: A room's whole state is stored at least every this many changes; moves in between are stored
#: as the move alone (a room is read as its state and the moves since, made again).
STATE_EVERY = 32
#: Rooms read from Redis at once when a process takes many (at start-up, or a dead one's).
LOADS_AT_ONCE = 32
_encode = msgspec.json.Encoder().encode

#: How long a change is tried again while other processes keep changing the room first.
CHANGE_SECONDS = 3.0


@dataclass(frozen=True)
class SharedParts:
    """What a shared committer works with beside the store: its place among the processes,
    the replica following the others' changes, and the finder that loads rooms through it."""

    place: Place
    replica: Replica
    finder: Finder


def shared_parts(registry: Registry, hooks: Hooks) -> SharedParts:
    """The cluster's parts for a shared committer, each given what it uses."""
    place = Place()
    replica = Replica(place, registry, hooks)
    return SharedParts(place, replica, Finder(registry, replica.load))


class SharedCommitter(Committer):
    """One of several processes sharing rooms on one Redis."""

    shared = True

    def __init__(
        self,
        timing: Timing,
        clock: Clock,
        store: RedisStore,
        registry: Registry,
        hooks: Hooks,
        parts: SharedParts,
        lease_seconds: float,
    ) -> None:
        super().__init__(timing, clock, store, registry, hooks)
        #: How long this process's lease lasts unless renewed (`cluster_lease`).
        self.lease_seconds = lease_seconds
        self.redis_store = store
        self.place = parts.place
        self.replica = parts.replica
        self.finder = parts.finder

    @property
    def cluster(self) -> Cluster:
        """This process's place among the others (made by `join`)."""
        return self.place.cluster

    @property
    def joined(self) -> Cluster | None:
        """This process's place among the others on one Redis (None until it has joined)."""
        return self.place.joined

    @property
    def presence_id(self) -> str:
        return self.place.presence_id

    async def unheld(self, code: str) -> Room | None:
        """A room another process plays is read there, not here: None while it is in Redis or
        a live process keeps it (a keeper that runs writes back a room Redis lost,
        `server.cluster.upkeep`); RoomGone once neither holds."""
        cluster = self.cluster
        if await cluster.head(code) is not None:
            return None
        keeper = await cluster.keeper(code)
        if keeper is not None and keeper in await cluster.alive({keeper}):
            return None
        raise RoomGone(code)

    async def join(self, name: str) -> None:
        """Take a lease, subscribe to room notices, keep the rooms nobody keeps; start upkeep."""
        cluster = Cluster(self.redis_store, name, self.lease_seconds)
        cluster.notices.on_notice = self.replica.on_notice
        self.place.joined = cluster
        await cluster.beat()
        await cluster.notices.subscribe()
        found = await cluster.claim(await self.store.room_codes(), held=False)
        await self.keep_all([code for code, status in found.items() if status.kept])
        upkeep = SharedUpkeep(self)
        await upkeep.check_presence()
        kept = sum(1 for live in self.registry.rooms.values() if live.kept)
        log.info("process %s keeps %d rooms", cluster.id, kept)
        self.hooks.spawn(upkeep.renew_lease())
        self.hooks.spawn(upkeep.run())

    async def keep_all(self, codes: list[str]) -> None:
        """Load and keep rooms this process took (at start-up, or a dead process's),
        LOADS_AT_ONCE at a time: a restart with many stored rooms waits for a few round trips
        to Redis, not for one a room."""
        room, keep = self.finder.room, self.hooks.keep
        slots = asyncio.Semaphore(LOADS_AT_ONCE)

        async def load(code: str) -> None:
            async with slots:
                with contextlib.suppress(RoomError):
                    keep(await room(code), True)

        await asyncio.gather(*(load(code) for code in codes))

    async def load_rooms(self) -> None:
        return None  # rooms are loaded on demand, once joined

    async def close(self) -> None:
        if self.place.joined is not None:
            await self.place.joined.close()

    def adopted(self) -> Mapping[str, int]:
        return self.replica.adopted

    def problems(self) -> list[str]:
        if self.place.joined is not None and not self.place.joined.notices.subscribed:
            return ["room notices from other processes are not arriving"]
        return []

    async def new_code(self) -> str:
        """A room code no process uses, taken in Redis."""
        for _ in range(32):
            code = self.registry.new_code()
            if await self.cluster.create(code):
                return code
        raise StoreUnavailable("no free room code found")

    async def seat_of_token(self, live: LiveRoom, token: str) -> int | None:
        seat = live.room.seat_of_token(token)
        if seat is None and await self.behind(live):
            seat = live.room.seat_of_token(token)
        return seat

    async def abandon(self, live: LiveRoom) -> None:
        if follow(live).doubts:
            self.hooks.spawn(self._abandon(live.room.code, list(follow(live).doubts)))
        elif live.saved_seq == 0:
            with contextlib.suppress(StoreUnavailable):
                await self.cluster.release(live.room.code)

    async def public_rooms(self) -> list[msg.RoomSummary]:
        try:
            listed = await self.cluster.public_rooms()
        except StoreUnavailable:
            return self.registry.public_rooms()  # then the rooms this process holds
        return [msgspec.convert(summary, msg.RoomSummary) for summary in listed]

    async def change(self, live: LiveRoom, apply: Change[T], rollback: bool = True) -> T:
        """Apply, store, send; a change another process stored first (`RoomChanged`) makes
        this one catch up with the room and apply it again, so each room's changes are applied
        in one order, each once; RoomError if it no longer applies. A refusal is checked against
        the version Redis holds first, so a copy behind Redis never refuses what it would allow.
        Shared rooms never hold a change Redis does not: `rollback` does not apply.
        """
        replica = self.replica
        await self.settle(live)
        loop = asyncio.get_running_loop()
        deadline = loop.time() + CHANGE_SECONDS
        checked = False
        holds_next_write = False  # Redis gave this process the room's next write, unused yet
        try:
            while True:
                seq = live.room.seq
                try:
                    result, events = apply(live.room)
                except RoomError:
                    if checked or not await self.behind(live):
                        raise
                    checked = True
                    continue
                if live.room.seq == seq:
                    return result
                try:
                    await self._save(live, events, seq)
                except RoomChanged as changed:
                    self.conflicts += 1
                    if loop.time() > deadline:
                        raise StoreUnavailable(f"room {live.room.code} kept changing") from None
                    if changed.stored == RoomChanged.BUSY:
                        # Another process has the next write: its notice comes first.
                        await replica.next_notice(live)
                        if follow(live).inbox:
                            await replica.catch_up(live, max(follow(live).inbox))
                    else:
                        holds_next_write = True
                        await replica.catch_up(live, changed.stored)
                    self.registry.require_open(live)
                    continue
                holds_next_write = False
                return result
        finally:
            if holds_next_write:
                # Refused after all, or no change left to make: let the others go first.
                self.hooks.spawn(self._yield_next_write(live.room.code))

    async def _save(self, live: LiveRoom, events: list[AnyEvent], parent_seq: int) -> None:
        """Store the room's new state (compare-and-set), then send every receiver its patch.

        A change that was one move sends other processes the move (`Room.last_move`), and is
        stored as the move alone, but every STATE_EVERY-th seq (the room is then its last
        stored state and the moves since, made again).
        """
        room = live.room
        encoded = _encode(events)
        move_seq, note = room.last_move
        move = b""
        if note is not None and move_seq == room.seq == parent_seq + 1:
            move = encode_note(note)
        logged = bool(move) and room.seq % STATE_EVERY != 0
        state = b"" if logged else room.to_bytes()
        try:
            follow(live).version = await self.cluster.save(
                Save(room.code, room.seq, follow(live).version, encoded, listing(room), state, move)
            )
        except StoreUnavailable as error:
            # Shared rooms never hold a change Redis does not (RoomChanged included).
            self.restore(live)
            if isinstance(error, SaveInDoubt):
                follow(live).doubts[error.version] = None
            raise
        if logged:
            live.adopt_move(move)
            self.send(live, events)
        else:
            self.publish(live, state, events)

    async def settle(self, live: LiveRoom) -> None:
        """Under the lock: fence off the room's unanswered saves (`Replica.settle`)."""
        await self.replica.settle(live)

    async def _abandon(self, code: str, versions: list[str]) -> None:
        """A new room whose first save got no answer: fence it off, delete it if it was stored."""
        while True:
            try:
                found = await self.cluster.fence(code, versions)
                if found.stored is not None and found.version == found.stored:
                    await self.cluster.delete(code, found.version)
                await self.cluster.release(code)
                return
            except StoreUnavailable:
                await asyncio.sleep(self.cluster.lease / 3)

    async def _yield_next_write(self, code: str) -> None:
        with contextlib.suppress(StoreUnavailable):
            await self.cluster.yield_next_write(code)

    async def behind(self, live: LiveRoom) -> bool:
        """Under the lock: whether Redis holds another version of the room (then caught up)."""
        try:
            stored = await self.cluster.head(live.room.code)
        except StoreUnavailable:
            return False
        if stored is None or stored[1] == follow(live).version:
            return False
        await self.replica.catch_up(live, stored[0])
        self.registry.require_open(live)
        return True
