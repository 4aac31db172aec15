"""Scripted WebSocket clients for the server tests: a `Client` speaks the protocol and keeps every
frame and the document it holds. Helpers seat clients in a room (`seat_players`, `to_play`), play
their turns (`play_out`, `next_mover`, `finish_match`), read until something holds (`read_until`,
`until_holds`, `caught_up`) and check what a client holds or is told (`check_against`,
`assert_error`). Used by the server's tests (tests/server/), the page's tests, a few of the
terminal client's and the deployment's, the helpers built on these clients (cluster, hidden,
storage, tournament) and bench/faults.py.
"""

from __future__ import annotations

import asyncio
import itertools
import json
import random
from collections.abc import Callable
from typing import Any

import msgspec
from server_helpers import TIMEOUT
from websockets.asyncio.client import ClientConnection, connect

from protocol import errors
from protocol import messages as msg
from protocol.patch import ClientState
from server.app import Server
from server.play.live import LiveRoom


class Client:
    """One connection: sends commands, reads frames into a ClientState, keeps every raw frame."""

    def __init__(self, socket: ClientConnection, name: str) -> None:
        self.socket = socket
        self.name = name
        self.state = ClientState()
        self.frames: list[str] = []
        self.inbox: list[msg.AnyServerMessage] = []
        self.seat: int | None = None
        self.token: str | None = None
        self.room: str | None = None
        self.ids = itertools.count(1)
        self.on_patch: Callable[[Client, msg.Patch | msg.Moved], None] | None = None
        self.patches = 0

    @classmethod
    async def open(
        cls, url: str, name: str = "Ann", hello: bool = True, **hello_fields: Any
    ) -> Client:
        """Connect (and say hello unless told not to). Every frame that comes is taken in,
        read or not (`max_queue=None`, as a browser does): a client a test stopped reading
        (a watcher it is done with) closes at once, where a full queue paused reading and
        its close waited the 10 s of `close_timeout` for the server's answer."""
        client = cls(await connect(url, max_size=2**22, max_queue=None), name)
        if hello:
            reply = await client.request(
                "hello", version=msg.PROTOCOL_VERSION, name=name, **hello_fields
            )
            assert isinstance(reply, msg.Welcome), reply
        return client

    async def close(self) -> None:
        """Close the connection."""
        await self.socket.close()

    async def send(self, kind: str, **fields: Any) -> int:
        """Send a command with a fresh id; returns the id."""
        id = next(self.ids)
        await self.socket.send(msgspec.json.encode({"type": kind, "id": id, **fields}).decode())
        return id

    async def send_raw(self, frame: str | bytes) -> None:
        """Send a frame as it is."""
        await self.socket.send(frame)

    async def receive(self, timeout: float = TIMEOUT) -> msg.AnyServerMessage:
        """The next message, applied to the client's state."""
        frame = await asyncio.wait_for(self.socket.recv(), timeout)
        text = frame if isinstance(frame, str) else frame.decode()
        self.frames.append(text)
        message = msg.decode_server(text)
        if isinstance(message, msg.Snapshot):
            self.state.on_snapshot(message)
        elif isinstance(message, msg.Patch | msg.Moved):
            self.state.on_patch(message)
            self.patches += 1
            if self.on_patch is not None:
                self.on_patch(self, message)
        elif isinstance(message, msg.Joined):
            self.room, self.seat = message.room, message.seat
            self.token = message.seat_token or self.token
        return message

    async def until(
        self, test: Callable[[msg.AnyServerMessage], bool], timeout: float = TIMEOUT
    ) -> msg.AnyServerMessage:
        """Read until a message passes `test`; returns it."""
        loop = asyncio.get_running_loop()
        deadline = loop.time() + timeout
        while True:
            message = await self.receive(max(0.01, deadline - loop.time()))
            if test(message):
                return message

    async def request(self, kind: str, **fields: Any) -> msg.AnyServerMessage:
        """Send a command and read until the reply that carries its id (an error included)."""
        id = await self.send(kind, **fields)
        return await self.until(lambda m: getattr(m, "id", None) == id)

    async def error_for(self, kind: str, **fields: Any) -> msg.Error:
        """Send a command that must be refused; returns the error."""
        reply = await self.request(kind, **fields)
        assert isinstance(reply, msg.Error), reply
        return reply

    @property
    def document(self) -> dict[str, Any]:
        """The room document the client holds."""
        assert self.state.document is not None
        return self.state.document

    def my_turn(self) -> bool:
        """Whether the held document says it is this client's turn to play."""
        if self.state.document is None:
            return False
        game = self.document.get("game")
        return bool(
            self.document["phase"] == "playing"
            and game
            and game["turn"] == self.document["you"]
            and game["legal"]
        )


