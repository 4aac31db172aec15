"""Rooms kept by `allfives serve` processes killed with SIGKILL and restarted: in Redis
(`--redis`) and in SQLite (`--data DIR`), every test against both.

A server killed mid-hand resumes the room exactly; matches survive a server killed at random
moments. The server process and the scripted players that reconnect to it are in
tests/restart_helpers.py: each finished match's record must replay legally and agree with
everything the players saw.
"""

from __future__ import annotations

import asyncio
import random
from pathlib import Path
from typing import Any

from restart_helpers import (
    Keeping,
    check_match,
    open_room,
    play_matches,
    server_process,
)
from storage_helpers import load_stored
from waiting import until

from server.rooms.room import Room


async def test_a_server_killed_mid_hand_resumes_the_room_exactly(
    keeping: Keeping, tmp_path: Path
) -> None:
    store = keeping.store
    async with server_process(keeping, tmp_path, "--bot-delay", "0") as server:
        ann, bob = await open_room(server, 2, ["easy", "normal"], 1, target=100, turn_seconds=60)
        await ann.command("start", lambda: len(ann.matches) >= 1)
        paused = asyncio.Event()
        bob_plays = asyncio.get_running_loop().create_task(bob.until(paused.is_set))
        await ann.until(lambda: ann.my_turn() and ann.moves_in_hand() >= 4)
        paused.set()
        await bob_plays
        await asyncio.gather(ann.synced(), bob.synced())
        assert ann.room is not None and ann.state.seq == bob.state.seq
        before = {p.name: (p.state.seq, p.document, p.seat, p.token) for p in (ann, bob)}
        stored_before = await load_stored(store, ann.room)

        await server.kill()
        stored = await load_stored(store, ann.room)
        assert stored is not None and stored_before is not None
        assert stored.seq == ann.state.seq, "the seq clients saw is the one stored"
        await server.start()
        for player in (ann, bob):
            await player.close()
            await player.connect()
        await asyncio.gather(ann.synced(), bob.synced())

        for player in (ann, bob):
            seq, document, seat, token = before[player.name]
            assert player.joined[-1].seat == seat and player.token == token
            assert player.state.seq is not None and seq is not None and player.state.seq > seq
            assert without_connected(player.document) == without_connected(document)
        assert [s["kind"] for s in ann.document["seats"]] == ["human", "human", "bot", "bot"]
        stored_after = await load_stored(store, ann.room)
        assert stored_after is not None
        old, new = Room.from_bytes(stored_before.state), Room.from_bytes(stored_after.state)
        assert old.match is not None and new.match is not None
        assert new.match.to_bytes() == old.match.to_bytes(), "hands and boneyard order kept"
        assert new.state.deadline == old.state.deadline, "the turn clock kept its deadline"
        assert new.seats[0] == old.seats[0] and new.seats[2:] == old.seats[2:]

        seen = await asyncio.gather(ann.play_match(1), bob.play_match(1))
        check_match(await ann.fetch_record(), list(seen))
        assert not ann.errors and not bob.errors
        assert not ann.rewritten and not bob.rewritten


def without_connected(document: dict[str, Any]) -> dict[str, Any]:
    """A document with the seats' online flags left out."""
    seats = [None if s is None else {**s, "connected": None} for s in document["seats"]]
    return {**document, "seats": seats}


async def test_matches_survive_a_server_killed_at_random_moments(
    keeping: Keeping, tmp_path: Path
) -> None:
    rng = random.Random(5)
    async with server_process(keeping, tmp_path, "--bot-delay", "0.02") as server:
        rooms = [
            await open_room(server, 1, ["easy", "normal", "easy"], 1, target=100),
            await open_room(server, 2, ["normal"], 2, target=100),
            await open_room(server, 1, ["easy"], 3, target=100),
        ]
        players = [player for room in rooms for player in room]
        stop = asyncio.Event()
        kills = 0

        def moves_seen() -> int:
            return sum(len(seen.moves) for player in players for seen in player.matches)

        async def killer() -> None:
            # Kill after a random number of moves (so the number of kills does not depend on
            # the machine's speed), a random moment after the last one arrived.
            nonlocal kills
            while not stop.is_set():
                due = moves_seen() + rng.randint(15, 45)

                def reached(due: int = due) -> bool:
                    return moves_seen() >= due or stop.is_set()

                await until(reached, 120, f"{due} moves seen")
                # The stimulus, not a wait for a result: the kill comes a random moment after
                # the last move arrived (mid-save, mid-broadcast, or idle).
                await asyncio.sleep(rng.uniform(0, 0.03))
                if not stop.is_set():
                    await server.kill()
                    kills += 1
                    await server.start()

        killing = asyncio.get_running_loop().create_task(killer())
        try:
            results = await asyncio.wait_for(
                asyncio.gather(*(play_matches(players, 2) for players in rooms)), 80
            )
        finally:
            stop.set()
            await killing
        for room in results:
            for record, seen in room:
                check_match(record, seen)
        assert kills >= 5
        assert sum(len(p.joined) for p in players) > len(players) + kills
        assert [e for p in players for e in p.errors] == []
        assert [p.rewritten for p in players] == [[] for _ in players], "a change seen was lost"
