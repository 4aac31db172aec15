"""bench/archive_faults.py's players: keyed humans who play, rematch and come back after faults.

Each `Human` has its own key and its own loopback address (so the per-address limits on new
players hold for each), plays a random legal move on its turn after a short pause, and, when its
connection drops or a server refuses it, connects again with its seat token to whichever server
answers. The room's host asks for the record of each match that finishes (its game id worked
out from it as the server does), waits for the room to name its `game_id` (or `id_wait`
seconds), then sends `rematch` and `start`. What they saw is kept in one `Seen`.
"""

from __future__ import annotations

import asyncio
import contextlib
import itertools
import json
import random
import secrets
import time
from dataclasses import dataclass, field
from typing import Any

from load_clients import CONNECT
from scripted import Player
from websockets.asyncio.client import connect
from websockets.exceptions import ConnectionClosed, InvalidHandshake

from protocol import messages as msg
from protocol.patch import GapDetected
from protocol.records import encode_record
from server.play.finish import game_id

DROPPED = (ConnectionClosed, InvalidHandshake, OSError, TimeoutError)
#: Bots per room, by room number (round the list): 2, 3 and 4 players in turn.
BOTS = (1, 0, 2, 0, 1, 1)
LEVELS = ("easy", "normal")
#: A reply not come by then is given up (the connection is then dropped and made again).
ANSWER_SECONDS = 8.0


@dataclass
class Finished:
    """A finished match as the clients saw it."""

    room: str
    id: str  # from the room's record, as the server works it out
    names: list[str]  # its keyed players
    seen_at: float
    scores: list[int] | None  # the final scores the client's document showed
    named: str | None = None  # the room's game_id, once it named one
    named_after: float | None = None


@dataclass
class Seen:
    """What the players saw, and what they share: the servers' URLs, the wait for game_id."""

    urls: list[str]
    id_wait: float
    finished: dict[str, Finished] = field(default_factory=dict)
    stopping: bool = False
    moves: int = 0
    reconnects: int = 0
    refused: dict[str, int] = field(default_factory=dict)


class Refused(Exception):
    """The server refused a hello (unavailable while Redis is away): try again."""


