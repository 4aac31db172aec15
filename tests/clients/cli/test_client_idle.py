"""The terminal counts down to the idle bound on the player's turn (a room without a turn
clock), says when the stand-in has taken the seat (its move told to the player as made for
them), and `/back` takes it back; at 60 and 80
columns (the screens go to tests/artifacts/terminal-idle-WIDTH-*.txt)."""

from __future__ import annotations

import sys
from pathlib import Path

import pytest
from browser_helpers import ARTIFACTS
from client_helpers import ROOT
from table_helpers import status
from tmux_helpers import NEEDS_TMUX, Terminal

pytestmark = [pytest.mark.terminal, NEEDS_TMUX]

ENV = {
    "ALLFIVES_BOT_DELAY": "0.3",
    "ALLFIVES_IDLE_SECONDS": "5",
    "TERM": "xterm-256color",
    "PYTHONPATH": str(ROOT),
}


def keep(rows: list[str], name: str) -> None:
    ARTIFACTS.mkdir(parents=True, exist_ok=True)
    (ARTIFACTS / f"{name}.txt").write_text("\n".join(rows) + "\n", "utf-8")


@pytest.mark.parametrize("terminal", [(60, 24), (80, 24)], indirect=True)
def test_the_idle_countdown_the_stand_in_and_back(terminal: Terminal, tmp_path: Path) -> None:
    width = terminal.width
    command = [sys.executable, "-m", "allfives.cli", "play", "--name", "Tess", "--target", "500"]
    size = {"COLUMNS": str(width), "LINES": str(terminal.height)}
    terminal.start(command, {**ENV, **size, "XDG_CONFIG_HOME": str(tmp_path)})
    rows = terminal.wait_for(r"Your turn[\s\S]*\d+ s, then a stand-in", timeout=30)
    line = status(rows)
    assert line.startswith("Your turn") and "s, then a stand-in" in line, line
    assert all(len(row) <= width for row in rows)
    keep(rows, f"terminal-idle-{width}-countdown")
    rows = terminal.wait_for(r"A stand-in plays for you", timeout=30)
    assert "/back to play again" in status(rows), status(rows)
    # The stand-in's move for Tess is told to Tess as hers, not of someone away.
    rows = terminal.wait_for(r"Tess (led|played) [\s\S]*\(a bot, standing\s+in\s+for\s+you\)")
    assert "while they are away" not in "\n".join(rows)
    keep(rows, f"terminal-idle-{width}-stand-in")
    terminal.type("/back")
    rows = terminal.wait_for(r"Your turn|to play…", timeout=30)
    assert "A stand-in plays for you" not in "\n".join(rows)
