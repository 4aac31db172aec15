"""Tournaments in SQLite (`--data DIR`): the table `tournaments` of `SqliteStore`'s file, with
`code`, `version`, `state` and `saved` (wall-clock time), written in the store's own
transactions (its worker thread), so a save is committed to the write-ahead log when it returns
and survives the process being killed. The version check and the write are one transaction, and
so are a creation's bounds and its write (`server.storage.tournaments`). Beside it,
`public_tournaments` (code, made: the order of the public ones' creation, indexed) and
`tournaments_made` (per address: when its day began, how many it made since)."""

from __future__ import annotations

import sqlite3
from collections.abc import Awaitable, Callable
from typing import Any

from server.storage.tournaments import (
    MAKER_WINDOW,
    Bounds,
    StoredTournament,
    TooManyTournaments,
    TournamentChanged,
    TournamentStore,
    check_version,
)

#: Runs one transaction in the store's worker thread: (what, work, write) -> work's result.
Run = Callable[..., Awaitable[Any]]

SCHEMA = (
    """CREATE TABLE IF NOT EXISTS tournaments (code TEXT PRIMARY KEY,
    version INTEGER NOT NULL, state BLOB NOT NULL, saved REAL NOT NULL)""",
    """CREATE TABLE IF NOT EXISTS public_tournaments (made INTEGER PRIMARY KEY AUTOINCREMENT,
    code TEXT NOT NULL UNIQUE)""",
    """CREATE TABLE IF NOT EXISTS tournaments_made (address TEXT PRIMARY KEY,
    since REAL NOT NULL, made INTEGER NOT NULL)""",
)


class SqliteTournaments(TournamentStore):
    """Tournaments in the SQLite file of a `SqliteStore` (`run`: its transactions)."""

    def __init__(self, run: Run, clock: Callable[[], float]) -> None:
        self._run = run
        self._clock = clock
        self._ready = False

    async def _table(self) -> None:
        if not self._ready:

            def work(db: sqlite3.Connection) -> None:
                for table in SCHEMA:
                    db.execute(table)

            await self._run("make the tournaments tables", work)
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

    async def create(self, code: str, state: bytes, public: bool, bounds: Bounds) -> None:
        await self._table()
        saved = self._clock()

        def work(db: sqlite3.Connection) -> str | None:
            if db.execute("SELECT 1 FROM tournaments WHERE code = ?", (code,)).fetchone():
                return "taken"
            (stored,) = db.execute("SELECT COUNT(*) FROM tournaments").fetchone()
            if int(stored) >= bounds.most:
                return "store"
            row = db.execute(
                "SELECT since, made FROM tournaments_made WHERE address = ?", (bounds.maker,)
            ).fetchone()
            since, made = (bounds.now, 0) if row is None else (float(row[0]), int(row[1]))
            if bounds.now - since >= MAKER_WINDOW:
                since, made = bounds.now, 0
            if made >= bounds.per_maker:
                return "maker"
            db.execute(
                "INSERT OR REPLACE INTO tournaments_made (address, since, made) VALUES (?, ?, ?)",
                (bounds.maker, since, made + 1),
            )
            db.execute(
                "INSERT INTO tournaments (code, version, state, saved) VALUES (?, 1, ?, ?)",
                (code, state, saved),
            )
            if public:
                db.execute("INSERT INTO public_tournaments (code) VALUES (?)", (code,))
            return None

        refused = await self._run(f"create tournament {code}", work)
        if refused == "taken":
            raise TournamentChanged(code, 1, 1)
        if refused is not None:
            raise TooManyTournaments(refused)

    async def public_page(self, offset: int, limit: int) -> tuple[int, list[str]]:
        await self._table()

        def work(db: sqlite3.Connection) -> tuple[int, list[str]]:
            (count,) = db.execute("SELECT COUNT(*) FROM public_tournaments").fetchone()
            rows = db.execute(
                "SELECT code FROM public_tournaments ORDER BY made DESC LIMIT ? OFFSET ?",
                (limit, offset),
            ).fetchall()
            return int(count), [str(row[0]) for row in rows]

        page: tuple[int, list[str]] = await self._run("list public tournaments", work, write=False)
        return page

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

        def work(db: sqlite3.Connection) -> None:
            db.execute("DELETE FROM tournaments WHERE code = ?", (code,))
            db.execute("DELETE FROM public_tournaments WHERE code = ?", (code,))

        await self._run(f"delete tournament {code}", work)
