"""Rooms and records in SQLite under `--data DIR` (`server.storage.sqlite_store`).

What the file keeps across closing and opening again, a whole match through a server that
stores it move by move, a save SQLite refuses (nothing acknowledged, nothing sent, the room as it
was), and one process per directory. Servers killed with SIGKILL and restarted on the directory
are in tests/server/storage/test_persistence_restarts.py, against this store and Redis alike.
"""

from __future__ import annotations

import asyncio
import logging
import random
from pathlib import Path

import msgspec
import pytest
from restart_helpers import ServerProcess, data_keeping, server_process
from server_helpers import api_get, fast_config, new_key
from storage_helpers import check_final, stored_move_by_move
from waiting import until
from ws_client_helpers import (
    Client,
    finish_match,
    play_out,
    seat_players,
    to_play,
    until_archived,
    until_someone_to_play,
)

from protocol import messages as msg
from protocol.records import Record
from server.app import Config, run_server
from server.play import finish
from server.storage.archive import Archived, Committed, Conflict, Exists, RatingWrite
from server.storage.archive_local import LocalLedger
from server.storage.sqlite_store import DataInUse, SqliteStore


async def test_rooms_and_records_outlive_the_store_and_expire_as_in_redis(tmp_path: Path) -> None:
    now = [1_000_000.0]
    store = SqliteStore(tmp_path, record_ttl=100, room_ttl=50, clock=lambda: now[0])
    await asyncio.gather(*(store.save_room(f"R{n:03}", n, b"state %d" % n) for n in range(60)))
    assert store.saves == 60 and store.commits < 60, "saves waiting together share a commit"
    await store.save_room("R001", 7, b"newer")
    await store.save_record("R001/1", b'{"format": "allfives-record/1"}')
    now[0] += 30
    await store.save_room("KEPT", 3, b"kept")
    await store.close()

    again = SqliteStore(tmp_path, record_ttl=100, room_ttl=50, clock=lambda: now[0])
    assert len(await again.room_codes()) == 61
    stored = await again.load_room("R001")
    assert stored is not None and (stored.seq, stored.state) == (7, b"newer")
    assert await again.load_record("R001/1") == b'{"format": "allfives-record/1"}'
    now[0] += 30  # the first 60 rooms were saved 60 s ago, past room_ttl; KEPT 30 s ago
    assert await again.room_codes() == ["KEPT"]
    assert await again.load_room("R005") is None
    now[0] += 50  # the record is 110 s old
    assert await again.load_record("R001/1") is None
    await again.delete_room("KEPT")
    assert await again.room_codes() == []
    await again.close()


async def test_a_second_store_on_a_directory_is_refused_until_the_first_closes(
    tmp_path: Path,
) -> None:
    first = SqliteStore(tmp_path)
    try:
        SqliteStore(tmp_path)
    except DataInUse as error:
        assert "another server process" in str(error) and "--redis" in str(error)
    else:
        raise AssertionError("a second store opened the directory in use")
    await first.close()
    second = SqliteStore(tmp_path)
    await second.close()


async def test_a_match_through_a_server_on_sqlite_is_stored_move_by_move(tmp_path: Path) -> None:
    store = SqliteStore(tmp_path)
    async with run_server(fast_config(store=store)) as server:
        host, record = await stored_move_by_move(server.url, store)
        assert host.room is not None
        await until(lambda: store.load_record(f"{host.room}/1"), what="the record stored")
        await until_archived(host)
        code, seq = host.room, host.state.seq
    # The server closed the store; what it kept reads back from the file (with the players
    # gone since, a change of its own).
    reopened = SqliteStore(tmp_path)
    stored = await reopened.load_room(code)
    assert stored is not None and seq is not None and stored.seq >= seq
    kept = await reopened.load_record(f"{code}/1")
    assert kept is not None and msgspec.json.decode(kept, type=Record) == record
    await reopened.close()


async def refuse_writes(store: SqliteStore, refuse: bool) -> None:
    """Make SQLite refuse (or take again) every write on the store's own connection: the error a
    full disk or a read-only file gives, from SQLite itself."""
    pragma = f"PRAGMA query_only={int(refuse)}"
    await store._run("set query_only", lambda db: db.execute(pragma), write=False)


async def test_a_move_sqlite_refuses_is_answered_unavailable_and_changes_nothing(
    tmp_path: Path,
) -> None:
    store = SqliteStore(tmp_path)
    async with run_server(fast_config(store=store)) as server:
        ann, bob = await seat_players(server.url, 3, 2, "easy", target=100)
        assert isinstance(await ann.request("start"), msg.Ack)
        mover = await until_someone_to_play([ann, bob])
        other = bob if mover is ann else ann
        seq = mover.state.seq
        assert mover.room is not None
        before = await store.load_room(mover.room)
        await refuse_writes(store, True)

        choice = mover.document["game"]["legal"][0]
        refused = await mover.error_for("play", tile=choice["tile"], end=choice.get("end"))
        assert refused.code == "unavailable"
        assert (await other.error_for("chat", text="anyone?")).code == "unavailable"
        assert isinstance(await other.request("ping"), msg.Pong)  # all sent before it has come
        assert mover.state.seq == other.state.seq == seq, "a change nobody stored was sent"
        assert mover.my_turn()
        assert await store.load_room(mover.room) == before

        await refuse_writes(store, False)
        played = await mover.request("play", tile=choice["tile"], end=choice.get("end"))
        assert isinstance(played, msg.Ack), played
        assert seq is not None
        while other.state.seq is None or other.state.seq <= seq:
            await other.receive()
        stored = await store.load_room(mover.room)
        assert stored is not None and stored.seq >= other.state.seq
        await asyncio.gather(*(play_out(c, random.Random(i)) for i, c in enumerate([ann, bob])))
        record = await ann.request("record")
        assert isinstance(record, msg.RecordReply)
        check_final(record.record, ann.document)


