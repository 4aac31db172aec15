"""Several servers on one Redis, one of them going: its rooms and players carry on.

A server stopped while Redis stalls, one stopping cleanly (in this process, `run_server`), and
`allfives serve --redis` processes on loopback, the topology of docker-compose.yml without
Docker, one of which is killed with SIGKILL. Clients check what they hold as in
tests/server/cluster/test_cluster.py.
"""

from __future__ import annotations

import asyncio
import os
import random
import signal
import sys
import time
from pathlib import Path

import pytest
from cluster_helpers import (
    LEASE,
    check_record,
    check_resync,
    cluster_config,
    finished,
    held,
    moves_in,
    open_client,
    play,
    reconnect,
    sit,
    started_across,
)
from redis_server import RedisServer
from storage_helpers import load_stored
from waiting import until
from ws_client_helpers import Client

from bridge.records import match_of
from protocol import messages as msg
from protocol.records import decode_record
from server.app import Config, Server, run_server
from server.rooms.room import Room
from server.storage.redis_store import RedisStore

pytestmark = pytest.mark.redis

ROOT = Path(__file__).resolve().parents[3]
LISTENING = "allfives server listening on "
#: The lease of `allfives serve` (Config's default).
LEASE_OF_SERVE = Config().storage.cluster_lease


async def test_a_server_stopped_while_redis_stalls_leaves_its_players_away(
    redis_server: RedisServer,
) -> None:
    config = cluster_config(redis_server, store=RedisStore(redis_server.url, timeout=0.5))
    async with run_server(config) as keeper:
        a = Server(cluster_config(redis_server, store=RedisStore(redis_server.url, timeout=0.5)))
        await a.start()
        ann = await open_client(keeper.url, "Ann")
        joined = await ann.request("create_room", rules={"players": 3})
        assert isinstance(joined, msg.Joined) and joined.room is not None
        bob = await sit(a.url, "Bob", joined.room)
        assert bob.seat is not None
        assert redis_server._process is not None
        os.kill(redis_server._process.pid, signal.SIGSTOP)
        try:
            stopping = asyncio.get_running_loop().create_task(a.stop())
            await asyncio.wait_for(asyncio.shield(stopping), 10)
        finally:
            os.kill(redis_server._process.pid, signal.SIGCONT)
        store = RedisStore(redis_server.url)

        async def away() -> bool:
            stored = await load_stored(store, joined.room)
            assert stored is not None
            seat = Room.from_bytes(stored.state).seats[bob.seat]  # type: ignore[index]
            return seat is not None and not seat.connected

        try:
            await until(away, timeout=LEASE + 5)
        finally:
            await store.close()
        await ann.until(lambda m: isinstance(m, msg.Patch) and not bob_connected(ann, bob.seat))


def bob_connected(client: Client, seat: int | None) -> bool:
    """Whether the client's document shows that seat connected."""
    held = client.document["seats"][seat]
    return bool(held and held["connected"])


class ServeProcess:
    """`allfives serve --redis URL --port 0` as a child process."""

    def __init__(self, redis_url: str, log: Path) -> None:
        self.redis_url = redis_url
        self.log = log
        self.url = ""
        self.process: asyncio.subprocess.Process | None = None

    async def start(self) -> None:
        """Start it and wait for its "listening" line."""
        command = [
            sys.executable, "-m", "allfives.cli", "serve", "--redis", self.redis_url,
            "--port", "0", "--rate", "1000", "--burst", "1000", "--bot-delay", "0.02",
            "--away-seconds", "1",
        ]  # fmt: skip
        with self.log.open("ab") as log:
            self.process = await asyncio.create_subprocess_exec(
                *command, cwd=ROOT, stdout=asyncio.subprocess.PIPE, stderr=log
            )
        assert self.process.stdout is not None
        line = (await asyncio.wait_for(self.process.stdout.readline(), 30)).decode()
        assert line.startswith(LISTENING), self.log.read_text()[-3000:]
        self.url = line.removeprefix(LISTENING).strip()

    async def kill(self) -> None:
        """SIGKILL it."""
        if self.process is not None and self.process.returncode is None:
            self.process.send_signal(signal.SIGKILL)
            await self.process.wait()


