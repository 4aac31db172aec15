"""The browser table: what the page weighs, how soon it is connected, how fast it applies patches.

Runs a real server in this process (an ephemeral loopback port) and Debian's headless Chromium
(/usr/bin/chromium with /usr/bin/chromedriver, driven by selenium). Three figures:

- page bytes / page requests: everything the browser fetches for the lobby (uncompressed);
- load to connected ms: from asking for the page to the page saying "Connected" (median of N
  fresh loads; polled every 5 ms, so a few ms high);
- patch apply us: the page's `RoomState.receive` on every frame a seat got in a real 4-player
  match (scripted player and bots), timed inside the browser (mean and p99 per change: a
  `patch` frame, or a `moved` frame expanded to the operations it stands for and applied).

Usage: uv run python bench/web.py [--loads 10]
"""

from __future__ import annotations

import argparse
import asyncio
import json
import statistics
import sys
import threading
import time
from pathlib import Path
from typing import Any

# The browser is started as the browser tests start it (Debian's Chromium, nothing downloaded).
sys.path.insert(0, str(Path(__file__).resolve().parent.parent / "tests"))

import msgspec
from browser_helpers import chromium
from measure import stop_after
from selenium.webdriver.remote.webdriver import WebDriver
from websockets.asyncio.client import connect

from protocol import messages as msg
from protocol.patch import apply, moved_ops
from server.app import Config, Server


def start_server() -> tuple[Server, asyncio.AbstractEventLoop]:
    loop = asyncio.new_event_loop()
    threading.Thread(target=loop.run_forever, daemon=True).start()
    config = Config.of(
        host="127.0.0.1",
        port=0,
        bot_delay=0.0,
        hard_budget_ms=5.0,
        bot_processes=False,
        rate=1000.0,
        burst=1000,
    )
    server = Server(config)
    asyncio.run_coroutine_threadsafe(server.start(), loop).result(10)
    return server, loop


async def record_match(url: str) -> list[Any]:
    """Every frame seat 0 receives in a 4-player match to 150 against easy bots, moves chosen
    as the first legal one."""
    frames: list[Any] = []
    async with connect(url) as socket:
        hello = {"type": "hello", "version": msg.PROTOCOL_VERSION, "name": "Bench"}
        await socket.send(json.dumps(hello))
        rules = {"players": 4, "target": 150, "public": False}
        await socket.send(json.dumps({"type": "create_room", "rules": rules}))
        for _ in range(3):
            await socket.send(json.dumps({"type": "add_bot", "level": "easy"}))
        await socket.send(json.dumps({"type": "start"}))
        document: dict[str, Any] | None = None
        sent_at = -1
        seq = 0
        while True:
            message = json.loads(await asyncio.wait_for(socket.recv(), 30))
            if message["type"] in ("snapshot", "patch", "moved", "joined"):
                frames.append(message)
            if message["type"] == "snapshot":
                document, seq = message["state"], message["seq"]
            elif message["type"] == "patch" and document is not None:
                document, seq = apply(document, message["ops"]), message["seq"]
            elif message["type"] == "moved" and document is not None:
                ops = moved_ops(document, msgspec.convert(message, msg.Moved))
                document, seq = apply(document, ops), message["seq"]
            if document is None:
                continue
            if document["phase"] == "finished":
                return frames
            game = document.get("game")
            if game and game["turn"] == document["you"] and game["legal"] and seq != sent_at:
                sent_at = seq
                move = game["legal"][0]
                play = {"type": "play", "tile": move["tile"]}
                if move.get("end"):
                    play["end"] = move["end"]
                await socket.send(json.dumps(move if move.get("pass") else play))


TIME_PATCHES = """
const done = arguments[arguments.length - 1];
import("/web/js/state.js").then(({ RoomState }) => {
  const frames = arguments[0];
  const times = [];
  for (let round = 0; round < 5; round += 1) {
    const room = new RoomState();
    for (const frame of frames) {
      const start = performance.now();
      room.receive(frame);
      if (frame.type === "patch" || frame.type === "moved") times.push(performance.now() - start);
    }
  }
  done(times);
});
"""


def measure(
    driver: WebDriver, base: str, count: int, server: Server, loop: asyncio.AbstractEventLoop
) -> tuple[list[int], list[float], list[float], int]:
    """Page weight and requests, `count` loads to "Connected", each change's apply time, and how
    many of the match's changes came as `moved` frames."""
    driver.execute_cdp_cmd("Network.enable", {})
    driver.execute_cdp_cmd("Network.setCacheDisabled", {"cacheDisabled": True})
    loads = []
    for _ in range(count):
        started = time.perf_counter()
        driver.get(base + "/")
        while driver.execute_script("return document.getElementById('status').textContent") != (
            "Connected"
        ):
            time.sleep(0.005)
        loads.append((time.perf_counter() - started) * 1000)
    sizes = driver.execute_script(
        "const n = performance.getEntriesByType('navigation')[0];"
        "const r = performance.getEntriesByType('resource');"
        "return [n.decodedBodySize + r.reduce((s, e) => s + e.decodedBodySize, 0),"
        " 1 + r.filter((e) => !e.name.startsWith('ws')).length];"
    )
    frames = asyncio.run_coroutine_threadsafe(record_match(server.url), loop).result(120)
    driver.set_script_timeout(60)
    times = sorted(driver.execute_async_script(TIME_PATCHES, frames))
    moved = sum(frame["type"] == "moved" for frame in frames)
    return sizes, loads, times, moved


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--loads", type=int, default=10)
    args = parser.parse_args()
    # A stalled browser, driver or server ends the script (and the browser) instead.
    stop_after(240 + 15 * args.loads, "bench/web.py")
    server, loop = start_server()
    base = f"http://127.0.0.1:{server.port}"
    try:
        with chromium() as driver:
            measured = measure(driver, base, args.loads, server, loop)
    finally:
        asyncio.run_coroutine_threadsafe(server.stop(), loop).result(10)
    sizes, loads, times, moved = measured
    print(f"page bytes: {sizes[0]}")
    print(f"page requests: {sizes[1]}")
    print(f"load to connected ms (median of {len(loads)}): {statistics.median(loads):.0f}")
    print(f"patches in the match: {len(times) // 5}")
    print(f"moved frames among them: {moved}")
    print(f"patch apply us (mean): {statistics.fmean(times) * 1000:.0f}")
    print(f"patch apply us (p99): {times[int(len(times) * 0.99)] * 1000:.0f}")


if __name__ == "__main__":
    main()
