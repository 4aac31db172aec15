"""Upkeep of several processes on a beat: the lease renewed, orphaned rooms taken, Redis
followed, unanswered saves settled, presence fixed, seats of players gone released, empty rooms
expired, and the room list pruned.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import time
from typing import TYPE_CHECKING

from server.cluster.follow import follow
from server.play.live import LiveRoom
from server.play.upkeep import release_away
from server.rooms.feed import SPECTATORS
from server.rooms.room import Caller
from server.rooms.server_commands import Chore, Connect, Disconnect, DropLinks, Watch
from server.storage.store import StoreUnavailable

if TYPE_CHECKING:
    from server.cluster.interfaces import UpkeepHost

log = logging.getLogger("allfives.server")


class SharedUpkeep:
    """Several processes: every third of the lease, renew it, and tend the rooms."""

    def __init__(self, committer: UpkeepHost) -> None:
        self.committer = committer
        self.cluster = committer.cluster
        self.registry = committer.registry
        #: Where the pruning of expired codes from `allfives:rooms` goes on (a SSCAN cursor).
        self._pruning = "0"

    async def renew_lease(self) -> None:
        """Every third of the lease, whatever else is slow: renew it."""
        while True:
            await asyncio.sleep(self.cluster.lease / 3)
            try:
                await self.cluster.beat()
            except StoreUnavailable as error:
                log.warning("lease not renewed: %s", error)

    async def run(self) -> None:
        """Every third of the lease: `tend`, logging what fails."""
        while True:
            await asyncio.sleep(self.cluster.lease / 3)
            try:
                await self.tend()
            except StoreUnavailable as error:
                log.warning("cluster upkeep: %s", error)
            except Exception:
                log.exception("cluster upkeep failed")

    async def tend(self) -> None:
        """Take orphaned rooms, follow Redis, settle unanswered saves, fix presence, expire rooms."""
        committer, cluster, rooms = self.committer, self.cluster, self.registry.rooms
        keep = committer.hooks.keep
        await cluster.notices.keep_subscribed()
        await committer.keep_all(await cluster.orphans())
        found = await cluster.claim(list(rooms))
        for code, status in found.items():
            live = rooms.get(code)
            if live is None:
                continue
            if status.seq >= 0:  # else Redis lost the room: `follow_redis` writes it back
                keep(live, status.kept)
            if status.version != follow(live).version and not live.busy:
                committer.hooks.spawn(committer.replica.follow_redis(live))
        for live in [live for live in rooms.values() if follow(live).doubts]:
            async with live.exclusive():
                await committer.settle(live)
        await self.check_presence()
        await release_away(committer)
        await self._let_go()
        await self._expire_empty()
        self._pruning = await cluster.prune(self._pruning)

    async def check_presence(self) -> None:
        """Kept rooms: mark away the players of dead processes; all rooms: this one's own."""
        committer, registry = self.committer, self.registry
        kept = [live for live in registry.rooms.values() if live.kept]
        ids = {holder for live in kept for holder in live.room.state.links.values()}
        ids.update(holder for live in kept for holder in live.room.state.watchers)
        dead = ids - await self.cluster.alive(ids)
        drop = DropLinks(frozenset(dead))
        for live in kept:
            await live.run(committer, drop)
        here = Caller("", process=committer.presence_id)
        for live in list(registry.rooms.values()):
            async with live.exclusive():
                for _ in range(8):
                    fix = self._presence_fix(live)
                    if fix is None or not registry.holds(live):
                        break
                    await live.apply(committer, fix, here)

    def _presence_fix(self, live: LiveRoom) -> Chore | None:
        """One command that makes the room show this process's connections as they are."""
        state = live.room.state
        here = self.committer.presence_id
        for seat in live.members:
            if seat is None or seat >= len(state.seats):
                continue
            held = state.seats[seat]
            if held is not None and held.kind == "human" and state.links.get(seat) != here:
                return Connect(seat)
        for seat, holder in state.links.items():
            if holder == here and seat not in live.members:
                return Disconnect(seat)
        delta = len(live.members.get(SPECTATORS, ())) - state.watchers.get(here, 0)
        if delta:
            return Watch(delta)
        return None

    async def _let_go(self) -> None:
        """Forget rooms this process neither keeps nor serves anyone in."""
        quiet = time.monotonic() - self.committer.lease_seconds
        for live in list(self.registry.rooms.values()):
            if live.kept or live.members or follow(live).doubts or live.busy:
                continue
            if live.touched > quiet:
                continue
            self.registry.forget(live)
            with contextlib.suppress(StoreUnavailable):
                await self.cluster.unfollow(live.room.code)

    async def _expire_empty(self) -> None:
        """Delete the kept rooms nobody has been connected to for `empty_room_seconds`."""
        now = self.committer.clock()
        after = self.committer.timing.empty_room_seconds
        for live in [live for live in self.registry.rooms.values() if live.kept]:
            since = live.room.state.empty_since
            if since is None or now - since < after or live.members:
                continue
            async with live.exclusive():
                room = live.room
                if (
                    self.registry.holds(live)
                    and room.is_empty()
                    and await self.cluster.delete(room.code, follow(live).version)
                ):
                    self.registry.forget(live)
                    log.info("room %s expired", room.code)
