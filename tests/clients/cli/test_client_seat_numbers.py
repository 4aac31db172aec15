"""The terminal numbers seats as a player reads them, from 1, and names a bot by its seat's
number (the bot in seat 2 is "Bot 2"); `join --seat N` and `/bots remove N` take the number the
table shows. The real `allfives host` and `allfives join` in tmux, at 60 and 80 columns."""

from __future__ import annotations

import re
import shutil
from pathlib import Path

import pytest
from tmux_helpers import NEEDS_TMUX, Terminal
from waiting import until_sync

pytestmark = [pytest.mark.terminal, NEEDS_TMUX]


@pytest.mark.parametrize("terminal", [(60, 30), (80, 24)], indirect=True)
def test_seats_shown_from_one_and_join_seat_takes_the_number_shown(
    terminal: Terminal, tmp_path: Path
) -> None:
    host = ["host", "--port", "0", "--players", "4", "--name", "Hana"]
    terminal.start_allfives(host, tmp_path / "host", "host")
    # At 60 columns the printed line folds (mid-word, or at a space that the fold takes): read
    # it with the rows put back together, once the whole line is drawn, invite and all (the
    # screen may be caught between "Friends join with:" and the line under it).
    line = re.compile(r"join\s?(ws://127\.0\.0\.1:\d+)\s?([A-Z]{4}-[A-Z]{10})")
    rows: list[str] = []

    def join_line() -> re.Match[str] | None:
        rows[:] = terminal.screen("host")
        return line.search("".join(rows))

    try:
        found = until_sync(join_line, 20.0, "the whole join line on the host's screen")
    except AssertionError:
        raise AssertionError("no whole join line on the screen:\n" + "\n".join(rows)) from None
    url, room = found.groups()
    assert "seat 1  Hana  (you)" in "\n".join(rows), rows
    assert "seat 0" not in "\n".join(rows)

    # With four players the host's partner sits in seat 3, as --seat's help says.
    femi = ["join", url, room, "--seat", "3", "--name", "Femi"]
    terminal.start_allfives(femi, tmp_path / "friend", "friend")
    friend = terminal.wait_for(r"seat 3  Femi  \(you\)", window="friend")
    assert "seat 1  Hana" in "\n".join(friend) and "seat 2  free" in "\n".join(friend)
    terminal.wait_for(r"Femi took seat 3", window="host")

    # Seat 1 is the host's: `--seat 1` asks for it and is refused, taking no other seat.
    gus = ["join", url, room, "--seat", "1", "--name", "Gus"]
    terminal.start_allfives(gus, tmp_path / "other", "gus")
    terminal.wait_for(r"that seat is taken", window="gus")

    terminal.type("/start", "host")
    terminal.wait_for(r"✗ every seat must be taken first \(free: 2, 4\)", window="host")
    terminal.type("/bots fill hard", "host")
    rows = terminal.wait_for(r"seat 4  Bot 4  hard bot", window="host")
    shown = "\n".join(rows)
    assert "seat 2  Bot 2  hard bot" in shown and "seat 3  Femi" in shown, rows
    assert "Bot 1" not in shown and "seat 0" not in shown, rows
    terminal.type("/bots remove 1", "host")
    terminal.wait_for(r"✗ seat 1 holds no bot", window="host")
    terminal.type("/bots remove 4", "host")
    rows = terminal.wait_for(r"seat 4  free", window="host")
    assert "seat 2  Bot 2  hard bot" in "\n".join(rows), rows
    terminal.type("/bots add easy", "host")
    terminal.wait_for(r"seat 4  Bot 4  easy bot", window="host")
    terminal.type("/start", "host")
    rows = terminal.wait_for(r"Bot 4", window="friend")
    terminal.wait_for(r"hand 1", window="friend")
    assert shutil.which("tmux")
