"""The failure table of docs/persistence.md: what a player sees when Redis fails mid-save.

For each fault, a server with `--redis` (in this process, its store's timeout 0.5 s) reaches a
real redis-server through a proxy that can hold requests or answers (tests/redis_server.py). A
player sends a chat line under the fault, the fault is cleared, and the player retries as the
`unavailable` error says until the line is acknowledged. Each line of output is one fault:

    <fault>: first answer <code>; <n> retry acknowledged <s> s after the fault ended;
             line stored <k> time(s) (Redis and every client); <u> stored change undone

(<u> counts saves Redis applied whose answer was lost: the server undid them before the retry.)

`stored 1 time` in every round is the promise: `unavailable` means unchanged, and a retry is
applied once. Run with several `--rounds` to see the spread.

Usage: uv run python bench/faults.py [--rounds 3]
"""

from __future__ import annotations

import argparse
import asyncio
import logging
import os
import signal
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
# Run as a script, bench/ comes first on sys.path, where engine.py is a benchmark: use the root.
sys.path[0:1] = [str(ROOT), str(ROOT / "tests")]
sys.path.append(str(ROOT / "bench"))  # last: bench/measure.py, nothing above it hidden

from measure import stop_after  # noqa: E402
from redis_server import FaultProxy, RedisServer  # noqa: E402
from storage_helpers import load_stored  # noqa: E402
from ws_client_helpers import Client  # noqa: E402

from protocol import messages as msg  # noqa: E402
from server.app import Config, run_server  # noqa: E402
from server.rooms.room import Room  # noqa: E402
from server.storage.redis_store import RedisStore  # noqa: E402

TIMEOUT = 0.5
FAULTS = (
    "redis down (stopped)",
    "redis stalled (SIGSTOP) before the save",
    "save held on the network, arrives late",
    "connection cut with the save unsent",
    "redis over maxmemory (noeviction)",
    "answer lost after the save",
    "answer lost, then redis restarted (AOF)",
    "answer lost, then redis stalled",
)


class Undone(logging.Handler):
    """Counts the server's "undone" warnings (an unanswered change that was stored, undone)."""

    def __init__(self) -> None:
        super().__init__(logging.WARNING)
        self.count = 0

    def emit(self, record: logging.LogRecord) -> None:
        if "undone" in record.getMessage():
            self.count += 1


async def command(redis: RedisServer, fault: str, proxy: FaultProxy, start: bool) -> None:
    """Put the fault in place (start) or end it."""
    pid = redis._process.pid if redis._process is not None else 0
    if fault == "redis down (stopped)":
        redis.stop() if start else redis.start()
    elif fault.startswith("redis stalled"):
        os.kill(pid, signal.SIGSTOP if start else signal.SIGCONT)
    elif fault.startswith("redis over maxmemory"):
        connection = RedisStore(redis.url)
        try:
            await connection.link.call(
                "config",
                lambda c: c.config_set(b"maxmemory", b"1" if start else b"0"),
            )
        finally:
            await connection.close()
    elif fault.startswith(("save held", "connection cut")):
        if start:
            proxy.hold_requests = True
        else:
            if fault.startswith("connection cut"):
                proxy.cut()
            proxy.release()
    elif start:
        proxy.hold_replies = True
    else:
        if fault.endswith("restarted (AOF)"):
            redis.stop()
            redis.start()
        elif fault.endswith("stalled"):
            os.kill(pid, signal.SIGSTOP)
            proxy.cut()
            await asyncio.sleep(TIMEOUT)
            os.kill(pid, signal.SIGCONT)
        proxy.release()


async def one_round(fault: str, workdir: Path, undone: Undone) -> str:
    redis = RedisServer(workdir / "redis")
    redis.start()
    proxy = FaultProxy(redis)
    await proxy.start()
    config = Config.of(
        port=0, bot_delay=0.0, bot_processes=False, rate=1000.0, burst=1000, rooms_burst=100_000
    )
    config.store = RedisStore(proxy.url, timeout=TIMEOUT)
    undone.count = 0
    try:
        async with run_server(config) as server:
            ann = await Client.open(server.url, "Ann")
            joined = await ann.request("create_room", rules={"players": 2})
            assert isinstance(joined, msg.Joined) and joined.room is not None
            bob = await Client.open(server.url, "Bob")
            assert isinstance(await bob.request("join", room=joined.room), msg.Joined)
            await command(redis, fault, proxy, True)
            try:
                first = await ann.request("chat", text="gg")
            finally:
                await command(redis, fault, proxy, False)
            ended = time.monotonic()
            code = first.code if isinstance(first, msg.Error) else "ack"
            tries = 0
            reply: msg.AnyServerMessage = first
            while not isinstance(reply, msg.Ack):
                tries += 1
                assert time.monotonic() - ended < 15, reply
                reply = await ann.request("chat", text="gg")
            took = time.monotonic() - ended
            await bob.request("ping")  # what was sent to Bob before has arrived
            await ann.request("resync")
            store = RedisStore(redis.url)
            stored = await load_stored(store, joined.room)
            await store.close()
            assert stored is not None
            counts = {
                sum(1 for line in Room.from_bytes(stored.state).state.chat if line.text == "gg"),
                sum(1 for line in ann.document["chat"] if line["text"] == "gg"),
                sum(1 for line in bob.document["chat"] if line["text"] == "gg"),
            }
            stored_text = "/".join(str(c) for c in sorted(counts))
            return (
                f"first answer {code}; {tries} retry acknowledged {took:.2f} s after the fault"
                f" ended; line stored {stored_text} time(s); {undone.count} stored change undone"
            )
    finally:
        await proxy.close()
        redis.stop()


async def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--rounds", type=int, default=1)
    args = parser.parse_args()
    # A round takes seconds; a stalled Redis, proxy or server ends the script instead.
    stop_after(120 + 60 * len(FAULTS) * args.rounds, "bench/faults.py")
    logging.basicConfig(level=logging.CRITICAL)
    undone = Undone()
    logs = logging.getLogger("allfives")
    logs.addHandler(undone)
    logs.setLevel(logging.WARNING)
    logs.propagate = False
    for fault in FAULTS:
        for round_number in range(args.rounds):
            with tempfile.TemporaryDirectory() as workdir:
                line = await one_round(fault, Path(workdir), undone)
            suffix = f" [{round_number + 1}]" if args.rounds > 1 else ""
            print(f"{fault}{suffix}: {line}", flush=True)


if __name__ == "__main__":
    asyncio.run(main())