async def play_out(
    client: Client,
    rng: random.Random,
    timeout: float = 30.0,
    between: Callable[[], object] | None = None,
) -> None:
    """Play moves chosen at random from the `legal` list until the match is over (calling
    `between()` after each move sent). A move is sent once per turn: a change that is not a
    move (a chat line, the archive's) does not make it send again."""
    loop = asyncio.get_running_loop()
    deadline = loop.time() + timeout
    sent_for: tuple[int, int] | None = None
    while True:
        document = client.state.document
        if document is not None and document["phase"] == "finished":
            return
        turn = turn_of(client)
        if turn is not None and turn != sent_for:
            choice = rng.choice(client.document["game"]["legal"])
            sent_for = turn
            if choice.get("pass"):
                await client.send("pass")
            else:
                fields = {"tile": choice["tile"]}
                if choice.get("end") is not None:
                    fields["end"] = choice["end"]
                elif not client.document["game"]["layout"]["line"] and rng.random() < 0.5:
                    fields["tile"] = choice["tile"][::-1]  # a lead written the other way round
                await client.send("play", **fields)
            if between is not None:
                between()
        message = await client.receive(max(0.01, deadline - loop.time()))
        if isinstance(message, msg.Error):
            raise AssertionError(f"{client.name}: {message}")


async def play_together(clients: list[Client], seed: int = 1) -> None:
    """Every client plays its seat at random at once until the match is over."""
    await asyncio.gather(
        *(play_out(client, random.Random(seed + index)) for index, client in enumerate(clients))
    )


async def seat_players(
    url: str, players: int, humans: int, bots: str = "easy", **rules: Any
) -> list[Client]:
    """A room with `humans` scripted clients (the first is host) and bots in the other seats."""
    host = await Client.open(url, "P0")
    joined = await host.request("create_room", rules={"players": players, **rules})
    assert isinstance(joined, msg.Joined), joined
    await host.until(lambda m: isinstance(m, msg.Snapshot))
    clients = [host]
    for index in range(1, humans):
        other = await Client.open(url, f"P{index}")
        reply = await other.request("join", room=host.room)
        assert isinstance(reply, msg.Joined), reply
        await other.until(lambda m: isinstance(m, msg.Snapshot))
        clients.append(other)
    for _ in range(players - humans):
        reply = await host.request("add_bot", level=bots)
        assert isinstance(reply, msg.Ack), reply
    return clients


async def until_someone_to_play(clients: list[Client], timeout: float = TIMEOUT) -> Client:
    """Read on every client until one of them has the turn; returns that client."""
    try:
        await read_until(clients, lambda: any(client.my_turn() for client in clients), timeout)
    except TimeoutError:
        raise TimeoutError("nobody got the turn") from None
    return next(client for client in clients if client.my_turn())


async def to_play(url: str, name: str, bot: str = "easy", **rules: Any) -> Client:
    """A client alone with a bot in a started two-player room, once it is the client's turn."""
    (client,) = await seat_players(url, 2, 1, bot, **rules)
    client.name = name
    await client.request("start")
    await until_someone_to_play([client])
    return client


References = dict[tuple[str, Any, int], str]


def check_against(references: References, client: Client) -> None:
    """After each patch, the client's document must be the server's fresh view for it."""

    def check(client: Client, patch: msg.Patch | msg.Moved) -> None:
        assert client.room is not None
        key = (client.room, client.document["you"], patch.seq)
        assert json.dumps(client.document, sort_keys=True) == references[key]

    client.on_patch = check


async def play_out_one(client: Client) -> None:
    """Play the first legal move; the server must accept it."""
    choice = client.document["game"]["legal"][0]
    if choice.get("pass"):
        reply = await client.request("pass")
    else:
        reply = await client.request("play", tile=choice["tile"], end=choice.get("end"))
    assert isinstance(reply, msg.Ack), reply


