"""bench/load.py's scripted players: four WebSocket clients per room that play from their patches
(and `moved` frames: their turn and legal moves).

A `Table` is a room with its players (and any spectators); a move's delay runs from sending the
play to the last of them receiving its patch. A player reads of each patch only the operations
it plays from (the phase, the turn, its legal moves), so that the clients' own CPU, on the same
machine, disturbs the server's figures as little as possible.
"""

from __future__ import annotations

import asyncio
import json
import random
import time
from typing import Any

import msgspec
from websockets.asyncio.client import ClientConnection, connect
from websockets.exceptions import ConnectionClosed

from server.collector import Collector

decode = msgspec.json.decode


# -- what a player reads of a frame -----------------------------------------------------------


class Operation(msgspec.Struct):
    """A patch operation as a player reads it: its path, its value left undecoded."""

    path: str
    value: msgspec.Raw = msgspec.Raw(b"null")


class Patch(msgspec.Struct):
    """A frame as a player first reads it (a patch's operations, a `moved` frame's turn and
    legal moves; other messages are read again)."""

    type: str
    seq: int = -1
    ops: list[Operation] = []
    turn: int | msgspec.UnsetType | None = msgspec.UNSET
    legal: list[dict[str, Any]] | msgspec.UnsetType = msgspec.UNSET


read_patch = msgspec.json.Decoder(Patch).decode

#: How the players connect. No keepalive pings of their own, as a browser's page cannot send
#: any: the server's keepalive is part of what is measured, a client's is not.
CONNECT: dict[str, Any] = {
    "compression": None,
    "open_timeout": 60,
    "max_size": 2**20,
    "ping_interval": None,
}

#: The document paths a player plays from, and the part of it each sets.
WATCHED = {
    "/game/turn": "turn",
    "/game/legal": "legal",
    "/phase": "phase",
    "/game": "game",
    "": "all",
}


# -- scripted players ----------------------------------------------------------------------------


class Player:
    """One connection that plays from its document and reports patch arrivals to its table.

    It keeps of its document only what it plays from (the phase, whose turn, its legal moves):
    a patch's other operations are skipped undecoded, as the bare ceiling's clients skip theirs.
    That the whole document follows from the patches is what tests/server/rooms/test_server_feed.py checks.
    """

    def __init__(self, socket: ClientConnection, table: Table) -> None:
        self.socket = socket
        self.table = table
        self.seq = -1
        self.you: int | None = None
        self.phase = ""
        self.turn: int | None = None
        self.legal: list[dict[str, Any]] = []
        self.replies: asyncio.Queue[dict[str, Any]] = asyncio.Queue()

    async def read(self) -> None:
        """Take every frame (`take`); hand replies to whoever waits for one."""
        receive = self.socket.recv
        while True:
            try:
                frame = await receive(decode=False)
            except ConnectionClosed:
                return
            reply = self.take(frame)
            if reply is not None:
                await self.replies.put(reply)

    def take(self, frame: bytes) -> dict[str, Any] | None:
        """Follow a patch or snapshot; any other message is a reply, returned."""
        patch = read_patch(frame)
        if patch.type == "patch":
            for operation in patch.ops:
                part = WATCHED.get(operation.path)
                if part is not None:
                    self.follow(part, decode(operation.value))
            self.arrived(patch.seq, frame)
            return None
        if patch.type == "moved":
            if patch.turn is not msgspec.UNSET:
                self.turn = patch.turn
            if patch.legal is not msgspec.UNSET:
                self.legal = patch.legal
            self.arrived(patch.seq, frame)
            return None
        message: dict[str, Any] = decode(frame)
        if patch.type == "snapshot":
            self.follow("all", message["state"])
            self.arrived(patch.seq)
            return None
        return message

    def follow(self, part: str, value: Any) -> None:
        """Note a new value of a part the player plays from."""
        if part == "turn":
            self.turn = value
        elif part == "legal":
            self.legal = value
        elif part == "phase":
            self.phase = value
        else:
            if part == "all":
                self.you, self.phase, value = value["you"], value["phase"], value["game"]
            self.turn = value["turn"] if value else None
            self.legal = value["legal"] if value else []

    def arrived(self, seq: int, patch: bytes = b"") -> None:
        """The player holds `seq` now (by a patch, counted, or a snapshot)."""
        self.seq = seq
        if patch:
            self.table.stats.patch_bytes += len(patch)
            self.table.stats.patches += 1
        self.table.arrived(seq)

    async def request(self, message: dict[str, Any]) -> dict[str, Any]:
        """Send a command and wait for its reply."""
        await self.socket.send(json.dumps(message))
        reply = await self.replies.get()
        if reply["type"] == "error":
            raise RuntimeError(f"{message['type']}: {reply['message']}")
        return reply

    def my_turn(self) -> bool:
        """Whether this player is to move."""
        return self.turn is not None and self.turn == self.you and bool(self.legal)


class Envelope(msgspec.Struct):
    """What a watcher reads of a frame: its type and seq (the operations are skipped)."""

    type: str
    seq: int = -1


read_envelope = msgspec.json.Decoder(Envelope).decode


