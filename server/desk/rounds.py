"""A tournament's rounds played in rooms: one idempotent step, `reconcile`, that brings the
stored tournament and its tables' rooms together (docs/tournaments.md, "How a round is played").

For a tournament being played it looks at the current round's tables: a table with no room yet
gets one (`Tables.open`: stored, every seat reserved, the match dealt) and is noted as opened
(`TableOpened`, with what finds the room); a table whose room's match has ended is told
(`TableFinished`, the final scores by seat), and the core draws the next round when it was the
round's last, whose tables the next pass opens; a table whose room is gone before its match
ended (deleted from the store) is noted lost (`TableLost`), and the next pass opens it again;
after the last round the tournament is finished. Each pass is one stored version (`Book.commit`: only over the version it read, so two
processes never note two rooms for one table), and the followers here are told once the step is
done. With several processes, only the holder of the tournament's lease (`server.desk.lease`)
opens a round's tables: it takes the lease in a save of its own, opens them, and gives the
lease back in the save that notes them.

It runs when the host starts a tournament, when a table's match finishes here
(`Tables` tells `table_finished`), for every tournament being played when the server starts
(`resume`: after a restart a table with no room is opened and a match that ended untold is
told; rooms in play go on as any room does), now and then for a tournament whose tables were
left without rooms (`sweep`: another process stored the start and stopped) or whose room is
gone before its match ended, and again a little later when a store did not answer. The rooms
are reached only through `Tables` (`server.play.tables.TableRooms`).
"""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Callable, Coroutine
from typing import Any, Protocol

import msgspec

from protocol.rules import RoomRules
from server.desk.kept import Kept
from server.desk.lease import Lease
from server.rooms.room_state import RoomError, TableOf
from server.rooms.tables import RoomGone, Sitter, TableResult
from server.storage.store import StoreUnavailable
from server.tournaments import state
from server.tournaments.stored import Table, Tournament

log = logging.getLogger("allfives.server")

#: Runs a task that ends with the server.
Spawn = Callable[[Coroutine[Any, Any, Any]], "asyncio.Task[Any]"]

#: The first and the longest wait before a step that failed is tried again.
RETRY_FIRST = 1.0
RETRY_MAX = 30.0


class Tables(Protocol):
    """The rooms of tournaments' tables (`server.play.tables.TableRooms`)."""

    async def open(self, rules: RoomRules, of: TableOf, sitters: list[Sitter]) -> str:
        """A stored room playing table `of`; what finds it."""

    async def result(self, room: str, of: TableOf) -> TableResult | None:
        """The final scores by seat and archived game of table `of` in `room` (None while it
        plays); RoomGone if the room is gone for good, RoomError if it cannot be read now."""

    async def discard(self, room: str) -> None:
        """Drop a room its tournament did not take."""

    async def gone(self, room: str) -> bool:
        """Whether `room` is gone for good: no process holds it and the store has it no more
        (False while that cannot be told)."""


class Book(Protocol):
    """Where tournaments are kept and told (`server.desk.desk.Desk`)."""

    async def codes(self) -> list[str]: ...

    async def load(self, code: str) -> tuple[Kept, int]: ...

    async def commit(
        self,
        code: str,
        commands: list[state.AnyCommand],
        mark: Callable[[Kept], Kept] | None = None,
    ) -> tuple[Kept, int, bool]: ...

    def tell(self, code: str, kept: Kept, version: int) -> None: ...