async def test_a_server_killed_mid_hand_its_players_and_bots_carry_on_through_the_other(
    redis_server: RedisServer, tmp_path: Path
) -> None:
    first = ServeProcess(redis_server.url, tmp_path / "first.log")
    second = ServeProcess(redis_server.url, tmp_path / "second.log")
    await asyncio.gather(first.start(), second.start())
    try:
        # Ann hosts on the first server, which keeps the room (runs its bots); Bob plays and
        # Sue watches through the second.
        ann = await open_client(first.url, "Ann")
        joined = await ann.request("create_room", rules={"players": 4, "target": 100})
        assert isinstance(joined, msg.Joined) and joined.room is not None
        await ann.until(lambda m: isinstance(m, msg.Snapshot))
        bob = await sit(second.url, "Bob", joined.room)
        sue = await open_client(second.url, "Sue")
        assert isinstance(await sue.request("spectate", room=joined.room), msg.Joined)
        await sue.until(lambda m: isinstance(m, msg.Snapshot))
        for level in ("easy", "normal"):
            assert isinstance(await ann.request("add_bot", level=level), msg.Ack)
        assert isinstance(await ann.request("start"), msg.Ack)
        rng = random.Random(3)

        def mid_hand() -> bool:
            game = sue.document["game"]
            return game is not None and sum(e["type"] == "played" for e in game["history"]) >= 5

        # Cy, alone with a bot in a room of the first server, will not come back.
        cy = await open_client(first.url, "Cy")
        alone = await cy.request("create_room", rules={"players": 2, "target": 50})
        assert isinstance(alone, msg.Joined) and alone.room is not None
        assert isinstance(await cy.request("add_bot", level="easy"), msg.Ack)
        assert isinstance(await cy.request("start"), msg.Ack)

        await play([ann, bob, sue], rng, mid_hand)
        store = RedisStore(redis_server.url)
        before = await load_stored(store, alone.room)
        assert before is not None
        await first.kill()
        killed = time.monotonic()

        # Ann comes back through the second server with her token and last seq.
        ann = await reconnect(ann, second.url)
        players = [ann, bob, sue]
        bots = {2, 3}
        seen = len(moves_in(held(sue).events))

        def a_bot_moved() -> bool:
            later = moves_in(held(sue).events)[seen:]
            return any(seat in bots for seat, _, _ in later) or finished(players)()

        await play(players, rng, a_bot_moved, timeout=20)
        taken_over = time.monotonic() - killed
        assert taken_over < LEASE_OF_SERVE + 5, f"bots waited {taken_over:.1f}s"
        await play(players, rng, finished(players))
        for client in players:
            await check_resync(client)
        record = await bob.request("record")
        assert isinstance(record, msg.RecordReply)
        check_record(record.record, sue.document, held(sue).events)
        assert ann.document["seats"][0]["connected"] is True

        # Cy's room was held by no one left: the second server took it, marked Cy away and
        # let a stand-in play for him; its match went on to the end without a client.
        kept = await until(
            lambda: store.load_record(f"{alone.room}/1"), 60, "Cy's room to finish", every=0.05
        )
        assert match_of(decode_record(kept)).over
        stored = await load_stored(store, alone.room)
        assert stored is not None
        room = Room.from_bytes(stored.state)
        seat = room.seats[0]
        assert (
            room.phase == "finished"
            and room.state.moves > Room.from_bytes(before.state).state.moves
        )
        assert seat is not None and not seat.connected, "Cy is still shown connected"
        await store.close()
    finally:
        await asyncio.gather(first.kill(), second.kill())


async def test_a_server_stopping_hands_its_rooms_over_at_once(redis_server: RedisServer) -> None:
    async with run_server(cluster_config(redis_server)) as b:
        async with run_server(cluster_config(redis_server)) as a:
            ann, bob, room = await started_across(a, b, bots=1, players=3, target=100)
            await play([ann, bob], random.Random(4), lambda: len(moves_in(held(bob).events)) > 6)
            assert a.rooms[room].kept and not b.rooms[room].kept
        # Within the lease: a server that waited for it to run out would fail here.
        await until(lambda: b.rooms[room].kept, LEASE, "the other server to take the rooms")
        ann = await reconnect(ann, b.url)
        await play([ann, bob], random.Random(6), finished([ann, bob]))
        record = await bob.request("record")
        assert isinstance(record, msg.RecordReply)
        check_record(record.record, bob.document, held(bob).events)
