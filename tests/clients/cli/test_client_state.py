"""The client's state and connection against a real embedded server with bots.

The state a client builds from one snapshot and its patches must equal the snapshot the server
sends when asked afresh; a gap is noticed and mended; a dropped connection comes back to the
same seat; a saved seat token puts a restarted client back in its seat.
"""

from __future__ import annotations

import asyncio
import os
import random
import stat
import sys
from pathlib import Path

import pytest
from client_helpers import TIMEOUT, against_easy_bots, embedded_config, host_room, receive, send
from waiting import until
from websockets.asyncio.client import connect

from clients.cli import i18n, join, local
from clients.cli.commands import Ask, Send, interpret
from clients.cli.connection import Connection, Fatal
from clients.cli.seats import SeatStore, normalize_url
from clients.cli.state import TableState
from protocol import messages as msg
from protocol.patch import apply, events_in, operations_of, to_builtins
from protocol.rules import RoomRules
from protocol.views import HandEnded, HandStarted, Layout, Played
from server.app import Server, run_server


def choose_move(state: TableState, rng: random.Random) -> list[msg.ClientMessage]:
    """What a player typing at random would send: a tile number, then an end if asked."""
    game = state.game
    assert game is not None and game.hand is not None
    while True:
        action = interpret(str(rng.randint(1, len(game.hand))), state.view)
        if isinstance(action, Ask):
            action = interpret(rng.choice(action.ends)[0], state.view, action)
        if isinstance(action, Send):
            return list(action.messages)


def tiles_on(layout: Layout) -> int:
    """How many tiles a layout holds."""
    return len(layout.line) + len(layout.north) + len(layout.south)


def a_bot_plays_next(state: TableState, patch: msg.Change) -> bool:
    """Whether more patches surely follow this one (so losing it is noticed): a bot's turn."""
    assert state.sync.document is not None
    after = apply(state.sync.document, operations_of(state.sync.document, patch))
    return after["phase"] == "playing" and after["game"]["turn"] not in (None, after["you"])


async def test_the_state_built_from_patches_equals_fresh_snapshots_through_a_whole_match(
    server: Server,
) -> None:
    rng = random.Random(5)
    socket = await connect(server.url)
    state = TableState()
    await send(socket, msg.Hello(version=msg.PROTOCOL_VERSION, name="Ann"))
    await send(socket, msg.CreateRoom(rules=RoomRules(players=3, target=150), seat=0))
    for level in ("normal", "easy"):
        await send(socket, msg.AddBot(level=level))
    await send(socket, msg.Start())
    patches = compared = dropped = resyncs = 0
    asked_at: int | None = None
    mending = False
    last_drop = placed = checked = 0
    while True:
        message = await receive(socket)
        if isinstance(message, msg.Snapshot) and message.id == 9999:
            if not mending:
                assert message.seq == state.seq
                assert to_builtins(message.state) == state.sync.document
                compared += 1
            continue
        if isinstance(message, msg.Change):
            patches += 1
            # A hand's end is never the patch dropped: each one checks the table kept after it.
            ends_a_hand = any(isinstance(e, HandEnded) for e in events_in(message))
            # Nor is a drop begun when a hand may end before the snapshot mends it: a hand end
            # met while mending is not applied, and a short match has only two or three.
            game = state.game
            near_the_end = game is not None and min(game.hand_counts) <= 2
            due = patches - last_drop >= 6 and not mending and not ends_a_hand and not near_the_end
            if due and a_bot_plays_next(state, message):
                dropped, last_drop, mending = dropped + 1, patches, True
                continue
        before = state.seq
        layout_before = state.game.layout if state.game is not None else None
        legal_before = list(state.game.legal) if state.game is not None else []
        replies = state.receive(message)
        applied = isinstance(message, msg.Change) and state.seq == message.seq
        if isinstance(message, msg.Change) and applied and layout_before is not None:
            events = events_in(message)
            played = [event for event in events if isinstance(event, Played)]
            new_hand = any(isinstance(event, HandStarted) for event in events)
            ended = [event for event in events if isinstance(event, HandEnded)]
            if ended and new_hand:
                # The table kept until the next lead is the one the server says the hand ended on.
                final = ended[0].layout
                assert final is not None and state.last_layout == final
                assert tiles_on(final) == tiles_on(layout_before) + len(played)
                placed += 1
            if played and legal_before and played[0].seat == state.seat:
                # What the legal list said the play would make is what it made.
                tile, end = played[0].tile, played[0].end
                spec = next(s for s in legal_before if s.tile == tile and s.end in (end, None))
                assert (spec.total, spec.points) == (played[0].total, played[0].points)
                checked += 1
        if isinstance(message, msg.Snapshot):
            mending = False
        if replies:
            assert replies == [msg.Resync()] and state.seq == before
            resyncs += 1
            mending = True
        for reply in replies:
            await send(socket, reply)
        if isinstance(message, msg.Change) and not replies and patches % 2 == 0:
            await send(socket, msg.Resync(id=9999))
        view = state.view
        if view is not None and view.phase == "finished":
            break
        if state.my_turn() and asked_at != state.seq:
            asked_at = state.seq
            for move in choose_move(state, rng):
                await send(socket, move)
        assert not isinstance(message, msg.Error), message
    await socket.close()
    # The deal is random: a short match still compares, drops, mends and checks a few plays.
    assert compared >= 5 and dropped >= 1 and resyncs == dropped and placed >= 1 and checked >= 1
    game = state.game
    assert game is not None and game.over and max(game.scores) >= 100
    assert any("wins the match" in line.text for line in state.log)


