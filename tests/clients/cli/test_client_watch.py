"""Who can find and see a room: `host` rooms stay unlisted unless --public, `watch` spectates."""

from __future__ import annotations

import argparse
import asyncio
from pathlib import Path

import pexpect  # type: ignore[import-untyped]
import pytest
from client_helpers import TIMEOUT, against_easy_bots, close_all, finished_between_two, host_room
from command_helpers import spawn_plain
from redis_server import RedisServer
from server_helpers import ServerThread
from table_helpers import make_view, state_of
from waiting import until

from clients.cli import host, local, watch
from clients.cli.commands import Refuse, interpret
from clients.cli.connection import Connection, Fatal
from clients.cli.keys import KeyStore, new_key
from clients.cli.render import render
from clients.cli.rooms import list_rooms
from clients.cli.state import TableState
from protocol import messages as msg
from protocol.rules import RoomRules
from protocol.views import ChatLine
from server.app import Server, run_server


def host_options(*argv: str) -> argparse.Namespace:
    parser = argparse.ArgumentParser()
    host.add_arguments(parser)
    return parser.parse_args(list(argv))


async def opened_by_host(url: str, *argv: str) -> tuple[Connection, asyncio.Task[None]]:
    args = host_options(*argv)
    rules = local.rules_from(args, public=args.public)
    connection = Connection(url, "Hana", TableState())
    running = asyncio.create_task(connection.run(host.first_messages(rules, args.bots)))
    await until(lambda: connection.ready.is_set())
    return connection, running


async def test_a_host_room_is_listed_only_with_public(server: Server) -> None:
    private, first = await opened_by_host(server.url, "--players", "3", "--bots", "hard")
    assert await list_rooms(server.url) == []
    public, second = await opened_by_host(server.url, "--public")
    listed = await list_rooms(server.url)
    assert [room.code for room in listed] == [public.state.room]
    view = private.state.view
    assert view is not None and view.seats[2] is not None and view.seats[2].level == "hard"
    for connection, task in ((private, first), (public, second)):
        await connection.close()
        await asyncio.wait_for(task, TIMEOUT)


async def test_watch_follows_a_match_in_progress_without_a_seat(server: Server) -> None:
    player = Connection(server.url, "Ann", TableState())
    playing = asyncio.create_task(player.run(against_easy_bots()))
    await until(lambda: (v := player.state.view) is not None and v.phase == "playing")
    assert player.state.room is not None
    watcher, first = watch.plan(server.url, player.state.room.lower(), "Wes")
    watching = asyncio.create_task(watcher.run(first))
    await until(lambda: watcher.ready.is_set())
    view = watcher.state.view
    assert view is not None and view.you is None and view.phase == "playing"
    assert view.game is not None and view.game.hand is None
    assert interpret("1", view) == Refuse("you are watching: only seated players play")
    for connection, task in ((watcher, watching), (player, playing)):
        await connection.close()
        await asyncio.wait_for(task, TIMEOUT)


async def test_watch_from_a_fresh_config_needs_no_name_even_one_somebody_owns(
    server: Server, tmp_path: Path
) -> None:
    # "Root" has a key on the server, as the login's name of many machines would.
    owner = Connection(server.url, "Root", TableState(), key=new_key())
    playing = asyncio.create_task(
        owner.run([msg.CreateRoom(rules=RoomRules(players=2)), msg.AddBot(), msg.Start()])
    )
    await until(lambda: (v := owner.state.view) is not None and v.phase == "playing")
    assert owner.state.room is not None
    fresh = KeyStore(tmp_path / "keys.json")
    watcher, first = watch.plan(server.url, owner.state.room, None, keys=fresh)
    watching = asyncio.create_task(watcher.run(first))
    await until(lambda: watcher.ready.is_set())
    view = watcher.state.view
    assert view is not None and view.you is None and view.phase == "playing"
    # A player whose key is kept watches as that player.
    fresh.remember(server.url, "Root", owner.key or "")
    as_owner, _ = watch.plan(server.url, owner.state.room, None, keys=fresh)
    assert as_owner.name == "Root" and as_owner.key == owner.key
    for connection, task in ((watcher, watching), (owner, playing)):
        await connection.close()
        await asyncio.wait_for(task, TIMEOUT)


@pytest.mark.redis
async def test_host_with_redis_keeps_its_room_in_redis(redis_server: RedisServer) -> None:
    args = host_options("--redis", redis_server.url, "--port", "0")
    config = host.server_config(args)
    assert config.network.host == "127.0.0.1"
    async with run_server(config) as running:
        connection, task = await opened_by_host(running.url, "--redis", redis_server.url)
        room = connection.state.room
        assert room is not None and room.split("-")[0] in await running.store.room_codes()
        await connection.close()
        await asyncio.wait_for(task, TIMEOUT)


