"""Tournament tables in play here: opening a table's room, reading its result, and noticing
its end (docs/tournaments.md, "How a round is played").

`TableRooms` is what the tournaments' rounds (`server.desk.rounds`) are given to reach rooms:
`open` makes a table's room as a client's `create_room` makes one (a fresh code, stored through
the committer before anything about it is sent, kept here, its bots and clock run by the driver)
with every seat reserved and the match dealt at once (`server.rooms.tables`); `scores` reads a
table's final scores from its room, under the room's lock; `discard` drops a room opened for a
table that another process opened first. `noticed` is the committer's hooks' seam
(`server.play.hooks.PlayHooks.published`): a table's match that has just finished is handed to
whoever listens (the rounds), which tells its tournament.
"""

from __future__ import annotations

import contextlib
import logging
from collections.abc import Callable
from typing import Any

from protocol import errors
from protocol.rules import RoomRules
from server.config import Config
from server.play.committer import Committer
from server.play.finder import Finder
from server.play.live import LiveRoom
from server.play.registry import Registry
from server.rooms import codes, tables
from server.rooms.room import Room, RoomError
from server.rooms.room_state import TableOf
from server.rooms.tables import Sitter
from server.storage.store import StoreUnavailable

log = logging.getLogger("allfives.server")

#: Told of a table whose match finished (the tournament's code, round and table).
Listener = Callable[[TableOf], None]


class TableRooms:
    """The rooms of tournaments' tables in this process (see the module docstring)."""

    def __init__(
        self, config: Config, registry: Registry, committer: Committer, finder: Finder
    ) -> None:
        self.config = config
        self.clock = config.clock
        self.registry = registry
        self.committer = committer
        self.finder = finder
        self.listener: Listener | None = None

    async def open(self, rules: RoomRules, of: TableOf, sitters: list[Sitter]) -> str:
        """A stored room playing table `of` with these sitters; what finds it (`CODE`, or a
        private one's `CODE-INVITE`). RoomError or StoreUnavailable if it could not be made."""
        code = await self.committer.new_code()
        invite = None if rules.public else codes.new_invite()
        now = self.clock()
        room = Room.create(code, rules, f"tournament {of.code}", now, invite)
        room.away_seconds = self.config.timing.away_seconds
        room.idle_seconds = self.config.timing.idle_seconds
        live = LiveRoom(room, self.config.storage.keep_patches)
        live.saved = room.to_bytes()
        self.registry.open(live)

        def deal(room: Room) -> tuple[None, list[Any]]:
            return None, room.open_table(of, sitters, self.clock())

        try:
            async with live.lock:
                await self.committer.change(live, deal)
        except (RoomError, StoreUnavailable):
            self.registry.forget(live)
            await self.committer.abandon(live)
            raise
        log.info(
            "room %s plays tournament %s, round %d, table %d", code, of.code, of.round, of.table
        )
        return room.join_code

    async def scores(self, room: str, of: TableOf) -> list[int] | None:
        """The final scores by seat of table `of` playing in `room` (None while its match
        plays); RoomError `no_such_room` if no such room plays that table any more."""
        code, _ = codes.split(room)
        live = await self.finder.room(code)
        async with live.lock:
            if live.room.state.tournament != of:
                raise RoomError(errors.NO_SUCH_ROOM, f"room {code} plays no table {of}")
            return live.room.table_scores()

    async def discard(self, room: str) -> None:
        """Drop a table's room that its tournament did not take (another process opened that
        table first). Alone, the room is forgotten and deleted; with several processes it is
        left to play out and expire, its result never told (its table names another room)."""
        code, _ = codes.split(room)
        live = self.registry.rooms.get(code)
        if live is None or self.committer.shared:
            return
        async with live.lock:
            self.registry.forget(live)
            with contextlib.suppress(StoreUnavailable):
                await self.committer.store.delete_room(code)

    def noticed(self, live: LiveRoom) -> None:
        """After a change was published: a table's match that has just finished is told."""
        state = live.room.state
        if self.listener is None or not tables.is_table(state):
            return
        if live.room.phase == "finished" and live.published_phase != "finished":
            of = state.tournament
            assert isinstance(of, TableOf)
            self.listener(of)


__all__ = ["Listener", "TableRooms"]
