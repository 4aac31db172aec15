"""Shared helpers for the terminal client's tests: how long they wait (`TIMEOUT`) and where the
checkout is (`ROOT`); and the client against a real server: an embedded server's settings
(`embedded_config`), a scripted host (`host_room`), connections that play a match to its end
(`finished_between_two`), and tournaments stored or played out for the client to list.

The table on paper is in tests/table_helpers.py, the terminal in tmux in tests/tmux_helpers.py,
and the `allfives` command run by a test in tests/command_helpers.py.
"""

from __future__ import annotations

import asyncio
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from server_helpers import fast_config
from waiting import until
from websockets.asyncio.client import ClientConnection, connect

from clients.cli.connection import Connection
from clients.cli.state import TableState
from protocol import messages as msg
from protocol.rules import RoomRules
from server.app import Config

TIMEOUT = 20.0
ROOT = Path(__file__).resolve().parent.parent


def embedded_config(**changes: Any) -> Config:
    """An embedded server: the test server's settings, on the loopback address."""
    return fast_config(**{"host": "127.0.0.1", **changes})


async def send(socket: ClientConnection, message: msg.ClientMessage) -> None:
    await socket.send(msg.encode(message).decode())


async def receive(socket: ClientConnection) -> msg.AnyServerMessage:
    return msg.decode_server(await asyncio.wait_for(socket.recv(), TIMEOUT))


async def host_room(url: str, players: int = 3) -> tuple[ClientConnection, str]:
    """A waiting public room opened by a scripted host ("Bob" at seat 0)."""
    socket = await connect(url)
    await send(socket, msg.Hello(version=msg.PROTOCOL_VERSION, name="Bob"))
    await send(socket, msg.CreateRoom(rules=RoomRules(players=players), seat=0))
    while not isinstance(joined := await receive(socket), msg.Joined):
        pass
    return socket, joined.room


async def play_to_the_end(connection: Connection, timeout: float) -> None:
    """Play the first legal move whenever it is this seat's turn, until the match is over."""
    state = connection.state
    asked: int | None = None

    async def over() -> bool:
        nonlocal asked
        if (view := state.view) is not None and view.phase == "finished":
            return True
        game = state.game
        if state.my_turn() and game is not None and asked != state.seq:
            asked = state.seq
            move = game.legal[0]
            if move.pass_ or move.tile is None:
                await connection.send(msg.Pass())
            else:
                await connection.send(msg.Play(tile=move.tile, end=move.end))
        return False

    await until(over, timeout, "the match to end")


def against_easy_bots(
    players: int = 2, seat: int | None = None, **rules: Any
) -> list[msg.ClientMessage]:
    """The first messages of a match against easy bots: a room (private unless `rules` say
    otherwise) whose other seats are bots, and its start."""
    rules.setdefault("public", False)
    return [
        msg.CreateRoom(rules=RoomRules(players=players, **rules), seat=seat),
        *[msg.AddBot(level="easy") for _ in range(players - 1)],
        msg.Start(),
    ]


async def play_first_legal(
    connection: Connection, state: TableState, answered: int | None
) -> int | None:
    """On this client's turn, if its `seq` is not `answered` yet, send the first legal move;
    the `seq` answered last (this one once its move is sent)."""
    view = state.view
    game = view.game if view is not None else None
    seq = state.seq
    if not state.my_turn() or game is None or seq == answered:
        return answered
    spec = game.legal[0]
    assert spec.pass_ or spec.tile is not None
    await connection.send(
        msg.Pass() if spec.tile is None else msg.Play(tile=spec.tile, end=spec.end)
    )
    return seq


async def finished_between_two(url: str) -> tuple[Connection, Connection, list[asyncio.Task[None]]]:
    """Ann hosts a private room of two to 15 points, Bořek joins, and both play it to the end:
    the two connections and their running tasks (`close_all` ends them)."""
    rules = RoomRules(players=2, target=15, public=False)
    host = Connection(url, "Ann", TableState())
    hosting = asyncio.create_task(host.run([msg.CreateRoom(rules=rules)]))
    room = await until(lambda: host.state.room)
    guest = Connection(url, "Bořek", TableState())
    joining = asyncio.create_task(guest.run([msg.Join(room=room)]))
    await until(lambda: (v := host.state.view) is not None and all(v.seats))
    await host.send(msg.Start())
    await asyncio.gather(play_to_the_end(host, TIMEOUT * 3), play_to_the_end(guest, TIMEOUT * 3))
    return host, guest, [hosting, joining]


async def close_all(connections: Sequence[Connection], tasks: Sequence[asyncio.Task[None]]) -> None:
    """Close each connection and wait for its task to end."""
    for connection in connections:
        await connection.close()
    await asyncio.gather(*(asyncio.wait_for(task, TIMEOUT) for task in tasks))


async def played_tournament(
    server: Any,
    code: str,
    people: Sequence[str],
    bots: Sequence[str] = (),
    finished_rounds: int = 1,
    name: str = "Friday cup",
    format: str = "round_robin",
) -> None:
    """A round robin (or another `format`) at tables of two stored on `server` as `code` (the
    pure core's own commands: made, entered by `people` and `bots`, started), with the tables
    of its first `finished_rounds` rounds played: the first seat wins each by 100 to a score
    that grows."""
    from server.desk.kept import Kept, encode
    from server.tournaments import state

    host = "host-player"
    tournament = state.apply(
        None,
        state.Create(
            name=name,
            format=format,  # type: ignore[arg-type]
            table_size=2,
            rules=RoomRules(players=2),
            host=host,
        ),
    )
    for index, person in enumerate(people):
        tournament = state.apply(tournament, state.Join(by=f"player-{index}", name=person))
    for level in bots:
        tournament = state.apply(tournament, state.Join(by=host, bot=level))  # type: ignore[arg-type]
    tournament = state.apply(tournament, state.Start(by=host))
    rooms = iter(f"R{number:03d}" for number in range(1000))
    for round_index in range(finished_rounds):
        played = tournament.rounds[round_index]
        for table_index, table in enumerate(played.tables):
            opened = state.TableOpened(round=round_index, table=table_index, room=next(rooms))
            tournament = state.apply(tournament, opened)
            scores = [100, 40 + 5 * table_index][: len(table.seats)]
            done = state.TableFinished(round=round_index, table=table_index, scores=scores)
            tournament = state.apply(tournament, done)
    kept = Kept(tournament=tournament, host_name=people[0] if people else "Host")
    await server.store.tournaments.save(code, 1, encode(kept))


async def bots_tournament_with_games(url: str, bots: int = 3) -> Any:
    """A round robin of `bots` bots at tables of two (to 50) made by a player on the server at
    `url`, played out by its bots: its public view (`TournamentView`) once it is finished and
    every table names its archived game."""
    from server_helpers import api_get
    from tournament_helpers import bots_tournament_started

    from protocol import api
    from protocol.tournaments import TournamentView

    started = await bots_tournament_started(url, bots, target=50)

    async def played() -> TournamentView | None:
        answer = await api_get(url, f"/api/tournaments/{started.tournament}")
        view = api.decode_answer(answer.body, TournamentView)
        tables = [table for played in view.rounds for table in played.tables]
        done = view.phase == "finished" and all(table.game for table in tables)
        return view if done else None

    return await until(played, 120, "the bots' tournament played, every game noted", every=0.2)