def drop(connection: Connection) -> None:
    """Cut the connection as a network failure would: no close handshake."""
    assert connection.socket is not None
    connection.socket.transport.abort()


async def test_a_dropped_connection_comes_back_to_the_same_seat_and_catches_up(
    server: Server,
) -> None:
    state = TableState()
    changes: list[str] = []
    connection = Connection(server.url, "Ann", state, lambda: changes.append("x"))
    first = against_easy_bots(seat=1, target=100, public=True)
    running = asyncio.create_task(connection.run(first))
    await until(lambda: state.view is not None and state.view.phase == "playing")
    room, token = state.room, state.token
    for _ in range(3):
        seq = state.seq
        drop(connection)
        await until(lambda: state.notice is not None and "Connection lost" in state.notice.text)
        await until(lambda: state.notice is not None and "Back in your seat" in state.notice.text)
        assert (state.room, state.seat, state.token) == (room, 1, token)
        view = state.view
        assert view is not None and view.you == 1 and view.seats[1] is not None
        assert state.seq is not None and seq is not None and state.seq >= seq
        socket = connection.socket
        assert socket is not None
        await send(socket, msg.Resync(id=777))
        fresh = await wait_for_snapshot(connection, 777)
        assert to_builtins(fresh.state) == state.sync.document
        assert fresh.state.seats[1] is not None and fresh.state.seats[1].connected
    assert changes
    await connection.close()
    await asyncio.wait_for(running, TIMEOUT)


async def test_a_connection_lost_while_mending_comes_back_mended(server: Server) -> None:
    """A gap asks for a resync, and the connection drops before its snapshot comes: the client
    comes back asking for a snapshot, not for the frames after the seq it holds (a table
    waiting for a snapshot ignores them: it stayed where it was, and the next gap asked for
    nothing), and its table is the server's again."""
    state = TableState()
    connection = Connection(server.url, "Ann", state)
    running = asyncio.create_task(connection.run(against_easy_bots(seat=1, target=100)))
    await until(lambda: state.view is not None and state.view.phase == "playing")
    assert state.seq is not None
    # A frame lost on the way: the next one does not follow. The resync it asks for is lost
    # with the connection.
    assert state.receive(msg.Patch(seq=state.seq + 2, ops=[])) == [msg.Resync()]
    assert state.mending
    drop(connection)
    await until(lambda: not state.mending, what="the table mended")
    socket = connection.socket
    assert socket is not None
    await send(socket, msg.Resync(id=777))
    fresh = await wait_for_snapshot(connection, 777)
    assert to_builtins(fresh.state) == state.sync.document
    await connection.close()
    await asyncio.wait_for(running, TIMEOUT)


