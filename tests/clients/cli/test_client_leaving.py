"""Leaving and being pushed out: a seat taken over in another window, a host who closes the room,
a second `join` under another name, and asking the host before a room is closed for everyone."""

from __future__ import annotations

import asyncio
import io
from pathlib import Path

import pytest
from client_helpers import TIMEOUT, against_easy_bots, embedded_config, host_room
from table_helpers import make_view, state_of
from waiting import until

from clients.cli import join, local
from clients.cli.app import App
from clients.cli.connection import Connection, Fatal
from clients.cli.mode import Mode
from clients.cli.seats import SeatStore
from clients.cli.state import TableState
from protocol import messages as msg
from protocol.rules import RoomRules
from server.app import Server


async def test_a_seat_taken_over_in_another_window_ends_the_older_client_without_retrying(
    server: Server,
) -> None:
    first = Connection(server.url, "Ann", TableState())
    opening = [msg.CreateRoom(rules=RoomRules(players=2)), msg.AddBot(), msg.Start()]
    older = asyncio.create_task(first.run(opening))
    await until(lambda: first.state.view is not None and first.state.view.phase == "playing")
    state = TableState()
    state.room, state.seat, state.token = first.state.room, first.state.seat, first.state.token
    second = Connection(server.url, "Ann", state)
    newer = asyncio.create_task(second.run(resume=True))
    with pytest.raises(Fatal, match="this seat was taken over in another window"):
        await asyncio.wait_for(older, TIMEOUT)
    await until(lambda: second.state.view is not None and second.state.view.you == 0)
    assert second.socket is not None and not newer.done()
    await second.close()
    await asyncio.wait_for(newer, TIMEOUT)


async def test_when_the_host_closes_the_room_friends_are_told_and_stop_retrying(
    server: Server,
) -> None:
    host, room = await host_room(server.url, players=2)
    friend = Connection(server.url, "Cid", TableState())
    running = asyncio.create_task(friend.run([msg.Join(room=room)]))
    await until(lambda: friend.ready.is_set())
    await server.close_for_good("the host closed the room")
    with pytest.raises(Fatal, match=r"^the host closed the room$"):
        await asyncio.wait_for(running, TIMEOUT)
    await host.close()


async def test_join_under_another_name_does_not_take_the_saved_seat(
    server: Server,
    tmp_path: Path,
) -> None:
    host, room = await host_room(server.url)
    seats = SeatStore(tmp_path / "seats.json")
    connection, first, resume = join.plan(server.url, room, "Ann", seats=seats)
    running = asyncio.create_task(connection.run(first, resume))
    await until(lambda: connection.ready.is_set())
    assert connection.state.seat == 1
    # Another window, another name: a seat of its own, Ann keeps hers.
    other, first, resume = join.plan(server.url, room, "Carl", seats=seats)
    assert not resume and other.name == "Carl"
    notice = other.state.notice
    assert notice is not None and "Not taking back seat 2 of room" in notice.text
    again = asyncio.create_task(other.run(first, resume))
    await until(lambda: other.ready.is_set())
    view = other.state.view
    assert view is not None and view.you == 2
    assert [seat.name if seat else None for seat in view.seats] == ["Bob", "Ann", "Carl"]
    assert connection.socket is not None and not running.done()
    # Without --name, the saved seat comes back under its own name.
    _, _, resume = join.plan(server.url, room, None, seats=seats)
    assert resume
    for client, task in ((connection, running), (other, again)):
        await client.close()
        await asyncio.wait_for(task, TIMEOUT)
    await host.close()


async def test_the_host_is_asked_before_quitting_closes_the_room_for_friends(
    server: Server,
) -> None:
    connection = Connection(server.url, "Ann", TableState())
    running = asyncio.create_task(connection.run([msg.CreateRoom(rules=RoomRules(players=2))]))
    await until(lambda: connection.ready.is_set())
    app = App(connection, Mode.HOST)
    assert app.quit_asked()  # alone at the table: nobody to ask about
    room = connection.state.room
    assert room is not None
    friend = Connection(server.url, "Cid", TableState())
    joined = asyncio.create_task(friend.run([msg.Join(room=room)]))
    await until(lambda: (v := connection.state.view) is not None and v.seats[1] is not None)
    assert not app.quit_asked()
    assert app.confirming and "y closes the room" in (connection.state.notice or "").__str__()
    assert await app.handle("n") and not app.confirming
    assert not app.quit_asked()
    assert not await app.handle("y")
    for client, task in ((connection, running), (friend, joined)):
        await client.close()
        await asyncio.wait_for(task, TIMEOUT)


async def test_after_the_server_is_gone_for_good_the_client_stops_and_says_how_to_come_back(
    tmp_path: Path,
) -> None:
    server = Server(embedded_config(port=0))
    await server.start()
    connection = Connection(server.url, "Ann", TableState(), seats=SeatStore(tmp_path / "s.json"))
    connection.give_up_after = 1.0
    running = asyncio.create_task(connection.run(against_easy_bots()))
    await until(lambda: (v := connection.state.view) is not None and v.phase == "playing")
    room = connection.state.room
    url = server.url.rstrip("/")
    await server.stop()
    with pytest.raises(Fatal, match="has not answered") as stopped:
        await asyncio.wait_for(running, TIMEOUT)
    assert f"join {url} {room}" in str(stopped.value)


async def test_leaving_during_a_match_prints_the_whole_command_to_come_back(
    server: Server,
) -> None:
    connection = Connection(server.url, "Ann", TableState())
    running = asyncio.create_task(connection.run(against_easy_bots()))
    await until(lambda: (v := connection.state.view) is not None and v.phase == "playing")
    said = io.StringIO()
    app = App(connection, output=said)
    app._farewell()
    room = connection.state.room
    assert f"come back with: {local.command()} join {server.url.rstrip('/')} {room}" in (
        " ".join(said.getvalue().split())
    )
    await connection.close()
    await asyncio.wait_for(running, TIMEOUT)


def test_at_narrow_widths_the_placeholder_is_in_brackets_never_like_typed_text() -> None:
    app = App(Connection("ws://127.0.0.1:1/", "Ann", state_of(make_view())))
    app.size = (60, 20)
    shown = "".join(text for _, text, *_ in app._placeholder())
    assert shown.startswith("(") and shown.endswith(")")