def assert_error(
    message: msg.AnyServerMessage, code: str, command: str | None, id: int | None
) -> msg.Error:
    """The message is an error with this code, answering this command and id."""
    assert isinstance(message, msg.Error), message
    assert (message.code, message.command, message.id) == (code, command, id), message
    assert message.code in errors.ERROR_CODES
    assert message.message
    return message


def live_of(server: Server, client: Client) -> LiveRoom:
    """The room the client is in, as `server` (in this process) holds it."""
    assert client.room is not None
    return server.rooms[client.room.split("-")[0].upper()]


async def caught_up(server: Server, *clients: Client, timeout: float = TIMEOUT) -> None:
    """Read on each client until it holds its room's latest `seq` on `server` (in this process)."""
    loop = asyncio.get_running_loop()
    deadline = loop.time() + timeout
    for client in clients:
        live = live_of(server, client)
        while client.state.seq != live.room.seq:
            await client.receive(max(0.01, deadline - loop.time()))


async def until_holds(
    client: Client, test: Callable[[dict[str, Any]], bool], timeout: float = TIMEOUT
) -> None:
    """Read on the client until its document passes `test` (at once if it already does)."""
    loop = asyncio.get_running_loop()
    deadline = loop.time() + timeout
    while client.state.document is None or not test(client.document):
        await client.receive(max(0.01, deadline - loop.time()))


async def until_archived(client: Client) -> None:
    """Read on the client until its finished match is archived: the room change that names
    the game (`game_id`) comes after the one that ends the match."""
    await until_holds(client, lambda document: document.get("game_id") is not None)


async def read_until(
    clients: list[Client], test: Callable[[], bool], timeout: float = TIMEOUT
) -> None:
    """Read on every client at once until `test()` holds (at once if it already does).

    A frame a client is waiting for when `test()` comes true stays unread for its next
    `receive` (a cancelled `recv` loses nothing). A client's failure (a gap, a closed
    connection, nothing within `timeout`) is raised here.
    """
    loop = asyncio.get_running_loop()
    deadline = loop.time() + timeout
    stopped = False

    async def read(client: Client) -> None:
        while not stopped and not test():
            await client.receive(max(0.01, deadline - loop.time()))

    readers = [asyncio.ensure_future(read(client)) for client in clients]
    try:
        finished, _ = await asyncio.wait(readers, return_when=asyncio.FIRST_COMPLETED)
        for reader in finished:
            reader.result()
    finally:
        stopped = True
        for reader in readers:
            reader.cancel()
        await asyncio.gather(*readers, return_exceptions=True)


def turn_of(client: Client) -> tuple[int, int] | None:
    """The turn the client holds as its own, as (hand number, moves in the hand); else None.

    A chat line changes the `seq` but not this: a client plays once for each value.
    """
    if not client.my_turn():
        return None
    game = client.document["game"]
    return game["hand_number"], len(game["history"])


async def next_mover(
    clients: list[Client],
    taken: dict[str, tuple[int, int]],
    done: Callable[[], bool] = lambda: False,
    timeout: float = TIMEOUT,
) -> Client | None:
    """Read on every client until `done()` (None), or until one holds a turn not in `taken`
    (by name): that client, its turn now marked taken."""

    def fresh(client: Client) -> bool:
        turn = turn_of(client)
        return turn is not None and taken.get(client.name) != turn

    await read_until(clients, lambda: done() or any(fresh(c) for c in clients), timeout)
    if done():
        return None
    mover = next(c for c in clients if fresh(c))
    turn = turn_of(mover)
    assert turn is not None
    taken[mover.name] = turn
    return mover


async def finish_match(
    url: str, name: str, key: str | None, bot: str = "easy", seed: int = 1, **rules: Any
) -> Client:
    """`name` (with `key`) plays a quick match alone against bots to its end (target 5 by
    default); returns the client, its document holding the finished match's ratings (if any)."""
    fields: dict[str, Any] = {"key": key} if key is not None else {}
    client = await Client.open(url, name, **fields)
    rules.setdefault("target", 5)
    rules.setdefault("players", 2)
    players = rules.pop("players")
    joined = await client.request("create_room", rules={"players": players, **rules})
    assert isinstance(joined, msg.Joined), joined
    for _ in range(players - 1):
        reply = await client.request("add_bot", level=bot)
        assert isinstance(reply, msg.Ack), reply
    await client.request("start")
    await play_out(client, random.Random(seed))
    return client
