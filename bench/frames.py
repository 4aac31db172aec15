"""What a move sends: the size of each move's patch, for rooms of 2, 3 and 4 human players.

Whole matches are played through the same sans-I/O calls the server makes for each play (no
sockets): `commands.handle(room, caller, message, now)`, then `Feed.publish` for the frames.
The clock is the wall clock, moved on a second a move, so that turn deadlines are written as a
server writes them (Unix seconds). Every seat is a person, so every seat receives each move.

For each room size it prints, over every move played (the match's start is not counted):
- `shared bytes`: the frame every receiver without ops of its own gets;
- `receiver bytes`: the frame each receiver gets for a move (its own, where it has one), one
  value per receiver per move: the size of "a move's patch" as a client sees it;
- `encoded bytes`: the distinct frames a move makes (the shared one and each seat's own), added
  up: what the server encodes for a move, once whatever the number of receivers;
each as median, mean, p95 and max.

Usage: uv run python bench/frames.py [--matches 40] [--players 2 3 4] [--show 0]
`--show N` also prints the frames of the first N moves of the first 4-player match.
Prints `name: value` lines.
"""

from __future__ import annotations

import argparse
import random
import statistics
import sys
import time
from pathlib import Path

# Run as a script, this folder comes first on sys.path: it goes, so no script here hides a package.
if sys.path and Path(sys.path[0]).resolve() == Path(__file__).resolve().parent:
    sys.path.pop(0)
ROOT = Path(__file__).resolve().parent.parent
if str(ROOT) not in sys.path:
    sys.path.insert(0, str(ROOT))

from bridge import convert  # noqa: E402
from protocol import messages as msg  # noqa: E402
from protocol.rules import RoomRules  # noqa: E402
from server.rooms import commands  # noqa: E402
from server.rooms.feed import Feed, frame_of  # noqa: E402
from server.rooms.room import Caller, Room  # noqa: E402


class Sizes:
    """The sizes one room size's moves made."""

    def __init__(self) -> None:
        self.shared: list[int] = []
        self.receiver: list[int] = []
        self.encoded: list[int] = []


def play_match(players: int, seed: int, sizes: Sizes, show: int) -> None:
    """One whole match of `players` people, every move's frames measured."""
    now = time.time()
    rules = RoomRules(players=players, teams=players == 4, public=False)
    room = Room.create("BENCH", rules, now=now)
    for index in range(players):
        room.sit(f"P{index}", now=now)
    feed = Feed()
    for receiver in feed.receivers(room):
        feed.snapshot(room, receiver)
    feed.publish(room, room.start(0, now=now, seed=seed))
    rng = random.Random(seed)
    while room.phase == "playing" and room.match is not None:
        match = room.match
        now += 1.0
        spec = convert.move_spec(rng.choice(match.legal_moves()))
        message = msg.Pass() if spec.tile is None else msg.Play(tile=spec.tile, end=spec.end)
        caller = Caller(name=f"P{match.turn}", seat=match.turn)
        outcome = commands.handle(room, caller, message, now)
        frames = feed.publish(room, outcome.events)
        receivers = feed.receivers(room)
        sizes.shared.append(len(frames.shared))
        sent = [len(frame_of(receiver, frames.shared, frames.own)) for receiver in receivers]
        sizes.receiver.extend(sent)
        sizes.encoded.append(len(frames.shared) + sum(len(frame) for frame in frames.own.values()))
        if show > 0:
            show -= 1
            print(f"shared frame: {frames.shared.decode()}")
            for seat, frame in frames.own.items():
                print(f"seat {seat} frame: {frame.decode()}")


def report(players: int, name: str, values: list[int]) -> None:
    """One measure's median, mean, p95 and max."""
    ordered = sorted(values)
    p95 = ordered[min(len(ordered) - 1, int(0.95 * len(ordered)))]
    prefix = f"{players} players {name}"
    print(f"{prefix} median: {statistics.median(ordered):.0f}")
    print(f"{prefix} mean: {statistics.fmean(ordered):.0f}")
    print(f"{prefix} p95: {p95:.0f}")
    print(f"{prefix} max: {ordered[-1]:.0f}")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--matches", type=int, default=40)
    parser.add_argument("--players", type=int, nargs="+", default=[2, 3, 4])
    parser.add_argument("--show", type=int, default=0)
    options = parser.parse_args()
    for players in options.players:
        sizes = Sizes()
        for seed in range(options.matches):
            show = options.show if players == 4 and seed == 0 else 0
            play_match(players, seed, sizes, show)
        print(f"{players} players moves: {len(sizes.shared)}")
        report(players, "shared bytes", sizes.shared)
        report(players, "receiver bytes", sizes.receiver)
        report(players, "encoded bytes", sizes.encoded)


if __name__ == "__main__":
    main()
