"""`LocalLedger`: players, ratings and finished matches in SQLite, for a server without Redis.

In memory by default (gone when the server stops), or in `DIR/ledger.sqlite3` with `allfives
serve --data DIR` (kept across restarts). One connection, used by one worker thread, so the
event loop never waits on the disk; each call is one transaction. The archive is bounded:
past `max_games` games the oldest go (with their index entries), and each player keeps
`MAX_HISTORY_POINTS` rating points. The rows each transaction reads and writes are
`server.storage.archive_local_rows`. See docs/persistence.md.
"""

from __future__ import annotations

import asyncio
import sqlite3
import threading
from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from typing import TypeVar

import msgspec

from protocol.api import RatingPoint
from protocol.ratings import LADDERS, LadderName
from server.storage import archive_local_rows as ledger_rows
from server.storage.archive import (
    MAX_LINKS,
    Archived,
    ClaimBudget,
    Committed,
    Conflict,
    Exists,
    KeptPoint,
    Ledger,
    Limited,
    Player,
    RatingWrite,
    StoredRating,
    members_of,
    refolded,
    released_name,
)
from server.storage.sqlite_files import Migration, migrate, statements, store_errors

T = TypeVar("T")

#: Games the embedded archive keeps at the most (the oldest go first).
DEFAULT_MAX_GAMES = 20_000
FILE_NAME = "ledger.sqlite3"
#: Seconds a call waits for the file while another connection holds it locked (SQLite's own
#: default), then it is `StoreUnavailable`.
DEFAULT_LOCK_WAIT = 5.0

#: The ledger's tables as they were when versions began (migration 1 makes what is missing).
_TABLES = (
    "CREATE TABLE IF NOT EXISTS players (id TEXT PRIMARY KEY, name TEXT NOT NULL, "
    "fold TEXT NOT NULL UNIQUE, created REAL NOT NULL)",
    "CREATE TABLE IF NOT EXISTS keys (hash TEXT PRIMARY KEY, player TEXT NOT NULL, "
    "added REAL NOT NULL)",
    "CREATE INDEX IF NOT EXISTS keys_of ON keys (player, added)",
    "CREATE TABLE IF NOT EXISTS links (code TEXT PRIMARY KEY, player TEXT NOT NULL, "
    "made REAL NOT NULL, expires REAL NOT NULL)",
    "CREATE INDEX IF NOT EXISTS links_of ON links (player, made)",
    "CREATE TABLE IF NOT EXISTS recovery (hash TEXT PRIMARY KEY, player TEXT NOT NULL UNIQUE)",
    "CREATE TABLE IF NOT EXISTS meta (key TEXT PRIMARY KEY, value TEXT NOT NULL)",
    "CREATE TABLE IF NOT EXISTS claims (address TEXT PRIMARY KEY, tokens REAL NOT NULL, "
    "at REAL NOT NULL)",
    "CREATE TABLE IF NOT EXISTS ratings (ladder TEXT NOT NULL, player TEXT NOT NULL, "
    "mu REAL NOT NULL, sigma REAL NOT NULL, games INTEGER NOT NULL, wins INTEGER NOT NULL, "
    "version INTEGER NOT NULL, ordinal REAL NOT NULL, seen BLOB NOT NULL DEFAULT '{}', "
    "PRIMARY KEY (ladder, player))",
    "CREATE INDEX IF NOT EXISTS ladder_order ON ratings (ladder, ordinal DESC)",
    "CREATE TABLE IF NOT EXISTS games (id TEXT PRIMARY KEY, finished REAL NOT NULL, "
    "data BLOB NOT NULL)",
    "CREATE INDEX IF NOT EXISTS games_by_time ON games (finished)",
    "CREATE TABLE IF NOT EXISTS seated (game TEXT NOT NULL, player TEXT NOT NULL, "
    "finished REAL NOT NULL, public INTEGER NOT NULL, PRIMARY KEY (player, game))",
    "CREATE INDEX IF NOT EXISTS seated_by_time ON seated (player, finished DESC)",
    "CREATE INDEX IF NOT EXISTS seated_game ON seated (game)",
    "CREATE TABLE IF NOT EXISTS stats (player TEXT PRIMARY KEY, games INTEGER NOT NULL, "
    "wins INTEGER NOT NULL, public_games INTEGER NOT NULL, public_wins INTEGER NOT NULL)",
    "CREATE TABLE IF NOT EXISTS history (player TEXT NOT NULL, n INTEGER NOT NULL, "
    "point BLOB NOT NULL, PRIMARY KEY (player, n))",
)


