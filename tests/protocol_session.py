"""The example session of protocol/README.md, played against a real server.

`tests/protocol/test_protocol.py` runs it and checks that the README shows exactly these frames, so the
document cannot drift from the server. After a change to the wire, rewrite the README's example
from a fresh run with::

    uv run python tests/protocol_session.py --write

The deal and the bot's choices are made deterministic by fixing the server's random draws; the
room code and the seat token, random by design, are written as `KXQP` and `TOKEN`.
"""

from __future__ import annotations

import asyncio
import secrets
import sys
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

import msgspec
from waiting import until
from websockets.asyncio.client import ClientConnection, connect

from protocol import messages as msg
from protocol.patch import ClientState
from server.app import Config, run_server

README = Path(__file__).resolve().parent.parent / "protocol" / "README.md"
START, STOP = "<!-- session:start -->", "<!-- session:stop -->"
DOCUMENT_START, DOCUMENT_STOP = "<!-- document:start -->", "<!-- document:stop -->"
#: The server's draw for the deal: with it, Ann (seat 0) leads the first hand.
DEAL_SEED = 11
CODE, TOKEN = "KXQP", "TOKEN"
#: The rooms' clock in the session (Unix seconds): 2023-11-14 22:13:20 UTC.
FIXED_TIME = 1_700_000_000.0

Frames = list[tuple[str, str]]


@contextmanager
def fixed_draws() -> Iterator[None]:
    """Make the server's random deal and bot seeds the same on every run."""
    original = secrets.randbits
    secrets.randbits = lambda bits: DEAL_SEED  # type: ignore[assignment]
    try:
        yield
    finally:
        secrets.randbits = original


class Talk:
    """One connection, writing down every frame both ways."""

    def __init__(self, socket: ClientConnection, frames: Frames) -> None:
        self.socket = socket
        self.frames = frames
        self.state = ClientState()

    async def send(self, **fields: Any) -> None:
        text = msgspec.json.encode(fields).decode()
        self.frames.append(("C", text))
        await self.socket.send(text)

    async def read(self) -> dict[str, Any]:
        raw = await asyncio.wait_for(self.socket.recv(), 5)
        text = raw if isinstance(raw, str) else raw.decode()
        self.frames.append(("S", text))
        decoded = msg.decode_server(text)
        if isinstance(decoded, msg.Snapshot):
            self.state.on_snapshot(decoded)
        elif isinstance(decoded, msg.Change):
            self.state.on_patch(decoded)
        message: dict[str, Any] = msgspec.json.decode(text)
        return message

    def game(self) -> dict[str, Any]:
        """The match part of the document held."""
        assert self.state.document is not None
        game: dict[str, Any] = self.state.document["game"]
        return game

    async def until(self, *kinds: str, **fields: Any) -> dict[str, Any]:
        while True:
            message = await self.read()
            if message["type"] in kinds and all(message.get(k) == v for k, v in fields.items()):
                return message


