"""Rooms in Redis through a real server in this process: whole matches and Redis going down.

The server runs here (`run_server` with a `RedisStore`): a match is stored move by move, nothing
is acknowledged while Redis is down, and a record the store refused is stored once it accepts.
Servers killed with SIGKILL and restarted are in tests/server/storage/test_persistence_restarts.py.
"""

from __future__ import annotations

import asyncio
import random
from typing import Any

import msgspec
import pytest
from redis_server import RedisServer
from storage_helpers import check_final, stored_move_by_move
from waiting import until
from ws_client_helpers import play_out, seat_players, until_archived, until_someone_to_play

from protocol import messages as msg
from protocol.records import Record
from server.app import Config, run_server
from server.play import finish
from server.storage.redis_store import RedisStore
from server.storage.store import MemoryStore, StoreUnavailable


def server_config(store: RedisStore, **changes: Any) -> Config:
    """An in-process test server on an ephemeral port with a Redis store."""
    options: dict[str, Any] = {
        "port": 0,
        "bot_delay": 0.0,
        "bot_processes": False,
        "rate": 1000.0,
        "burst": 1000,
        "store": store,
    }
    options.update(changes)
    return Config.of(**options)


# -- in-process server ---------------------------------------------------------------------


@pytest.mark.redis
async def test_a_match_through_a_redis_backed_server_is_stored_move_by_move(
    redis_server: RedisServer, store: RedisStore
) -> None:
    async with run_server(server_config(RedisStore(redis_server.url))) as server:
        host, record = await stored_move_by_move(server.url, store)
        assert host.room is not None
        kept = await until(lambda: store.load_record(f"{host.room}/1"), what="the record stored")
        assert msgspec.json.decode(kept, type=Record) == record
        await until_archived(host)
        stored = await store.load_room(host.room)
        assert stored is not None and stored.seq == host.state.seq
        assert await store.room_codes() == [host.room]


@pytest.mark.redis
async def test_while_redis_is_down_nothing_is_acknowledged_and_play_resumes_when_it_returns(
    redis_server: RedisServer, store: RedisStore
) -> None:
    config = server_config(RedisStore(redis_server.url, timeout=0.5))
    async with run_server(config) as server:
        ann, bob = await seat_players(server.url, 3, 2, "easy", target=100)
        assert isinstance(await ann.request("start"), msg.Ack)
        mover = await until_someone_to_play([ann, bob])
        other = bob if mover is ann else ann
        seq = mover.state.seq
        redis_server.stop()

        choice = mover.document["game"]["legal"][0]
        refused = await mover.error_for("play", tile=choice["tile"], end=choice.get("end"))
        assert refused.code == "unavailable"
        assert (await mover.error_for("chat", text="hello?")).code == "unavailable"
        assert (await other.error_for("chat", text="anyone?")).code == "unavailable"
        assert isinstance(await mover.request("ping"), msg.Pong)
        snapshot = await mover.request("resync")
        assert isinstance(snapshot, msg.Snapshot) and snapshot.seq == seq
        assert isinstance(await other.request("ping"), msg.Pong)  # all sent before it has come
        assert mover.state.seq == other.state.seq == seq, "a change nobody stored was sent"
        assert mover.my_turn()

        redis_server.start()

        async def played() -> bool:
            reply = await mover.request("play", tile=choice["tile"], end=choice.get("end"))
            assert isinstance(reply, msg.Ack | msg.Error), reply
            assert isinstance(reply, msg.Ack) or reply.code == "unavailable", reply
            return isinstance(reply, msg.Ack)

        await until(played, 15, "the server to take the move once Redis was back", every=0.1)
        assert seq is not None
        while other.state.seq is None or other.state.seq <= seq:
            await other.receive()  # the move that landed once Redis was back
        await asyncio.gather(*(play_out(c, random.Random(i)) for i, c in enumerate([ann, bob])))
        record = await ann.request("record")
        assert isinstance(record, msg.RecordReply)
        check_final(record.record, ann.document)
        assert ann.room is not None
        await until_archived(ann)
        stored = await store.load_room(ann.room)
        assert stored is not None and stored.seq == ann.state.seq


class RefusingRecords(MemoryStore):
    """Memory whose first record saves fail, as a Redis that refuses writes for a while."""

    def __init__(self, refusals: int) -> None:
        super().__init__()
        self.refusals = refusals

    async def save_record(self, key: str, record: bytes) -> None:
        """Refuse the first `refusals` saves."""
        if self.refusals:
            self.refusals -= 1
            raise StoreUnavailable("refused for the test")
        await super().save_record(key, record)


async def test_a_record_the_store_refused_is_stored_once_it_accepts(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setattr(finish, "RECORD_RETRY_FIRST", 0.02)
    store = RefusingRecords(refusals=3)
    config = Config.of(port=0, bot_delay=0.0, bot_processes=False, rate=1000.0, burst=1000)
    config.store = store
    async with run_server(config) as server:
        (ann,) = await seat_players(server.url, 2, 1, "easy", target=50)
        assert isinstance(await ann.request("start"), msg.Ack)
        await play_out(ann, random.Random(3))
        key = f"{ann.room}/1"
        stored = await until(lambda: store.load_record(key), what="the record stored")
        assert msgspec.json.decode(stored)["format"] == "allfives-record/1"
        assert store.refusals == 0
