"""`SqliteStore`: rooms and records in `DIR/rooms.sqlite3`, for `allfives serve --data DIR`.

The embedded store that keeps what Redis keeps, for one server process without Redis. Tables:

- `rooms`: `code`, `seq`, `state` (the whole room, `Room.to_bytes`) and `saved` (wall-clock
  time of its last save). A room not saved for `room_ttl` seconds is dropped when the codes are
  read at start-up.
- `records`: `key` ("ROOM/N", "review/GAME"), the JSON `record` and `saved`; a record older
  than `record_ttl` seconds goes when another is written.

The promise is Redis's: `save_room` returns only once SQLite has committed the room (WAL,
`synchronous=NORMAL`: the transaction is in the write-ahead log, so it survives the process
being killed), and the server sends a change only after that (`server.play.committer.
LocalCommitter`). A failed write raises `StoreUnavailable`, and SQLite has rolled it back: a
save is never in doubt. One connection: rooms' saves are committed by a writer thread of its own
(fed by a queue), everything else runs in a worker thread, so the event loop never waits on the
disk. Saves that arrive while a transaction is on the disk wait and go together in the next one
(a group commit), so under load one commit carries the moves of many rooms.

One process only: the store takes an exclusive lock (`flock`) on `DIR/rooms.lock` for as long
as it is open, and a second one on the same directory is refused with `DataInUse`, naming the
process that holds it. The kernel drops the lock when that process dies, even by SIGKILL, so a
server started again on the directory takes its rooms at once. `exclusive=False` opens the file
without the lock, to look at what a running server stored (tests, tools): never serve from it.
See docs/persistence.md.
"""

from __future__ import annotations

import asyncio
import contextlib
import fcntl
import logging
import os
import queue
import sqlite3
import threading
import time
from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from typing import IO, TypeVar

from server.storage.sqlite_files import Migration, migrate, statements, store_errors
from server.storage.store import (
    DEFAULT_RECORD_TTL,
    DEFAULT_ROOM_TTL,
    Store,
    StoredRoom,
    StoreUnavailable,
)
from server.storage.tournaments_sqlite import SqliteTournaments

log = logging.getLogger("allfives.store")
T = TypeVar("T")

FILE_NAME = "rooms.sqlite3"
#: Rooms saved between two checkpoints of the write-ahead log (a few MB of log at most).
CHECKPOINT_EVERY = 256
#: Bytes of write-ahead log past which the writer itself empties it.
LOG_BYTES_MAX = 32 * 1024 * 1024
LOCK_NAME = "rooms.lock"

#: The tables as they were when versions began (migration 1 makes what is missing).
_TABLES = (
    "CREATE TABLE IF NOT EXISTS rooms (code TEXT PRIMARY KEY, seq INTEGER NOT NULL, "
    "state BLOB NOT NULL, saved REAL NOT NULL)",
    "CREATE TABLE IF NOT EXISTS records (key TEXT PRIMARY KEY, record BLOB NOT NULL, "
    "saved REAL NOT NULL)",
    "CREATE INDEX IF NOT EXISTS records_by_time ON records (saved)",
)

#: The file's schema, one step a version (`server.storage.sqlite_files.migrate`).
MIGRATIONS: tuple[Migration, ...] = (lambda db: statements(db, *_TABLES),)

#: A room's save waiting for the next commit: code, seq, state, and who waits for it.
_Save = tuple[str, int, bytes, asyncio.Future[None]]


class DataInUse(StoreUnavailable):
    """Another process keeps its rooms in this directory (it holds `rooms.lock`)."""


