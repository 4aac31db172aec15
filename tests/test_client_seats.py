"""Saved seat tokens on disk, server addresses, and the join line's address."""

from __future__ import annotations

import ipaddress
import json
import sys
import time
from pathlib import Path

import pytest

from clients.cli import local
from clients.cli.host import join_url
from clients.cli.local import network_address
from clients.cli.seats import KEEP_SECONDS, SeatStore, config_dir, normalize_url


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
