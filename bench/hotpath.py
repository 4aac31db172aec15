"""What one move costs the server apart from sockets: decode, apply, save, publish.

A room of four human seats and a spectator (the case the server's CPU target is about) plays
whole matches through the same sans-I/O calls the server makes for each play: the client frame
decoded, `commands.handle(room, caller, message)`, `Room.to_bytes` (the save: with Redis only,
since the memory store holds the live room), `Feed.publish` (the frames for every receiver). Each part's CPU time per move is
printed in microseconds, with the totals with Redis and with memory, and the distinct frames and
bytes a move produces (a frame shared by several receivers counts once).

A second pass over the same kind of moves counts the objects a move makes: for each part the
change in `sys.getallocatedblocks()` across it (the blocks the part leaves alive: its results and
what the room keeps, with the collector off so no pass frees anything in between), and
tracemalloc's 15 sites that made the most blocks still alive when the move's frames are out.
Objects a part makes and frees again inside itself are not seen by either figure, unless
CPython keeps the freed block for reuse (its free lists of dicts, lists, tuples...): such a
block still counts, so a part that churns through many dicts shows some of them.

Usage: uv run python bench/hotpath.py [--moves 20000] [--alloc-moves 3000]
Prints `name: value` lines.
"""

from __future__ import annotations

import argparse
import gc
import random
import sys
import time
import tracemalloc
from collections.abc import Iterator
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


def moves(count: int) -> Iterator[tuple[Room, Feed, Caller, bytes]]:
    """`count` moves of whole matches: the room, its feed, the mover and the frame it sends."""
    rng = random.Random(1)
    seed = 0
    room, feed = new_room(seed)
    made = 0
    while made < count:
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
        yield room, feed, Caller(name=f"P{match.turn}", seat=match.turn), wire
        made += 1


def short(filename: str) -> str:
    """A source file's name from the repository's root, or as it is when outside it."""
    path = Path(filename).resolve()
    return str(path.relative_to(ROOT)) if path.is_relative_to(ROOT) else filename


def allocations(count: int) -> None:
    """Print the blocks each part of a move leaves alive and the sites that make the most."""
    blocks = sys.getallocatedblocks
    kept = {"decode": 0, "handle": 0, "save": 0, "publish": 0}
    sites: dict[str, int] = {}
    gc.disable()
    try:
        for room, feed, caller, wire in moves(count):
            tracemalloc.start()
            b0 = blocks()
            message = msg.decode_client(wire)
            b1 = blocks()
            outcome = commands.handle(room, caller, message)
            b2 = blocks()
            saved = room.to_bytes()
            b3 = blocks()
            published = feed.publish(room, outcome.events)
            b4 = blocks()
            snapshot = tracemalloc.take_snapshot()
            tracemalloc.stop()
            kept["decode"] += b1 - b0
            kept["handle"] += b2 - b1
            kept["save"] += b3 - b2
            kept["publish"] += b4 - b3
            for stat in snapshot.statistics("lineno"):
                frame = stat.traceback[0]
                site = f"{short(frame.filename)}:{frame.lineno}"
                sites[site] = sites.get(site, 0) + stat.count
            del message, outcome, saved, published, snapshot
            gc.collect()
    finally:
        gc.enable()
    for name, count_kept in kept.items():
        print(f"{name} blocks per move: {count_kept / count:.1f}")
    print(f"total blocks per move: {sum(kept.values()) / count:.1f}")
    print(f"total blocks per move in memory: {(sum(kept.values()) - kept['save']) / count:.1f}")
    top = sorted(sites.items(), key=lambda item: item[1], reverse=True)[:15]
    for site, made in top:
        print(f"site {site}: {made / count:.2f}")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--moves", type=int, default=20000)
    parser.add_argument("--alloc-moves", type=int, default=3000)
    options = parser.parse_args()
    clock = time.process_time_ns
    spent = {"decode": 0, "handle": 0, "save": 0, "publish": 0}
    frames = frame_bytes = made_moves = 0
    for room, feed, caller, wire in moves(options.moves):
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
        made_moves += 1
    per = made_moves * 1000
    for name, nanoseconds in spent.items():
        print(f"{name} us per move: {nanoseconds / per:.1f}")
    print(f"total us per move: {sum(spent.values()) / per:.1f}")
    print(f"total us per move in memory: {(sum(spent.values()) - spent['save']) / per:.1f}")
    print(f"distinct frames per move: {frames / made_moves:.2f}")
    print(f"frame bytes per move: {frame_bytes / made_moves:.0f}")
    if options.alloc_moves > 0:
        allocations(options.alloc_moves)


if __name__ == "__main__":
    main()