def _version_1(db: sqlite3.Connection) -> None:
    """The tables (`_TABLES`), and `seen` in a ledger written before matches were weighted."""
    statements(db, *_TABLES)
    columns = {row[1] for row in db.execute("PRAGMA table_info(ratings)")}
    if "seen" not in columns:
        db.execute("ALTER TABLE ratings ADD COLUMN seen BLOB NOT NULL DEFAULT '{}'")


#: The ledger's schema, one step a version (`server.storage.sqlite_files.migrate`).
MIGRATIONS: tuple[Migration, ...] = (_version_1,)


_archived_encoder = msgspec.json.Encoder()
_archived_decoder = msgspec.json.Decoder(Archived)
_point_decoder = msgspec.json.Decoder(KeptPoint)


class LocalLedger(Ledger):
    """The embedded ledger: SQLite in memory, or in a file under `data` (module docstring)."""

    def __init__(
        self,
        data: Path | str | None = None,
        max_games: int = DEFAULT_MAX_GAMES,
        *,
        timeout: float = DEFAULT_LOCK_WAIT,
    ) -> None:
        """`timeout`: seconds a call waits for the file while another connection holds it
        locked, before it is `StoreUnavailable`."""
        if max_games < 1:
            raise ValueError("the archive must keep at least one game")
        self.max_games = max_games
        self.path: Path | None = None
        if data is not None:
            directory = Path(data)
            directory.mkdir(parents=True, exist_ok=True)
            self.path = directory / FILE_NAME
        self._where = str(self.path) if self.path is not None else ":memory:"
        self._lock = threading.Lock()
        with store_errors(f"open {self._where}", self._where):
            self._db = sqlite3.connect(
                self._where, timeout=timeout, check_same_thread=False, isolation_level=None
            )
            try:
                if self.path is not None:
                    self._db.execute("PRAGMA journal_mode=WAL")
                    self._db.execute("PRAGMA synchronous=NORMAL")
                migrate(self._db, self._where, MIGRATIONS)
            except BaseException:
                self._db.close()
                raise
        self._worker = ThreadPoolExecutor(max_workers=1, thread_name_prefix="ledger")

    async def _run(self, work: Callable[[sqlite3.Connection], T]) -> T:
        """Run one transaction in the worker thread; StoreUnavailable if SQLite refuses it
        (`server.storage.sqlite_files.store_errors`), and nothing of it is kept."""

        def transaction() -> T:
            with self._lock, store_errors("read or write the ledger", self._where):
                db = self._db
                db.execute("BEGIN IMMEDIATE")
                try:
                    result = work(db)
                    db.execute("COMMIT")
                except BaseException:
                    if db.in_transaction:
                        db.execute("ROLLBACK")
                    raise
                return result

        return await asyncio.get_running_loop().run_in_executor(self._worker, transaction)

    # -- players -----------------------------------------------------------------------------

    async def player_of_key(self, hashed: str) -> Player | None:
        return await self._run(lambda db: ledger_rows.player_of_key(db, hashed))

    async def player_named(self, fold: str) -> Player | None:
        return await self._run(lambda db: ledger_rows.row_player(db, "fold", fold))

    async def player(self, id: str) -> Player | None:
        return await self._run(lambda db: ledger_rows.row_player(db, "id", id))

    async def names(self, ids: list[str]) -> dict[str, str]:
        def work(db: sqlite3.Connection) -> dict[str, str]:
            found: dict[str, str] = {}
            for id in ids:
                row = db.execute("SELECT name FROM players WHERE id = ?", (id,)).fetchone()
                if row is not None:
                    found[id] = row[0]
            return found

        return await self._run(work)

    async def claim_within(
        self, hashed: str, name: str, fold: str, now: float, budget: ClaimBudget
    ) -> Player | Limited | None:
        def work(db: sqlite3.Connection) -> Player | Limited | None:
            known = ledger_rows.player_of_key(db, hashed)
            if known is not None:
                return known
            row = db.execute(
                "SELECT tokens, at FROM claims WHERE address = ?", (budget.address,)
            ).fetchone()
            tokens = float(budget.burst) if row is None else float(row[0])
            if row is not None:
                tokens = min(
                    budget.burst, tokens + max(0.0, now - float(row[1])) * budget.per_second
                )
            if tokens < 1:
                return Limited()
            if ledger_rows.row_player(db, "fold", fold) is not None:
                return None
            db.execute(
                "INSERT OR REPLACE INTO claims VALUES (?, ?, ?)", (budget.address, tokens - 1, now)
            )
            return ledger_rows.new_player(db, hashed, name, fold, now)

        return await self._run(work)

    async def add_link(self, player: str, code: str, now: float, seconds: int) -> bool:
        def work(db: sqlite3.Connection) -> bool:
            db.execute("DELETE FROM links WHERE expires <= ?", (now,))
            if db.execute("SELECT 1 FROM links WHERE code = ?", (code,)).fetchone():
                return False
            db.execute("INSERT INTO links VALUES (?, ?, ?, ?)", (code, player, now, now + seconds))
            db.execute(
                "DELETE FROM links WHERE player = ? AND code NOT IN (SELECT code FROM links "
                "WHERE player = ? ORDER BY made DESC, code LIMIT ?)",
                (player, player, MAX_LINKS),
            )
            return True

        return await self._run(work)

    async def use_link(self, code: str, hashed: str, now: float) -> Player | None:
        def work(db: sqlite3.Connection) -> Player | None:
            row = db.execute(
                "SELECT player FROM links WHERE code = ? AND expires > ?", (code, now)
            ).fetchone()
            if row is None:
                return None
            player = str(row[0])
            db.execute("DELETE FROM links WHERE code = ?", (code,))
            return ledger_rows.add_key(db, hashed, player, now)

        return await self._run(work)

    async def set_recovery(self, player: str, hashed: str, drop_keys: bool = False) -> None:
        def work(db: sqlite3.Connection) -> None:
            db.execute("DELETE FROM recovery WHERE player = ?", (player,))
            db.execute("INSERT OR REPLACE INTO recovery VALUES (?, ?)", (hashed, player))
            if drop_keys:
                db.execute("DELETE FROM keys WHERE player = ?", (player,))

        await self._run(work)

    async def use_recovery(self, hashed: str, key: str, now: float) -> Player | None:
        def work(db: sqlite3.Connection) -> Player | None:
            row = db.execute("SELECT player FROM recovery WHERE hash = ?", (hashed,)).fetchone()
            return None if row is None else ledger_rows.add_key(db, key, str(row[0]), now)

        return await self._run(work)

    async def refold(self, rule: str, key_of: Callable[[str], str]) -> list[str]:
        def work(db: sqlite3.Connection) -> list[str]:
            row = db.execute("SELECT value FROM meta WHERE key = 'fold_rule'").fetchone()
            if row is not None and row[0] == rule:
                return []
            rows = db.execute(
                "SELECT id, name, fold FROM players WHERE substr(fold, 1, 1) != char(0) "
                "ORDER BY created, id"
            ).fetchall()
            players = [(str(id), str(name), str(fold)) for id, name, fold in rows]
            folds, clashes = refolded(players, key_of)
            changed = [(id, folds[id]) for id, _, fold in players if folds[id] != fold]
            # Through folds no name has, so no two players hold one fold on the way.
            for id, _ in changed:
                db.execute("UPDATE players SET fold = ? WHERE id = ?", ("\x01" + id, id))
            for id, fold in changed:
                db.execute("UPDATE players SET fold = ? WHERE id = ?", (fold, id))
            db.execute("INSERT OR REPLACE INTO meta VALUES ('fold_rule', ?)", (rule,))
            return clashes

        return await self._run(work)

    async def release(self, fold: str) -> Player | None:
        def work(db: sqlite3.Connection) -> Player | None:
            player = ledger_rows.row_player(db, "fold", fold)
            if player is None:
                return None
            # A fold no name has (a name holds no control character): the name is free.
            db.execute(
                "UPDATE players SET name = ?, fold = ? WHERE id = ?",
                (released_name(player.name, player.id), "\x00" + player.id, player.id),
            )
            db.execute("DELETE FROM keys WHERE player = ?", (player.id,))
            db.execute("DELETE FROM links WHERE player = ?", (player.id,))
            db.execute("DELETE FROM recovery WHERE player = ?", (player.id,))
            return player

        return await self._run(work)

    # -- ratings and games -------------------------------------------------------------------

    async def ratings(
        self, ladder: LadderName, players: list[str]
    ) -> dict[str, tuple[StoredRating, str]]:
        def work(db: sqlite3.Connection) -> dict[str, tuple[StoredRating, str]]:
            found: dict[str, tuple[StoredRating, str]] = {}
            for player in players:
                row = db.execute(
                    "SELECT mu, sigma, games, wins, version, seen FROM ratings "
                    "WHERE ladder = ? AND player = ?",
                    (ladder, player),
                ).fetchone()
                if row is not None:
                    found[player] = (
                        ledger_rows.stored(row[0], row[1], row[2], row[3], row[5]),
                        str(row[4]),
                    )
            return found

        return await self._run(work)

    async def commit_game(
        self, archived: Archived, writes: list[RatingWrite], now: float
    ) -> Committed | Conflict | Exists:
        data = _archived_encoder.encode(archived)

        def work(db: sqlite3.Connection) -> Committed | Conflict | Exists:
            detail = archived.detail
            row = db.execute("SELECT data FROM games WHERE id = ?", (detail.id,)).fetchone()
            if row is not None:
                return Exists(_archived_decoder.decode(row[0]))
            for write in writes:
                held = db.execute(
                    "SELECT version FROM ratings WHERE ladder = ? AND player = ?",
                    (write.ladder, write.player),
                ).fetchone()
                if (None if held is None else str(held[0])) != write.expected:
                    return Conflict()
            for write in writes:
                rating = write.rating
                version = 0 if write.expected is None else int(write.expected) + 1
                db.execute(
                    "INSERT OR REPLACE INTO ratings VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)",
                    (
                        write.ladder,
                        write.player,
                        rating.mu,
                        rating.sigma,
                        rating.games,
                        rating.wins,
                        version,
                        rating.mu - 3 * rating.sigma,
                        ledger_rows.seen_of(rating),
                    ),
                )
                ledger_rows.add_point(
                    db, write.player, msgspec.json.encode(KeptPoint(write.point, write.private))
                )
            db.execute("INSERT INTO games VALUES (?, ?, ?)", (detail.id, detail.finished_at, data))
            public = 0 if detail.private else 1
            for player, won in members_of(archived):
                db.execute(
                    "INSERT OR IGNORE INTO seated VALUES (?, ?, ?, ?)",
                    (detail.id, player, detail.finished_at, public),
                )
                db.execute(
                    "INSERT INTO stats VALUES (?, 1, ?, ?, ?) ON CONFLICT (player) DO UPDATE SET "
                    "games = games + 1, wins = wins + excluded.wins, "
                    "public_games = public_games + excluded.public_games, "
                    "public_wins = public_wins + excluded.public_wins",
                    (player, int(won), public, int(won) * public),
                )
            ledger_rows.trim(db, self.max_games)
            return Committed()

        return await self._run(work)

    async def game(self, id: str) -> Archived | None:
        def work(db: sqlite3.Connection) -> Archived | None:
            row = db.execute("SELECT data FROM games WHERE id = ?", (id,)).fetchone()
            return None if row is None else _archived_decoder.decode(row[0])

        return await self._run(work)

    async def games_of(
        self, player: str, everything: bool, offset: int, limit: int
    ) -> tuple[int, list[Archived]]:
        where = "player = ?" if everything else "player = ? AND public = 1"

        def work(db: sqlite3.Connection) -> tuple[int, list[Archived]]:
            (total,) = db.execute(
                f"SELECT COUNT(*) FROM seated WHERE {where}", (player,)
            ).fetchone()
            rows = db.execute(
                f"SELECT g.data FROM seated s JOIN games g ON g.id = s.game WHERE s.{where} "
                "ORDER BY s.finished DESC, s.game LIMIT ? OFFSET ?",
                (player, limit, offset),
            ).fetchall()
            return int(total), [_archived_decoder.decode(row[0]) for row in rows]

        return await self._run(work)

    async def counts(self, player: str, everything: bool) -> tuple[int, int]:
        columns = "games, wins" if everything else "public_games, public_wins"

        def work(db: sqlite3.Connection) -> tuple[int, int]:
            row = db.execute(f"SELECT {columns} FROM stats WHERE player = ?", (player,)).fetchone()
            return (0, 0) if row is None else (int(row[0]), int(row[1]))

        return await self._run(work)

    async def history(self, player: str, everything: bool) -> list[RatingPoint]:
        def work(db: sqlite3.Connection) -> list[RatingPoint]:
            rows = db.execute(
                "SELECT point FROM history WHERE player = ? ORDER BY n", (player,)
            ).fetchall()
            kept = [_point_decoder.decode(row[0]) for row in rows]
            return [k.point for k in kept if everything or not k.private]

        return await self._run(work)

    async def standings(self, player: str) -> dict[LadderName, StoredRating]:
        def work(db: sqlite3.Connection) -> dict[LadderName, StoredRating]:
            found: dict[LadderName, StoredRating] = {}
            for ladder in LADDERS:
                row = db.execute(
                    "SELECT mu, sigma, games, wins, seen FROM ratings "
                    "WHERE ladder = ? AND player = ?",
                    (ladder, player),
                ).fetchone()
                if row is not None:
                    found[ladder] = ledger_rows.stored(*row)
            return found

        return await self._run(work)

    async def ladder(
        self, ladder: LadderName, limit: int
    ) -> tuple[int, list[tuple[str, StoredRating]]]:
        def work(db: sqlite3.Connection) -> tuple[int, list[tuple[str, StoredRating]]]:
            (total,) = db.execute(
                "SELECT COUNT(*) FROM ratings WHERE ladder = ?", (ladder,)
            ).fetchone()
            rows = db.execute(
                "SELECT player, mu, sigma, games, wins, seen FROM ratings WHERE ladder = ? "
                "ORDER BY ordinal DESC, player LIMIT ?",
                (ladder, limit),
            ).fetchall()
            return int(total), [(str(row[0]), ledger_rows.stored(*row[1:])) for row in rows]

        return await self._run(work)

    async def close(self) -> None:
        def shut() -> None:
            with self._lock:
                self._db.close()

        await asyncio.get_running_loop().run_in_executor(self._worker, shut)
        self._worker.shutdown(wait=False)


__all__ = ["DEFAULT_MAX_GAMES", "LocalLedger"]
