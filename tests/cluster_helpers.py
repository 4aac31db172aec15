"""Several servers on one Redis (the cluster tests): clients whose documents check every snapshot
against what they held, play that reads on all of them at once, and servers to run.
"""

from __future__ import annotations

import contextlib
import random
import time
from collections.abc import AsyncIterator, Callable
from typing import Any

from redis_server import RedisServer
from server_helpers import fast_config
from websockets.asyncio.client import connect
from ws_client_helpers import Client, read_until, turn_of

from bridge.records import match_of
from protocol import messages as msg
from protocol.patch import ClientState, to_builtins
from protocol.records import Record
from protocol.views import AnyEvent, Passed, Played
from server.app import Config, Server, run_server
from server.storage.redis_store import RedisStore

#: The lease of the test cluster's in-process servers (`cluster_config`).
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

    def on_patch(self, message: msg.Change) -> list[AnyEvent]:
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
    # What the server sends on a return (missed patches or a snapshot) comes before this answer.
    assert isinstance(await client.request("ping"), msg.Pong)
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
    """Each client plays a random legal move on its turn until `done()`; resyncs now and then.

    Returns once every move sent is answered, so a next `play` sees no turn already played.
    """
    deadline = time.monotonic() + timeout
    sent: dict[str, tuple[int, int]] = {}

    def to_do() -> bool:
        return done() or any(turn_of(c) not in (None, sent.get(c.name)) for c in clients)

    rounds = 0
    while not done():
        for client in clients:
            held_turn = turn_of(client)
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
    for client in clients:  # every move sent is answered (its patch came first): none in flight
        assert isinstance(await client.request("ping"), msg.Pong)
        refusals = [frame for frame in client.frames if '"type":"error"' in frame]
        assert not refusals, f"{client.name} was refused: {refusals}"


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
    return fast_config(**{"store": RedisStore(redis.url), "cluster_lease": LEASE, **changes})


@contextlib.asynccontextmanager
async def two_servers(redis: RedisServer, **changes: Any) -> AsyncIterator[tuple[Server, Server]]:
    """Two in-process servers on one Redis."""
    async with (
        run_server(cluster_config(redis, **changes)) as first,
        run_server(cluster_config(redis, **changes)) as second,
    ):
        yield first, second


async def started_across(
    a: Server, b: Server, bots: int = 0, **rules: Any
) -> tuple[Client, Client, str]:
    """Ann creates a room on `a`, Bob sits in it through `b`, easy bots fill `bots` seats, and
    the match starts: the two players and the room's code."""
    ann = await open_client(a.url, "Ann")
    joined = await ann.request("create_room", rules=rules)
    assert isinstance(joined, msg.Joined) and joined.room is not None
    await ann.until(lambda m: isinstance(m, msg.Snapshot))
    bob = await sit(b.url, "Bob", joined.room)
    for _ in range(bots):
        assert isinstance(await ann.request("add_bot", level="easy"), msg.Ack)
    assert isinstance(await ann.request("start"), msg.Ack)
    return ann, bob, joined.room