def test_a_refused_resync_is_asked_again_at_the_next_gap() -> None:
    """A resync the server refused (too many messages) leaves nothing awaited: the next frame
    that does not follow asks again (the table waited for ever for a snapshot never sent)."""
    state = TableState()
    state.receive(msg.Joined(room="ABCD", seat=0, seat_token="t"))
    assert state.receive(msg.Patch(seq=3, ops=[])) == [msg.Resync()]
    assert state.receive(msg.Patch(seq=4, ops=[])) == []  # asked already
    refused = msg.Error(id=None, command="resync", code="rate_limited", message="too many messages")
    assert state.receive(refused) == []
    assert state.receive(msg.Patch(seq=5, ops=[])) == [msg.Resync()]


async def wait_for_snapshot(connection: Connection, id: int) -> msg.Snapshot:
    """Catch the snapshot answering `id` before the state takes it."""
    caught: list[msg.Snapshot] = []
    original = connection.state.receive

    def spy(message: msg.AnyServerMessage) -> list[msg.ClientMessage]:
        if isinstance(message, msg.Snapshot) and message.id == id:
            caught.append(msg.Snapshot(seq=message.seq, state=message.state, id=id))
            return []
        return original(message)

    connection.state.receive = spy  # type: ignore[method-assign]
    try:
        await until(lambda: bool(caught))
    finally:
        connection.state.receive = original  # type: ignore[method-assign]
    return caught[0]


async def test_join_after_a_crash_puts_the_player_back_in_their_saved_seat(
    server: Server, tmp_path: Path
) -> None:
    host, room = await host_room(server.url)
    seats = SeatStore(tmp_path / "allfives" / "seats.json")
    connection, first, resume = join.plan(server.url, room.lower(), "Cid", seats=seats)
    assert not resume
    running = asyncio.create_task(connection.run(first, resume))
    await until(lambda: connection.ready.is_set())
    assert connection.state.seat == 1
    saved = seats.find(server.url, room)
    assert saved is not None and (saved.seat, saved.token) == (1, connection.state.token)
    assert stat.S_IMODE(os.stat(seats.path).st_mode) == 0o600
    # The client dies: no leave, no close handshake.
    drop(connection)
    running.cancel()
    with pytest.raises(asyncio.CancelledError):
        await running
    again, first, resume = join.plan(server.url, room, "Cid", seats=seats)
    assert resume
    running = asyncio.create_task(again.run(first, resume))
    await until(lambda: again.ready.is_set())
    view = again.state.view
    assert view is not None and view.you == 1
    assert again.state.notice is not None and "Back in your seat" in again.state.notice.text
    assert [seat.name if seat else None for seat in view.seats] == ["Bob", "Cid", None]
    await again.close()
    await running
    await host.close()


async def test_a_saved_seat_the_server_no_longer_knows_is_dropped_and_the_room_joined(
    server: Server, tmp_path: Path
) -> None:
    host, room = await host_room(server.url)
    seats = SeatStore(tmp_path / "seats.json")
    seats.save(server.url, room, 2, "not-a-token-the-server-gave")
    connection, first, resume = join.plan(server.url, room, "Cid", seats=seats)
    assert resume
    running = asyncio.create_task(connection.run(first, resume))
    await until(lambda: connection.ready.is_set())
    state = connection.state
    assert state.seat == 1
    saved = seats.find(server.url, room)
    assert saved is not None and saved.token == state.token
    await connection.close()
    await running
    await host.close()