async def test_a_second_server_on_the_same_data_is_refused_and_the_first_serves_on(
    tmp_path: Path,
) -> None:
    keeping = data_keeping(tmp_path / "data")
    async with server_process(keeping, tmp_path) as first:
        assert first.process is not None
        second = await asyncio.create_subprocess_exec(
            *ServerProcess.command(keeping.options, 0),
            stdout=asyncio.subprocess.PIPE,
            stderr=asyncio.subprocess.PIPE,
        )
        out, err = await asyncio.wait_for(second.communicate(), 30)
        assert second.returncode == 1 and out == b""
        said = err.decode()
        assert "cannot open the saved rooms" in said, said
        assert f"another server process (pid {first.process.pid})" in said, said
        (ann,) = await seat_players(first.url, 2, 1, "easy")
        assert isinstance(await ann.request("start"), msg.Ack)
        await ann.close()
        await first.kill()  # the kernel drops the lock with the process
        await first.start()
        assert first.starts == 2
    assert len(await keeping.store.room_codes()) == 1, "the room outlived the kill"
    await keeping.store.close()


class SilentArchive(LocalLedger):
    """An archive that never answers a finished game's commit: a server stopped with it went
    between a match's last move and its archive, as one killed there would."""

    async def commit_game(
        self, archived: Archived, writes: list[RatingWrite], now: float
    ) -> Committed | Conflict | Exists:
        await asyncio.Event().wait()
        raise AssertionError("never answered")


async def test_a_match_finished_but_not_archived_is_archived_when_the_server_starts_again(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(finish, "DRAIN_SECONDS", 0.05)
    key = new_key()
    silent = SilentArchive(tmp_path)
    async with run_server(fast_config(store=SqliteStore(tmp_path), ledger=silent)) as first:
        ann = await finish_match(first.url, "Ann", key)
        assert ann.document["phase"] == "finished"
        await ann.close()
    await silent.close()

    async with run_server(fast_config(store=SqliteStore(tmp_path), data=str(tmp_path))) as again:

        async def archived() -> bool:
            answer = await api_get(again.url, "/api/players/Ann", key)
            return answer.status == 200 and answer.json["games"] == 1

        await until(archived, 15, "the match archived by the server started again", every=0.1)


class SlowSqlite(SqliteStore):
    """A file on a slow disk once `slow` is set: each save takes a while, so joins sent at
    once meet mid-save."""

    slow = False

    async def save_room(self, code: str, seq: int, state: bytes) -> None:
        """Save after a pause (the stimulus; nothing waits on it for a result)."""
        if self.slow:
            await asyncio.sleep(0.1)
        await super().save_room(code, seq, state)


async def test_more_joins_at_once_than_the_lookup_budget_are_all_seated_on_sqlite(
    tmp_path: Path,
) -> None:
    # The budget bounds failed room lookups; a join's save is no lookup: while SQLite commits
    # one, the other joins from the address find their rooms (and were refused, beyond it).
    rooms = Config().limits.lookup_burst + 10
    store = SlowSqlite(tmp_path)
    config = fast_config(
        store=store,
        data=str(tmp_path),
        max_rooms_per_ip=rooms,
        rooms_burst=rooms,
        max_connections_per_ip=2 * rooms + 2,
    )
    async with run_server(config) as server:
        hosts = []
        for index in range(rooms):
            host = await Client.open(server.url, f"H{index}")
            joined = await host.request("create_room", rules={"players": 2})
            assert isinstance(joined, msg.Joined), joined
            hosts.append(host)
        guests = [await Client.open(server.url, f"G{index}") for index in range(rooms)]
        # The rooms were made one after another: the disk is slow from the joins on.
        store.slow = True
        replies = await asyncio.gather(
            *(
                guest.request("join", room=host.room)
                for guest, host in zip(guests, hosts, strict=True)
            )
        )
        refused = [reply for reply in replies if not isinstance(reply, msg.Joined)]
        assert refused == [], f"{len(refused)} of {rooms} joins refused: {refused[0]}"
        # Their seats resumed at once, each with its token: the same holds for a hello's lookup.
        seats = [(guest.room, guest.token) for guest in guests]
        for guest in guests:
            await guest.close()
        back = [await Client.open(server.url, f"G{index}", hello=False) for index in range(rooms)]

        async def resume(
            client: Client, room: str | None, token: str | None
        ) -> msg.AnyServerMessage:
            hello = {"version": msg.PROTOCOL_VERSION, "name": client.name}
            await client.request("hello", **hello, room=room, token=token)
            return await client.until(lambda m: isinstance(m, (msg.Joined, msg.Error)))

        resumed = await asyncio.gather(
            *(resume(client, *seat) for client, seat in zip(back, seats, strict=True))
        )
        refused = [reply for reply in resumed if not isinstance(reply, msg.Joined)]
        assert refused == [], f"{len(refused)} of {rooms} seats not resumed: {refused[0]}"
        for client in hosts + back:
            await client.close()


async def test_the_log_counts_the_rooms_resumed_in_words(
    tmp_path: Path, caplog: pytest.LogCaptureFixture
) -> None:
    """One room kept in SQLite and the server started again: "resumed 1 room", not "1 rooms"."""
    async with run_server(fast_config(store=SqliteStore(tmp_path))) as first:
        ann = await to_play(first.url, "Ann")
        await ann.close()
    caplog.set_level(logging.INFO)
    async with run_server(fast_config(store=SqliteStore(tmp_path))):
        pass
    said = [record.getMessage() for record in caplog.records]
    assert "resumed 1 room" in said, said
