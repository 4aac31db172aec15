"""An `allfives serve` process that tests kill with SIGKILL, and players that outlive it.

The server keeps its rooms where a `Keeping` says: in Redis (`--redis URL`) or in SQLite under
a directory (`--data DIR`); `Keeping.store` reads what it stored, from outside the process. The
server process is started again on the same port after each kill. Scripted players keep what
they saw: every move event of every patch, at its place in its hand, and every move of theirs that
was acknowledged; `check_match` holds a finished match's record (the `record` command) to all of
it. Used by tests/server/storage/test_persistence_restarts.py.
"""

from __future__ import annotations

import asyncio
import contextlib
import functools
import itertools
import json
import random
import signal
import sys
import time
from collections.abc import AsyncIterator, Awaitable, Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import msgspec
import pytest
from redis_server import RedisServer
from waiting import until
from websockets.asyncio.client import ClientConnection, connect
from websockets.exceptions import ConnectionClosed, InvalidHandshake

from bridge.records import match_of
from protocol import messages as msg
from protocol.patch import ClientState
from protocol.records import Record
from protocol.views import HandEnded, HandStarted, Passed, Played
from server.storage.redis_store import RedisStore
from server.storage.sqlite_store import SqliteStore
from server.storage.store import Store

ROOT = Path(__file__).resolve().parents[1]
LISTENING = "allfives server listening on "
DROPPED = (ConnectionClosed, InvalidHandshake, OSError, TimeoutError)
POLL = 0.1


@dataclass(frozen=True)
class Keeping:
    """Where a server process keeps its rooms: its options, and a store reading them."""

    name: str
    options: tuple[str, ...]
    store: Store


def redis_keeping(redis_server: RedisServer) -> Keeping:
    """Rooms in the test's redis-server (`--redis URL`)."""
    return Keeping("redis", ("--redis", redis_server.url), RedisStore(redis_server.url))


def data_keeping(directory: Path) -> Keeping:
    """Rooms in SQLite under `directory` (`--data DIR`), read without taking its lock."""
    directory.mkdir(parents=True, exist_ok=True)
    return Keeping("data", ("--data", str(directory)), SqliteStore(directory, exclusive=False))


def keeping_of(kind: str, request: pytest.FixtureRequest, directory: Path) -> Keeping:
    """`redis_keeping` on the test's redis-server (its `redis_server` fixture) for "redis",
    else `data_keeping` in `directory`: what a fixture parametrized by store gives."""
    if kind == "redis":
        return redis_keeping(request.getfixturevalue("redis_server"))
    return data_keeping(directory)


class ServerProcess:
    """`allfives serve` as a child process, restarted on the same port and store."""

    def __init__(self, keeping: Keeping, log: Path, *options: str) -> None:
        self.keeping = keeping
        self.log = log
        self.options = options
        self.port = 0
        self.url = ""
        self.process: asyncio.subprocess.Process | None = None
        self.starts = 0

    @staticmethod
    def command(store: tuple[str, ...], port: int, *options: str) -> list[str]:
        """The command line of `allfives serve` keeping rooms as `store` says, on `port`."""
        return [
            sys.executable, "-m", "allfives.cli", "serve", *store, "--port", str(port),
            "--rate", "1000", "--burst", "1000", *options,
        ]  # fmt: skip

    async def start(self) -> None:
        """Start the server and wait for its "listening" line."""
        command = self.command(self.keeping.options, self.port, *self.options)
        with self.log.open("ab") as log:
            self.process = await asyncio.create_subprocess_exec(
                *command, cwd=ROOT, stdout=asyncio.subprocess.PIPE, stderr=log
            )
        assert self.process.stdout is not None
        try:
            line = (await asyncio.wait_for(self.process.stdout.readline(), 30)).decode()
        except TimeoutError:
            line = ""
        if not line.startswith(LISTENING):
            await self.kill()
            raise AssertionError(f"the server did not start:\n{self.log.read_text()[-3000:]}")
        self.url = line.removeprefix(LISTENING).strip()
        self.port = int(self.url.rstrip("/").rsplit(":", 1)[1])
        self.starts += 1

    async def kill(self) -> None:
        """SIGKILL the server, as a crash would."""
        if self.process is not None and self.process.returncode is None:
            self.process.send_signal(signal.SIGKILL)
            await self.process.wait()
        self.process = None