class Rounds:
    """Plays tournaments' rounds in rooms (see the module docstring)."""

    def __init__(
        self, book: Book, tables: Tables, spawn: Spawn, lease: Lease | None = None
    ) -> None:
        self.book = book
        #: With several processes: only the holder opens a round's tables (None: alone).
        self.lease = lease
        self.tables = tables
        self.spawn = spawn
        self._locks: dict[str, asyncio.Lock] = {}
        #: Tournaments waiting to be tried again (a store did not answer).
        self._retrying: set[str] = set()

    def table_finished(self, of: TableOf) -> None:
        """A table's match finished here, or its game was archived: its tournament is told (in
        a task)."""
        self.spawn(self.reconcile(of.code, of))

    async def resume(self, codes: list[str]) -> None:
        """At start: every tournament being played among `codes` is reconciled."""
        for code in codes:
            await self.reconcile(code)

    async def run(self, every: float) -> None:
        """Every `every` seconds, `sweep` the tournaments stored (the task ends with the server)."""
        while True:
            await asyncio.sleep(every)
            try:
                codes = await self.book.codes()
            except StoreUnavailable:
                continue
            await self.sweep(codes)

    async def sweep(self, codes: list[str]) -> None:
        """Every tournament among `codes` with a table of its current round that has no room
        (another process noted the start and stopped before opening them), or whose room is
        gone before its match ended (deleted from the store while no process held it), is
        reconciled: a round of one table has no other table whose end would look at it."""
        for code in codes:
            try:
                kept, _ = await self.book.load(code)
            except (StoreUnavailable, RoomError):
                continue
            tournament = kept.tournament
            if tournament.phase == "playing" and await self._waits(tournament):
                await self.reconcile(code)

    async def _waits(self, tournament: Tournament) -> bool:
        """Whether a table of the current round waits for a room it will never get by itself."""
        for table in tournament.rounds[-1].tables:
            if table.room is None:
                return True
            if table.scores is None and await self.tables.gone(table.room):
                return True
        return False

    async def reconcile(self, code: str, of: TableOf | None = None) -> None:
        """Reconcile (and note the game of table `of`), and tell the followers here if that
        changed the tournament."""
        done = await self.step(code, of)
        if done is not None:
            self.book.tell(code, *done)

    async def step(self, code: str, of: TableOf | None = None) -> tuple[Kept, int] | None:
        """`reconcile_now`, tried again later (and the followers then told) if a store or a
        room did not answer: what it stored last, or None."""
        try:
            return await self.reconcile_now(code, of)
        except (StoreUnavailable, RoomError) as error:
            log.warning("tournament %s: its tables wait (%s): trying again", code, error)
        except Exception:
            log.exception("tournament %s: its tables could not be reconciled", code)
        self._retry(code)
        return None

    async def reconcile_now(self, code: str, of: TableOf | None = None) -> tuple[Kept, int] | None:
        """The step itself: the tournament and version it stored last, or None if it changed
        nothing. StoreUnavailable or RoomError (a room or the tournament not reachable) leave
        what was stored so far, and the next step goes on from there. `of`: a table, of any
        round, whose archived game is noted if it is not yet (the tournament may be over)."""
        done: tuple[Kept, int] | None = None
        async with self._locks.setdefault(code, asyncio.Lock()):
            while True:
                kept, version = await self.book.load(code)
                tournament = kept.tournament
                if tournament.phase != "playing":
                    noted = await self._game_noted(code, kept, of)
                    if noted is not None:
                        kept, version, changed = await self.book.commit(code, [noted])
                        if changed:
                            done = (kept, version)
                    return done
                may_open = True
                lease = self.lease
                if lease is not None and any(t.room is None for t in tournament.rounds[-1].tables):
                    kept, version, changed = await self.book.commit(code, [], lease.take)
                    if changed:
                        done = (kept, version)
                    may_open = lease.holds(kept)
                opened: list[str] = []
                try:
                    commands = await self._due(code, kept, opened, may_open)
                    noted = await self._game_noted(code, kept, of)
                    if noted is not None and noted not in commands:
                        commands.append(noted)
                    if not commands:
                        return done
                    mark = lease.give_back if lease is not None and opened else None
                    kept, version, changed = await self.book.commit(code, commands, mark)
                except RoomError:
                    # Refused (another process noted a room first), or a room not made: the
                    # rooms made for this pass are dropped. A store that did not answer may
                    # have stored them with the tournament: they are kept.
                    for room in opened:
                        await self.tables.discard(room)
                    raise
                if changed:
                    done = (kept, version)

    async def _due(
        self, code: str, kept: Kept, opened: list[str], may_open: bool
    ) -> list[state.AnyCommand]:
        """What the current round's tables call for: rooms opened (if `may_open`; noted in
        `opened`) and results told."""
        tournament = kept.tournament
        number = len(tournament.rounds) - 1
        commands: list[state.AnyCommand] = []
        for index, table in enumerate(tournament.rounds[number].tables):
            of = TableOf(code, number, index)
            if table.room is None:
                if not may_open:
                    continue  # another process holds the lease: it opens them
                room = await self.tables.open(rules_of(kept), of, sitters_of(tournament, table))
                opened.append(room)
                commands.append(state.TableOpened(round=number, table=index, room=room))
            elif table.scores is None or table.game is None:
                told = await self._told(code, table, of, unfinished=table.scores is None)
                if told is not None:
                    commands.append(told)
        return commands

    async def _game_noted(
        self, code: str, kept: Kept, of: TableOf | None
    ) -> state.TableFinished | None:
        """The archived game of table `of` (any round), if it finished and its game is not
        noted yet but its room now has one."""
        rounds = kept.tournament.rounds
        if of is None or not 0 <= of.round < len(rounds):
            return None
        tables = rounds[of.round].tables
        if not 0 <= of.table < len(tables):
            return None
        table = tables[of.table]
        if table.scores is None or table.game is not None:
            return None
        told = await self._told(code, table, of)
        return told if isinstance(told, state.TableFinished) else None

    async def _told(
        self, code: str, table: Table, of: TableOf, unfinished: bool = False
    ) -> state.TableFinished | state.TableLost | None:
        """What the room of a table tells of its result (scores, and the game once archived),
        if it finished and that is news; None while it plays or cannot be read. A room gone
        for good (`RoomGone`: deleted from the store while no process held it): `TableLost`
        for an `unfinished` table (it is opened again in a new room), else None (its game's
        id is never noted)."""
        room = table.room
        assert room is not None
        try:
            result = await self.tables.result(room, of)
        except RoomGone as gone:
            if not unfinished:
                return None
            log.warning(
                "tournament %s: table %s: its room %s is gone: dealt again in a new room",
                code,
                of,
                gone.code,  # (not `room`: a private room's invite stays out of the log)
            )
            return state.TableLost(round=of.round, table=of.table, room=room)
        except RoomError as error:
            log.warning("tournament %s: table %s: %s", code, of, error.message)
            return None
        if result is None or (table.scores is not None and result.game is None):
            return None
        return state.TableFinished(
            round=of.round, table=of.table, scores=result.scores, game=result.game
        )

    def _retry(self, code: str) -> None:
        if code not in self._retrying:
            self._retrying.add(code)
            self.spawn(self._later(code))

    async def _later(self, code: str) -> None:
        delay = RETRY_FIRST
        try:
            while True:
                await asyncio.sleep(delay)
                try:
                    done = await self.reconcile_now(code)
                except Exception as error:
                    log.warning("tournament %s: its tables still wait (%s)", code, error)
                    delay = min(RETRY_MAX, delay * 2)
                    continue
                if done is not None:
                    self.book.tell(code, *done)
                return
        finally:
            self._retrying.discard(code)


def rules_of(kept: Kept) -> RoomRules:
    """The rules of a tournament's tables' rooms: its match rules, turn clock, public or
    private, rated or not."""
    tournament = kept.tournament
    return RoomRules(
        **msgspec.structs.asdict(tournament.rules),
        turn_seconds=tournament.turn_seconds,
        public=tournament.public,
        rated=kept.is_rated,
    )


def sitters_of(tournament: Tournament, table: Table) -> list[Sitter]:
    """Who sits at each seat of a table: its entrants, people by their player, bots by level."""
    return [
        Sitter(
            name=tournament.entrants[entrant].name,
            player=tournament.entrants[entrant].player,
            level=tournament.entrants[entrant].bot,
        )
        for entrant in table.seats
    ]
