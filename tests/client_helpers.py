"""Shared helpers for the terminal client's tests: room views on paper, an embedded server."""

from __future__ import annotations

import asyncio
import io
from collections.abc import Callable, Sequence
from typing import Any

from rich.console import Console
from server_helpers import fast_config
from websockets.asyncio.client import ClientConnection, connect

from clients.cli.render import render
from clients.cli.state import TableState
from protocol import messages as msg
from protocol.rules import RoomRules
from protocol.views import Ends, GameView, Layout, MoveSpec, Phase, RoomView, SeatInfo
from server.app import Config

TIMEOUT = 20.0


def embedded_config(**changes: Any) -> Config:
    """An embedded server: the test server's settings, on the loopback address."""
    return fast_config(**{"host": "127.0.0.1", **changes})


async def send(socket: ClientConnection, message: msg.ClientMessage) -> None:
    await socket.send(msg.encode(message).decode())


async def receive(socket: ClientConnection) -> msg.AnyServerMessage:
    return msg.decode_server(await asyncio.wait_for(socket.recv(), TIMEOUT))


async def wait_until(test: Callable[[], bool], timeout: float = TIMEOUT) -> None:
    """Let the event loop run until `test()` holds."""
    deadline = asyncio.get_running_loop().time() + timeout
    while not test():
        assert asyncio.get_running_loop().time() < deadline, "timed out"
        await asyncio.sleep(0.01)


async def host_room(url: str, players: int = 3) -> tuple[ClientConnection, str]:
    """A waiting public room opened by a scripted host ("Bob" at seat 0)."""
    socket = await connect(url)
    await send(socket, msg.Hello(version=msg.PROTOCOL_VERSION, name="Bob"))
    await send(socket, msg.CreateRoom(rules=RoomRules(players=players), seat=0))
    while not isinstance(joined := await receive(socket), msg.Joined):
        pass
    return socket, joined.room


def make_view(
    hand: Sequence[str] = ("5-3", "6-6", "4-1"),
    legal: Sequence[MoveSpec] | None = None,
    *,
    turn: int | None = 0,
    you: int | None = 0,
    host: int | None = 0,
    players: int = 2,
    phase: Phase = "playing",
    layout: Layout | None = None,
    ends: Ends | None = None,
    total: int = 0,
    scores: Sequence[int] | None = None,
    seats: Sequence[SeatInfo | None] | None = None,
    **game: Any,
) -> RoomView:
    """A room view as the server would send it to seat `you`, with a match unless waiting."""
    if seats is None:
        seats = [SeatInfo(seat=0, name="Ann", kind="human")] + [
            SeatInfo(seat=index, name="bot:normal", kind="bot", level="normal")
            for index in range(1, players)
        ]
    rules = RoomRules(players=players, target=game.pop("target", 100))
    view_game = None
    if phase != "waiting":
        view_game = GameView(
            hand_number=1,
            leader=0,
            hand=list(hand),
            hand_counts=[len(hand)] * players,
            boneyard=28 - len(hand) * players,
            layout=layout or Layout(),
            ends=ends or Ends(),
            total=total,
            scores=list(scores) if scores is not None else [0] * rules.sides,
            target=rules.target_score,
            turn=turn,
            legal=list(legal) if legal is not None else [MoveSpec(tile=tile) for tile in hand],
            **game,
        )
    return RoomView(
        code="ABCD", rules=rules, seats=list(seats), you=you, host=host, phase=phase, game=view_game
    )


#: 6-6 spinner with 6-1 east and 6-5 west: open west 5, east 1, north 6, south 6.
CROSS = Layout(line=[[5, 6], [6, 6], [6, 1]], spinner=1)


CROSS_ENDS = Ends(west=5, east=1, north=6, south=6)


#: The legal list the server sends there, with what each play makes (tests/test_client_results.py
#: checks these totals against the engine).
CROSS_LEGAL = [
    MoveSpec(tile="5-1", end="west", total=2),
    MoveSpec(tile="5-1", end="east", total=10, points=10),
    MoveSpec(tile="6-3", end="north", total=9),
    MoveSpec(tile="6-3", end="south", total=9),
    MoveSpec(tile="5-4", total=5, points=5),
]


def cross_view(**changes: Any) -> RoomView:
    """A position where 5-1 fits west or east, 6-3 north or south, 5-4 only west."""
    fields: dict[str, Any] = {
        "hand": ["5-1", "5-4", "6-3", "2-2"],
        "legal": CROSS_LEGAL,
        "layout": CROSS,
        "ends": CROSS_ENDS,
        "total": 12,
    }
    fields.update(changes)
    return make_view(**fields)


def state_of(view: RoomView) -> TableState:
    """A client state holding `view` as its snapshot (its history in the log)."""
    state = TableState()
    state.receive(msg.Snapshot(seq=1, state=view))
    return state


def screen(view: RoomView, width: int = 80, height: int = 24, **options: Any) -> list[str]:
    """The table as the App draws it, as plain text rows (no colour)."""
    body, footer = render(state_of(view), width - 1, height - 1, **options)
    console = Console(record=True, width=width, no_color=True, file=io.StringIO())
    for row in [*body, *footer]:
        console.print(row, no_wrap=True, overflow="crop")
    return console.export_text().splitlines()
