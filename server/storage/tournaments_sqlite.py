"""Tournaments in SQLite (`--data DIR`): the table `tournaments` of `SqliteStore`'s file, with
`code`, `version`, `state` and `saved` (wall-clock time), written in the store's own
transactions (its worker thread), so a save is committed to the write-ahead log when it returns
and survives the process being killed. The version check and the write are one transaction
(`server.storage.tournaments`)."""

from __future__ import annotations

import sqlite3
from collections.abc import Awaitable, Callable
from typing import Any

from server.storage.tournaments import (
    StoredTournament,
    TournamentChanged,
    TournamentStore,
    check_version,
)

#: Runs one transaction in the store's worker thread: (what, work, write) -> work's result.
Run = Callable[..., Awaitable[Any]]

SCHEMA = """CREATE TABLE IF NOT EXISTS tournaments (code TEXT PRIMARY KEY,
    version INTEGER NOT NULL, state BLOB NOT NULL, saved REAL NOT NULL)"""


class SqliteTournaments(TournamentStore):
    """Tournaments in the SQLite file of a `SqliteStore` (`run`: its transactions)."""

    def __init__(self, run: Run, clock: Callable[[], float]) -> None:
        self._run = run
        self._clock = clock
        self._ready = False

    async def _table(self) -> None:
        if not self._ready:
            await self._run("make the tournaments table", lambda db: db.execute(SCHEMA))
            self._ready = True

    async def save(self, code: str, version: int, state: bytes) -> None:
        check_version(version)
        await self._table()
        saved = self._clock()

        def work(db: sqlite3.Connection) -> int | None:
            row = db.execute("SELECT version FROM tournaments WHERE code = ?", (code,)).fetchone()
            stored = 0 if row is None else int(row[0])
            if stored != version - 1:
                return stored
            db.execute(
                "INSERT OR REPLACE INTO tournaments (code, version, state, saved)"
                " VALUES (?, ?, ?, ?)",
                (code, version, state, saved),
            )
            return None

        stored = await self._run(f"save tournament {code}", work)
        if stored is not None:
            raise TournamentChanged(code, version, stored)

    async def load(self, code: str) -> StoredTournament | None:
        await self._table()

        def work(db: sqlite3.Connection) -> StoredTournament | None:
            row = db.execute(
                "SELECT version, state FROM tournaments WHERE code = ?", (code,)
            ).fetchone()
            return None if row is None else StoredTournament(int(row[0]), bytes(row[1]))

        found: StoredTournament | None = await self._run(
            f"load tournament {code}", work, write=False
        )
        return found

    async def codes(self) -> list[str]:
        await self._table()

        def work(db: sqlite3.Connection) -> list[str]:
            rows = db.execute("SELECT code FROM tournaments ORDER BY code").fetchall()
            return [str(row[0]) for row in rows]

        found: list[str] = await self._run("list tournaments", work, write=False)
        return found

    async def delete(self, code: str) -> None:
        await self._table()
        await self._run(
            f"delete tournament {code}",
            lambda db: db.execute("DELETE FROM tournaments WHERE code = ?", (code,)),
        )