@contextlib.asynccontextmanager
async def server_process(
    keeping: Keeping, tmp_path: Path, *options: str
) -> AsyncIterator[ServerProcess]:
    """A started server process, killed at the end."""
    process = ServerProcess(keeping, tmp_path / "server.log", *options)
    await process.start()
    try:
        yield process
    finally:
        await process.kill()


@dataclass
class Seen:
    """What one player saw of one match."""

    moves: list[tuple[int, int, tuple[Any, ...]]] = field(default_factory=list)
    hand_ends: dict[int, tuple[Any, ...]] = field(default_factory=dict)
    acknowledged: list[tuple[int, int, str | None]] = field(default_factory=list)
    final: dict[str, Any] | None = None


class Player:
    """A scripted human that outlives server restarts: it reconnects with its token and last seq.

    It plays a random legal move on its turn and keeps, per match, each move event at its
    (hand, index) place, each hand's end, and its plays that the server acknowledged.
    """

    def __init__(self, server: ServerProcess, name: str, seed: int) -> None:
        self.server = server
        self.name = name
        self.rng = random.Random(seed)
        self.socket: ClientConnection | None = None
        self.state = ClientState()
        self.room: str | None = None
        self.token: str | None = None
        self.seat: int | None = None
        self.ids = itertools.count(1)
        self.matches: list[Seen] = []
        self.pending: dict[int, tuple[int, int, str | None]] = {}
        self.replies: dict[int, msg.AnyServerMessage] = {}
        self.errors: list[msg.Error] = []
        self.documents: dict[int, str] = {}
        self.rewritten: list[int] = []
        self.joined: list[msg.Joined] = []
        self.sent_at: int | None = -1

    @property
    def document(self) -> dict[str, Any]:
        """The room document held."""
        assert self.state.document is not None
        return self.state.document

    @property
    def phase(self) -> str | None:
        """The room's phase as last seen."""
        return None if self.state.document is None else str(self.document["phase"])

    def my_turn(self) -> bool:
        """Whether the held document says this player is to move."""
        if self.phase != "playing":
            return False
        game = self.document["game"]
        return bool(game["turn"] == self.document["you"] and game["legal"])

    def moves_in_hand(self) -> int:
        """How many moves the current hand has seen."""
        if self.phase != "playing":
            return 0
        return sum(1 for e in self.document["game"]["history"] if e["type"] in _MOVES)

    # -- the connection --------------------------------------------------------------------

    async def connect(self) -> None:
        """(Re)connect until the server answers; resume the seat when there is one."""

        async def connected() -> bool:
            try:
                await self._connect_once()
            except DROPPED:
                await self.close()
                return False  # not yet (past the timeout an AssertionError, never DROPPED)
            return True

        # A look is a connection attempt to a server that may be starting: one each 50 ms.
        await until(connected, 60, f"{self.name} to reconnect", every=0.05)

    async def _connect_once(self) -> None:
        self.socket = await connect(self.server.url, open_timeout=5)
        self.pending.clear()
        hello: dict[str, Any] = {"version": msg.PROTOCOL_VERSION, "name": self.name}
        if self.token is not None:
            hello |= {"token": self.token, "room": self.room, "last_seq": self.state.seq}
        id = await self.send("hello", **hello)
        if self.token is None:
            await self.until(lambda: id in self.replies, play=False)
            return
        await self.until(lambda: isinstance(self.replies.get(id), msg.Joined | msg.Error), False)
        reply = self.replies[id]
        assert isinstance(reply, msg.Joined), f"{self.name} could not resume: {reply}"
        # Look at what was missed before doing anything, as a person would: the server sends
        # it right after `joined`.
        await self.synced()

    async def close(self) -> None:
        """Drop the connection."""
        if self.socket is not None:
            with contextlib.suppress(*DROPPED):
                await self.socket.close()
            self.socket = None

    async def send(self, kind: str, **fields: Any) -> int:
        """Send a command with a fresh id."""
        assert self.socket is not None
        id = next(self.ids)
        await self.socket.send(msgspec.json.encode({"type": kind, "id": id, **fields}).decode())
        return id

    async def until(self, done: Callable[[], bool], play: bool = True, timeout: float = 30) -> None:
        """Read messages (playing on this player's turn) until `done()`."""
        deadline = time.monotonic() + timeout
        while not done():
            if play:
                await self.play_if_my_turn()
            assert self.socket is not None
            assert time.monotonic() < deadline, f"{self.name}: stuck at seq {self.state.seq}"
            try:
                frame = await asyncio.wait_for(self.socket.recv(), POLL)
            except TimeoutError:
                continue
            self.receive(msg.decode_server(frame))

    async def synced(self) -> None:
        """Read without playing until a ping sent now is answered: by then everything the
        server sent this player before has come."""
        ping = await self.send("ping")
        await self.until(lambda: ping in self.replies, play=False)

    async def resilient(self, step: Callable[[], Awaitable[None]]) -> None:
        """Run a step, reconnecting and running it again whenever the server goes away."""
        while True:
            try:
                if self.socket is None:
                    await self.connect()
                await step()
                return
            except DROPPED:
                await self.close()

    # -- what arrives ----------------------------------------------------------------------

    def receive(self, message: msg.AnyServerMessage) -> None:
        """Apply a message to the document and note what it shows."""
        if isinstance(message, msg.Snapshot):
            self.state.on_snapshot(message)
            if self.phase == "playing" and (not self.matches or self.matches[-1].final):
                self.matches.append(Seen())
        elif isinstance(message, msg.Change):
            place = self._place()
            self._note(self.state.on_patch(message), *place)
        if isinstance(message, msg.Snapshot | msg.Change):
            self._check_seq_unchanged()
        elif isinstance(message, msg.Joined):
            self.room, self.seat = message.room, message.seat
            self.token = message.seat_token or self.token
            self.joined.append(message)
        elif isinstance(message, msg.Ack) and message.id in self.pending:
            self.matches[-1].acknowledged.append(self.pending.pop(message.id))
        elif isinstance(message, msg.Error):
            self.errors.append(message)
            self.pending.pop(message.id or 0, None)
        id = getattr(message, "id", None)
        if id is not None:
            self.replies[id] = message
        if self.phase == "finished" and self.matches and self.matches[-1].final is None:
            self.matches[-1].final = self.document

    def _check_seq_unchanged(self) -> None:
        """Note when a seq seen before now comes with another document (a change was lost)."""
        assert self.state.seq is not None
        document = json.dumps(self.document, sort_keys=True)
        if self.documents.setdefault(self.state.seq, document) != document:
            self.rewritten.append(self.state.seq)

    def _place(self) -> tuple[int, int]:
        """The hand and move index the next move event takes, from the held document."""
        if self.phase != "playing":
            return 0, 0
        return self.document["game"]["hand_number"], self.moves_in_hand()

    def _note(self, events: list[Any], hand: int, index: int) -> None:
        """Keep each move event of a patch at its place, and each hand's end."""
        if any(isinstance(event, HandStarted) and event.number == 1 for event in events):
            self.matches.append(Seen())
        if not self.matches:
            return
        seen = self.matches[-1]
        for event in events:
            if isinstance(event, HandStarted):
                hand, index = event.number, 0
            elif isinstance(event, Played | Passed):
                if isinstance(event, Played):
                    seen.moves.append(
                        (hand, index, (event.seat, event.tile, event.end, event.total))
                    )
                else:
                    seen.moves.append((hand, index, (event.seat, None, None, None)))
                index += 1
            elif isinstance(event, HandEnded):
                seen.hand_ends[hand] = (event.kind, event.by, event.points)

    async def play_if_my_turn(self) -> None:
        """Play a random legal move on this player's turn, unless one is on its way."""
        if not self.my_turn() or self.pending or self.state.seq == self.sent_at:
            return
        game = self.document["game"]
        choice = self.rng.choice(game["legal"])
        self.sent_at = self.state.seq
        if choice.get("pass"):
            self.pending[await self.send("pass")] = (
                game["hand_number"],
                self.document["you"],
                None,
            )
            return
        fields = {"tile": choice["tile"]}
        if choice.get("end") is not None:
            fields["end"] = choice["end"]
        id = await self.send("play", **fields)
        self.pending[id] = (game["hand_number"], self.document["you"], choice["tile"])

    # -- steps that survive restarts -------------------------------------------------------

    async def request(self, kind: str, **fields: Any) -> msg.AnyServerMessage:
        """Send a command and read until its reply (while the server stays up)."""
        id = await self.send(kind, **fields)
        await self.until(lambda: id in self.replies, play=False)
        return self.replies[id]

    async def command(self, kind: str, done: Callable[[], bool], **fields: Any) -> None:
        """Send a command until `done()` holds: again after a reconnect, as a person would."""

        async def step() -> None:
            while not done():
                id = await self.send(kind, **fields)

                def answered(id: int = id) -> bool:
                    return id in self.replies or done()

                await self.until(answered, play=False)

        await self.resilient(step)

    async def play_match(self, number: int) -> Seen:
        """Play until this player has seen match `number` (from 1) finish; what it saw."""

        def finished() -> bool:
            return len(self.matches) >= number and self.matches[number - 1].final is not None

        await self.resilient(lambda: self.until(finished, timeout=60))
        return self.matches[number - 1]

    async def fetch_record(self) -> Record:
        """The room's last finished match, asked for until an answer arrives."""
        box: list[Record] = []

        async def step() -> None:
            id = await self.send("record")
            await self.until(lambda: id in self.replies, play=False)
            reply = self.replies[id]
            assert isinstance(reply, msg.RecordReply), reply
            box.append(reply.record)

        await self.resilient(step)
        return box[0]


