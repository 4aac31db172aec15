"""`allfives key`: the terminal's way back to a name, a recovery code printed once and restored
on a fresh config (`keys.json` carried over by the code), against a real server."""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import io
import re
import sys
from pathlib import Path

import pytest
from client_helpers import ROOT, TIMEOUT
from server_helpers import ServerThread, new_key
from tmux_helpers import NEEDS_TMUX, Terminal
from waiting import until
from ws_client_helpers import Client

from clients.cli import join, key
from clients.cli.connection import Connection
from clients.cli.history import whoami
from clients.cli.keys import KeyStore
from clients.cli.seats import SeatStore
from protocol import messages as msg
from server.app import Server

CODE = re.compile(r"[0-9A-Z]{4}(?:-[0-9A-Z]{4}){4}")


def options(*argv: str) -> argparse.Namespace:
    parser = argparse.ArgumentParser()
    key.add_arguments(parser)
    return parser.parse_args(list(argv))


async def test_a_recovery_code_printed_by_one_config_restores_the_name_in_a_fresh_one(
    server: Server, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    mine = KeyStore(tmp_path / "old" / "keys.json")
    # A fresh config has no player to make a code for, and says how to get one.
    assert await asyncio.to_thread(key.run, options(server.url), mine) == 1
    assert "--restore CODE" in capsys.readouterr().err
    kept = new_key()
    await (await Client.open(server.url, "Ann", key=kept)).close()
    mine.remember(server.url, "Ann", kept)
    assert await asyncio.to_thread(key.run, options(server.url), mine) == 0
    printed = capsys.readouterr().out
    assert "Recovery code for Ann on" in printed and "--restore CODE" in printed
    code = CODE.search(printed)
    assert code is not None
    # keys.json is gone: the code gives the new config a key of its own that plays as Ann.
    fresh = KeyStore(tmp_path / "new" / "keys.json")
    typed = code.group().lower().replace("-", "")
    assert await asyncio.to_thread(key.run, options(server.url, "--restore", typed), fresh) == 0
    assert "This device now plays as Ann" in capsys.readouterr().out
    restored = fresh.existing(server.url)
    assert restored is not None and restored[0] == "Ann" and restored[1] != kept
    assert await whoami(server.url, restored[1], "whoever") == "Ann"
    # A wrong code, or no code at all, changes nothing and says why.
    other = KeyStore(tmp_path / "other" / "keys.json")
    assert await asyncio.to_thread(key.run, options(server.url, "--restore", "0" * 20), other) == 1
    assert "not one of this server's" in capsys.readouterr().err
    assert await asyncio.to_thread(key.run, options(server.url, "--restore", "abc"), other) == 2
    assert "20 letters and digits" in capsys.readouterr().err
    assert other.existing(server.url) is None


@pytest.mark.terminal
@NEEDS_TMUX
@pytest.mark.parametrize("terminal", [(60, 24), (80, 24)], indirect=True)
def test_the_recovery_code_reads_whole_at_60_and_80_columns(
    terminal: Terminal, tmp_path: Path
) -> None:
    with ServerThread() as running:
        url = f"ws://127.0.0.1:{running.server.port}/"
        kept = new_key()
        asyncio.run(_claim(url, "Ann", kept))
        KeyStore(tmp_path / "allfives" / "keys.json").remember(url, "Ann", kept)
        env = {"XDG_CONFIG_HOME": str(tmp_path), "TERM": "xterm-256color", "PYTHONPATH": str(ROOT)}
        # The width is the terminal's own, as in a shell that exports no COLUMNS.
        unset = ["env", "-u", "COLUMNS", "-u", "LINES"]
        terminal.start([*unset, sys.executable, "-m", "allfives.cli", "key", url], env)
        rows = terminal.wait_for(r"EXITED 0")
    print("\n".join(rows))
    shown = "\n".join(rows)
    assert all(len(row) <= terminal.width for row in rows)
    assert "Recovery code for Ann on" in shown and "--restore CODE" in shown
    # Wrapped at the terminal's width between words, never inside one.
    seen = shown.split()
    for word in ("device,", "allfives", "key", "--restore", "CODE", "browser:", "cancels"):
        assert word in seen, (word, rows)
    # The code is on a line of its own, whole.
    assert any(CODE.fullmatch(row.strip()) for row in rows), rows


async def _claim(url: str, name: str, kept: str) -> None:
    await (await Client.open(url, name, key=kept)).close()


async def _restored(url: str, tmp_path: Path, device: KeyStore) -> None:
    """Ann's recovery code, printed by her old device, restored on `device`."""
    old = KeyStore(tmp_path / "ann-old" / "keys.json")
    kept = new_key()
    await (await Client.open(url, "Ann", key=kept)).close()
    old.remember(url, "Ann", kept)
    printed = io.StringIO()
    with contextlib.redirect_stdout(printed):
        assert await asyncio.to_thread(key.run, options(url), old) == 0
    code = CODE.search(printed.getvalue())
    assert code is not None
    with contextlib.redirect_stdout(io.StringIO()):
        assert (
            await asyncio.to_thread(key.run, options(url, "--restore", code.group()), device) == 0
        )


async def _seated_as(connection: Connection, first: list[msg.ClientMessage]) -> tuple[str, str]:
    """Who the server says this connection's player is, and the name its seat shows."""
    running = asyncio.create_task(connection.run(first))
    state = connection.state
    await until(lambda: state.player is not None and (v := state.view) is not None and v.you == 0)
    view = state.view
    assert view is not None and state.player is not None
    seat = view.seats[0]
    assert seat is not None
    await connection.close()
    await asyncio.wait_for(running, TIMEOUT)
    return state.player, seat.name


async def test_join_without_a_name_after_a_restore_plays_as_the_restored_player(
    server: Server, tmp_path: Path
) -> None:
    # A fresh config: `allfives key URL --restore CODE`, then `allfives join URL`.
    fresh = tmp_path / "fresh"
    keys = KeyStore(fresh / "keys.json")
    await _restored(server.url, tmp_path, keys)
    seats = SeatStore(fresh / "seats.json")
    connection, first, _ = join.plan(server.url, None, None, seats=seats)
    assert connection.key == keys.kept(server.url, "Ann")
    assert await _seated_as(connection, list(first)) == ("Ann", "Ann")


async def test_a_seat_saved_under_the_login_name_is_left_alone_once_the_device_is_restored(
    server: Server, tmp_path: Path
) -> None:
    # The device played as its login name (a seat of it saved in a waiting room), then got
    # Ann's name back: join without --name is Ann, and says the other seat was left alone.
    config = tmp_path / "device"
    seats, keys = SeatStore(config / "seats.json"), KeyStore(config / "keys.json")
    login, first, _ = join.plan(server.url, None, "Kai", seats=seats, keys=keys)
    assert await _seated_as(login, list(first)) == ("Kai", "Kai")
    room, token = login.state.room, login.state.token
    assert room is not None and token is not None
    seats.save(server.url, room, 0, token, "Kai")  # as a client that was killed leaves it
    await _restored(server.url, tmp_path, keys)
    connection, first, resuming = join.plan(server.url, None, None, seats=seats, keys=keys)
    assert (connection.name, resuming) == ("Ann", False)
    notice = connection.state.notice
    assert notice is not None and "held as Kai, was left alone" in notice.text, notice
    assert "--name Kai" in notice.text
    assert await _seated_as(connection, list(first)) == ("Ann", "Ann")
    # The login's seat is still there for --name Kai.
    again, _first, resuming = join.plan(server.url, None, "Kai", seats=seats, keys=keys)
    assert resuming and again.state.room == login.state.room
