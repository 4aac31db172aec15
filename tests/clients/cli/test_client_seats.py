"""Saved seat tokens on disk, server addresses, and the join line's address."""

from __future__ import annotations

import asyncio
import functools
import ipaddress
import json
import sys
import time
from pathlib import Path

import pytest
from client_helpers import TIMEOUT, against_easy_bots
from waiting import until

from clients.cli import join, local
from clients.cli.connection import Connection
from clients.cli.host import join_url
from clients.cli.keys import KeyStore, new_key
from clients.cli.seats import KEEP_SECONDS, SeatStore, config_dir, normalize_url
from clients.cli.state import TableState
from protocol import messages as msg
from server.app import Server
from server.edge.address import network_address


@pytest.mark.parametrize(
    ("written", "normal"),
    [
        ("ws://127.0.0.1:8765", "ws://127.0.0.1:8765/"),
        ("ws://127.0.0.1:8765/", "ws://127.0.0.1:8765/"),
        ("127.0.0.1:8765", "ws://127.0.0.1:8765/"),
        ("WSS://Games.Example.org/play", "wss://games.example.org/play"),
    ],
)
def test_server_addresses_are_written_one_way(written: str, normal: str) -> None:
    assert normalize_url(written) == normal


def test_the_config_directory_follows_xdg(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    monkeypatch.setenv("XDG_CONFIG_HOME", str(tmp_path))
    assert config_dir() == tmp_path / "allfives"
    monkeypatch.delenv("XDG_CONFIG_HOME")
    monkeypatch.setenv("HOME", str(tmp_path / "home"))
    assert config_dir() == tmp_path / "home" / ".config" / "allfives"


def test_a_seat_is_found_by_server_and_room_whatever_their_spelling(tmp_path: Path) -> None:
    seats = SeatStore(tmp_path / "allfives" / "seats.json")
    seats.save("ws://127.0.0.1:8765", "bcdf", 2, "secret-1")
    seats.save("ws://127.0.0.1:8765/", "GHJK", 0, "secret-2")
    found = seats.find("127.0.0.1:8765", "BCDF")
    assert found is not None and (found.room, found.seat, found.token) == ("BCDF", 2, "secret-1")
    assert seats.find("ws://127.0.0.1:9999", "BCDF") is None
    latest = seats.find("ws://127.0.0.1:8765")
    assert latest is not None and latest.room == "GHJK"
    seats.forget("ws://127.0.0.1:8765", "ghjk")
    latest = seats.find("ws://127.0.0.1:8765")
    assert latest is not None and latest.room == "BCDF"


def test_old_entries_and_a_damaged_file_are_ignored(tmp_path: Path) -> None:
    path = tmp_path / "seats.json"
    seats = SeatStore(path)
    seats.save("ws://h:1", "ROOM", 1, "t")
    data = json.loads(path.read_text())
    for entry in data.values():
        entry["saved_at"] = time.time() - KEEP_SECONDS - 10
    path.write_text(json.dumps(data))
    assert seats.find("ws://h:1", "ROOM") is None
    path.write_text("{not json")
    assert seats.find("ws://h:1", "ROOM") is None
    seats.save("ws://h:1", "ROOM", 1, "t2")
    found = seats.find("ws://h:1", "ROOM")
    assert found is not None and found.token == "t2"


def test_the_join_line_names_loopback_or_this_machines_address() -> None:
    assert join_url(False, 8765) == "ws://127.0.0.1:8765"
    address = network_address()
    ipaddress.ip_address(address)
    assert join_url(True, 9000) == f"ws://{address}:9000"


def test_the_join_line_says_uv_run_from_a_source_checkout(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    (tmp_path / "pyproject.toml").write_text("[project]\n")
    monkeypatch.setattr(sys, "prefix", str(tmp_path / ".venv"))
    assert local.command() == "uv run allfives"
    monkeypatch.setattr(sys, "prefix", str(tmp_path / "tools" / "allfives"))
    assert local.command() == "allfives"


def out_of_hand(state: TableState, tile: str) -> bool:
    """Whether the tile has left the player's hand."""
    return state.game is not None and tile not in (state.game.hand or [])


async def test_tile_numbers_survive_a_restart_of_join(server: Server, tmp_path: Path) -> None:
    store = SeatStore(tmp_path / "seats.json")
    first = Connection(server.url, "Ann", TableState(), seats=store)
    running = asyncio.create_task(first.run(against_easy_bots(seat=0, target=500)))
    state = first.state
    while True:
        await until(state.my_turn)
        game = state.game
        assert game is not None
        numbers = {tile: number for number, tile in state.numbered_hand()}
        # The legal play with the lowest number leaves a gap in the numbers, unless it is the
        # highest number: then play it and try the next turn.
        plays = [(numbers.get(m.tile, 0), m.tile, m) for m in game.legal if m.tile is not None]
        if not plays:
            await first.send(msg.Pass())
            await until(lambda: not state.my_turn())
            continue
        number, tile, played = min(plays, key=lambda entry: entry[0])
        await first.send(msg.Play(tile=tile, end=played.end))
        await until(functools.partial(out_of_hand, state, tile))
        if number < max(numbers.values()):
            break
    before = dict((tile, number) for number, tile in state.numbered_hand())
    assert min(before.values()) > 1 or max(before.values()) > len(before)  # a number is gone
    room = state.room
    await first.close()
    await asyncio.wait_for(running, TIMEOUT)

    again, messages, resuming = join.plan(server.url, room, None, seats=store)
    assert resuming
    running = asyncio.create_task(again.run(messages, resume=True))
    await until(lambda: again.ready.is_set() and again.state.game is not None)
    after = dict((tile, number) for number, tile in again.state.numbered_hand())
    common = set(before) & set(after)
    assert common and all(before[tile] == after[tile] for tile in common), (before, after)
    await again.close()
    await asyncio.wait_for(running, TIMEOUT)


async def test_a_private_rooms_seat_is_taken_back_by_the_code_the_table_shows(
    server: Server, tmp_path: Path
) -> None:
    # The header shows the short code (KQDD) of a private room joined as KQDD-FDRBZDQNNQ.
    store = SeatStore(tmp_path / "seats.json")
    first = Connection(server.url, "Ann", TableState(), seats=store)
    running = asyncio.create_task(first.run(against_easy_bots(seat=0, target=500)))
    await until(lambda: first.state.game is not None)
    room = first.state.room
    assert room is not None and "-" in room
    await first.close()
    await asyncio.wait_for(running, TIMEOUT)

    short = room.split("-")[0].lower()
    again, messages, resuming = join.plan(server.url, short, None, seats=store)
    assert resuming
    running = asyncio.create_task(again.run(messages, resume=True))
    await until(lambda: again.ready.is_set() and again.state.game is not None)
    assert again.state.room == room and again.state.seat == 0
    await again.close()
    await asyncio.wait_for(running, TIMEOUT)


def test_join_without_a_name_plays_as_the_player_this_device_was_restored_to(
    tmp_path: Path,
) -> None:
    # `allfives key URL --restore CODE` kept Ann's key as this device's player on that server.
    url = "ws://127.0.0.1:8765/"
    keys = KeyStore(tmp_path / "keys.json")
    key = new_key()
    keys.remember(url, "Ann", key)
    seats = SeatStore(tmp_path / "seats.json")
    connection, _, resuming = join.plan(url, "BCDF", None, seats=seats, keys=keys)
    assert (connection.name, connection.key, resuming) == ("Ann", key, False)
    # On another server this device keeps no player: the login name, as a new player.
    other, _, _ = join.plan("ws://127.0.0.1:9999/", "BCDF", None, seats=seats, keys=keys)
    assert other.name == local.default_name() and other.key != key


def test_two_players_on_one_machine_each_take_back_their_own_seat(tmp_path: Path) -> None:
    url = "ws://127.0.0.1:8765/"
    seats = SeatStore(tmp_path / "seats.json")
    seats.save(url, "BCDF", 0, "ann-token", "Ann")
    seats.save(url, "BCDF", 1, "bea-token", "Bea")
    for name, seat, token in (("Ann", 0, "ann-token"), ("Bea", 1, "bea-token")):
        connection, first, resuming = join.plan(url, "BCDF", name, seats=seats)
        assert resuming, name
        state = connection.state
        assert (connection.name, state.seat, state.token) == (name, seat, token)
        assert state.notice is None  # nobody else's seat was in the way
    # A third name on the machine takes neither seat, and says whose it left alone.
    connection, first, resuming = join.plan(url, "BCDF", "Cid", seats=seats)
    assert not resuming and connection.state.token is None
    assert first == [msg.Join(room="BCDF")]
    notice = connection.state.notice
    assert notice is not None and notice.text.startswith("Not taking back seat"), notice
    # Ann's match ends: Bea's seat is still kept.
    seats.forget(url, "BCDF", "Ann")
    assert seats.find(url, "BCDF", "Ann") is None
    kept = seats.find(url, "BCDF", "Bea")
    assert kept is not None and kept.token == "bea-token"


def test_a_seat_saved_in_the_older_format_is_taken_back(tmp_path: Path) -> None:
    """A seats.json written before seats were kept by name: one entry per room."""
    path = tmp_path / "seats.json"
    entry = {
        "url": "ws://127.0.0.1:8765/",
        "room": "BCDF",
        "seat": 2,
        "token": "old-token",
        "name": "Ann",
        "saved_at": time.time(),
        "numbering": {"hand": 1, "numbers": {"5-3": 1}, "highest": 1, "fresh": []},
    }
    path.write_text(json.dumps({"ws://127.0.0.1:8765/ BCDF": entry}))
    seats = SeatStore(path)
    for name in (None, "Ann"):
        connection, _, resuming = join.plan("ws://127.0.0.1:8765", "bcdf", name, seats=seats)
        assert resuming and connection.state.token == "old-token", name
        assert connection.state.numbers == {"5-3": 1}
    # Saved again (the seat given back), it is kept once, its tile numbers with it.
    seats.save("ws://127.0.0.1:8765", "BCDF", 2, "new-token", "Ann")
    data = json.loads(path.read_text())
    assert [entry["token"] for entry in data.values()] == ["new-token"]
    assert next(iter(data.values()))["numbering"]["numbers"] == {"5-3": 1}
