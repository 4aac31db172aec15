"""Several servers on one Redis: clients of one room on different processes play together.

Servers run in this process (`run_server`, each with its own `RedisStore` on the same real
redis-server) or as `allfives serve --redis` processes on loopback, the topology of
docker-compose.yml without Docker, one of which is killed with SIGKILL. Every client checks
what it holds: each patch follows the last `seq` (a gap fails the test), and each snapshot
answering a `resync` equals the document the client held at that `seq`.
"""

from __future__ import annotations

import asyncio
import contextlib
import os
import random
import signal
import sys
import time
from collections.abc import AsyncIterator, Callable
from pathlib import Path
from typing import Any

import asyncio_redis
import pytest
from client_helpers import wait_until
from redis_server import RedisServer
from server_helpers import Client, caught_up, read_until, until_holds, until_someone_to_play
from websockets.asyncio.client import connect
from websockets.exceptions import ConnectionClosed

from bridge.records import match_of
from protocol import messages as msg
from protocol.patch import ClientState, to_builtins
from protocol.records import Record, decode_record
from protocol.views import AnyEvent, ChatLine, Passed, Played
from server.app import Config, Server, run_server
from server.redis_store import RedisStore
from server.room import Room
from server.store import MemoryStore

ROOT = Path(__file__).resolve().parents[1]
LISTENING = "allfives server listening on "
LEASE = 1.5


class CheckedState(ClientState):
    """A client's document that checks every snapshot against what it held, and keeps events."""

    def __init__(self) -> None:
        super().__init__()
        self.events: list[AnyEvent] = []
        self.checked = 0

    def on_snapshot(self, message: msg.Snapshot) -> None:
        """Check a snapshot of the seq held against the document held, then take it."""
        if self.document is not None and self.seq is not None:
            assert message.seq >= self.seq, f"snapshot {message.seq} older than {self.seq}"
            if message.seq == self.seq:
                assert to_builtins(message.state) == self.document, f"seq {self.seq} differs"
                self.checked += 1
        super().on_snapshot(message)

    def on_patch(self, message: msg.Patch) -> list[AnyEvent]:
        """Apply a patch (GapDetected fails the test) and keep its events."""
        events = super().on_patch(message)
        self.events += events
        return events


def held(client: Client) -> CheckedState:
    """What a client holds, with its events."""
    assert isinstance(client.state, CheckedState)
    return client.state


async def open_client(url: str, name: str, **hello: Any) -> Client:
    """A connected client with a checked document."""
    client = Client(await connect(url, max_size=2**22), name)
    client.state = CheckedState()
    reply = await client.request("hello", version=msg.PROTOCOL_VERSION, name=name, **hello)
    assert isinstance(reply, msg.Welcome), reply
    return client


async def reconnect(old: Client, url: str) -> Client:
    """The same player on another server: its token, room and last seq, and what it held."""
    client = Client(await connect(url, max_size=2**22), old.name)
    client.state, client.token, client.room, client.seat = old.state, old.token, old.room, old.seat
    hello = {"token": old.token, "room": old.room, "last_seq": old.state.seq}
    await client.send("hello", version=msg.PROTOCOL_VERSION, name=old.name, **hello)
    joined = await client.until(lambda m: isinstance(m, msg.Joined | msg.Error))
    assert isinstance(joined, msg.Joined) and joined.seat == old.seat, joined
    return client


async def sit(url: str, name: str, room: str) -> Client:
    """A client that joined `room` and holds its snapshot."""
    client = await open_client(url, name)
    assert isinstance(await client.request("join", room=room), msg.Joined)
    await client.until(lambda m: isinstance(m, msg.Snapshot))
    return client


async def check_resync(client: Client) -> None:
    """A resync's snapshot is of the seq held, and equals the document held (CheckedState)."""
    before = held(client).checked
    reply = await client.request("resync")
    assert isinstance(reply, msg.Snapshot), reply
    assert held(client).checked == before + 1, f"snapshot {reply.seq}, document {client.state.seq}"


