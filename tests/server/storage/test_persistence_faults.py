"""`unavailable` means unchanged: Redis stalled or cut off at every point of a save, then a retry.

A server with `--redis` reaches Redis through a proxy (tests/redis_server.py) that can hold the
requests (a save on its way) or the answers (a save applied, its answer lost), or Redis itself is
stopped with SIGSTOP. Under each fault a chat line, a bot and a move are answered `unavailable`;
once the fault is gone the player retries, as the error says, and each lands exactly once: in
every client's document, in Redis, and in no `seq` shown with two different documents.
"""

from __future__ import annotations

import asyncio
import contextlib
import os
import signal
from collections.abc import AsyncIterator
from typing import Any

import msgspec
import pytest
from redis_server import FaultProxy, RedisServer
from storage_helpers import load_stored
from waiting import until
from ws_client_helpers import Client, until_someone_to_play

from protocol import messages as msg
from protocol.patch import ClientState, to_builtins
from server.app import Config, Server, run_server
from server.rooms.room import Room
from server.storage.redis_store import RedisStore

pytestmark = pytest.mark.redis

TIMEOUT = 0.4

#: fault -> what it does to a save.
FAULTS = {
    "stopped before the save": "Redis is SIGSTOPped with the save in its socket",
    "save held on the way": "the save is held on the network and reaches Redis late",
    "save lost on the way": "the connection drops with the save unsent",
    "answer lost": "Redis applies the save, its answer is lost",
    "answer lost, redis restarted": "Redis applies the save, its answer is lost, Redis restarts",
    "answer lost, redis stopped": "Redis applies the save, then stalls before it answers",
}


class SeqLog(ClientState):
    """A client's document that fails the test if one `seq` ever comes with two documents."""

    def __init__(self) -> None:
        super().__init__()
        self.seen: dict[int, Any] = {}

    def _note(self) -> None:
        assert self.seq is not None
        known = self.seen.setdefault(self.seq, self.document)
        assert known == self.document, f"seq {self.seq} came with two documents"

    def on_snapshot(self, message: msg.Snapshot) -> None:
        super().on_snapshot(message)
        self._note()

    def on_patch(self, message: msg.Change) -> list[Any]:
        events = super().on_patch(message)
        self._note()
        return events


async def open_client(url: str, name: str) -> Client:
    client = await Client.open(url, name, hello=False)
    client.state = SeqLog()

    async def hello() -> msg.AnyServerMessage | None:
        # Before any fault: a store call slower than the 0.4 s timeout on a busy machine is
        # `unavailable`, which says to try again; the client does.
        reply = await client.request("hello", version=msg.PROTOCOL_VERSION, name=name)
        unavailable = isinstance(reply, msg.Error) and reply.code == "unavailable"
        return None if unavailable else reply

    reply = await until(hello, what="the hello answered")
    assert isinstance(reply, msg.Welcome), reply
    return client


@contextlib.asynccontextmanager
async def faulty_server(redis: RedisServer) -> AsyncIterator[tuple[Server, FaultProxy]]:
    proxy = FaultProxy(redis)
    await proxy.start()
    config = Config.of(
        port=0,
        bot_delay=0.0,
        bot_processes=False,
        rate=1000.0,
        burst=1000,
        store=RedisStore(proxy.url, timeout=TIMEOUT),
    )
    try:
        async with run_server(config) as server:
            yield server, proxy
    finally:
        proxy.release()
        await proxy.close()


async def inject(fault: str, redis: RedisServer, proxy: FaultProxy) -> None:
    if fault == "stopped before the save":
        os.kill(redis_pid(redis), signal.SIGSTOP)
    elif fault.startswith("save"):
        proxy.hold_requests = True
    else:
        proxy.hold_replies = True


async def clear(fault: str, redis: RedisServer, proxy: FaultProxy) -> None:
    if fault == "stopped before the save":
        os.kill(redis_pid(redis), signal.SIGCONT)
    elif fault == "save lost on the way":
        proxy.cut()
    elif fault == "answer lost, redis restarted":
        redis.stop()
        redis.start()
    elif fault == "answer lost, redis stopped":
        os.kill(redis_pid(redis), signal.SIGSTOP)
        proxy.cut()
        # The fault itself, not a wait for a result: Redis stays stopped for as long as the
        # store's timeout, so what the server sends meanwhile times out, then Redis goes on.
        await asyncio.sleep(TIMEOUT)
        os.kill(redis_pid(redis), signal.SIGCONT)
    proxy.release()


def redis_pid(redis: RedisServer) -> int:
    assert redis._process is not None
    return redis._process.pid


async def refused_then_retried(
    client: Client, fault: str, redis: RedisServer, proxy: FaultProxy, kind: str, **fields: Any
) -> None:
    """Send a command under the fault (`unavailable`), clear it, retry until it is acknowledged."""
    await inject(fault, redis, proxy)
    try:
        reply = await client.request(kind, **fields)
        assert isinstance(reply, msg.Error) and reply.code == "unavailable", reply
    finally:
        await clear(fault, redis, proxy)

    async def acknowledged() -> bool:
        reply = await client.request(kind, **fields)
        assert isinstance(reply, msg.Ack | msg.Error), reply
        assert isinstance(reply, msg.Ack) or reply.code == "unavailable", reply
        return isinstance(reply, msg.Ack)

    await until(acknowledged, 20, f"the server to take {kind!r} again", every=0.05)


