"""`allfives host` seats its player as any player is seated: with this device's key."""

from __future__ import annotations

import json
import socket
from pathlib import Path

import pexpect  # type: ignore[import-untyped]
import pytest
from command_helpers import spawn_plain
from server_helpers import http_get
from waiting import until_sync

from clients.cli.keys import KeyStore

pytestmark = pytest.mark.terminal


def free_port() -> int:
    """A port nothing listens on (it was free a moment ago)."""
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return int(probe.getsockname()[1])


def test_a_rated_hosts_match_counts_for_the_host(tmp_path: Path) -> None:
    """`host --rated`: the host plays with the device's key (kept for the server, as `join`
    keeps it), so once the match is over the server knows the host as a player with that
    game; before, the host played as a guest and the rated match was rated for nobody."""
    port = free_port()
    args = ["host", "--plain", "--rated", "--bots", "easy", "--target", "5", "--name", "Cat"]
    environment = {"XDG_CONFIG_HOME": str(tmp_path), "ALLFIVES_BOT_DELAY": "0"}
    child, _written = spawn_plain([*args, "--port", str(port)], environment)
    try:
        child.expect("/start")
        child.sendline("/start")
        for _move in range(60):
            found = child.expect(
                [
                    r"Type a move's number, 1 to (\d+), or /help\.",
                    r"Type 1 to make it, or /help\.",
                    r"wins the match:|share the win:",
                ]
            )
            if found == 2:
                break
            child.sendline(child.match.group(1) if found == 0 else "1")
        kept = KeyStore(tmp_path / "allfives" / "keys.json").kept(f"ws://127.0.0.1:{port}/", "Cat")
        assert kept is not None

        def known() -> dict[str, object] | None:
            status, body = http_get(f"http://127.0.0.1:{port}/api/players/Cat")
            found = json.loads(body) if status == 200 else None
            return found if found is not None and found.get("games") == 1 else None

        player = until_sync(known, 20, "the host's game on the server")
        assert player["name"] == "Cat" and player["bot"] is False
    finally:
        child.sendline("/quit")
        child.sendline("y")
        child.expect(pexpect.EOF)
        child.close()
