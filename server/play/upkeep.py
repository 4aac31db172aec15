"""Upkeep on a beat: seats of players gone released, empty rooms expired (one process; with
several, `server.cluster.upkeep` does this and more).
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
from typing import Protocol

from server.config import Timing
from server.play.live import Storer
from server.play.registry import Registry
from server.rooms.server_commands import ReleaseAway
from server.storage.store import Store, StoreUnavailable

log = logging.getLogger("allfives.server")


class Tended(Storer, Protocol):
    """What the upkeep uses of a committer (`server.play.committer.Committer`), which imports
    this module: its waits, rooms and store, and a room's one path (`Storer`)."""

    @property
    def timing(self) -> Timing: ...

    @property
    def registry(self) -> Registry: ...

    @property
    def store(self) -> Store: ...


async def release_away(committer: Tended) -> None:
    """Players gone `release_seconds` from the rooms kept here: seats of waiting rooms freed,
    hosts passed on."""
    release = ReleaseAway(committer.timing.release_seconds)
    for live in [live for live in committer.registry.rooms.values() if live.kept]:
        with contextlib.suppress(StoreUnavailable):
            await live.run(committer, release)


class LocalUpkeep:
    """One process: every `sweep_seconds`, release seats and close rooms long empty."""

    def __init__(self, committer: Tended) -> None:
        self.committer = committer

    async def run(self) -> None:
        """Close rooms nobody has been connected to for `empty_room_seconds`."""
        committer = self.committer
        timing, registry = committer.timing, committer.registry
        while True:
            await asyncio.sleep(timing.sweep_seconds)
            await release_away(committer)
            now = committer.clock()
            for live in list(registry.rooms.values()):
                since = live.room.state.empty_since
                if since is not None and now - since >= timing.empty_room_seconds:
                    async with live.exclusive():
                        if live.room.is_empty():
                            registry.forget(live)
                            with contextlib.suppress(StoreUnavailable):
                                await committer.store.delete_room(live.room.code)
                            log.info("room %s expired", live.room.code)
