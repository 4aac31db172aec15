"""Keys at the drawn table (tmux): only the table's own keys act. A control key of
prompt_toolkit's (Ctrl-O accepted the line and so ended the match) does nothing, and leaving
asks as Ctrl-C does."""

from __future__ import annotations

import string
from pathlib import Path

import pytest
from tmux_helpers import NEEDS_TMUX, Terminal

pytestmark = [pytest.mark.terminal, NEEDS_TMUX]

#: Ctrl-A to Ctrl-Y but Ctrl-C and Ctrl-D (which ask before leaving).
CONTROL_KEYS = [f"C-{letter}" for letter in string.ascii_lowercase[:25] if letter not in "cd"]


def start_play(terminal: Terminal, tmp_path: Path) -> list[str]:
    terminal.start_allfives(["play", "--name", "Tess"], tmp_path)
    return terminal.wait_for(r"Your turn", timeout=30)


def test_no_control_key_ends_the_match(terminal: Terminal, tmp_path: Path) -> None:
    """Every control key from Ctrl-A to Ctrl-Y (but C and D), one by one, then all pasted at
    once as plain bytes, and Alt-Enter: the match goes on, on your turn, and answers /scores."""
    start_play(terminal, tmp_path)
    for key in CONTROL_KEYS:
        terminal.keys(key)
        rows = terminal.screen()
        assert not any("EXITED" in row for row in rows), f"{key} ended it:\n" + "\n".join(rows)
    pasted = "".join(chr(ord(key[-1]) - ord("a") + 1) for key in CONTROL_KEYS if key != "C-m")
    terminal.tmux("set-buffer", "-b", "controls", pasted)
    terminal.tmux("paste-buffer", "-b", "controls", "-t", "e2e:t")  # as bytes, not bracketed
    terminal.keys("Escape", "Enter")
    terminal.keys("C-u")
    terminal.type("/scores")
    rows = terminal.wait_for(r"how it ended")
    assert not any("EXITED" in row for row in rows), "\n".join(rows)
    terminal.keys("C-u", "Enter")
    rows = terminal.wait_for(r"Your turn")
    assert rows[-1].startswith("›"), "\n".join(rows)


def test_ctrl_c_asks_before_the_match_ends(terminal: Terminal, tmp_path: Path) -> None:
    """Leaving asks: Ctrl-C at the table, then n plays on; Ctrl-D asks the same."""
    start_play(terminal, tmp_path)
    for key in ("C-c", "C-d"):
        terminal.keys(key)
        terminal.wait_for(r"end this match \(y/n\)")
        terminal.type("n")
        rows = terminal.wait_for(r"The match goes on")
        assert not any("EXITED" in row for row in rows), "\n".join(rows)


#: Escape sequences pasted as bytes (not bracketed): colour codes and a mouse report's look.
PASTED_CODES = ["\x1b[31m", "\x1b[0m", "\x1b[1;31m", "\x1b[M!!!", "\x1b[<0;3;4M", "\x1b[12;5R"]


def test_pasted_escape_codes_do_nothing(terminal: Terminal, tmp_path: Path) -> None:
    """`ESC [ 3 1 m` and its kind, pasted at the prompt as bytes, do nothing (prompt_toolkit's
    mouse handler raised on them and filled the table with its traceback); the match goes on."""
    start_play(terminal, tmp_path)
    for code in PASTED_CODES:
        terminal.keys("-H", *(f"{byte:02x}" for byte in code.encode()))
        rows = terminal.screen()
        shown = "\n".join(rows)
        assert "Traceback" not in shown and "Press ENTER" not in shown, f"{code!r}:\n{shown}"
    terminal.keys("C-u")
    terminal.type("/scores")
    rows = terminal.wait_for(r"how it ended")
    shown = "\n".join(rows)
    assert "Traceback" not in shown and "EXITED" not in shown, shown
