"""`allfives key`: the terminal's way back to a name, a recovery code printed once and restored
on a fresh config (`keys.json` carried over by the code), against a real server."""

from __future__ import annotations

import argparse
import asyncio
import re
import sys
from pathlib import Path

import pytest
from client_helpers import NEEDS_TMUX, ROOT, Terminal
from server_helpers import Client, ServerThread, new_key

from clients.cli import key
from clients.cli.history import whoami
from clients.cli.keys import KeyStore
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