async def stored_room(redis: RedisServer, code: str) -> Room:
    store = RedisStore(redis.url)
    try:
        stored = await load_stored(store, code)
    finally:
        await store.close()
    assert stored is not None
    return Room.from_bytes(stored.state)


async def caught_up(clients: list[Client], seq: int) -> None:
    for client in clients:
        if (client.state.seq or 0) < seq:
            await client.until(lambda m, c=client: (c.state.seq or 0) >= seq)  # type: ignore[misc]


async def check_resync(client: Client) -> None:
    """A fresh snapshot equals the document the client holds."""
    held = client.document
    reply = await client.request("resync")
    assert isinstance(reply, msg.Snapshot), reply
    assert to_builtins(reply.state) == held


@pytest.mark.parametrize("fault", list(FAULTS))
async def test_a_command_answered_unavailable_lands_once_when_retried(
    redis_server: RedisServer, fault: str
) -> None:
    async with faulty_server(redis_server) as (server, proxy):
        ann = await open_client(server.url, "Ann")
        joined = await ann.request("create_room", rules={"players": 3, "target": 50})
        assert isinstance(joined, msg.Joined) and joined.room is not None
        code = joined.room
        await ann.until(lambda m: isinstance(m, msg.Snapshot))
        bob = await open_client(server.url, "Bob")
        assert isinstance(await bob.request("join", room=code), msg.Joined)
        await bob.until(lambda m: isinstance(m, msg.Snapshot))
        clients = [ann, bob]

        await refused_then_retried(ann, fault, redis_server, proxy, "chat", text="gg")
        await caught_up(clients, ann.state.seq or 0)
        for client in clients:
            assert [line["text"] for line in client.document["chat"]] == ["gg"]
        assert [line.text for line in (await stored_room(redis_server, code)).state.chat] == ["gg"]

        await refused_then_retried(ann, fault, redis_server, proxy, "add_bot", level="easy")
        await caught_up(clients, ann.state.seq or 0)
        for client in clients:
            bots = [seat for seat in client.document["seats"] if seat and seat["kind"] == "bot"]
            assert len(bots) == 1, client.document["seats"]
        stored = await stored_room(redis_server, code)
        assert sum(1 for seat in stored.seats if seat and seat.kind == "bot") == 1

        assert isinstance(await ann.request("start"), msg.Ack)
        mover = await until_someone_to_play(clients)
        moves = (await stored_room(redis_server, code)).state.moves
        choice = mover.document["game"]["legal"][0]
        play = {key: choice[key] for key in ("tile", "end") if choice.get(key) is not None}
        kind = "pass" if choice.get("pass") else "play"
        hand = list(mover.document["game"]["hand"])
        await refused_then_retried(mover, fault, redis_server, proxy, kind, **play)
        if kind == "play":
            assert mover.document["game"]["hand"] == [t for t in hand if t != choice["tile"]]
        stored = await stored_room(redis_server, code)
        assert stored.state.moves >= moves + 1
        assert stored.match is not None
        mine = [e for e in stored.match.events if getattr(e, "seat", None) == mover.seat]
        assert len([e for e in mine if type(e).__name__ in ("Played", "Passed")]) == 1

        await caught_up(clients, stored.seq)
        for client in clients:
            await check_resync(client)
        assert msgspec.json.decode(msgspec.json.encode(ann.document["chat"]))[0]["text"] == "gg"


async def test_a_change_stored_unanswered_is_undone_for_the_other_processes_clients_too(
    redis_server: RedisServer, caplog: pytest.LogCaptureFixture
) -> None:
    # Ann's server reaches Redis through the proxy; Bob's server directly. Redis applies Ann's
    # line and tells Bob's server (Bob sees it), but Ann's answer is lost: she gets `unavailable`.
    async with faulty_server(redis_server) as (a, proxy):
        b_config = Config.of(port=0, bot_delay=0.0, bot_processes=False, rate=1000.0, burst=1000)
        b_config.store = RedisStore(redis_server.url, timeout=TIMEOUT)
        async with run_server(b_config) as b:
            ann = await open_client(a.url, "Ann")
            joined = await ann.request("create_room", rules={"players": 2})
            assert isinstance(joined, msg.Joined) and joined.room is not None
            await ann.until(lambda m: isinstance(m, msg.Snapshot))
            bob = await open_client(b.url, "Bob")
            assert isinstance(await bob.request("join", room=joined.room), msg.Joined)
            await bob.until(lambda m: isinstance(m, msg.Snapshot))
            await caught_up([ann], bob.state.seq or 0)

            def lines(client: Client) -> list[str]:
                return [line["text"] for line in client.document["chat"]]

            proxy.hold_replies = True
            reply = await ann.request("chat", text="gg")
            assert isinstance(reply, msg.Error) and reply.code == "unavailable", reply
            await bob.until(lambda m: lines(bob) == ["gg"])  # stored, and sent on by b
            proxy.release()
            while not isinstance(reply := await ann.request("chat", text="gg"), msg.Ack):
                assert isinstance(reply, msg.Error) and reply.code == "unavailable", reply
            assert "was stored: undone" in caplog.text
            await caught_up([bob], ann.state.seq or 0)
            assert lines(ann) == lines(bob) == ["gg"]
            stored = await stored_room(redis_server, joined.room)
            assert [line.text for line in stored.state.chat] == ["gg"]
            for client in (ann, bob):
                await check_resync(client)
