"""What the two SQLite files (`sqlite_store`'s rooms, `archive_local`'s ledger) share.

- **SQLite's errors as `StoreUnavailable`** (`store_errors`): a database locked by another
  connection, a full disk, a read-only or unreadable file, a corrupt one. SQLite has rolled the
  transaction back, so nothing was saved, as with Redis out of reach; each is logged with its
  file and SQLite's words. An error in the query itself (bad SQL, a constraint, a closed
  connection) is a bug and goes on as it is (`FILE_ERRORS` tells them apart).
- **Schema versions** (`migrate`): each file carries its version in `PRAGMA user_version`; at
  open, the migrations it has not had run in order, in one transaction with the new version. A
  file from before versions (0, today's tables or none) gets the first, which makes what is
  missing and changes nothing there; a file from a newer allfives is refused (`NewerSchema`)
  and left as it is.
"""

from __future__ import annotations

import contextlib
import logging
import sqlite3
from collections.abc import Callable, Iterator, Sequence
from pathlib import Path

from server.storage.store import StoreUnavailable

log = logging.getLogger("allfives.store")

#: One step of a file's schema: migration N (from 0) takes a file from version N to N + 1.
Migration = Callable[[sqlite3.Connection], None]


class NewerSchema(StoreUnavailable):
    """The file was written by a newer allfives: its schema version is past the ones known."""


#: SQLite's result codes about the file rather than the query (an extended code, such as
#: SQLITE_IOERR_WRITE, starts with its primary one). SQLITE_ERROR (no such table, bad SQL),
#: SQLITE_CONSTRAINT and SQLITE_MISUSE are this program's mistakes.
FILE_ERRORS = frozenset(
    {
        "SQLITE_BUSY",
        "SQLITE_LOCKED",
        "SQLITE_FULL",
        "SQLITE_IOERR",
        "SQLITE_READONLY",
        "SQLITE_CANTOPEN",
        "SQLITE_CORRUPT",
        "SQLITE_NOTADB",
        "SQLITE_PROTOCOL",
        "SQLITE_NOMEM",
        "SQLITE_PERM",
        "SQLITE_NOLFS",
    }
)


def about_the_file(error: sqlite3.Error) -> bool:
    """Whether SQLite's error is about the file (locked, full, read-only, I/O, corrupt) rather
    than a query this program got wrong."""
    name: str = getattr(error, "sqlite_errorname", "") or ""
    return any(name == code or name.startswith(code + "_") for code in FILE_ERRORS)


@contextlib.contextmanager
def store_errors(what: str, path: Path | str) -> Iterator[None]:
    """Around a call into SQLite: an error about the file becomes `StoreUnavailable` saying
    what could not be done and why (and is logged)."""
    try:
        yield
    except sqlite3.Error as error:
        if not about_the_file(error):
            raise
        log.error("SQLite could not %s in %s: %s", what, path, error)
        raise StoreUnavailable(f"SQLite could not {what}: {error}") from None


def statements(db: sqlite3.Connection, *sql: str) -> None:
    """Run each statement in the transaction under way (`executescript` would commit it)."""
    for statement in sql:
        db.execute(statement)


def migrate(db: sqlite3.Connection, path: Path | str, migrations: Sequence[Migration]) -> None:
    """Bring the file to `len(migrations)`, the newest version, in one transaction (autocommit
    connection); `NewerSchema` if it is past that, and nothing changed."""
    newest = len(migrations)
    if _checked(db, path, newest) == newest:
        return  # the usual case: no write lock taken
    db.execute("BEGIN IMMEDIATE")
    try:
        found = _checked(db, path, newest)  # again: another connection may have migrated it
        # A file with no table yet is new, not migrated: it is made at the newest version.
        (tables,) = db.execute("SELECT count(*) FROM sqlite_master WHERE type = 'table'").fetchone()
        for version in range(found, newest):
            migrations[version](db)
        if found != newest:
            db.execute(f"PRAGMA user_version = {newest:d}")
    except BaseException:
        if db.in_transaction:
            db.execute("ROLLBACK")
        raise
    db.execute("COMMIT")
    if found != newest and tables:
        log.info("%s: schema version %d, now %d", path, found, newest)


def _checked(db: sqlite3.Connection, path: Path | str, newest: int) -> int:
    """The file's schema version; NewerSchema if it is past `newest`."""
    (found,) = db.execute("PRAGMA user_version").fetchone()
    if found > newest:
        raise NewerSchema(
            f"{path} has schema version {found}, newer than this allfives knows ({newest}): "
            "it was written by a newer allfives; run that one on it, or give another "
            "--data directory"
        )
    return int(found)


__all__ = [
    "FILE_ERRORS",
    "Migration",
    "NewerSchema",
    "about_the_file",
    "migrate",
    "statements",
    "store_errors",
]