class Watcher(Player):
    """A spectator: it only notes which seq reached it (it needs no document to play from)."""

    def take(self, frame: bytes) -> dict[str, Any] | None:
        """Note the seq of a snapshot or patch; any other message is a reply, returned."""
        envelope = read_envelope(frame)
        if envelope.type in ("patch", "moved"):
            self.arrived(envelope.seq, frame)
        elif envelope.type == "snapshot":
            self.arrived(envelope.seq)
        else:
            reply: dict[str, Any] = decode(frame)
            return reply
        return None


class Stats:
    """What the run measured."""

    def __init__(self) -> None:
        self.delays: list[float] = []
        self.moves = 0
        self.patches = 0
        self.patch_bytes = 0
        self.elapsed = 0.0


class Table:
    """A room with four players and the moves waiting for all four to see them."""

    def __init__(self, stats: Stats, rng: random.Random) -> None:
        self.stats = stats
        self.rng = rng
        self.players: list[Player] = []
        self.waiting_seq = -1
        self.done = asyncio.Event()

    def arrived(self, seq: int) -> None:
        """A player reached `seq`: when all four hold the seq waited for, the move is complete.
        (Each player counts once: one that gets two changes first is not two players.)"""
        wanted = self.waiting_seq
        if seq >= wanted >= 0 and all(p.seq >= wanted for p in self.players):
            self.done.set()

    async def until_all_reach(self, seq: int) -> None:
        """Wait until every player holds `seq` or later."""
        self.waiting_seq = seq
        self.done.clear()
        if not all(p.seq >= seq for p in self.players):
            await self.done.wait()
        self.waiting_seq = -1

    async def move(self) -> None:
        """One move by whoever is to play; records its delay."""
        host = self.players[0]
        if host.phase != "playing":
            await host.request({"type": "rematch", "id": 1})
            await host.request({"type": "start", "id": 2})
            await self.until_all_reach(max(p.seq for p in self.players))
        mover = next(p for p in self.players if p.my_turn())
        choice = self.rng.choice(mover.legal)
        play = {"type": "pass"} if choice.get("pass") else {"type": "play", **choice}
        before = mover.legal
        started = time.perf_counter()
        await mover.socket.send(json.dumps(play))
        # A change may come first that is not the move (a finished match's archive noted in the
        # room, an empty patch): the move has come once the mover's legal moves are new, and
        # it is complete once every player holds the mover's seq.
        while mover.legal is before:
            await self.until_all_reach(mover.seq + 1)
        await self.until_all_reach(mover.seq)
        self.stats.delays.append(time.perf_counter() - started)
        self.stats.moves += 1


async def open_table(
    url: str | list[str], stats: Stats, rng: random.Random, spectators: int = 0
) -> Table:
    """Create a room, seat four players (and `spectators` watchers), and start.

    Given several server URLs, player i connects to the i-th (round the list): bench/cluster.py.
    """
    urls = [url] if isinstance(url, str) else url
    table = Table(stats, rng)
    for index in range(4):
        socket = await connect(urls[index % len(urls)], **CONNECT)
        player = Player(socket, table)
        table.players.append(player)
        asyncio.get_running_loop().create_task(player.read())
        await player.request({"type": "hello", "version": 3, "name": f"P{index}"})
        if index == 0:
            rules = {"players": 4, "teams": True, "public": False}
            joined = await player.request({"type": "create_room", "rules": rules})
        else:
            joined = await player.request({"type": "join", "room": joined["room"]})
    for index in range(spectators):
        socket = await connect(urls[0], **CONNECT)
        watcher = Watcher(socket, table)
        table.players.append(watcher)
        asyncio.get_running_loop().create_task(watcher.read())
        await watcher.request({"type": "hello", "version": 3, "name": f"W{index}"})
        await watcher.request({"type": "spectate", "room": joined["room"]})
    await table.players[0].request({"type": "start", "id": 1})
    await table.until_all_reach(max(p.seq for p in table.players))
    return table


async def open_tables(
    url: str, count: int, stats: Stats, seed: int = 0, spectators: int = 0
) -> list[Table]:
    """Open `count` tables, a few at a time."""
    tables: list[Table] = []
    batch = 50
    for first in range(0, count, batch):
        size = min(batch, count - first)
        tables += await asyncio.gather(
            *(
                open_table(url, stats, random.Random(seed + first + i), spectators)
                for i in range(size)
            )
        )
    return tables


async def play(tables: list[Table], seconds: float, interval: float) -> None:
    """Every table moves every `interval` seconds (0: as fast as it can) for `seconds`."""
    stop = time.perf_counter() + seconds

    async def run(table: Table, offset: float) -> None:
        await asyncio.sleep(offset)
        while time.perf_counter() < stop:
            started = time.perf_counter()
            await table.move()
            if interval:
                await asyncio.sleep(max(0.0, interval - (time.perf_counter() - started)))

    await asyncio.gather(*(run(t, interval * i / len(tables)) for i, t in enumerate(tables)))


async def close_tables(tables: list[Table]) -> None:
    """Close every connection."""
    await asyncio.gather(*(p.socket.close() for t in tables for p in t.players))


def quiet_collector() -> None:
    """Keep this (client) process's garbage collector from pausing the measured moves: the same
    schedule as the server's (`server.collector`), set-up frozen out of the collector's way and
    then each tick's objects collected and frozen, since thousands of client connections would
    otherwise make Python's own passes as long as the server's were (150 ms and more)."""
    Collector().start()
