"""Following other processes' changes to the rooms held here (several processes).

Every save publishes a notice (`server.cluster.membership`); notices are adopted in seq order and sent on
as patches. A notice of one move is made here again (`server.rooms.notes.replay_move`: the engine is
deterministic) and must give the events the writer sent; a notice of any other change carries
the room's state. A notice missing for GAP_WAIT seconds, one from another chain of versions, or
a move that does not replay as stored, and the room is read from Redis instead, its clients
sent snapshots.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
from collections import Counter
from typing import TYPE_CHECKING

import msgspec

from protocol import errors
from server.cluster.follow import follow
from server.cluster.membership import Save
from server.cluster.notices import GONE, Notice, read_notice
from server.play.live import LiveRoom
from server.play.members import CLOSE_SEAT_RESUMED
from server.rooms import codes, notes
from server.rooms.room import Room, RoomError
from server.storage.store import RoomChanged, SaveInDoubt, StoreUnavailable

if TYPE_CHECKING:
    from server.cluster.place import Place
    from server.play.committer import Hooks
    from server.play.registry import Registry

log = logging.getLogger("allfives.server")

#: How long a missing notice is waited for before the room is read from Redis.
GAP_WAIT = 0.5

_encode = msgspec.json.Encoder().encode


class Replica:
    """Keeps the rooms held here in step with the changes other processes store."""

    def __init__(self, place: Place, registry: Registry, hooks: Hooks) -> None:
        self.place = place
        self.registry = registry
        self.hooks = hooks
        #: Notices of rooms being loaded, kept until the room is in memory.
        self._early: dict[str, list[Notice]] = {}
        #: Changes adopted: "move" (made here again), "state", and "misfit" (a move that did
        #: not replay as stored, so the room was read from Redis).
        self.adopted: Counter[str] = Counter()

    async def load(self, code: str) -> LiveRoom:
        """Read a room from Redis into memory (notices arriving meanwhile are kept)."""
        cluster = self.place.cluster
        self._early[code] = []
        try:
            await cluster.follow(code)
            stored = await cluster.load(code)
        finally:
            early = self._early.pop(code, [])
        if stored is None:
            raise RoomError(errors.NO_SUCH_ROOM, codes.missing(code))
        live = self.registry.live(stored.state)
        follow(live).version = stored.version
        live.kept = False
        self.registry.rooms[code] = live
        for notice in early:
            self._receive(live, notice)
        return live

    def on_notice(self, data: bytes) -> None:
        """A notice of another process's change, from this process's channel."""
        notice = read_notice(data)
        if notice is None:
            return
        live = self.registry.rooms.get(notice.code)
        if live is not None:
            self._receive(live, notice)
        elif (early := self._early.get(notice.code)) is not None:
            early.append(notice)

    def _receive(self, live: LiveRoom, notice: Notice) -> None:
        if notice.seq == GONE:
            self.hooks.spawn(self._gone(live))
            return
        if notice.seq <= live.saved_seq:
            return
        state = follow(live)
        state.inbox[notice.seq] = notice
        state.arrived.set()
        if state.follower is None or state.follower.done():
            state.follower = self.hooks.spawn(self._follow(live))

    async def _follow(self, live: LiveRoom) -> None:
        async with live.exclusive():
            for seq in [seq for seq in follow(live).inbox if seq <= live.saved_seq]:
                del follow(live).inbox[seq]  # taken meanwhile, by a command that caught up
            if self.registry.holds(live) and follow(live).inbox:
                await self.catch_up(live, max(follow(live).inbox))

    async def follow_redis(self, live: LiveRoom) -> None:
        """Catch up with Redis, whose version of the room differed from this copy's a moment ago.

        Read again under the lock: the copy may have caught up meanwhile, or a notice be on its way.
        """
        async with live.exclusive():
            if not self.registry.holds(live):
                return
            stored = await self.place.cluster.head(live.room.code)
            if stored is None or stored[1] != follow(live).version:
                await self.catch_up(live, -1 if stored is None else stored[0])

    async def next_notice(self, live: LiveRoom) -> None:
        """Wait until a notice newer than the room held has arrived (at most GAP_WAIT s)."""
        if any(seq > live.saved_seq for seq in follow(live).inbox):
            return
        follow(live).arrived.clear()
        with contextlib.suppress(TimeoutError):
            await asyncio.wait_for(follow(live).arrived.wait(), GAP_WAIT)

    async def catch_up(self, live: LiveRoom, target: int) -> None:
        """Under the lock: adopt the notices up to seq `target` (and on) in order.

        A notice missing for GAP_WAIT seconds, one from another chain of versions, or a target
        not above what is held, and the room is read from Redis instead (`_refresh`).
        """
        with contextlib.suppress(StoreUnavailable):
            await self.settle(live)
        if follow(live).doubts:
            return  # caught up once the unanswered saves are settled
        loop = asyncio.get_running_loop()
        deadline = loop.time() + GAP_WAIT
        if target <= live.saved_seq:
            await self._refresh(live)
        while True:
            notice = follow(live).inbox.pop(live.saved_seq + 1, None)
            if (
                notice is not None
                and notice.parent == follow(live).version
                and self._adopt(live, notice)
            ):
                continue
            if notice is not None or (live.saved_seq < target and loop.time() >= deadline):
                await self._refresh(live)
                break
            if live.saved_seq >= target:
                break
            follow(live).arrived.clear()
            with contextlib.suppress(TimeoutError):
                await asyncio.wait_for(follow(live).arrived.wait(), deadline - loop.time())
        for seq in [seq for seq in follow(live).inbox if seq <= live.saved_seq]:
            del follow(live).inbox[seq]

    async def settle(self, live: LiveRoom) -> None:
        """Under the lock: fence off the room's unanswered saves before it changes again.

        Their senders were answered `unavailable`, which means unchanged: once fenced, such a
        save can never be stored; one stored already (Redis applied it, the answer was lost) is
        undone by a change that puts the room back as its clients last saw it.
        """
        if not follow(live).doubts:
            return
        code = live.room.code
        found = await self.place.cluster.fence(code, list(follow(live).doubts))
        doubts, follow(live).doubts = follow(live).doubts, {}
        if found.stored is None:
            return
        if found.version != found.stored:
            # Another process changed the room after it: it stands (docs/persistence.md).
            log.error("room %s: change %d was answered unavailable but stored", code, found.seq)
            return
        undone = doubts[found.stored]
        if undone is not None:
            self.adopt_state(live, found.seq, found.version, undone)
            return
        room = Room.from_bytes(live.saved)
        room.state.seq = found.seq + 1
        state = room.to_bytes()
        try:
            version = await self.place.cluster.save(
                Save(code, room.seq, found.version, b"[]", listing(room), state)
            )
        except SaveInDoubt as error:
            follow(live).doubts = {found.stored: None, error.version: state}
            raise
        except RoomChanged:
            log.error("room %s: change %d was answered unavailable but stored", code, found.seq)
            return
        except StoreUnavailable:
            follow(live).doubts = {found.stored: None}
            raise
        log.warning("room %s: change %d, answered unavailable, was stored: undone", code, found.seq)
        self.adopt_state(live, room.seq, version, state)

    async def _refresh(self, live: LiveRoom) -> None:
        """Under the lock: hold what Redis holds (as snapshots); write back what Redis lost."""
        cluster = self.place.cluster
        code = live.room.code
        stored = await cluster.load(code)
        if stored is None and not live.connections() and not live.kept:
            self.registry.forget(live)
            return
        if stored is None or stored.seq < live.saved_seq:
            if await cluster.restore(code, live.saved_seq, live.saved, follow(live).version):
                log.warning("room %s: Redis had lost change %d: written back", code, live.saved_seq)
                # Another process may hold a newer copy: it writes it back at its next beat.
                await asyncio.sleep(cluster.lease / 2)
            stored = await cluster.load(code)
            if stored is None:
                return
        if stored.version != follow(live).version and stored.seq >= live.saved_seq:
            self.adopt_state(live, stored.seq, stored.version, stored.state)

    def _adopt(self, live: LiveRoom, notice: Notice) -> bool:
        """Take the next change another process stored, and send it on as patches.

        A move is made here too (`server.rooms.notes.replay_move`); False if it did not give the events the
        writer sent (the room is then as before it, to be read from Redis).
        """
        if notice.move:
            return self._adopt_move(live, notice)
        links = dict(live.room.state.links)
        room = self.registry.room_of(notice.state)
        live.room, live.saved, live.saved_seq, follow(live).version = (
            room,
            notice.state,
            notice.seq,
            notice.version,
        )
        live.broadcast(live.feed.publish(room, msgspec.Raw(notice.events)))
        self._adopted(live, links)
        self.adopted["state"] += 1
        return True

    def _adopt_move(self, live: LiveRoom, notice: Notice) -> bool:
        links = dict(live.room.state.links)
        room = live.room
        try:
            events = notes.replay_move(room, notice.state)
            same = room.seq == notice.seq and _encode(events) == notice.events
        except (RoomError, msgspec.DecodeError, ValueError, IndexError):
            same = False
        if not same:
            log.error(
                "room %s: move %d did not replay as stored; reading it", room.code, notice.seq
            )
            live.room = self.registry.room_of(live.saved)
            self.adopted["misfit"] += 1
            return False
        live.adopt_move(notice.state)
        live.saved_seq, follow(live).version = notice.seq, notice.version
        live.broadcast(live.feed.publish(room, events))
        self._adopted(live, links)
        self.adopted["move"] += 1
        return True

    def adopt_state(self, live: LiveRoom, seq: int, version: str, state: bytes) -> None:
        """Take the room as Redis holds it, after a gap: every connection here gets a snapshot."""
        links = dict(live.room.state.links)
        room = self.registry.room_of(state)
        live.room, live.saved, live.saved_seq, follow(live).version = room, state, seq, version
        follow(live).inbox = {s: n for s, n in follow(live).inbox.items() if s > seq}
        live.feed.reset(seq)
        for connection in live.connections():
            connection.send(live.feed.snapshot(room, connection.receiver))
        self._adopted(live, links)

    def _adopted(self, live: LiveRoom, links: dict[int, str]) -> None:
        """After taking another process's change: seats resumed elsewhere, the bots and clock."""
        now = live.room.state.links
        here = self.place.presence_id
        for seat in [seat for seat in live.members if seat is not None]:
            holder = now.get(seat)
            if holder and holder not in (links.get(seat), here):
                live.close_seat(seat, CLOSE_SEAT_RESUMED, "this seat was resumed on another server")
        live.published_phase = live.room.phase
        self.hooks.kick(live)

    async def _gone(self, live: LiveRoom) -> None:
        """A room another process expired: forget it here too."""
        async with live.exclusive():
            if not self.registry.holds(live):
                return
            self.registry.forget(live)
            for connection in live.connections():
                live.discard(connection)
                connection.detach()


def listing(room: Room) -> bytes:
    """A room's entry in the shared list of public rooms ("" when it is not listed)."""
    if room.listed():
        return _encode(room.summary())
    return b""