class Human:
    """A keyed player who plays random legal moves and comes back after every fault."""

    def __init__(self, seen: Seen, name: str, number: int, rng: random.Random) -> None:
        self.seen = seen
        self.name = name
        self.key = secrets.token_urlsafe(32)
        self.address = f"127.0.{1 + number // 250}.{number % 250 + 1}"
        self.preferred = number % 2
        self.rng = rng
        self.player: Player | None = None
        self.room: str | None = None
        self.token: str | None = None
        self.names: list[str] = []  # the room's keyed players (set by open_room)
        self.waiting: dict[int, tuple[str, float]] = {}
        self.ids = itertools.count(1)
        self.think_until: float | None = None
        self.next_try = 0.0
        self.current: Finished | None = None  # the finished match on the table, once recorded
        self.finished_since: float | None = None  # when this client saw it finish

    # -- the connection ------------------------------------------------------------------

    async def connect(self, deadline: float = 60.0) -> Player:
        """(Re)connect to whichever server answers; resume the seat once there is one."""
        ends = time.monotonic() + deadline
        for attempt in itertools.count():
            index = (self.preferred + attempt) % 2
            try:
                return await self._connect_once(self.seen.urls[index])
            except (*DROPPED, Refused):
                await self.drop()
                if time.monotonic() > ends:
                    raise
                await asyncio.sleep(min(1.0, 0.1 * (attempt + 1)))
        raise AssertionError("unreachable")

    async def _connect_once(self, url: str) -> Player:
        socket = await connect(url, local_addr=(self.address, 0), **(CONNECT | {"open_timeout": 5}))
        held = self.player.state if self.player is not None else None
        player = self.player = Player(socket)
        if held is not None:
            player.state = held
        hello: dict[str, Any] = {
            "version": msg.PROTOCOL_VERSION,
            "name": self.name,
            "key": self.key,
        }
        if self.token is not None:
            hello |= {"token": self.token, "room": self.room, "last_seq": player.state.seq}
        id = await self.send("hello", **hello)
        kinds = (msg.Joined,) if self.token is not None else (msg.Welcome,)
        reply = await self.answer(id, kinds)
        if isinstance(reply, msg.Error):
            raise Refused(reply.code)
        return player

    async def drop(self) -> None:
        """Close the connection (keeping the document) and forget the replies waited for."""
        if self.player is not None:
            with contextlib.suppress(*DROPPED):
                await self.player.socket.close()
        self.waiting.clear()
        self.think_until = None

    async def send(self, kind: str, **fields: Any) -> int:
        assert self.player is not None
        id = next(self.ids)
        self.waiting[id] = (kind, time.monotonic())
        await self.player.socket.send(json.dumps({"type": kind, "id": id, **fields}))
        return id

    async def answer(
        self, id: int, kinds: tuple[type[msg.AnyServerMessage], ...]
    ) -> msg.AnyServerMessage:
        """Read until the reply to `id` of one of `kinds` (or its error) comes."""
        ends = time.monotonic() + ANSWER_SECONDS
        while True:
            message = await self.receive(max(0.01, ends - time.monotonic()))
            if message is None:
                if time.monotonic() > ends:
                    raise TimeoutError(f"{self.name}: no answer to {id}")
                continue
            if getattr(message, "id", None) == id and isinstance(message, (*kinds, msg.Error)):
                self.waiting.pop(id, None)
                return message

    async def receive(self, timeout: float) -> msg.AnyServerMessage | None:
        """One message (None after `timeout`), the document kept; a gap asks for a snapshot."""
        assert self.player is not None
        try:
            message = await asyncio.wait_for(self.player.receive(), timeout)
        except TimeoutError:
            return None
        except GapDetected:
            await self.send("resync")
            return None
        self.note(message)
        return message

    async def request(self, kind: str, **fields: Any) -> msg.AnyServerMessage:
        """Send a command and wait for its answer (setting up, no faults yet)."""
        id = await self.send(kind, **fields)
        reply = await self.answer(id, (msg.Ack, msg.Joined, msg.Welcome))
        if isinstance(reply, msg.Error):
            raise RuntimeError(f"{self.name}: {kind} refused: {reply.code} {reply.message}")
        return reply

    # -- playing -------------------------------------------------------------------------

    def note(self, message: msg.AnyServerMessage) -> None:
        """What a reply says: a move acknowledged, a refusal, a finished match's record."""
        id = getattr(message, "id", None)
        kind = self.waiting.pop(id, ("", 0.0))[0] if isinstance(id, int) else ""
        if isinstance(message, msg.Ack) and kind == "play":
            self.seen.moves += 1
        elif isinstance(message, msg.Error) and kind:
            self.seen.refused[message.code] = self.seen.refused.get(message.code, 0) + 1
            self.next_try = time.monotonic() + 0.3
        elif isinstance(message, msg.RecordReply) and self.room is not None:
            match = game_id(encode_record(message.record))
            since = self.finished_since or time.monotonic()
            document = self.player.state.document if self.player is not None else None
            finish = document is not None and document["phase"] == "finished"
            scores = list(document["game"]["scores"]) if document is not None and finish else None
            self.current = self.seen.finished.setdefault(
                match, Finished(self.room, match, self.names, since, scores)
            )
        if isinstance(message, msg.Joined) and message.seat_token is not None:
            self.room, self.token = message.room, message.seat_token

    async def live(self) -> None:
        """Play until the run stops, reconnecting after every fault."""
        while not self.seen.stopping:
            try:
                if self.player is None or self.player.socket.close_code is not None:
                    await self.connect()
                await self.receive(0.05)
                await self.act()
            except (*DROPPED, Refused):
                self.seen.reconnects += 1
                await self.drop()

    async def act(self) -> None:
        """Move on this player's turn; as host, record each finished match, then rematch."""
        assert self.player is not None
        document = self.player.state.document
        now = time.monotonic()
        self.waiting = {i: w for i, w in self.waiting.items() if now - w[1] < ANSWER_SECONDS}
        if document is not None and document["phase"] != "finished":
            self.finished_since = None
        elif document is not None and self.finished_since is None:
            self.finished_since = now
        if document is None or self.waiting or now < self.next_try or self.seen.stopping:
            return
        if self.player.my_turn():
            if self.think_until is None:
                self.think_until = now + self.rng.uniform(0.05, 0.25)
            elif now >= self.think_until:
                self.think_until = None
                choice = self.rng.choice(document["game"]["legal"])
                if choice.get("pass"):
                    await self.send("pass")
                else:
                    await self.send("play", tile=choice["tile"], end=choice.get("end"))
            return
        if document["host"] != document["you"]:
            return
        if document["phase"] != "finished":
            self.current = None
            if document["phase"] == "waiting" and all(document["seats"]):
                await self.send("start")
        elif self.current is None:
            await self.send("record")
        elif self.named(document) or now - self.current.seen_at > self.seen.id_wait:
            await self.send("rematch")

    def named(self, document: dict[str, Any]) -> bool:
        """Note the room's game_id for the finished match on the table, once it names one."""
        shown = document.get("game_id")
        if self.current is None or shown is None:
            return False
        if self.current.named is None:
            self.current.named = shown
            self.current.named_after = time.monotonic() - self.current.seen_at
        return True

    async def settle(self) -> None:
        """Once play stops: read until the bots have made their moves, then, as host, record
        a match that finished meanwhile and wait for its game_id."""
        with contextlib.suppress(*DROPPED, Refused):
            player = await self.connect(20.0)
            await self.answer(await self.send("ping"), (msg.Pong,))
            ends = time.monotonic() + 20
            while time.monotonic() < ends:
                document = player.state.document
                assert document is not None
                game = document["game"]
                if (
                    document["phase"] == "playing"
                    and document["seats"][game["turn"]]["kind"] == "bot"
                ):
                    await self.receive(0.1)
                    continue
                if document["phase"] != "finished" or document["host"] != document["you"]:
                    return
                if self.current is None:
                    await self.answer(await self.send("record"), (msg.RecordReply,))
                if self.current is None or self.named(document):
                    return
                if time.monotonic() - self.current.seen_at > self.seen.id_wait:
                    return
                await self.receive(0.1)


async def open_room(index: int, target: int, seated: list[Human]) -> None:
    """Room `index`: its host creates it, the other humans join, bots fill the rest; start."""
    players = len(seated) + BOTS[index % len(BOTS)]
    names = [human.name for human in seated]
    for human in seated:
        human.names = names
        await human.connect()
    host = seated[0]
    rules = {"players": players, "target": target, "public": False}
    joined = await host.request("create_room", rules=rules)
    assert isinstance(joined, msg.Joined)
    for human in seated[1:]:
        await human.request("join", room=joined.room)
    for bot in range(players - len(seated)):
        await host.request("add_bot", level=LEVELS[(index + bot) % len(LEVELS)])
    await host.request("start")


def seat_humans(seen: Seen, rooms: int, seed: int) -> list[list[Human]]:
    """The keyed players of each room (2, 3 and 4 players in turn, bots in BOTS's seats)."""
    tables: list[list[Human]] = []
    number = itertools.count()
    for index in range(rooms):
        players = 2 + index % 3
        humans = players - BOTS[index % len(BOTS)]
        tables.append(
            [
                Human(seen, f"R{index}S{seat}", n, random.Random(seed * 1000 + n))
                for seat, n in zip(range(humans), number, strict=False)
            ]
        )
    return tables
