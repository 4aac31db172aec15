"""The frame stays put in a real terminal (tmux): Enter never scrolls the screen, a long line
stays on the prompt row, Ctrl-U gives the table back as it was, Ctrl-L redraws the whole table,
and Ctrl-C at a question cancels the question instead of ending the match."""

from __future__ import annotations

import re
from pathlib import Path

import pytest
from table_helpers import status
from tmux_helpers import NEEDS_TMUX, Terminal

pytestmark = [pytest.mark.terminal, NEEDS_TMUX]


def start_play(terminal: Terminal, tmp_path: Path, *options: str) -> list[str]:
    terminal.start_allfives(["play", "--name", "Tess", *options], tmp_path)
    return terminal.wait_for(r"Your turn", timeout=30)


def header_on_top(rows: list[str]) -> bool:
    return rows[0].startswith("All Fives · room ")


def test_enter_never_moves_the_frame(terminal: Terminal, tmp_path: Path) -> None:
    rows = start_play(terminal, tmp_path)
    before = terminal.scrolled()
    for _ in range(10):
        terminal.type("/scores")
        rows = terminal.wait_for(r"how it ended")
        assert header_on_top(rows), "\n".join(rows)
        terminal.type("/help")
        rows = terminal.wait_for(r"/bots add LEVEL")
        assert header_on_top(rows), "\n".join(rows)
    # Had the screen moved up even for a moment, its top rows would be in tmux's history.
    assert terminal.scrolled() == before
    assert rows[-1].startswith("›")


def test_the_prompt_row_is_never_blank_while_the_table_is_redrawn(
    terminal: Terminal, tmp_path: Path
) -> None:
    """Each redraw writes the rows above the prompt around it: a look at the screen at any
    moment finds the prompt on its row (it was erased and drawn again around every frame)."""
    start_play(terminal, tmp_path)
    looks = []
    for _ in range(30):
        terminal.type("/ends")
        # Looks at once, as fast as they come, not waiting for the screen to settle.
        looks += [terminal.tmux("capture-pane", "-p", "-t", "e2e:t") for _ in range(6)]
    # The prompt row: its placeholder, or the line being typed (tmux types it key by key).
    blank = [look for look in looks if not look.splitlines()[-1:][0].startswith("› ")]
    assert blank == [], f"{len(blank)} of {len(looks)} looks without the prompt:\n{blank[0]}"


def test_a_long_line_stays_on_the_prompt_row_and_ctrl_l_redraws_the_table(
    terminal: Terminal, tmp_path: Path
) -> None:
    table = start_play(terminal, tmp_path)
    before = terminal.scrolled()
    terminal.keys("-l", "x" * 400)
    rows = terminal.wait_for(r"x{60}")
    assert sum("xxxx" in row for row in rows) == 1 and "xxxx" in rows[-1], "\n".join(rows)
    assert rows[:-1] == table[:-1]
    terminal.keys("C-u")
    rows = terminal.wait_for(r"› a tile number")
    assert rows == table
    assert terminal.scrolled() == before
    # Something else writes over the table; Ctrl-L draws it all again.
    terminal.scribble("\x1b[H\x1b[Jsomething else wrote here\r\n")
    terminal.wait_for(r"something else wrote here")
    terminal.keys("C-l")
    rows = terminal.wait_for(r"All Fives · room [\s\S]*Your turn")
    assert rows == table


def test_ctrl_c_cancels_the_end_question_and_asks_before_ending_the_match(
    terminal: Terminal, tmp_path: Path
) -> None:
    rows = start_play(terminal, tmp_path, "--target", "500")
    asked = False
    for _ in range(60):  # moves: a tile that fits two ends comes soon in a two-player match
        line = status(rows)
        if line.startswith("Press Enter"):
            terminal.type("")
        elif line.startswith("Your turn"):
            numbers = re.findall(r"\d+", line.split("(")[0])
            number = numbers[0] if numbers else "1"
            terminal.type(number)
            rows = terminal.wait_for(r"which end\?|to play…|Your turn|Press Enter")
            if "which end?" in status(rows):
                terminal.type("x")  # no end: asked again, saying why
                rows = terminal.wait_for(
                    r"✗ 'x' is no end: [nsew](, [nsew])*( or [nsew])+, or Enter"
                )
                assert "which end?" in status(rows)
                terminal.keys("C-c")
                rows = terminal.wait_for(r"not played")
                assert status(rows).startswith("Your turn") and rows[-1].startswith("› ")
                asked = True
                break
            continue
        rows = terminal.wait_for(r"Your turn|Press Enter")
    assert asked, "no tile fitting two ends came up"
    # Ctrl-C with nothing typed: the match is not thrown away without a question.
    terminal.keys("C-c")
    rows = terminal.wait_for(r"Quitting ends this match")
    assert rows[-1].startswith("end this match (y/n)?")
    terminal.type("n")
    rows = terminal.wait_for(r"The match goes on")
    assert status(rows).startswith("Your turn")
    terminal.keys("C-c")
    terminal.wait_for(r"end this match \(y/n\)\?")
    terminal.keys("C-c")
    terminal.wait_for(r"EXITED 0")
