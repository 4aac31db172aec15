"""Who played a move is kept with the room (issue 45): a move a stand-in bot made for an away
player is marked `stand_in` in the history, the players' own moves are not, and a watcher who
comes after the server was killed and restarted (`--data`, `--redis`) is told the same, in the
document and in the terminal client's log. On the in-memory store, a watcher who comes later
is told the same."""

from __future__ import annotations

import asyncio
from pathlib import Path
from typing import Any

import pytest
from restart_helpers import Keeping, open_room, server_process
from server_helpers import fast_config
from ws_client_helpers import Client

from clients.cli.state import TableState
from protocol import messages as msg
from server.app import run_server

pytestmark = pytest.mark.asyncio

#: What the terminal client adds to a line of a move a stand-in made.
STAND_IN_NOTE = "(a bot, standing in while they are away)"


def plays(document: dict[str, Any]) -> list[dict[str, Any]]:
    """The current hand's plays."""
    return [event for event in document["game"]["history"] if event["type"] == "played"]


def stood_in_beside_a_player(document: dict[str, Any], away: int) -> bool:
    """Whether the current hand has a move of the away seat's stand-in and one of a player."""
    made = plays(document)
    stand_in = any(e["seat"] == away and e.get("stand_in") for e in made)
    return stand_in and any(e["seat"] != away for e in made)


async def watched(url: str, room: str) -> tuple[dict[str, Any], list[str]]:
    """What a watcher coming now is sent: the document, and the terminal client's log of it."""
    watcher = await Client.open(url, "Wendy")
    table = TableState()
    try:
        joined = await watcher.request("spectate", room=room)
        assert isinstance(joined, msg.Joined), joined
        snapshot = await watcher.until(lambda m: isinstance(m, msg.Snapshot))
        table.receive(snapshot)
        return watcher.document, [line.text for line in table.log]
    finally:
        await watcher.close()


def own_plays(document: dict[str, Any], seat: int) -> tuple[int, int]:
    """The hand, and how many plays the seat has made in it so far."""
    return document["game"]["hand_number"], sum(1 for e in plays(document) if e["seat"] == seat)


def check_told(
    document: dict[str, Any], log: list[str], away: int, before: tuple[int, int]
) -> None:
    """Only the stand-in's moves are marked, in the document and in the log, one line a move:
    the away seat's moves after the `before` it made itself (in that hand), no other seat's."""
    made = plays(document)
    assert any(e.get("stand_in") for e in made), made
    hand, own = before
    own = own if document["game"]["hand_number"] == hand else 0
    for event in made:
        if event["seat"] == away and own:
            own -= 1
            assert not event.get("stand_in"), event
        else:
            assert bool(event.get("stand_in")) == (event["seat"] == away), event
    marked = [line for line in log if STAND_IN_NOTE in line]
    assert len(marked) == sum(1 for e in made if e.get("stand_in")), log


async def test_a_watcher_after_a_restart_is_told_who_played_each_move(
    keeping: Keeping, tmp_path: Path
) -> None:
    options = ("--bot-delay", "0", "--away-seconds", "0.3")
    async with server_process(keeping, tmp_path, *options) as server:
        ann, bob = await open_room(server, 2, [], 3, target=250)
        await ann.command("start", lambda: len(ann.matches) >= 1)
        paused = asyncio.Event()
        bob_plays = asyncio.get_running_loop().create_task(bob.until(paused.is_set))
        await ann.until(lambda: min(own_plays(ann.document, seat)[1] for seat in (0, 1)) >= 1)
        paused.set()
        await bob_plays
        await bob.synced()
        await ann.synced()
        assert bob.seat is not None and ann.room is not None
        before = own_plays(ann.document, bob.seat)
        await bob.close()  # away: a stand-in plays Bob's turns
        # Ann stops on her turn: nothing moves until the kill.
        await ann.until(lambda: stood_in_beside_a_player(ann.document, 1) and ann.my_turn())
        await ann.synced()
        seen = ann.document["game"]["history"]

        await server.kill()  # Ann's connection goes with it: both players are away
        server.options = ("--bot-delay", "0", "--away-seconds", "60")  # no stand-in moves now
        await server.start()
        document, log = await watched(server.url, ann.room)
        assert document["game"]["history"] == seen
        check_told(document, log, bob.seat, before)


async def test_a_later_watcher_is_told_who_played_each_move_in_memory() -> None:
    async with run_server(fast_config(away_seconds=0.3)) as server:
        ann = await Client.open(server.url, "Ann")
        joined = await ann.request("create_room", rules={"players": 2, "target": 250})
        assert isinstance(joined, msg.Joined)
        bob = await Client.open(server.url, "Bob")
        assert isinstance(await bob.request("join", room=ann.room), msg.Joined)
        assert isinstance(await ann.request("start"), msg.Ack)
        await bob.close()  # before any move: every move of Bob's is the stand-in's
        # Ann stops on her turn: nothing moves while the watcher comes.
        while not (stood_in_beside_a_player(ann.document, away=1) and ann.my_turn()):
            if ann.my_turn():
                move = ann.document["game"]["legal"][0]
                await ann.request("play", **{k: v for k, v in move.items() if k in ("tile", "end")})
            else:
                await ann.receive()
        assert ann.room is not None
        document, log = await watched(server.url, ann.room)
        assert document["game"]["history"] == ann.document["game"]["history"]
        check_told(document, log, 1, (1, 0))
        await ann.close()
