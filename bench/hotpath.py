"""What one move costs the server apart from sockets: decode, apply, save, publish.

A room of four human seats and a spectator (the case the server's CPU target is about) plays
whole matches through the same sans-I/O calls the server makes for each play: the client frame
decoded, `commands.handle(room, caller, message)`, `Room.to_bytes` (the save: with Redis only,
since the memory store holds the live room), `Feed.publish` (the frames for every receiver). Each part's CPU time per move is
printed in microseconds, with the totals with Redis and with memory, and the distinct frames and
bytes a move produces (a frame shared by several receivers counts once).

Usage: uv run python bench/hotpath.py [--moves 20000]
Prints `name: value` lines.
"""

from __future__ import annotations

import argparse
import random
import sys
import time
from pathlib import Path
from typing import Any

# Run as a script, this folder comes first on sys.path: it goes, so no script here hides a package.
if sys.path and Path(sys.path[0]).resolve() == Path(__file__).resolve().parent:
    sys.path.pop(0)
ROOT = Path(__file__).resolve().parent.parent
if str(ROOT) not in sys.path:
    sys.path.insert(0, str(ROOT))

import msgspec  # noqa: E402

from bridge import convert  # noqa: E402
from protocol import messages as msg  # noqa: E402
from protocol.rules import RoomRules  # noqa: E402
from server.rooms import commands  # noqa: E402
from server.rooms.feed import Feed  # noqa: E402
from server.rooms.room import Caller, Room  # noqa: E402


def new_room(seed: int) -> tuple[Room, Feed]:
    """Four humans and a spectator, the match started and published."""
    room = Room.create("BENCH", RoomRules(players=4, teams=True, public=False))
    for index in range(4):
        room.sit(f"P{index}")
    room.watch(+1)
    feed = Feed()
    for receiver in feed.receivers(room):
        feed.snapshot(room, receiver)
    feed.publish(room, room.start(0, seed=seed))
    return room, feed


def frames_of(published: Any) -> list[bytes]:
    """The distinct frames one publish made."""
    if isinstance(published, dict):
        return list({id(frame): frame for frame in published.values()}.values())
    return [published.shared, *published.own.values()]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--moves", type=int, default=20000)
    options = parser.parse_args()
    rng = random.Random(1)
    clock = time.process_time_ns
    spent = {"decode": 0, "handle": 0, "save": 0, "publish": 0}
    frames = frame_bytes = moves = 0
    seed = 0
    room, feed = new_room(seed)
    while moves < options.moves:
        match = room.match
        if room.phase != "playing" or match is None:
            seed += 1
            room, feed = new_room(seed)
            continue
        move = rng.choice(match.legal_moves())
        spec = convert.move_spec(move)
        wire = msgspec.json.encode(
            msg.Pass() if spec.tile is None else msg.Play(tile=spec.tile, end=spec.end)
        )
        caller = Caller(name=f"P{match.turn}", seat=match.turn)
        t0 = clock()
        message = msg.decode_client(wire)
        t1 = clock()
        outcome = commands.handle(room, caller, message)
        t2 = clock()
        room.to_bytes()
        t3 = clock()
        published = feed.publish(room, outcome.events)
        t4 = clock()
        spent["decode"] += t1 - t0
        spent["handle"] += t2 - t1
        spent["save"] += t3 - t2
        spent["publish"] += t4 - t3
        made = frames_of(published)
        frames += len(made)
        frame_bytes += sum(len(frame) for frame in made)
        moves += 1
    for name, nanoseconds in spent.items():
        print(f"{name} us per move: {nanoseconds / moves / 1000:.1f}")
    print(f"total us per move: {sum(spent.values()) / moves / 1000:.1f}")
    print(
        f"total us per move in memory: {(sum(spent.values()) - spent['save']) / moves / 1000:.1f}"
    )
    print(f"distinct frames per move: {frames / moves:.2f}")
    print(f"frame bytes per move: {frame_bytes / moves:.0f}")


if __name__ == "__main__":
    main()
