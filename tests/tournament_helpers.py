"""Tournament entrants as scripted WebSocket clients: each follows its tournament, joins the room
its `table` names as soon as it is told, and plays legal moves from its own view until the
tournament is finished. Used by tests/server/test_tournament_rounds.py."""

from __future__ import annotations

import asyncio
import random
from dataclasses import dataclass, field
from typing import Any

from server_helpers import Client, new_key, turn_of

from protocol import messages as msg
from protocol.tournaments import TournamentUpdate

#: Long enough for a round robin of three to a low target, bots included.
PLAY_SECONDS = 120.0


async def keyed(url: str, name: str, key: str | None = None) -> Client:
    """A client that said hello with a player's key (a fresh one unless given)."""
    return await Client.open(url, name, key=key or new_key())


async def tournament_update(client: Client, kind: str, **fields: Any) -> TournamentUpdate:
    """Send a tournament message; its answer, which must be a `tournament` message."""
    reply = await client.request(kind, **fields)
    assert isinstance(reply, TournamentUpdate), reply
    return reply


@dataclass
class Entrant:
    """A person in a tournament: what it was told last, and each room it was seated in."""

    client: Client
    rng: random.Random
    latest: TournamentUpdate | None = None
    #: Every `joined` it got: (what finds the room, the seat it was given).
    seated: list[tuple[str, int | None]] = field(default_factory=list)
    #: Every `table` it was told, in order, each once.
    tables: list[str] = field(default_factory=list)

    async def play_to_the_end(self, timeout: float = PLAY_SECONDS) -> TournamentUpdate:
        """Join each table it is told of and play its moves until the tournament is finished;
        the last update. An `error` fails the test."""
        client = self.client
        loop = asyncio.get_running_loop()
        deadline = loop.time() + timeout
        sent_for: tuple[str | None, tuple[int, int]] | None = None
        while True:
            latest = self.latest
            if latest is not None and latest.state.phase == "finished":
                return latest
            table = latest.table if latest is not None else None
            if table is not None and table not in self.tables:
                self.tables.append(table)
                await client.send("join", room=table)
            turn = turn_of(client)
            if turn is not None and (client.room, turn) != sent_for:
                sent_for = (client.room, turn)
                await _move(client, self.rng)
            message = await client.receive(max(0.01, deadline - loop.time()))
            if isinstance(message, TournamentUpdate):
                if self.latest is None or message.state.version >= self.latest.state.version:
                    self.latest = message
            elif isinstance(message, msg.Joined):
                self.seated.append((message.room, message.seat))
            elif isinstance(message, msg.Error):
                raise AssertionError(f"{client.name}: {message}")


async def _move(client: Client, rng: random.Random) -> None:
    """One legal move from the client's own view, at random."""
    choice = rng.choice(client.document["game"]["legal"])
    if choice.get("pass"):
        await client.send("pass")
        return
    fields = {"tile": choice["tile"]}
    if choice.get("end") is not None:
        fields["end"] = choice["end"]
    await client.send("play", **fields)