_MOVES = ("played", "passed")


async def open_room(
    server: ServerProcess, humans: int, bots: list[str], seed: int, **rules: Any
) -> list[Player]:
    """A room with scripted humans (the first hosts) and bots, before any server is killed."""
    players = [Player(server, f"P{seed}-{index}", seed * 10 + index) for index in range(humans)]
    host = players[0]
    await host.connect()
    full = {"players": humans + len(bots), **rules}
    assert isinstance(await host.request("create_room", rules=full), msg.Joined)
    for other in players[1:]:
        await other.connect()
        assert isinstance(await other.request("join", room=host.room), msg.Joined)
    for level in bots:
        assert isinstance(await host.request("add_bot", level=level), msg.Ack)
    for player in players:
        await player.until(functools.partial(_seated, player, full["players"]), play=False)
    return players


def _seated(player: Player, seats: int) -> bool:
    return player.state.document is not None and all(player.document["seats"][:seats])


def _started(host: Player, matches: int) -> bool:
    return len(host.matches) >= matches


async def play_matches(players: list[Player], matches: int) -> list[tuple[Record, list[Seen]]]:
    """Play `matches` matches in a room (rematch between them); each record and what was seen."""
    host = players[0]
    results = []
    for number in range(1, matches + 1):
        if number > 1:
            await host.command("rematch", lambda: host.phase == "waiting")
        await host.command("start", functools.partial(_started, host, number))
        seen = await asyncio.gather(*(player.play_match(number) for player in players))
        results.append((await host.fetch_record(), list(seen)))
    return results


def check_match(record: Record, seen: list[Seen]) -> None:
    """The record replays legally and agrees with every move, hand end and score players saw."""
    replayed = match_of(record)
    assert replayed.over
    assert list(replayed.scores) == record.scores
    for view in seen:
        assert view.final is not None
        assert view.final["game"]["scores"] == record.scores
        assert view.moves, "a player saw no move events"
        for hand, index, move in view.moves:
            kept = record.hands[hand - 1].moves[index]
            assert move == (kept.seat, kept.tile, kept.end, kept.total), (hand, index)
        for hand, end in view.hand_ends.items():
            result = record.hands[hand - 1].result
            assert result is not None and end == (result.kind, result.by, result.points)
        for hand, seat, tile in view.acknowledged:
            moves = record.hands[hand - 1].moves
            assert any(m.seat == seat and m.tile == tile for m in moves), (
                "an acknowledged move was lost"
            )