async def play(
    clients: list[Client], rng: random.Random, done: Callable[[], bool], timeout: float = 60
) -> None:
    """Each client plays a random legal move on its turn until `done()`; resyncs now and then."""
    deadline = time.monotonic() + timeout
    sent: dict[str, tuple[int, int]] = {}

    def turn(client: Client) -> tuple[int, int] | None:
        """The turn the client holds as its own (a chat line changes the seq, not this)."""
        if not client.my_turn():
            return None
        game = client.document["game"]
        return game["hand_number"], len(game["history"])

    def to_do() -> bool:
        return done() or any(turn(c) not in (None, sent.get(c.name)) for c in clients)

    rounds = 0
    while not done():
        for client in clients:
            held_turn = turn(client)
            if held_turn is not None and sent.get(client.name) != held_turn:
                sent[client.name] = held_turn
                choice = rng.choice(client.document["game"]["legal"])
                if choice.get("pass"):
                    await client.send("pass")
                else:
                    await client.send("play", tile=choice["tile"], end=choice.get("end"))
        try:  # until a client holds a turn of its own not played yet, or done
            await read_until(clients, to_do, max(0.01, deadline - time.monotonic()))
        except TimeoutError:
            raise AssertionError(f"stuck at {[c.state.seq for c in clients]}") from None
        rounds += 1
        if rounds % 7 == 0:
            checker = rng.choice(clients)
            await check_resync(checker)
    for client in clients:
        assert '"type":"error"' not in "".join(client.frames), f"{client.name} was refused"


def finished(clients: list[Client]) -> Callable[[], bool]:
    """Whether every client holds a finished match."""
    return lambda: all(c.document["phase"] == "finished" for c in clients)


def moves_in(events: list[AnyEvent]) -> list[tuple[int, str | None, str | None]]:
    """The plays and passes among events, in order."""
    return [
        (e.seat, e.tile, e.end) if isinstance(e, Played) else (e.seat, None, None)
        for e in events
        if isinstance(e, Played | Passed)
    ]


def check_record(
    record: Record, document: dict[str, Any], events: list[AnyEvent], every: bool = True
) -> None:
    """The record replays legally to the scores held, with exactly the moves a client saw.

    Not `every`: the client may have been sent a snapshot instead of some patches, so the moves
    it saw must only come in the record in the same order.
    """
    replayed = match_of(record)
    assert replayed.over and document["game"]["over"]
    assert list(replayed.scores) == record.scores == document["game"]["scores"]
    kept = [(m.seat, m.tile, m.end) for hand in record.hands for m in hand.moves]
    if every:
        assert moves_in(events) == kept
    else:
        moves = iter(kept)
        assert all(move in moves for move in moves_in(events)), "a move seen is not recorded"


def cluster_config(redis: RedisServer, **changes: Any) -> Config:
    """An in-process server on an ephemeral port sharing the test's Redis."""
    options: dict[str, Any] = {
        "port": 0,
        "bot_delay": 0.0,
        "bot_processes": False,
        "rate": 1000.0,
        "burst": 1000,
        "room_chat_rate": 1000.0,
        "room_chat_burst": 1000,
        "store": RedisStore(redis.url),
        "cluster_lease": LEASE,
    }
    options.update(changes)
    return Config(**options)


@contextlib.asynccontextmanager
async def two_servers(redis: RedisServer, **changes: Any) -> AsyncIterator[tuple[Server, Server]]:
    """Two in-process servers on one Redis."""
    async with (
        run_server(cluster_config(redis, **changes)) as first,
        run_server(cluster_config(redis, **changes)) as second,
    ):
        yield first, second


# -- two servers in this process ---------------------------------------------------------------


async def test_players_on_two_servers_play_a_match_with_bots(redis_server: RedisServer) -> None:
    async with two_servers(redis_server) as (a, b):
        ann = await open_client(a.url, "Ann")
        rules = {"players": 4, "target": 100, "spectator_chat": True}
        joined = await ann.request("create_room", rules=rules)
        assert isinstance(joined, msg.Joined) and joined.room is not None
        await ann.until(lambda m: isinstance(m, msg.Snapshot))
        bob = await sit(b.url, "Bob", joined.room)
        sue = await open_client(b.url, "Sue")
        assert isinstance(await sue.request("spectate", room=joined.room), msg.Joined)
        await sue.until(lambda m: isinstance(m, msg.Snapshot))
        for level in ("easy", "normal"):
            assert isinstance(await ann.request("add_bot", level=level), msg.Ack)
        assert isinstance(await ann.request("start"), msg.Ack)
        players = [ann, bob, sue]

        async def chatter(rng: random.Random) -> None:
            # Chat lines from both servers meet the moves: compare-and-set at work.
            for number in range(60):
                await rng.choice(players).send("chat", text=f"line {number}")
                await asyncio.sleep(rng.uniform(0.002, 0.01))

        chatting = asyncio.get_running_loop().create_task(chatter(random.Random(2)))
        await play(players, random.Random(1), finished(players))
        await chatting

        def said(client: Client) -> list[str]:
            return [e.text for e in held(client).events if isinstance(e, ChatLine)]

        await read_until(
            players, lambda: len({c.state.seq for c in players}) == 1 and len(said(sue)) >= 60
        )
        assert said(ann) == said(bob) == said(sue), "the servers applied the lines in other orders"
        assert sorted(said(sue)) == sorted(f"line {n}" for n in range(60)), "a line lost or doubled"
        assert ann.document["game"]["scores"] == sue.document["game"]["scores"]
        for client in players:
            await check_resync(client)
        record = await bob.request("record")
        assert isinstance(record, msg.RecordReply)
        check_record(record.record, sue.document, held(sue).events)
        assert a.rooms[joined.room].kept and not b.rooms[joined.room].kept


