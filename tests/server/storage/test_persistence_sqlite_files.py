"""What the two SQLite files under `--data DIR` share (`server.storage.sqlite_files`).

A ledger whose file another connection holds locked answers `StoreUnavailable`, so a client is
told `unavailable` (and the API 503) as when Redis is out of reach, and all works again once the
lock goes. Each file carries its schema version (`PRAGMA user_version`): a file written before
versions opens, keeps what it holds and is stamped 1; a file from a newer allfives is refused
with one clear line and left as it was.
"""

from __future__ import annotations

import asyncio
import contextlib
import sqlite3
from collections.abc import Iterator
from pathlib import Path

import pytest
from restart_helpers import ServerProcess
from server_helpers import api_get, fast_config, new_key
from ws_client_helpers import Client

from allfives import cli
from protocol import messages as msg
from server.app import run_server
from server.storage import archive_local, sqlite_store
from server.storage.archive import ClaimBudget, key_hash
from server.storage.archive_local import LocalLedger
from server.storage.sqlite_files import NewerSchema
from server.storage.sqlite_store import SqliteStore
from server.storage.store import StoreUnavailable

#: How long the ledger waits for a locked file in these tests before it gives up.
LOCK_WAIT = 0.2

#: The ledger's file as allfives wrote it before schema versions (user_version 0).
LEDGER_BEFORE_VERSIONS = """
CREATE TABLE players (id TEXT PRIMARY KEY, name TEXT NOT NULL,
    fold TEXT NOT NULL UNIQUE, created REAL NOT NULL);
CREATE TABLE keys (hash TEXT PRIMARY KEY, player TEXT NOT NULL, added REAL NOT NULL);
CREATE INDEX keys_of ON keys (player, added);
CREATE TABLE links (code TEXT PRIMARY KEY, player TEXT NOT NULL,
    made REAL NOT NULL, expires REAL NOT NULL);
CREATE INDEX links_of ON links (player, made);
CREATE TABLE recovery (hash TEXT PRIMARY KEY, player TEXT NOT NULL UNIQUE);
CREATE TABLE meta (key TEXT PRIMARY KEY, value TEXT NOT NULL);
CREATE TABLE claims (address TEXT PRIMARY KEY, tokens REAL NOT NULL, at REAL NOT NULL);
CREATE TABLE ratings (ladder TEXT NOT NULL, player TEXT NOT NULL, mu REAL NOT NULL,
    sigma REAL NOT NULL, games INTEGER NOT NULL, wins INTEGER NOT NULL, version INTEGER NOT NULL,
    ordinal REAL NOT NULL, seen BLOB NOT NULL DEFAULT '{}', PRIMARY KEY (ladder, player));
CREATE INDEX ladder_order ON ratings (ladder, ordinal DESC);
CREATE TABLE games (id TEXT PRIMARY KEY, finished REAL NOT NULL, data BLOB NOT NULL);
CREATE INDEX games_by_time ON games (finished);
CREATE TABLE seated (game TEXT NOT NULL, player TEXT NOT NULL, finished REAL NOT NULL,
    public INTEGER NOT NULL, PRIMARY KEY (player, game));
CREATE INDEX seated_by_time ON seated (player, finished DESC);
CREATE INDEX seated_game ON seated (game);
CREATE TABLE stats (player TEXT PRIMARY KEY, games INTEGER NOT NULL,
    wins INTEGER NOT NULL, public_games INTEGER NOT NULL, public_wins INTEGER NOT NULL);
CREATE TABLE history (player TEXT NOT NULL, n INTEGER NOT NULL, point BLOB NOT NULL,
    PRIMARY KEY (player, n));
INSERT INTO players VALUES ('p:0123456789abcdef', 'Ann', 'ann', 1.0);
"""

#: The rooms' file as allfives wrote it before schema versions (user_version 0).
ROOMS_BEFORE_VERSIONS = """
CREATE TABLE rooms (code TEXT PRIMARY KEY, seq INTEGER NOT NULL,
    state BLOB NOT NULL, saved REAL NOT NULL);
CREATE TABLE records (key TEXT PRIMARY KEY, record BLOB NOT NULL,
    saved REAL NOT NULL);
CREATE INDEX records_by_time ON records (saved);
"""


@contextlib.contextmanager
def opened(path: Path) -> Iterator[sqlite3.Connection]:
    """A connection of the test's own to a file, closed after."""
    db = sqlite3.connect(path, isolation_level=None)
    try:
        yield db
    finally:
        db.close()


def version_of(path: Path) -> int:
    with opened(path) as db:
        (version,) = db.execute("PRAGMA user_version").fetchone()
        return int(version)


def stamp(path: Path, version: int) -> None:
    with opened(path) as db:
        db.execute(f"PRAGMA user_version = {version:d}")


@contextlib.contextmanager
def locked(path: Path) -> Iterator[None]:
    """Another connection holds the file locked (a transaction that writes) for the block."""
    with opened(path) as db:
        db.execute("BEGIN EXCLUSIVE")
        try:
            yield
        finally:
            db.execute("ROLLBACK")


async def test_a_locked_ledger_is_unavailable_then_answers_once_the_lock_goes(
    tmp_path: Path,
) -> None:
    ledger = LocalLedger(tmp_path, timeout=LOCK_WAIT)
    key = key_hash(new_key())
    player = await ledger.claim_within(key, "Ann", "ann", 1.0, _budget())
    with locked(tmp_path / archive_local.FILE_NAME):
        with pytest.raises(StoreUnavailable, match="locked"):
            await ledger.player_of_key(key)
        with pytest.raises(StoreUnavailable, match="locked"):
            await ledger.claim_within(key_hash(new_key()), "Bob", "bob", 2.0, _budget())
    assert await ledger.player_of_key(key) == player
    assert await ledger.player_named("bob") is None, "a refused claim left nothing"
    await ledger.close()


