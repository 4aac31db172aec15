"""Tournament tables in play here: opening a table's room, reading its result, and noticing
its end (docs/tournaments.md, "How a round is played").

`TableRooms` is what the tournaments' rounds (`server.desk.rounds`) are given to reach rooms:
`open` makes a table's room as a client's `create_room` makes one (a fresh code, stored through
the committer before anything about it is sent, kept here, its bots and clock run by the driver)
with every seat reserved and the match dealt at once (`server.rooms.tables`); `result` reads a
table's final scores and archived game's id from its room, under the room's lock; `discard` drops a room opened for a
table that another process opened first. `noticed` and `kept` are the committer's hooks' seams
(`server.play.hooks.PlayHooks.published` and `keep`): a table's match that has just finished
in a room kept here (and again once its game is archived), or that had finished in a room this
process takes, is handed to whoever listens (the rounds), which tells its tournament.
"""

from __future__ import annotations

import contextlib
import logging
from collections.abc import Callable

from protocol import errors
from protocol.rules import RoomRules
from server.config import Clock
from server.metrics import Metrics
from server.play.committer import Committer
from server.play.finder import Finder
from server.play.live import LiveRoom
from server.play.registry import Registry
from server.rooms import codes, results
from server.rooms.room import Room, RoomError
from server.rooms.room_state import TableOf
from server.rooms.server_commands import OpenTable
from server.rooms.tables import RoomGone, Sitter, TableResult
from server.storage.store import StoreUnavailable

log = logging.getLogger("allfives.server")

#: Told of a table whose match finished (the tournament's code, round and table).
Listener = Callable[[TableOf], None]


class TableRooms:
    """The rooms of tournaments' tables in this process (see the module docstring)."""

    def __init__(
        self,
        clock: Clock,
        registry: Registry,
        committer: Committer,
        finder: Finder,
        metrics: Metrics,
    ) -> None:
        self.metrics = metrics
        self.clock = clock
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
        live = self.registry.fresh(room)
        self.registry.open(live)

        try:
            await live.run(self.committer, OpenTable(of, sitters))
        except (RoomError, StoreUnavailable):
            self.registry.forget(live)
            await self.committer.abandon(live)
            raise
        self.metrics.matches_started += 1
        log.info(
            "room %s plays tournament %s, round %d, table %d", code, of.code, of.round, of.table
        )
        return room.join_code

    async def result(self, room: str, of: TableOf) -> TableResult | None:
        """The final scores by seat and archived game of table `of` playing in `room` (None
        while its match plays); RoomError `no_such_room` if that room plays another table, or
        cannot be reached now.

        A room this process does not hold is asked of the committer (`Committer.unheld`):
        alone, it reads the store, and a room the store does not have is gone (RoomGone); with
        several processes, a room Redis does not have is gone only if no live process keeps it.
        """
        code, _ = codes.split(room)
        try:
            live = await self.finder.room(code)
        except RoomError:
            unheld = await self.committer.unheld(code)
            if unheld is None:
                raise
            return _result_of(unheld, of)
        async with live.exclusive():
            return _result_of(live.room, of)

    async def gone(self, room: str) -> bool:
        """Whether a table's room is gone for good: not held here, and the committer finds it
        neither in the store nor (with several processes) kept by a live process. False while
        the store does not answer."""
        code, _ = codes.split(room)
        if code in self.registry.rooms:
            return False
        try:
            await self.committer.unheld(code)
        except RoomGone:
            return True
        except (StoreUnavailable, RoomError):
            return False
        return False

    async def discard(self, room: str) -> None:
        """Drop a table's room that its tournament did not take (another process opened that
        table first). Alone, the room is forgotten and deleted; with several processes it is
        left to play out and expire, its result never told (its table names another room)."""
        code, _ = codes.split(room)
        live = self.registry.rooms.get(code)
        if live is None or self.committer.shared:
            return
        async with live.exclusive():
            self.registry.forget(live)
            with contextlib.suppress(StoreUnavailable):
                await self.committer.store.delete_room(code)

    def noticed(self, live: LiveRoom) -> None:
        """After a change was published: a table's match that has just finished, or whose game
        has just been archived, is told, by the process that keeps the room (with several
        processes, the others let it)."""
        if not live.kept or live.room.phase != "finished":
            return
        game = results.game_shown(live.room.state)
        if live.published_phase != "finished" or game != live.told_game:
            live.told_game = game
            self._tell(live)

    def kept(self, live: LiveRoom) -> None:
        """A room kept here from now on (at start, or taken from a process that died): a
        table's match that ended is told again (told before, it changes nothing)."""
        if live.room.phase == "finished":
            self._tell(live)

    def _tell(self, live: LiveRoom) -> None:
        of = live.room.state.tournament
        if self.listener is not None and isinstance(of, TableOf):
            self.listener(of)


def _result_of(room: Room, of: TableOf) -> TableResult | None:
    if room.state.tournament != of:
        raise RoomError(errors.NO_SUCH_ROOM, f"room {room.code} plays no table {of}")
    return room.table_result()


__all__ = ["Listener", "TableRooms"]