async def test_join_without_a_room_takes_a_free_seat_in_a_waiting_room(server: Server) -> None:
    host, room = await host_room(server.url, players=2)
    connection, first, _ = join.plan(
        server.url, None, "Cid", seats=SeatStore(Path("/nonexistent/x"))
    )
    running = asyncio.create_task(connection.run(first))
    await until(lambda: connection.ready.is_set())
    assert (connection.state.room, connection.state.seat) == (room, 1)
    await connection.close()
    await running
    await host.close()


async def test_joining_a_room_that_does_not_exist_ends_with_the_reason(server: Server) -> None:
    connection = Connection(server.url, "Cid", TableState())
    with pytest.raises(Fatal, match="could not join the room: there is no room 'ZZZZ'"):
        await asyncio.wait_for(connection.run([msg.Join(room="ZZZZ")]), TIMEOUT)


@pytest.mark.parametrize(
    ("language", "said"),
    [
        ("en", "could not join the room: someone at this table already goes by that name"),
        ("cs", "k místnosti se nepodařilo připojit: u stolu už někdo má toto jméno"),
    ],
)
async def test_a_name_already_at_the_table_is_worded_from_the_errors_reason(
    server: Server, language: str, said: str
) -> None:
    """The server's `invalid` carries the reason `name_taken`; the client words it in the
    player's language (the server's English sentence is not shown)."""
    host, room = await host_room(server.url)
    i18n.set_language(language)
    try:
        connection = Connection(server.url, "Bob", TableState())
        with pytest.raises(Fatal) as ended:
            await asyncio.wait_for(connection.run([msg.Join(room=room)]), TIMEOUT)
    finally:
        i18n.set_language("en")
        await host.close()
    assert str(ended.value).startswith(said), ended.value
    assert "already" not in str(ended.value) or language == "en"


async def test_a_server_that_cannot_be_reached_is_reported_at_once() -> None:
    async with run_server(embedded_config()) as gone:
        url = gone.url
    connection = Connection(url, "Cid", TableState())
    with pytest.raises(Fatal, match=r"cannot reach .*connection refused"):
        await asyncio.wait_for(connection.run([]), TIMEOUT)


async def test_allfives_rooms_lists_the_waiting_rooms_with_the_line_that_joins_each(
    server: Server,
) -> None:
    async def rooms_output() -> str:
        process = await asyncio.create_subprocess_exec(
            sys.executable,
            "-m",
            "allfives.cli",
            "rooms",
            server.url.rstrip("/"),
            stdout=asyncio.subprocess.PIPE,
            env={**os.environ, "COLUMNS": "160", "NO_COLOR": "1"},
        )
        out, _ = await asyncio.wait_for(process.communicate(), TIMEOUT)
        assert process.returncode == 0
        return out.decode()

    assert "No public room is waiting for players" in await rooms_output()
    host, room = await host_room(server.url)
    listed = await rooms_output()
    assert room in listed and "Bob, free, free" in listed
    assert (
        f"Join one with: {local.command()} join {normalize_url(server.url).rstrip('/')} {room}"
        in listed
    )
    await host.close()


async def test_join_with_a_seat_sits_as_the_hosts_partner_and_a_taken_seat_is_refused(
    server: Server,
) -> None:
    host, room = await host_room(server.url, players=4)
    nowhere = SeatStore(Path("/nonexistent/x"))
    connection, first, _ = join.plan(server.url, room, "Cid", seats=nowhere, seat=2)
    running = asyncio.create_task(connection.run(first))
    await until(lambda: connection.ready.is_set())
    assert (connection.state.room, connection.state.seat) == (room, 2)
    view = await until(lambda: connection.state.view)
    assert view.rules.partnership and view.seats[1] is None and view.seats[2] is not None
    await connection.close()
    await running
    taken, first, _ = join.plan(server.url, room, "Di", seats=nowhere, seat=0)
    with pytest.raises(Fatal, match="that seat is taken"):
        await asyncio.wait_for(taken.run(first), TIMEOUT)
    await host.close()