async def test_commands_sent_at_once_on_two_servers_are_applied_once_each_in_one_order(
    redis_server: RedisServer,
) -> None:
    async with two_servers(redis_server) as (a, b):
        ann = await open_client(a.url, "Ann")
        joined = await ann.request("create_room", rules={"players": 3})
        assert isinstance(joined, msg.Joined) and joined.room is not None
        await ann.until(lambda m: isinstance(m, msg.Snapshot))
        room = joined.room
        listed = await (await open_client(b.url, "Lee")).request("list_rooms")
        assert isinstance(listed, msg.Rooms) and [r.code for r in listed.rooms] == [room]
        bob = await sit(b.url, "Bob", room)
        while ann.state.seq != bob.state.seq:
            await ann.receive()  # Bob's seat, sent on from the other server
        start = ann.state.seq
        assert start is not None and bob.state.seq == start

        lines = 30
        sent: dict[str, list[int]] = {}
        for client in (ann, bob):
            sent[client.name] = [
                await client.send("chat", text=f"{client.name} {i}") for i in range(lines)
            ]

        async def replies(client: Client) -> list[msg.AnyServerMessage]:
            wanted = set(sent[client.name])
            got = []
            while wanted:
                message = await client.receive()
                if getattr(message, "id", None) in wanted:
                    wanted.discard(message.id)  # type: ignore[union-attr]
                    got.append(message)
            return got

        for reply in [r for c in (ann, bob) for r in await replies(c)]:
            assert isinstance(reply, msg.Ack), reply
        for client in (ann, bob):
            while client.state.seq != start + 2 * lines:
                await client.receive()  # the other server's lines
        said = {
            c.name: [(e.name, e.text) for e in held(c).events if isinstance(e, ChatLine)]
            for c in (ann, bob)
        }
        assert said["Ann"] == said["Bob"], "the two servers applied the lines in other orders"
        expected = {(name, f"{name} {i}") for name in ("Ann", "Bob") for i in range(lines)}
        assert sorted(said["Ann"]) == sorted(expected), "a line was lost or applied twice"
        assert ann.state.seq == bob.state.seq == start + 2 * lines
        assert a.conflicts + b.conflicts > 0, "the commands never met: nothing was tested"

        # The last seat, asked for from both servers at once: one gets it.
        cy, di = await open_client(a.url, "Cy"), await open_client(b.url, "Di")
        answers = await asyncio.gather(cy.request("join", room=room), di.request("join", room=room))
        assert sorted(type(r).__name__ for r in answers) == ["Error", "Joined"], answers
        refused = next(r for r in answers if isinstance(r, msg.Error))
        assert refused.code == "room_full"
        winner = "Cy" if isinstance(answers[0], msg.Joined) else "Di"
        for client in (ann, bob):
            await until_holds(client, lambda d: d["seats"][2] is not None)
        assert [s["name"] for s in ann.document["seats"]] == ["Ann", "Bob", winner]
        assert ann.state.seq == bob.state.seq
        assert ann.document == {**bob.document, "you": ann.document["you"]}


async def test_a_room_is_found_and_resumed_through_either_server(
    redis_server: RedisServer,
) -> None:
    async with two_servers(redis_server) as (a, b):
        ann = await open_client(a.url, "Ann")
        joined = await ann.request("create_room", rules={"players": 2})
        assert isinstance(joined, msg.Joined) and joined.room is not None
        await ann.until(lambda m: isinstance(m, msg.Snapshot))
        assert isinstance(await ann.request("add_bot", level="easy"), msg.Ack)
        assert isinstance(await ann.request("start"), msg.Ack)
        await until_someone_to_play([ann])  # the room waits for her
        await ann.close()
        # Back through the other server: the patches missed, then the seat connected again.
        back = await reconnect(ann, b.url)
        await caught_up(b, back)
        assert back.document["seats"][0]["connected"] is True
        await check_resync(back)
        # A second connection for the seat on the first server closes this one (4000).
        again = await reconnect(back, a.url)
        await caught_up(a, again)
        with pytest.raises(ConnectionClosed, match="4000"):
            await back.until(lambda m: False)
        await play([again], random.Random(2), finished([again]))
        missing = await open_client(b.url, "Max")
        assert (await missing.error_for("join", room="ZZZZ")).code == "no_such_room"