async def test_a_mistake_in_a_query_is_not_taken_for_the_file_out_of_reach(tmp_path: Path) -> None:
    ledger = LocalLedger(tmp_path)
    with pytest.raises(sqlite3.OperationalError, match="no such table"):
        await ledger._run(lambda db: db.execute("SELECT * FROM no_table"))
    assert await ledger.player_named("ann") is None, "the ledger answers on"
    await ledger.close()


async def test_a_server_whose_ledger_is_locked_answers_unavailable_as_for_redis(
    tmp_path: Path,
) -> None:
    key = new_key()
    ledger = LocalLedger(tmp_path, timeout=LOCK_WAIT)
    async with run_server(fast_config(ledger=ledger)) as server:
        ann = await Client.open(server.url, "Ann", key=key)
        await ann.close()
        with locked(tmp_path / archive_local.FILE_NAME):
            again = await Client.open(server.url, hello=False)
            reply = await again.request("hello", version=msg.PROTOCOL_VERSION, name="Ann", key=key)
            assert isinstance(reply, msg.Error), reply
            assert reply.code == "unavailable" and "store cannot be reached" in reply.message
            answer = await api_get(server.url, "/api/players/Ann")
            assert (answer.status, answer.json["error"]) == (503, "unavailable"), answer
        reply = await again.request("hello", version=msg.PROTOCOL_VERSION, name="Ann", key=key)
        assert isinstance(reply, msg.Welcome), reply
        assert (await api_get(server.url, "/api/players/Ann")).status == 200
        await again.close()


async def test_a_ledger_from_before_versions_opens_keeps_its_players_and_is_stamped(
    tmp_path: Path,
) -> None:
    path = tmp_path / archive_local.FILE_NAME
    with opened(path) as db:
        db.executescript(LEDGER_BEFORE_VERSIONS)
    assert version_of(path) == 0
    ledger = LocalLedger(tmp_path)
    found = await ledger.player_named("ann")
    assert found is not None and (found.id, found.name) == ("p:0123456789abcdef", "Ann")
    await ledger.close()
    assert version_of(path) == len(archive_local.MIGRATIONS) == 1
    fresh = LocalLedger(tmp_path / "fresh")
    await fresh.close()
    assert version_of(tmp_path / "fresh" / archive_local.FILE_NAME) == 1


async def test_a_ledger_from_a_newer_allfives_is_refused_and_left_as_it_was(
    tmp_path: Path,
) -> None:
    ledger = LocalLedger(tmp_path)
    key = key_hash(new_key())
    await ledger.claim_within(key, "Ann", "ann", 1.0, _budget())
    await ledger.close()
    path = tmp_path / archive_local.FILE_NAME
    stamp(path, 2)
    with pytest.raises(NewerSchema, match="schema version 2, newer than this allfives knows"):
        LocalLedger(tmp_path)
    assert version_of(path) == 2
    stamp(path, 1)  # as the newer allfives would not, but to show the file was not touched
    again = LocalLedger(tmp_path)
    assert (found := await again.player_of_key(key)) is not None and found.name == "Ann"
    await again.close()


async def test_a_rooms_file_from_before_versions_opens_and_one_from_a_newer_is_refused(
    tmp_path: Path,
) -> None:
    path = tmp_path / sqlite_store.FILE_NAME
    with opened(path) as db:
        db.executescript(ROOMS_BEFORE_VERSIONS)
        db.execute("INSERT INTO rooms VALUES ('ABCD', 3, x'00ff', 1.0e12)")
    store = SqliteStore(tmp_path)
    stored = await store.load_room("ABCD")
    assert stored is not None and (stored.seq, stored.state) == (3, b"\x00\xff")
    await store.close()
    assert version_of(path) == len(sqlite_store.MIGRATIONS) == 1

    stamp(path, 5)
    with pytest.raises(NewerSchema, match="schema version 5"):
        SqliteStore(tmp_path)
    assert version_of(path) == 5
    stamp(path, 1)
    store = SqliteStore(tmp_path)  # the refusal let the directory's lock go
    assert await store.room_codes() == ["ABCD"]
    await store.close()


@pytest.mark.parametrize("file", [sqlite_store.FILE_NAME, archive_local.FILE_NAME])
async def test_serve_on_a_newer_file_stops_with_one_clear_line(tmp_path: Path, file: str) -> None:
    data = tmp_path / "data"
    await SqliteStore(data).close()
    await LocalLedger(data).close()
    stamp(data / file, 9)
    server = await asyncio.create_subprocess_exec(
        *ServerProcess.command(("--data", str(data)), 0),
        stdout=asyncio.subprocess.PIPE,
        stderr=asyncio.subprocess.PIPE,
    )
    out, err = await asyncio.wait_for(server.communicate(), 30)
    said = err.decode()
    assert server.returncode == 1 and out == b"", said
    assert f"{data / file} has schema version 9, newer than this allfives knows" in said, said
    assert "Traceback" not in said, said
    assert version_of(data / file) == 9


async def test_the_operator_tool_on_a_newer_ledger_says_so_in_one_line(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    await LocalLedger(tmp_path).close()
    stamp(tmp_path / archive_local.FILE_NAME, 4)
    status = await asyncio.to_thread(cli.main, ["admin", "--data", str(tmp_path), "show", "Ann"])
    said = capsys.readouterr().err
    assert status == 1 and "schema version 4, newer than this allfives knows" in said, said
    assert "Traceback" not in said and version_of(tmp_path / archive_local.FILE_NAME) == 4


def _budget() -> ClaimBudget:
    return ClaimBudget("127.0.0.1", 10, 1.0)