async def run_session() -> Frames:
    """Play the README's session; returns its frames."""
    frames: Frames = []
    # The rooms' wall clock stands still, so a turn's deadline in the frames is the same each run.
    config = Config.of(
        port=0,
        bot_delay=0.5,
        bot_processes=False,
        rate=1000.0,
        burst=1000,
        clock=lambda: FIXED_TIME,
    )
    with fixed_draws():
        async with run_server(config) as server:
            socket = await connect(server.url)
            ann = Talk(socket, frames)
            await ann.send(type="hello", version=msg.PROTOCOL_VERSION, name="Ann", id=1)
            await ann.until("welcome")
            rules = {"players": 2, "target": 150}
            await ann.send(type="create_room", rules=rules, id=2)
            joined = await ann.until("joined")
            await ann.until("snapshot")
            await ann.send(type="add_bot", level="normal", id=3)
            await ann.until("ack", id=3)
            await ann.send(type="start", id=4)
            await ann.until("ack", id=4)
            live = server.rooms[joined["room"]]
            game = live.room.match
            assert game is not None and game.turn == 0, "DEAL_SEED must give Ann the lead"
            hand = [f"{t.low}-{t.high}" for t in game.hand_of(0) if not t.is_double]
            await ann.send(type="play", tile=hand[0], id=5)  # a lead written low number first
            await ann.until("ack", id=5)
            await ann.until("patch", "moved", seq=live.room.seq + 1)  # the bot's answer
            legal = [m["tile"] for m in ann.game()["legal"]]
            refused = next(t for t in ann.game()["hand"] if t not in legal)
            await ann.send(type="play", tile=refused, id=6)
            await ann.until("error", id=6)
            await ann.send(type="play", tile=legal[0], id=7)
            await ann.until("ack", id=7)
            last_seq = live.room.seq
            await socket.close()
            await until(
                lambda: live.room.seq >= last_seq + 2, what="the server to drop Ann, then the bot"
            )
            held = ann.state
            socket = await connect(server.url)
            ann = Talk(socket, frames)
            ann.state = held  # what Ann's client kept while away
            await ann.send(
                type="hello",
                version=msg.PROTOCOL_VERSION,
                name="Ann",
                token=joined["seat_token"],
                room=joined["room"],
                last_seq=last_seq,
                id=1,
            )
            await ann.until("joined")
            while ann.state.seq != live.room.seq:
                await ann.read()
            await socket.close()
    return [(side, _plain(text, joined["room"], joined["seat_token"])) for side, text in frames]


def _plain(text: str, code: str, token: str) -> str:
    return text.replace(f'"{code}"', f'"{CODE}"').replace(token, TOKEN)


def readme_session() -> Frames:
    """The frames the README shows between its session markers."""
    text = README.read_text()
    block = text[text.index(START) : text.index(STOP)]
    return [(line[0], line[3:]) for line in block.splitlines() if line[:3] in ("C: ", "S: ")]


def final_document(frames: Frames) -> dict[str, Any]:
    """Ann's document at the end of the session, as her client holds it."""
    state = ClientState()
    for side, frame in frames:
        message = msg.decode_server(frame) if side == "S" else None
        if isinstance(message, msg.Snapshot):
            state.on_snapshot(message)
        elif isinstance(message, msg.Change):
            state.on_patch(message)
    assert state.document is not None
    return state.document


def document_text(document: dict[str, Any]) -> str:
    """A room document laid out to read: a line per field, a line per field of `game`."""

    def compact(value: Any) -> str:
        return msgspec.json.encode(value).decode().replace('":', '": ').replace(",", ", ")

    lines = ["{"]
    for index, (key, value) in enumerate(document.items()):
        comma = "," if index < len(document) - 1 else ""
        if isinstance(value, dict) and key == "game":
            lines.append(f'  "{key}": {{')
            for inner, (field, item) in enumerate(value.items()):
                more = "," if inner < len(value) - 1 else ""
                lines.append(f'    "{field}": {compact(item)}{more}')
            lines.append(f"  }}{comma}")
        else:
            lines.append(f'  "{key}": {compact(value)}{comma}')
    lines.append("}")
    return "\n".join(lines)


def _replace_between(text: str, start: str, stop: str, body: str) -> str:
    head, rest = text.split(start, 1)
    _, tail = rest.split(stop, 1)
    return f"{head}{start}\n{body}\n{stop}{tail}"


def write(frames: Frames) -> None:
    """Put a run's frames and Ann's last document into the README, between their markers."""
    text = README.read_text()
    lines = "\n".join(f"{side}: {frame}" for side, frame in frames)
    text = _replace_between(text, START, STOP, f"```\n{lines}\n```")
    document = document_text(final_document(frames))
    text = _replace_between(text, DOCUMENT_START, DOCUMENT_STOP, f"```json\n{document}\n```")
    README.write_text(text)


if __name__ == "__main__":
    session = asyncio.run(run_session())
    if sys.argv[1:] == ["--write"]:
        write(session)
    else:
        print("\n".join(f"{side}: {frame}" for side, frame in session))
