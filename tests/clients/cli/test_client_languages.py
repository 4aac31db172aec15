"""The terminal table in each language, at 80 x 24 (tmux, as the end-to-end test plays): the
real `allfives play` started with LANG, LC_MESSAGES or --lang set, a whole match typed move by
move, and no English-only word of the terminal's catalog on any screen along the way (the table
mid-hand, a hand's result, the end of the match, /help). The screens are saved as text to
tests/artifacts/terminal-LANG-*.txt.
"""

from __future__ import annotations

import re
import sys
import time
from pathlib import Path

import pytest
from browser_helpers import ARTIFACTS
from client_helpers import ROOT
from i18n_helpers import LANGUAGES, cli_words, english_leaks, english_only_cli_words
from table_helpers import status
from tmux_helpers import NEEDS_TMUX, Terminal

MATCH_SECONDS = 120.0
#: How each language is asked for: the environment as a player's terminal sets it, or --lang.
ASKED = {
    "en": ({"LANG": "C.UTF-8"}, []),
    "cs": ({"LANG": "cs_CZ.UTF-8", "LC_CTYPE": "C.UTF-8"}, []),
    "sr-Latn": ({"LANG": "C.UTF-8"}, ["--lang", "sr-Latn"]),
    "et": ({"LANG": "C.UTF-8", "LC_MESSAGES": "et_EE.UTF-8"}, []),
}

pytestmark = [pytest.mark.terminal, NEEDS_TMUX]


def keep(language: str, name: str, rows: list[str]) -> None:
    ARTIFACTS.mkdir(parents=True, exist_ok=True)
    (ARTIFACTS / f"terminal-{language}-{name}.txt").write_text("\n".join(rows) + "\n", "utf-8")


@pytest.mark.parametrize("language", LANGUAGES)
def test_a_whole_match_at_80x24_in_each_language(
    language: str, terminal: Terminal, tmp_path: Path
) -> None:
    def said(message: str) -> str:
        return cli_words(language, message)

    english_only = english_only_cli_words(language) if language != "en" else frozenset()

    def check(rows: list[str]) -> None:
        assert english_leaks("\n".join(rows), english_only) == [], "\n".join(rows)
        too_small = said(
            "The terminal is too small ({width}x{height}): the table needs at least "
            "{columns} columns and {rows} rows."
        ).split("(")[0]
        assert too_small not in "\n".join(rows)

    environment, option = ASKED[language]
    env = {
        **environment,
        "ALLFIVES_BOT_DELAY": "0.02",
        "XDG_CONFIG_HOME": str(tmp_path),
        "TERM": "xterm-256color",
        "PYTHONPATH": str(ROOT),
    }
    command = [sys.executable, "-m", "allfives.cli", *option, "play"]
    command += ["--hand-size", "five", "--target", "100", "--name", "Tess"]
    terminal.start(command, env)
    your_turn = said("Your turn")
    first_to = said("first to {target}").format(target=100)
    rows = terminal.wait_for(re.escape(first_to), timeout=30)
    check(rows)
    assert first_to in rows[0], rows[0]

    terminal.type("/help")
    rows = terminal.wait_for(r"/bots add")
    check(rows)
    keep(language, "help", rows)

    press = said("Press Enter to go on (hand {number}'s result is above)").split("{number}")[0]
    which = said("{tile} on {choices}: which end?").split("{choices}")[1]
    wins = said("{side} wins the match").split("{side}")[1]
    shared = said("{names} share the win").split("{names}")[1]
    result = said("hand {number} result · Enter to go on").split("{number}")[0]
    kept = {"mid-hand": False, "result": False}
    moves = 0
    seen: list[str] | None = None
    deadline = time.monotonic() + MATCH_SECONDS
    while True:
        # Each look waits for the screen to change: after a key typed, or when nothing on it
        # asked for one.
        rows = seen = terminal.changed(seen, deadline - time.monotonic())
        line = status(rows)
        # A hand's result is looked for first: the last hand's may be on the match's end screen.
        if result in "\n".join(rows) and not kept["result"]:
            check(rows)
            keep(language, "result", rows)
            kept["result"] = True
        if wins in line or shared in line:
            break
        if line.startswith(press.strip()):
            check(rows)
            terminal.type("")
        elif which.strip() in line:
            check(rows)
            letters = re.findall(r"\b([nsew]) →", line)
            terminal.type(letters[-1])
        elif line.startswith(your_turn):
            check(rows)
            if not kept["mid-hand"] and moves >= 3:
                keep(language, "mid-hand", rows)
                kept["mid-hand"] = True
            numbers = re.findall(r"\b\d+\b", line.split("(")[0])
            terminal.type(numbers[0] if numbers else "1")
            moves += 1
    check(rows)
    keep(language, "end", rows)
    assert kept["mid-hand"] and kept["result"], kept
    terminal.type("/quit")
    terminal.wait_for(r"EXITED 0")
