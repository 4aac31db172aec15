"""Rooms' bots under a flood of hints: a hard bot's move time alone, then while other rooms ask
for hints back to back.

An in-process server with real worker processes (the default hard budget, 200 ms; one bot and
one hint worker). Room A: one scripted player and three hard bots; each of the player's moves is
timed until the three bots have answered. Then `--flooders` players, each in a room of its own
with the turn, ask for a hint again as soon as the last one is answered (or refused `busy`).
Prints `name: value` lines.

    uv run python bench/hints.py [--moves 12] [--flooders 10]
"""

from __future__ import annotations

import argparse
import asyncio
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
sys.path.append(str(ROOT / "bench"))  # last: bench/measure.py, nothing above it hidden

from measure import stop_after  # noqa: E402
from scripted import Player  # noqa: E402
from websockets.asyncio.client import connect  # noqa: E402

from protocol import messages as msg  # noqa: E402
from server.app import Config, run_server  # noqa: E402


async def seated(url: str, bots: int, level: str) -> Player:
    """A player alone in a started room with `bots` bots, once it has the turn."""
    player = Player(await connect(url))
    await player.request("hello", version=msg.PROTOCOL_VERSION, name="P")
    await player.request("create_room", rules={"players": bots + 1, "target": 1000})
    for _ in range(bots):
        await player.request("add_bot", level=level)
    await player.request("start")
    while not player.my_turn():
        await player.receive()
    return player


async def bot_times(player: Player, moves: int) -> list[float]:
    """Seconds from each move of the player until the bots have answered it."""
    times: list[float] = []
    while len(times) < moves:
        while not player.my_turn():
            await player.receive()
        choice = player.state.document["game"]["legal"][0]  # type: ignore[index]
        await player.request("play", tile=choice["tile"], end=choice.get("end"))
        started = time.perf_counter()
        if player.my_turn():
            continue
        while not player.my_turn():
            await player.receive()
        times.append(time.perf_counter() - started)
    return times


async def flood(player: Player, answers: list[float], busy: list[int]) -> None:
    while True:
        started = time.perf_counter()
        reply = await player.request("hint")
        if isinstance(reply, msg.Error):
            busy.append(1)
            await asyncio.sleep(0.05)
        else:
            answers.append(time.perf_counter() - started)


async def main(moves: int, flooders: int) -> None:
    config = Config.of(port=0, bot_delay=0.0, max_rooms_per_ip=flooders + 4)
    async with run_server(config) as server:
        player = await seated(server.url, 3, "hard")
        await bot_times(player, 2)  # the worker processes start
        alone = await bot_times(player, moves)
        others = [await seated(server.url, 1, "easy") for _ in range(flooders)]
        answers: list[float] = []
        busy: list[int] = []
        tasks = [asyncio.create_task(flood(other, answers, busy)) for other in others]
        flooded = await bot_times(player, moves)
        for task in tasks:
            task.cancel()
        print(f"bots answer ms p50 alone: {statistics.median(alone) * 1000:.0f}")
        print(f"bots answer ms max alone: {max(alone) * 1000:.0f}")
        print(f"bots answer ms p50 under hint flood: {statistics.median(flooded) * 1000:.0f}")
        print(f"bots answer ms max under hint flood: {max(flooded) * 1000:.0f}")
        print(f"flooders: {flooders}")
        print(f"hints answered: {len(answers)}")
        print(f"hints refused busy: {len(busy)}")
        if answers:
            print(f"hint ms p50 under flood: {statistics.median(answers) * 1000:.0f}")


if __name__ == "__main__":
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--moves", type=int, default=12)
    parser.add_argument("--flooders", type=int, default=10)
    options = parser.parse_args()
    # A move takes a second at most (three hard bots of 200 ms); stalled workers or clients end
    # the script instead of keeping it waiting.
    stop_after(120 + 20 * options.moves, "bench/hints.py")
    asyncio.run(main(options.moves, options.flooders))