@pytest.mark.parametrize("redis_server", [{"appendonly": False}], indirect=True)
async def test_when_redis_comes_back_empty_the_servers_write_their_rooms_back(
    redis_server: RedisServer,
) -> None:
    async with two_servers(redis_server) as (a, b):
        ann = await open_client(a.url, "Ann")
        joined = await ann.request("create_room", rules={"players": 3, "target": 100})
        assert isinstance(joined, msg.Joined) and joined.room is not None
        await ann.until(lambda m: isinstance(m, msg.Snapshot))
        bob = await sit(b.url, "Bob", joined.room)
        assert isinstance(await ann.request("add_bot", level="easy"), msg.Ack)
        assert isinstance(await ann.request("start"), msg.Ack)
        rng = random.Random(7)
        await play([ann, bob], rng, lambda: len(moves_in(held(bob).events)) > 5)
        held_before = [links(s) for s in (a, b)]
        redis_server.stop()
        redis_server.start()  # without an append-only file: empty
        # Commands sent before a server reconnects are answered `unavailable` (tested with one
        # server in test_persistence_server.py); here the servers get back to Redis first: each
        # has seen its connections drop and opened new ones.
        await wait_until(
            lambda: all(
                back_on_redis(s, before) for s, before in zip((a, b), held_before, strict=True)
            )
        )
        await play([ann, bob], rng, finished([ann, bob]))
        for client in (ann, bob):
            await check_resync(client)
        record = await ann.request("record")
        assert isinstance(record, msg.RecordReply)
        for client in (ann, bob):
            check_record(record.record, client.document, held(client).events, every=False)
        store = RedisStore(redis_server.url)
        stored = await store.load_room(joined.room)
        await store.close()
        assert stored is not None and stored.seq == ann.state.seq


def links(server: Server) -> tuple[object, object]:
    """The connections to Redis a server holds now: its store's and its room notices'."""
    assert isinstance(server.store, RedisStore) and server.cluster is not None
    return server.store._connection, server.cluster.notices.connection


def back_on_redis(server: Server, before: tuple[object, object]) -> bool:
    """Whether a server is connected and subscribed again, through new connections."""
    assert isinstance(server.store, RedisStore) and server.cluster is not None
    new = all(now is not then for now, then in zip(links(server), before, strict=True))
    return new and server.store.connected and server.cluster.notices.subscribed


async def members(redis: RedisServer, key: str) -> set[str]:
    """The members of a set in the test's Redis."""
    connection = await asyncio_redis.Connection.create(
        host=redis.host, port=redis.port, auto_reconnect=False
    )
    try:
        return set(await (await connection.smembers(key)).asset())
    finally:
        connection.close()


async def add_member(redis: RedisServer, key: str, member: str) -> None:
    """Add a member to a set in the test's Redis."""
    connection = await asyncio_redis.Connection.create(
        host=redis.host, port=redis.port, auto_reconnect=False
    )
    try:
        await connection.sadd(key, [member])
    finally:
        connection.close()


async def eventually(check: Callable[[], Any], timeout: float = 10.0) -> None:
    """Wait until an async check returns true."""
    deadline = time.monotonic() + timeout
    while not await check():
        assert time.monotonic() < deadline, "never came true"
        await asyncio.sleep(0.05)


async def test_a_process_follows_only_the_rooms_it_keeps_or_serves(
    redis_server: RedisServer,
) -> None:
    async with run_server(cluster_config(redis_server)) as a:
        ann = await open_client(a.url, "Ann")
        joined = await ann.request("create_room", rules={"players": 3})
        assert isinstance(joined, msg.Joined) and joined.room is not None
        followers = f"allfives:followers:{joined.room}"
        async with run_server(cluster_config(redis_server)) as b:
            assert a.cluster is not None and b.cluster is not None
            # b read every stored room at start-up and tends its own each beat: it follows none.
            beats = b.cluster._beats

            async def two_beats() -> bool:
                return b.cluster is not None and b.cluster._beats >= beats + 2

            await eventually(two_beats)
            assert await members(redis_server, followers) == {a.cluster.name}
            bob = await sit(b.url, "Bob", joined.room)
            assert await members(redis_server, followers) == {a.cluster.name, b.cluster.name}
            # Once nobody is in it there, b lets the room go and stops following it.
            assert isinstance(await bob.request("leave"), msg.Ack)

            async def let_go() -> bool:
                assert a.cluster is not None
                return await members(redis_server, followers) == {a.cluster.name}

            await eventually(let_go)
            assert joined.room not in b.rooms


