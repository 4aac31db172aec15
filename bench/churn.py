"""Connection churn against one server: does its memory level off, or grow with every connection?

The server runs in a process of its own (`allfives serve`, its default limits). Clients on
loopback open connections one after another, `--at-once` at a time, in one of two ways:

- `hello`: connect, `hello`, read `welcome`, close (what a page load or a reconnect costs);
- `oversized`: connect, send one frame past the server's `--max-size`, be closed (1009).

After every `--step` connections it prints the server's resident memory (VmRSS), its high-water
mark (VmHWM), and from /proc/PID/smaps the anonymous memory in the main heap (`[heap]`, brk)
and in other anonymous mappings (glibc's arenas for other threads and large blocks among them),
and how many such mappings there are. At the end: the growth over the whole run, over its last
half (whether it levelled off: a leak grows as much in the second half as in the first), and
the bytes kept per connection.

`--env NAME=VALUE` sets the server's environment (`MALLOC_ARENA_MAX=2`, to compare allocators'
settings). Loopback only; the run stops by itself (`--deadline`, default 900 s).

Usage: uv run python bench/churn.py [--mode hello|oversized] [--connections 100000]
    [--step 10000] [--at-once 16] [--env NAME=VALUE ...]
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import json
import os
import time
from pathlib import Path

from measure import report, start_process, stop_after
from websockets.asyncio.client import connect
from websockets.exceptions import WebSocketException

#: A frame past the server's default `--max-size` (8192 bytes): the server closes with 1009.
OVERSIZED = "x" * 9000


def memory(pid: int) -> dict[str, int]:
    """The server's memory in KiB: rss, hwm, heap (brk), other anonymous, anonymous mappings."""
    found = {"rss": 0, "hwm": 0, "heap": 0, "anon": 0, "mappings": 0}
    for line in Path(f"/proc/{pid}/status").read_text().splitlines():
        if line.startswith("VmRSS:"):
            found["rss"] = int(line.split()[1])
        elif line.startswith("VmHWM:"):
            found["hwm"] = int(line.split()[1])
    kind = None
    for line in Path(f"/proc/{pid}/smaps").read_text().splitlines():
        parts = line.split()
        if parts and "-" in parts[0] and not parts[0].endswith(":"):
            name = parts[5] if len(parts) > 5 else ""
            kind = "heap" if name == "[heap]" else "anon" if name == "" else None
            if kind == "anon":
                found["mappings"] += 1
        elif kind is not None and parts and parts[0] == "Rss:":
            found[kind] += int(parts[1])
    return found


async def one_hello(url: str, number: int) -> None:
    async with connect(url, max_size=2**20, open_timeout=30) as socket:
        hello = {"type": "hello", "version": 3, "name": f"C{number % 1000}", "id": 1}
        await socket.send(json.dumps(hello))
        reply = json.loads(await asyncio.wait_for(socket.recv(), 30))
        if reply.get("type") != "welcome":
            raise RuntimeError(f"hello answered {reply}")


async def one_oversized(url: str, number: int) -> None:
    async with connect(url, max_size=2**20, open_timeout=30) as socket:
        await socket.send(OVERSIZED)
        with contextlib.suppress(WebSocketException):
            await asyncio.wait_for(socket.recv(), 30)


async def churn(url: str, pid: int, mode: str, total: int, step: int, at_once: int) -> None:
    one = one_hello if mode == "hello" else one_oversized
    done = failed = 0
    start = memory(pid)
    rows = [(0, start)]
    began = time.monotonic()
    print("connections rss_kib hwm_kib heap_kib anon_kib anon_mappings conn_per_s failed")
    print(
        f"0 {start['rss']} {start['hwm']} {start['heap']} {start['anon']} {start['mappings']} - 0"
    )

    async def worker(first: int, count: int) -> None:
        nonlocal done, failed
        for number in range(first, first + count):
            try:
                await one(url, number)
            except (OSError, WebSocketException, TimeoutError, RuntimeError) as error:
                failed += 1
                if failed <= 3:
                    print(f"connection {number} failed: {error!r}", flush=True)
            done += 1

    while done < total:
        stepped = time.monotonic()
        size = min(step, total - done)
        shares = [size // at_once + (1 if n < size % at_once else 0) for n in range(at_once)]
        firsts = [done + sum(shares[:n]) for n in range(at_once)]
        await asyncio.gather(*(worker(f, c) for f, c in zip(firsts, shares, strict=True) if c))
        await asyncio.sleep(0.5)  # the server finishes closing the last ones
        seen = memory(pid)
        rows.append((done, seen))
        rate = (done - rows[-2][0]) / max(1e-9, time.monotonic() - stepped)
        print(
            f"{done} {seen['rss']} {seen['hwm']} {seen['heap']} {seen['anon']} "
            f"{seen['mappings']} {rate:.0f} {failed}",
            flush=True,
        )
    end = rows[-1][1]
    half = min(rows, key=lambda row: abs(row[0] - done / 2))
    report("mode", mode)
    report("connections", done)
    report("failed", failed)
    report("seconds", time.monotonic() - began)
    report("rss start KiB", start["rss"])
    report("rss end KiB", end["rss"])
    report("rss growth KiB", end["rss"] - start["rss"])
    report(
        f"rss growth over the second half ({done - half[0]} connections) KiB",
        end["rss"] - half[1]["rss"],
    )
    first = rows[1][1]["rss"] if len(rows) > 1 else start["rss"]
    report("rss after the first step KiB", first)
    report("rss end vs after the first step %", 100.0 * (end["rss"] - first) / max(1, first))
    report(
        "bytes kept per connection (second half)",
        1024.0 * (end["rss"] - half[1]["rss"]) / max(1, done - half[0]),
    )
    report("heap growth KiB", end["heap"] - start["heap"])
    report("other anonymous growth KiB", end["anon"] - start["anon"])


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n", 1)[0])
    parser.add_argument("--mode", choices=["hello", "oversized"], default="hello")
    parser.add_argument("--connections", type=int, default=100_000)
    parser.add_argument("--step", type=int, default=10_000)
    parser.add_argument("--at-once", type=int, default=16)
    parser.add_argument("--env", action="append", default=[], help="NAME=VALUE for the server")
    parser.add_argument("--deadline", type=float, default=900.0)
    args = parser.parse_args()
    stop_after(args.deadline, "bench/churn.py")
    environment = dict(os.environ)
    for setting in args.env:
        name, _, value = setting.partition("=")
        environment[name] = value
        report("server env", setting)
    server, url = start_process(
        ["-m", "allfives.cli", "serve", "--port", "0", "--log-level", "ERROR"], environment
    )
    try:
        asyncio.run(churn(url, server.pid, args.mode, args.connections, args.step, args.at_once))
    finally:
        server.kill()
        server.wait()


if __name__ == "__main__":
    main()