class SqliteStore(Store):
    """Rooms and records in SQLite under `data`; see the module docstring."""

    def __init__(
        self,
        data: Path | str,
        *,
        record_ttl: int = DEFAULT_RECORD_TTL,
        room_ttl: int = DEFAULT_ROOM_TTL,
        exclusive: bool = True,
        clock: Callable[[], float] = time.time,
    ) -> None:
        if record_ttl <= 0 or room_ttl <= 0:
            raise ValueError("record and room lifetimes must be a positive number of seconds")
        self.directory = Path(data)
        self.record_ttl = record_ttl
        self.room_ttl = room_ttl
        self.clock = clock
        self.directory.mkdir(parents=True, exist_ok=True)
        self.path = self.directory / FILE_NAME
        self._lock_file = _lock(self.directory) if exclusive else None
        try:
            with store_errors(f"open {self.path}", self.path):
                self._db = sqlite3.connect(
                    str(self.path), check_same_thread=False, isolation_level=None
                )
                try:
                    self._db.execute("PRAGMA journal_mode=WAL")
                    self._db.execute("PRAGMA synchronous=NORMAL")
                    # Checkpoints (which sync the file) run beside the commits, not in them.
                    self._db.execute("PRAGMA wal_autocheckpoint=0")
                    migrate(self._db, self.path, MIGRATIONS)
                    self._checkpoints = sqlite3.connect(
                        str(self.path), check_same_thread=False, isolation_level=None
                    )
                except BaseException:
                    self._db.close()
                    raise
        except BaseException:
            self._unlock()
            raise
        #: Reads, records and the rest, one transaction at a time (`_run`).
        self._worker = ThreadPoolExecutor(max_workers=1, thread_name_prefix="rooms")
        self._checkpointer = ThreadPoolExecutor(max_workers=1, thread_name_prefix="checkpoint")
        self._checkpointing: asyncio.Future[None] | None = None
        self._since_checkpoint = 0
        self._log_path = f"{self.path}-wal"
        #: The connection's: one transaction at a time, from the writer or the worker.
        self._lock = threading.Lock()
        #: One checkpoint at a time: the passive ones, and the writer's when the log is long.
        self._checkpoint_lock = threading.Lock()
        #: Rooms' saves for the writer thread (None: stop).
        self._saves: queue.SimpleQueue[_Save | None] = queue.SimpleQueue()
        self._writer = threading.Thread(target=self._write, name="rooms-writer", daemon=True)
        self._closed = False
        self._writer.start()
        #: Commits made and rooms saved by them (a commit carries every save waiting for it).
        self.commits = 0
        self.saves = 0
        self.tournaments = SqliteTournaments(self._run, clock)

    # -- the Store interface ---------------------------------------------------------------

    async def save_room(self, code: str, seq: int, state: bytes) -> None:
        """Save a room at `seq`; returns once SQLite committed it (StoreUnavailable if not)."""
        if self._closed:
            raise StoreUnavailable("the store is closed")
        done: asyncio.Future[None] = asyncio.get_running_loop().create_future()
        self._saves.put((code, seq, state, done))
        await done

    async def load_room(self, code: str) -> StoredRoom | None:
        """The saved state of a room, or None."""

        def work(db: sqlite3.Connection) -> StoredRoom | None:
            row = db.execute("SELECT seq, state FROM rooms WHERE code = ?", (code,)).fetchone()
            return None if row is None else StoredRoom(int(row[0]), bytes(row[1]))

        return await self._run(f"load room {code}", work, write=False)

    async def delete_room(self, code: str) -> None:
        """Forget a room."""
        await self._run(
            f"delete room {code}",
            lambda db: db.execute("DELETE FROM rooms WHERE code = ?", (code,)),
        )

    async def room_codes(self) -> list[str]:
        """The codes of every room saved within `room_ttl` (older ones are dropped now)."""
        oldest = self.clock() - self.room_ttl

        def work(db: sqlite3.Connection) -> list[str]:
            db.execute("DELETE FROM rooms WHERE saved < ?", (oldest,))
            return [str(row[0]) for row in db.execute("SELECT code FROM rooms ORDER BY code")]

        return await self._run("list rooms", work)

    async def save_record(self, key: str, record: bytes) -> None:
        """Keep a finished match's record for `record_ttl` seconds."""
        now = self.clock()

        def work(db: sqlite3.Connection) -> None:
            db.execute("INSERT OR REPLACE INTO records VALUES (?, ?, ?)", (key, record, now))
            db.execute("DELETE FROM records WHERE saved < ?", (now - self.record_ttl,))

        await self._run(f"save record {key}", work)

    async def load_record(self, key: str) -> bytes | None:
        """A kept record, or None."""
        oldest = self.clock() - self.record_ttl

        def work(db: sqlite3.Connection) -> bytes | None:
            row = db.execute(
                "SELECT record FROM records WHERE key = ? AND saved >= ?", (key, oldest)
            ).fetchone()
            return None if row is None else bytes(row[0])

        return await self._run(f"load record {key}", work, write=False)

    async def ping(self) -> None:
        """Check that the file answers (StoreUnavailable if not)."""
        await self._run("ping", lambda db: db.execute("SELECT 1").fetchone(), write=False)

    async def close(self) -> None:
        """Finish the saves under way, close the file and release the directory."""
        loop = asyncio.get_running_loop()
        self._closed = True
        self._saves.put(None)
        await loop.run_in_executor(self._worker, self._writer.join)
        if self._checkpointing is not None:
            await self._checkpointing

        def shut() -> None:
            with self._lock:
                self._checkpoints.close()
                self._db.close()  # the last connection: SQLite checkpoints the log

        await loop.run_in_executor(self._worker, shut)
        self._worker.shutdown(wait=False)
        self._checkpointer.shutdown(wait=False)
        self._unlock()

    # -- commits ---------------------------------------------------------------------------

    def _write(self) -> None:
        """The writer thread: commit every save waiting, in one transaction, until told to stop;
        each waiter is answered on its event loop."""
        while True:
            batch = [self._saves.get()]
            with contextlib.suppress(queue.Empty):
                while True:
                    batch.append(self._saves.get_nowait())
            saves = [save for save in batch if save is not None]
            if saves:
                failure = self._commit(saves)
                with contextlib.suppress(RuntimeError):  # a loop closed meanwhile: none waits
                    saves[0][3].get_loop().call_soon_threadsafe(self._settle, saves, failure)
            if len(saves) < len(batch):
                return

    def _commit(self, saves: list[_Save]) -> str | None:
        """In the writer thread: one transaction writing `saves`; SQLite's words if it failed."""
        now = self.clock()
        rows = [(code, seq, state, now) for code, seq, state, _ in saves]
        with self._lock:
            db = self._db
            try:
                db.execute("BEGIN IMMEDIATE")
                db.executemany("INSERT OR REPLACE INTO rooms VALUES (?, ?, ?, ?)", rows)
                db.execute("COMMIT")
            except Exception as error:  # the writer must live on: each save is answered
                if db.in_transaction:
                    with contextlib.suppress(sqlite3.Error):
                        db.execute("ROLLBACK")
                return str(error) or type(error).__name__
        if self._log_bytes() > LOG_BYTES_MAX:
            self._empty_log()
        return None

    def _log_bytes(self) -> int:
        """The size of the write-ahead log's file (emptied by `_empty_log`, so its length)."""
        try:
            return os.stat(self._log_path).st_size
        except OSError:
            return 0

    def _settle(self, saves: list[_Save], failure: str | None) -> None:
        """On the event loop: answer the saves of a commit, and start a checkpoint when due."""
        if failure is not None:
            log.error("SQLite could not save %d rooms in %s: %s", len(saves), self.path, failure)
        for *_, done in saves:
            if done.done():
                continue  # its waiter was cancelled
            if failure is None:
                done.set_result(None)
            else:
                done.set_exception(StoreUnavailable(f"SQLite could not save the room: {failure}"))
        if failure is not None:
            return
        self.commits += 1
        self.saves += len(saves)
        self._since_checkpoint += len(saves)
        if self._since_checkpoint >= CHECKPOINT_EVERY and self._checkpointing is None:
            self._checkpoint()

    def _checkpoint(self) -> None:
        """Copy the write-ahead log into the file on a connection and thread of its own: a
        passive checkpoint waits for no commit, and no commit waits for its sync."""
        self._since_checkpoint = 0

        def work() -> None:
            try:
                with self._checkpoint_lock:
                    self._checkpoints.execute("PRAGMA wal_checkpoint(PASSIVE)").fetchone()
            except sqlite3.Error as error:  # the next one tries again; saves are unaffected
                log.warning("SQLite could not checkpoint %s: %s", self.path, error)

        future = asyncio.get_running_loop().run_in_executor(self._checkpointer, work)
        self._checkpointing = future

        def done(_: asyncio.Future[None]) -> None:
            self._checkpointing = None

        future.add_done_callback(done)

    def _empty_log(self) -> None:
        """In the writer thread. Under saves that never pause, a passive checkpoint never
        catches up and the log grows: past `LOG_BYTES_MAX`, the writer copies what the passive
        checkpoints left and empties the log (a sync, once in thousands of saves). While a
        passive one runs it does not wait: the next commit tries again."""
        if not self._checkpoint_lock.acquire(blocking=False):
            return
        try:
            with self._lock:
                self._db.execute("PRAGMA wal_checkpoint(TRUNCATE)").fetchone()
        except sqlite3.Error as error:
            log.warning("SQLite could not empty the log of %s: %s", self.path, error)
        finally:
            self._checkpoint_lock.release()

    async def _run(
        self, what: str, work: Callable[[sqlite3.Connection], T], write: bool = True
    ) -> T:
        """Run one transaction in the worker thread (a read takes no write lock);
        StoreUnavailable if SQLite refuses it (`server.storage.sqlite_files.store_errors`)."""

        def transaction() -> T:
            with self._lock, store_errors(what, self.path):
                db = self._db
                db.execute("BEGIN IMMEDIATE" if write else "BEGIN")
                try:
                    result = work(db)
                    db.execute("COMMIT")
                except BaseException:
                    if db.in_transaction:
                        db.execute("ROLLBACK")
                    raise
                return result

        return await asyncio.get_running_loop().run_in_executor(self._worker, transaction)

    def _unlock(self) -> None:
        if self._lock_file is not None:
            self._lock_file.close()  # closing the file drops the flock
            self._lock_file = None


def _lock(directory: Path) -> IO[str]:
    """Hold `rooms.lock` in `directory` exclusively (with this process's id in it), or raise
    DataInUse naming the process that holds it."""
    path = directory / LOCK_NAME
    handle = path.open("a+")
    try:
        fcntl.flock(handle.fileno(), fcntl.LOCK_EX | fcntl.LOCK_NB)
    except OSError:
        handle.seek(0)
        holder = handle.read().strip() or "unknown"
        handle.close()
        raise DataInUse(
            f"{directory} holds the rooms of another server process (pid {holder}): "
            "give each server its own --data directory, or use --redis for several processes"
        ) from None
    handle.seek(0)
    handle.truncate()
    handle.write(f"{os.getpid()}\n")
    handle.flush()
    return handle


__all__ = ["FILE_NAME", "LOCK_NAME", "DataInUse", "SqliteStore"]
