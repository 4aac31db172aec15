"""The ceiling bench/load.py measures against: a bare `websockets` broadcast server.

It runs in a process of its own (this file with `--bare-server SIZE`) and answers each message
from one of a group's 4 members by sending a message of SIZE bytes (our average patch) to all 4;
`ceiling_run` drives it with the pattern of a full-speed room and reports messages per second.
"""

from __future__ import annotations

import asyncio
import contextlib
import sys
import time
from pathlib import Path
from typing import Any

from load_clients import CONNECT
from measure import cpu_seconds, report, start_process
from websockets.asyncio.client import ClientConnection, connect
from websockets.exceptions import ConnectionClosed

PLAY_SIZE = len('{"type":"play","tile":"5-3","end":"east"}')


def bare_server(size: int) -> None:
    """A bare websockets server: a message from a group's member goes, resized, to all 4 of them."""
    from websockets.asyncio.server import broadcast, serve

    groups: dict[str, set[Any]] = {}
    payload = "x" * size

    async def handler(socket: Any) -> None:
        group = groups.setdefault(socket.request.path, set())
        group.add(socket)
        async for _ in socket:
            broadcast(group, payload)

    async def main() -> None:
        async with serve(handler, "127.0.0.1", 0, compression=None) as server:
            port = next(iter(server.sockets)).getsockname()[1]
            print(f"bare server on ws://127.0.0.1:{port}", flush=True)
            await asyncio.Future()

    asyncio.run(main())


async def ceiling_run(groups: int, seconds: float, size: int) -> float:
    """Messages per second delivered by the bare server with the same pattern as a full-speed room."""
    process, url = start_process([str(Path(__file__).resolve()), "--bare-server", str(size)])
    try:
        sockets = []
        for group in range(groups):
            members = [await connect(f"{url}/g{group}", **CONNECT) for _ in range(4)]
            sockets.append(members)
        await asyncio.sleep(0.2)
        delivered = 0
        stop = time.perf_counter() + seconds
        play = "y" * PLAY_SIZE

        async def run(members: list[ClientConnection]) -> None:
            nonlocal delivered
            seen = 0
            done = asyncio.Event()

            async def read(member: ClientConnection) -> None:
                nonlocal seen
                with contextlib.suppress(ConnectionClosed):
                    while True:
                        await member.recv(decode=False)
                        seen += 1
                        if seen == 4:
                            done.set()

            readers = [asyncio.get_running_loop().create_task(read(m)) for m in members]
            turn = 0
            while time.perf_counter() < stop:
                seen = 0
                done.clear()
                await members[turn % 4].send(play)
                await done.wait()
                delivered += 4
                turn += 1
            for reader in readers:
                reader.cancel()

        started = time.perf_counter()
        cpu = cpu_seconds(process.pid)
        own = time.process_time()
        await asyncio.gather(*(run(m) for m in sockets))
        elapsed = time.perf_counter() - started
        cpu = cpu_seconds(process.pid) - cpu
        own = time.process_time() - own
        rate = delivered / elapsed
        moves = max(1, delivered / 4)
        report("ceiling server cpu ms per move", 1000 * cpu / moves)
        report("ceiling server cpu busy", cpu / elapsed)
        report("ceiling clients cpu ms per move", 1000 * own / moves)
        report("ceiling clients cpu busy", own / elapsed)
        await asyncio.gather(*(s.close() for m in sockets for s in m))
        return rate
    finally:
        process.terminate()
        process.wait(10)


if __name__ == "__main__":
    if len(sys.argv) == 3 and sys.argv[1] == "--bare-server":
        bare_server(int(sys.argv[2]))
