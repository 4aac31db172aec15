"""What one move costs on the room's whole path in a server, apart from sockets.

`bench/hotpath.py` times the sans-I/O calls of a move; this one runs each move the way a
session does (`RoomCommands.command`: the room's lock, the command, the memory store, the
frames for every member, the hooks, then the effects for the mover), in a server built and
not listening, with four seats whose connections only count what they are sent. It prints the
CPU time of a move in microseconds and the blocks it leaves alive (the change in
`sys.getallocatedblocks()` across it, with the collector off so no pass frees anything in
between).

Usage: uv run python bench/roompath.py [--moves 4000]
Prints `name: value` lines.
"""

from __future__ import annotations

import argparse
import asyncio
import gc
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

from bridge import convert  # noqa: E402
from protocol import messages as msg  # noqa: E402
from protocol.rules import RoomRules  # noqa: E402
from server.app import Server  # noqa: E402
from server.config import Config  # noqa: E402
from server.metrics import Metrics  # noqa: E402
from server.rooms.feed import SPECTATORS, Receiver  # noqa: E402


class Seat:
    """A connection as the room path uses it; it counts what it is sent and sends nothing."""

    def __init__(self, name: str) -> None:
        self.name = name
        self.address = "127.0.0.1"
        self.player = None
        self.metrics = Metrics()
        self.room: Any = None
        self.seat: int | None = None
        self.spectating = False
        self.sent = 0

    @property
    def receiver(self) -> Receiver:
        return self.seat if self.seat is not None else SPECTATORS

    def writable(self) -> bool:
        return True

    def write(self, message: bytes) -> None:
        self.sent += 1

    def send(self, message: bytes) -> None:
        self.sent += 1

    def send_message(self, message: msg.ServerMessage) -> None:
        self.sent += 1

    def detach(self) -> None:
        self.room, self.seat, self.spectating = None, None, False

    def close(self, code: int, reason: str) -> None:
        return None


async def run(count: int) -> None:
    server = Server(Config.of(port=0, bot_processes=False))
    rooms = server.sessions.rooms
    rng = random.Random(1)
    made, spent, kept = 0, 0.0, 0
    blocks = sys.getallocatedblocks
    try:
        while made < count:
            seats = [Seat(f"P{index}") for index in range(4)]
            rules = RoomRules(players=4, teams=True, public=False)
            await rooms.open(seats[0], msg.CreateRoom(rules=rules))  # type: ignore[arg-type]
            live = seats[0].room
            for seat in seats[1:]:
                await rooms.command(live, seat, msg.Join(room=live.room.code))  # type: ignore[arg-type]
            await rooms.command(live, seats[0], msg.Start())  # type: ignore[arg-type]
            while live.room.phase == "playing" and made < count:
                match = live.room.match
                spec = convert.move_spec(rng.choice(match.legal_moves()))
                move = (
                    msg.Pass(id=1)
                    if spec.tile is None
                    else msg.Play(tile=spec.tile, end=spec.end, id=1)
                )
                mover = seats[match.turn]
                gc.disable()
                before, start = blocks(), time.perf_counter()
                await rooms.command(live, mover, move)
                spent += time.perf_counter() - start
                kept += blocks() - before
                gc.enable()
                made += 1
            server.registry.forget(live)
        await server.finisher.drain()
    finally:
        server.bots.close()
        server.reviews.close()
        await server.ledger.close()
    print(f"room path us per move: {spent / made * 1e6:.1f}")
    print(f"room path blocks per move: {kept / made:.1f}")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--moves", type=int, default=4000)
    asyncio.run(run(parser.parse_args().moves))


if __name__ == "__main__":
    main()