async def test_codes_of_expired_rooms_are_pruned_from_the_set_of_rooms(
    redis_server: RedisServer,
) -> None:
    await add_member(redis_server, "allfives:rooms", "GONE")
    async with run_server(cluster_config(redis_server)) as server:
        ann = await open_client(server.url, "Ann")
        joined = await ann.request("create_room", rules={"players": 2})
        assert isinstance(joined, msg.Joined)
        assert await members(redis_server, "allfives:rooms") == {joined.room}
        await add_member(redis_server, "allfives:rooms", "LOST")

        async def pruned() -> bool:
            return await members(redis_server, "allfives:rooms") == {joined.room}

        await eventually(pruned)


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
            stored = await store.load_room(joined.room)
            assert stored is not None
            seat = Room.from_bytes(stored.state).seats[bob.seat]  # type: ignore[index]
            return seat is not None and not seat.connected

        try:
            await eventually(away, timeout=LEASE + 5)
        finally:
            await store.close()
        await ann.until(lambda m: isinstance(m, msg.Patch) and not bob_connected(ann, bob.seat))


def bob_connected(client: Client, seat: int | None) -> bool:
    """Whether the client's document shows that seat connected."""
    held = client.document["seats"][seat]
    return bool(held and held["connected"])


class SlowStore(MemoryStore):
    """Memory that takes its time to save, so commands and resyncs meet mid-save."""

    holds_live_rooms = False  # saved as bytes through save_room, which takes its time

    async def save_room(self, code: str, seq: int, state: bytes) -> None:
        """Save after a pause."""
        await asyncio.sleep(0.05)
        await super().save_room(code, seq, state)


async def test_a_resync_during_a_save_answers_with_the_document_of_its_seq() -> None:
    config = Config(port=0, bot_delay=0.0, bot_processes=False, store=SlowStore())
    async with run_server(config) as server:
        ann = await open_client(server.url, "Ann")
        joined = await ann.request("create_room", rules={"players": 2})
        assert isinstance(joined, msg.Joined) and joined.room is not None
        await ann.until(lambda m: isinstance(m, msg.Snapshot))
        bob = await sit(server.url, "Bob", joined.room)
        for text in ("one", "two", "three"):
            await ann.send("chat", text=text)
            await check_resync(bob)
        await until_holds(bob, lambda d: len(d["chat"]) == 3)
        await check_resync(bob)
        assert [line["text"] for line in bob.document["chat"]] == ["one", "two", "three"]


# -- server processes on loopback, one killed ------------------------------------------------


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
        before = await store.load_room(alone.room)
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
        deadline = time.monotonic() + 30
        while (kept := await store.load_record(f"{alone.room}/1")) is None:
            assert time.monotonic() < deadline, "Cy's room did not finish"
            await asyncio.sleep(0.2)
        assert match_of(decode_record(kept)).over
        stored = await store.load_room(alone.room)
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
            ann = await open_client(a.url, "Ann")
            joined = await ann.request("create_room", rules={"players": 3, "target": 100})
            assert isinstance(joined, msg.Joined) and joined.room is not None
            await ann.until(lambda m: isinstance(m, msg.Snapshot))
            bob = await sit(b.url, "Bob", joined.room)
            assert isinstance(await ann.request("add_bot", level="easy"), msg.Ack)
            assert isinstance(await ann.request("start"), msg.Ack)
            await play([ann, bob], random.Random(4), lambda: len(moves_in(held(bob).events)) > 6)
            assert a.rooms[joined.room].kept and not b.rooms[joined.room].kept
        stopped = time.monotonic()
        while not b.rooms[joined.room].kept:
            assert time.monotonic() - stopped < LEASE, "the rooms waited for the lease to run out"
            await asyncio.sleep(0.02)
        ann = await reconnect(ann, b.url)
        await play([ann, bob], random.Random(6), finished([ann, bob]))
        record = await bob.request("record")
        assert isinstance(record, msg.RecordReply)
        check_record(record.record, bob.document, held(bob).events)


#: The lease of `allfives serve` (Config's default).
LEASE_OF_SERVE = Config().cluster_lease
