"""`allfives show` says it is loading while the server works out the game and its review,
rather than leave the screen blank for seconds (issue 45, item F)."""

from __future__ import annotations

import socket
import sys
from pathlib import Path

import pytest
from client_helpers import ROOT
from tmux_helpers import NEEDS_TMUX, Terminal

pytestmark = pytest.mark.terminal

ENV = {"TERM": "xterm-256color", "PYTHONPATH": str(ROOT)}


@NEEDS_TMUX
@pytest.mark.parametrize("terminal", [(60, 20), (80, 24)], indirect=True)
def test_show_says_it_is_loading_before_its_first_frame(terminal: Terminal, tmp_path: Path) -> None:
    # A server that takes the connection and has not answered yet.
    with socket.create_server(("127.0.0.1", 0)) as slow:
        url = f"ws://127.0.0.1:{slow.getsockname()[1]}"
        command = [sys.executable, "-m", "allfives.cli", "show", url, "G123"]
        terminal.start(command, {**ENV, "XDG_CONFIG_HOME": str(tmp_path)})
        rows = terminal.wait_for(r"Loading game G123", timeout=10)
        said = " ".join(" ".join(rows).split())
        assert f"Loading game G123 and its review from {url}…" in said, rows
