"""Attacks on one server, each for a bounded time, and what a bystander room meets meanwhile.

The server runs in a process of its own (`allfives serve`, its default limits). A bystander room
of two scripted players, connected from 127.0.0.2, plays moves back to back and pings the server
the whole time; each attack comes from another address, 127.0.0.3 and on (loopback holds all of
127.0.0.0/8, so the server tells them apart as it would two hosts). For each attack it prints
the bystander's ping and move round trips (p50, p99, in ms), how many moves it made, what the
attacker was answered, and how much the server's resident memory grew:

- `quiet`: no attack, the figures to compare with.
- `refused joins`: connections in a room sending `join` for a room that is playing or full.
- `guessing`: 30 connections looking up rooms that do not exist (the failed-lookup budget).
- `rooms`: rooms created (and left) as fast as the server takes them.
- `half-open`: sockets opened and never upgraded, as many as the address may hold, held.
- `room lists`: 30 connections asking for the room list with 300 public rooms open (the
  memory growth includes those rooms and their hosts' connections, opened first).
- `chat`: a chat line sent again and again with one `id`, and new lines past the room's rate.
- `flood`: malformed frames as fast as one connection can send them, connection after
  connection.

Each attack runs in a process of its own, apart from the bystanders (a flood that keeps its own
event loop busy must not be what delays them), and comes from an address of its own
(127.0.0.3, .4, ...), so that what one attack
left behind (rooms, spent budgets) does not blunt the next. The attackers send at the
per-connection rate the server allows (10 a second), except the flood.

Goal on a 2-core machine: the bystander's p99 under 25 ms during every attack.

Usage: uv run python bench/abuse.py [--seconds 8]
Every figure is printed as `name: value`; the whole run ends by itself (each attack is given
`--seconds`, and the run stops with a clear message past an overall deadline).
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import itertools
import json
import multiprocessing
import time
from collections import Counter
from collections.abc import Awaitable, Callable
from multiprocessing.connection import Connection
from typing import Any

import jsonpatch
from measure import percentile, report, resident_kib, start_process
from websockets.asyncio.client import ClientConnection, connect
from websockets.exceptions import WebSocketException

from protocol import messages as msg
from protocol.patch import operations_of

BYSTANDER = "127.0.0.2"
#: Between an attacker connection's messages: what the server's per-connection rate allows
#: (10 a second; `flood` alone goes faster, to be closed for it).
PACE = 0.1
Attack = Callable[[str, str, float, Counter[str]], Awaitable[None]]


class Speaker:
    """A connection that says hello and matches replies to requests by `id`."""

    def __init__(self, socket: ClientConnection) -> None:
        self.socket = socket
        self.ids = itertools.count(1)
        self.document: dict[str, Any] = {}
        self.waiting: dict[int, asyncio.Future[dict[str, Any]]] = {}
        self.reader = asyncio.ensure_future(self._read())

    @classmethod
    async def open(cls, url: str, address: str, name: str) -> Speaker:
        socket = await connect(url, local_addr=(address, 0), max_size=2**22)
        speaker = cls(socket)
        await speaker.ask("hello", version=3, name=name)
        return speaker

    async def ask(self, kind: str, **fields: Any) -> dict[str, Any]:
        id = next(self.ids)
        answer = self.waiting[id] = asyncio.get_running_loop().create_future()
        await self.socket.send(json.dumps({"type": kind, "id": id, **fields}))
        try:
            return await asyncio.wait_for(answer, 10)
        except TimeoutError:
            raise RuntimeError(f"no answer to {kind} {fields} within 10 s") from None

    async def _read(self) -> None:
        with contextlib.suppress(WebSocketException, asyncio.CancelledError):
            async for frame in self.socket:
                message = json.loads(frame)
                if message["type"] == "snapshot":
                    self.document = message["state"]
                elif message["type"] in ("patch", "moved"):
                    change = msg.decode_server(frame)
                    assert isinstance(change, msg.Change)
                    ops = operations_of(self.document, change)
                    jsonpatch.apply_patch(self.document, ops, in_place=True)
                waiter = self.waiting.pop(message.get("id") or 0, None)
                if waiter is not None and not waiter.done():
                    waiter.set_result(message)

    async def close(self) -> None:
        self.reader.cancel()
        await self.socket.close()


async def bystanders(url: str, stop: asyncio.Event) -> tuple[list[float], list[float]]:
    """Two players play against each other until `stop`; the ping and move round trips (s)."""
    ann = await Speaker.open(url, BYSTANDER, "Ann")
    joined = await ann.ask("create_room", rules={"players": 2, "public": False})
    bob = await Speaker.open(url, BYSTANDER, "Bob")
    await bob.ask("join", room=joined["room"])
    await ann.ask("start")
    pings: list[float] = []
    moves: list[float] = []
    try:
        while not stop.is_set():
            started = time.perf_counter()
            await ann.ask("ping")
            pings.append(time.perf_counter() - started)
            for player in (ann, bob):
                game = player.document.get("game") or {}
                if player.document.get("phase") == "finished":
                    await ann.ask("rematch")
                    await ann.ask("start")
                    break
                if game.get("turn") == player.document.get("you") and game.get("legal"):
                    choice = game["legal"][0]
                    started = time.perf_counter()
                    if choice.get("pass"):
                        await player.ask("pass")
                    else:
                        await player.ask("play", tile=choice["tile"], end=choice.get("end"))
                    moves.append(time.perf_counter() - started)
            await asyncio.sleep(0.01)
    finally:
        await ann.close()
        await bob.close()
    return pings, moves


async def until(deadline: float) -> bool:
    await asyncio.sleep(0)
    return time.monotonic() < deadline


async def quiet(url: str, attacker: str, seconds: float, seen: Counter[str]) -> None:
    await asyncio.sleep(seconds)


async def refused_joins(url: str, attacker: str, seconds: float, seen: Counter[str]) -> None:
    host = await Speaker.open(url, attacker, "Host")
    full = await host.ask("create_room", rules={"players": 2})
    await host.ask("add_bot", level="easy")
    joiners = [await Speaker.open(url, attacker, f"J{n}") for n in range(8)]
    for first in (0, 4):  # two rooms of four, each joiner seated in one
        room = (await joiners[first].ask("create_room", rules={"players": 4}))["room"]
        for joiner in joiners[first + 1 : first + 4]:
            await joiner.ask("join", room=room)
    deadline = time.monotonic() + seconds
    while await until(deadline):
        answers = await asyncio.gather(*(j.ask("join", room=full["room"]) for j in joiners))
        seen.update(a.get("code", a["type"]) for a in answers)
        await asyncio.sleep(PACE)
    for speaker in [host, *joiners]:
        await speaker.close()


async def guessing(url: str, attacker: str, seconds: float, seen: Counter[str]) -> None:
    guessers = [await Speaker.open(url, attacker, f"G{n}") for n in range(30)]
    deadline = time.monotonic() + seconds
    codes = itertools.cycle("".join(c) for c in itertools.product("BCDFGHJKMNPQRSTVWXZ", repeat=4))
    while await until(deadline):
        answers = await asyncio.gather(*(g.ask("join", room=next(codes)) for g in guessers))
        seen.update(a.get("code", a["type"]) for a in answers)
        await asyncio.sleep(PACE)
    for guesser in guessers:
        await guesser.close()


async def rooms(url: str, attacker: str, seconds: float, seen: Counter[str]) -> None:
    maker = await Speaker.open(url, attacker, "Maker")
    deadline = time.monotonic() + seconds
    while await until(deadline):
        answer = await maker.ask("create_room", rules={"players": 2, "target": 5})
        seen[answer.get("code", answer["type"])] += 1
        if answer["type"] == "joined":
            await maker.ask("leave")
        await asyncio.sleep(PACE)
    await maker.close()


async def half_open(url: str, attacker: str, seconds: float, seen: Counter[str]) -> None:
    port = int(url.rsplit(":", 1)[1].strip("/"))
    held = []
    deadline = time.monotonic() + seconds
    while await until(deadline):
        try:
            reader, writer = await asyncio.open_connection(
                "127.0.0.1", port, local_addr=(attacker, 0)
            )
        except OSError:
            seen["connect failed"] += 1
            await asyncio.sleep(0.05)
            continue
        try:
            answer = await asyncio.wait_for(reader.read(12), 0.05)
        except TimeoutError:
            answer = b""
        if answer:
            seen[answer.decode(errors="replace").strip()] += 1
            writer.close()
            await asyncio.sleep(0.02)
        else:
            seen["held"] += 1
            held.append(writer)
    for writer in held:
        writer.close()


async def room_lists(url: str, attacker: str, seconds: float, seen: Counter[str]) -> None:
    hosts = []
    for n in range(300):  # public rooms to list, from the bystander's side of the machine
        host = await Speaker.open(url, f"127.0.1.{n % 250 + 1}", f"H{n}")
        await host.ask("create_room", rules={"players": 4})
        hosts.append(host)
    readers = [await Speaker.open(url, attacker, f"R{n}") for n in range(30)]
    received = 0
    deadline = time.monotonic() + seconds
    while await until(deadline):
        answers = await asyncio.gather(*(r.ask("list_rooms") for r in readers))
        seen.update(a.get("code", a["type"]) for a in answers)
        received += sum(len(json.dumps(a)) for a in answers)
        await asyncio.sleep(PACE)
    seen["bytes received"] = received
    for speaker in hosts + readers:
        await speaker.close()


async def chat(url: str, attacker: str, seconds: float, seen: Counter[str]) -> None:
    talker = await Speaker.open(url, attacker, "Talker")
    await talker.ask("create_room", rules={"players": 2})
    deadline = time.monotonic() + seconds
    lines = itertools.count()
    while await until(deadline):
        id = 7 if next(lines) % 2 else next(talker.ids)
        answer = talker.waiting[id] = asyncio.get_running_loop().create_future()
        await talker.socket.send(json.dumps({"type": "chat", "id": id, "text": "again"}))
        reply = await asyncio.wait_for(answer, 10)
        seen[reply.get("code", reply["type"])] += 1
        await asyncio.sleep(PACE)
    seen["lines kept"] = len(talker.document.get("chat", []))
    await talker.close()


async def flood(url: str, attacker: str, seconds: float, seen: Counter[str]) -> None:
    deadline = time.monotonic() + seconds
    while await until(deadline):
        socket = await connect(url, local_addr=(attacker, 0))
        try:
            await socket.send(json.dumps({"type": "hello", "version": 3, "name": "Flood"}))
            for _ in range(500):
                await socket.send("{not json" * 50)
                seen["sent"] += 1
            while True:  # read the answers until the server closes the connection
                await asyncio.wait_for(socket.recv(), 10)
        except WebSocketException:
            seen["closed by the server"] += 1
        await socket.close()


ATTACKS: dict[str, Attack] = {
    "quiet": quiet,
    "refused joins": refused_joins,
    "guessing": guessing,
    "rooms": rooms,
    "half-open": half_open,
    "room lists": room_lists,
    "chat": chat,
    "flood": flood,
}


def attacking(name: str, url: str, attacker: str, seconds: float, answers: Connection) -> None:
    """In a process of its own: run one attack, then send back what the attacker was answered."""
    seen: Counter[str] = Counter()
    asyncio.run(asyncio.wait_for(ATTACKS[name](url, attacker, seconds, seen), seconds + 60))
    answers.send(dict(seen))


async def run(url: str, pid: int, seconds: float) -> float:
    worst = 0.0
    context = multiprocessing.get_context("spawn")
    for number, name in enumerate(ATTACKS):
        attacker = f"127.0.0.{3 + number}"  # each attack from an address of its own
        stop = asyncio.Event()
        playing = asyncio.ensure_future(bystanders(url, stop))
        await asyncio.sleep(0.5)
        before = resident_kib(pid)
        # The attack runs in a process of its own: a flood that keeps its own event loop busy
        # must not delay the bystanders' measurements in this one.
        receiving, sending = context.Pipe(duplex=False)
        process = context.Process(
            target=attacking, args=(name, url, attacker, seconds, sending), daemon=True
        )
        process.start()
        try:
            await asyncio.get_running_loop().run_in_executor(None, process.join, seconds + 70)
            if process.exitcode != 0 or not receiving.poll():
                raise RuntimeError(f"the {name} attack failed (exit code {process.exitcode})")
            seen: Counter[str] = Counter(receiving.recv())
        finally:
            process.kill()
            stop.set()
            pings, moves = await playing
        p99 = max(percentile(pings, 0.99), percentile(moves, 0.99)) * 1000
        worst = max(worst, p99)
        report(f"{name} ping p50 ms", percentile(pings, 0.5) * 1000)
        report(f"{name} ping p99 ms", percentile(pings, 0.99) * 1000)
        report(f"{name} move p50 ms", percentile(moves, 0.5) * 1000)
        report(f"{name} move p99 ms", percentile(moves, 0.99) * 1000)
        report(f"{name} moves", len(moves))
        report(f"{name} attacker answered", ", ".join(f"{k} {v}" for k, v in seen.most_common()))
        report(f"{name} server rss growth KiB", resident_kib(pid) - before)
    return worst


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n", 1)[0])
    parser.add_argument("--seconds", type=float, default=8.0, help="each attack's time")
    args = parser.parse_args()
    server, url = start_process(
        ["-m", "allfives.cli", "serve", "--port", "0", "--log-level", "ERROR"]
    )
    try:
        deadline = len(ATTACKS) * (args.seconds + 70) + 60
        worst = asyncio.run(asyncio.wait_for(run(url, server.pid, args.seconds), deadline))
        report("worst bystander p99 ms", worst)
        report("goal met (p99 < 25 ms)", "yes" if worst < 25 else "no")
    except TimeoutError:
        raise SystemExit(f"bench/abuse.py: no end after {deadline:.0f} s; stopped") from None
    finally:
        server.kill()
        server.wait()


if __name__ == "__main__":
    main()