async def test_watching_a_private_room_by_its_code_alone_says_the_invite_is_needed(
    server: Server,
) -> None:
    private, running = await opened_by_host(server.url, "--players", "2")
    code = private.state.room
    assert code is not None and "-" in code
    connection, first = watch.plan(server.url, code.split("-")[0], "Eve")
    try:
        await asyncio.wait_for(connection.run(first), TIMEOUT)
    except Fatal as error:
        assert "there is no room" in str(error) and "invite" in str(error)
    else:
        raise AssertionError("watching a private room without its invite went on")
    await private.close()
    await asyncio.wait_for(running, TIMEOUT)


def test_a_watchers_chat_line_says_it_is_a_watchers() -> None:
    state = state_of(make_view(history=[ChatLine(seat=None, name="Eve", text="nice play")]))
    assert any(line.text == "Eve (watching): nice play" for line in state.log)
    seated = state_of(make_view(history=[ChatLine(seat=0, name="Ann", text="thanks")]))
    assert any(line.text == "Ann: thanks" for line in seated.log)


@pytest.mark.terminal
def test_a_watcher_without_a_name_is_told_how_to_chat(tmp_path: Path) -> None:
    """`watch URL ROOM` with no --name and no key kept says hello without a name, and the
    server takes no chat from a nameless connection: /chat says so and how to watch with a
    name, where the server's refusal read "the server found that request invalid"."""
    with ServerThread() as server:
        url = f"ws://127.0.0.1:{server.server.port}"
        socket, code = server.call(host_room(url))
        environment = {"XDG_CONFIG_HOME": str(tmp_path), "TERM": "xterm-256color"}
        child, written = spawn_plain(["watch", url, code, "--plain"], environment)
        child.expect(f"Room {code}")
        child.sendline("/chat hello")
        child.expect("chat needs one: watch with .*\n")
        said = " ".join((child.after or "").split())
        assert f"watch {url} {code} --name NAME" in said, said
        child.sendline("/quit")
        child.expect(pexpect.EOF)
        child.close()
        server.call(socket.close())
    assert "invalid" not in written.getvalue(), written.getvalue()


async def test_watch_with_your_own_name_watches_as_you(server: Server, tmp_path: Path) -> None:
    # Quinn's key is kept on this device (a `join --name Quinn` made it); watching as Quinn
    # is Quinn watching, not a guest taking a name that belongs to a player.
    keys = KeyStore(tmp_path / "keys.json")
    quinn = Connection(server.url, "Quinn", TableState(), key=keys.key_for(server.url, "Quinn"))
    playing = asyncio.create_task(
        quinn.run([msg.CreateRoom(rules=RoomRules(players=2)), msg.AddBot(), msg.Start()])
    )
    await until(lambda: (v := quinn.state.view) is not None and v.phase == "playing")
    assert quinn.state.room is not None
    watcher, first = watch.plan(server.url, quinn.state.room, "Quinn", keys=keys)
    assert watcher.key == quinn.key
    watching = asyncio.create_task(watcher.run(first))
    await until(lambda: watcher.ready.is_set() or watching.done())
    view = watcher.state.view
    assert not watching.done() and view is not None and view.phase == "playing", watcher.state
    # A name this device keeps no key for watches as a guest, and no key is made for it.
    guest, _ = watch.plan(server.url, quinn.state.room, "Wendy", keys=keys)
    assert guest.key is None and keys.kept(server.url, "Wendy") is None
    for connection, task in ((watcher, watching), (quinn, playing)):
        await connection.close()
        await asyncio.wait_for(task, TIMEOUT)


async def test_watching_a_finished_match_shows_who_played_it(server: Server) -> None:
    """Someone who starts watching once the match is over and its players have left sees
    their names, and no "left the table" for a seat nobody sat in."""
    host, guest, tasks = await finished_between_two(server.url)
    room = host.state.room
    assert room is not None
    await guest.send(msg.Leave())
    await until(lambda: (v := host.state.view) is not None and v.seats[1] is None)
    watcher, first = watch.plan(server.url, room, "Wes")
    watching = asyncio.create_task(watcher.run(first))
    await until(lambda: watcher.ready.is_set())
    # The names come a moment after the table (the watcher asks for the match's record).
    shown = await until(lambda: named(table_text(watcher.state), "Bořek"), what="Bořek named")
    assert "(free)" not in shown, shown
    assert "Ann" in shown and "Bořek left the table" in shown, shown
    assert "Ann left the table" not in shown, shown
    log = [line.text for line in watcher.state.log]
    print(log)
    assert not any("(free)" in line for line in log), log
    await close_all([host, guest, watcher], [*tasks, watching])


def named(text: str, name: str) -> str | None:
    return text if name in text else None


def table_text(state: TableState, width: int = 79, height: int = 23) -> str:
    return "\n".join(row.plain for part in render(state, width, height) for row in part)
