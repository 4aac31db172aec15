"""End to end: the real `allfives play` in a terminal (tmux), a whole match typed move by move.

The test reads the screen as a player would: whose turn it is, the hand, the corner total, the
scores; it types tile numbers, tiles and end letters, and checks what the screen shows back.
"""

from __future__ import annotations

import re
import sys
import time
from pathlib import Path

import pytest
from client_helpers import ROOT
from table_helpers import status
from tmux_helpers import NEEDS_TMUX, Terminal
from waiting import until_sync

MATCH_SECONDS = 90.0

pytestmark = [pytest.mark.terminal, NEEDS_TMUX]


def hand(rows: list[str]) -> dict[int, str]:
    """The tiles of the hand by the numbers shown above them, read off the screen."""
    start = next(i for i, row in enumerate(rows) if "your tiles" in row)
    numbers: list[int] = []
    tiles: dict[int, str] = {}
    for row in rows[start + 1 :]:
        if row.startswith("─"):
            break
        found = [f"{a}-{b}" for a, b in re.findall(r"\[(\d)\|(\d)\]", row)]
        if found:
            tiles.update(zip(numbers, found, strict=True))
        else:
            numbers = [int(n) for n in re.findall(r"(\d+)\*?", row)]
    return tiles


def scores(rows: list[str]) -> dict[str, int]:
    """Each player's score from the players row."""
    return {
        name: int(points)
        for name, points in re.findall(r"(Tess|Bot 2)(?: \(you\))? (\d+) pts", rows[1])
    }


def corner_total(rows: list[str]) -> int | None:
    found = re.search(r"ends total (\d+)( ★)?\s*$", rows[0])
    if found is None:
        return None
    total = int(found.group(1))
    assert bool(found.group(2)) == (total > 0 and total % 5 == 0), rows[0]
    return total


def last_logged_total(rows: list[str]) -> int | None:
    totals = [int(t) for row in rows for t in re.findall(r": total (\d+)", row)]
    return totals[-1] if totals else None


def test_a_whole_match_against_a_bot_typed_in_a_terminal(
    terminal: Terminal, tmp_path: Path
) -> None:
    env = {
        "ALLFIVES_BOT_DELAY": "0.05",
        "XDG_CONFIG_HOME": str(tmp_path),
        "TERM": "xterm-256color",
        "PYTHONPATH": str(ROOT),
    }
    command = [
        sys.executable,
        "-m",
        "allfives.cli",
        "play",
        "--players",
        "2",
        "--target",
        "50",
        "--name",
        "Tess",
    ]
    terminal.start(command, env)
    rows = terminal.wait_for(r"Your turn|to play…", timeout=30)
    assert rows[0].startswith("All Fives · room ") and "first to 50" in rows[0]
    # Nine dealt; more if the bot led and Tess had to draw before her first move.
    mine = re.search(r"Tess \(you\) \d+ pts · (\d+) tiles", rows[1])
    assert mine is not None and int(mine.group(1)) >= 9, rows[1]
    assert re.search(r"Bot 2 \d+ pts · \d tiles", rows[1]), rows[1]

    terminal.type("/help")
    terminal.wait_for(r"/bots add LEVEL")

    moves = refusals = asked = checked = hints = results = 0
    typed_before: list[str] | None = None
    deadline = time.monotonic() + MATCH_SECONDS
    last: list[str] = rows  # the screen last looked at, for a failure's message

    def next_screen() -> list[str] | None:
        """The screen once it shows something to answer (or the match's end), new since the
        last answer."""
        nonlocal last
        last = terminal.screen()
        line = status(last)
        if "wins the match" in line:
            return last
        if last == typed_before:
            return None
        if line.startswith(("Your turn", "Press Enter to go on")) or "which end?" in line:
            return last
        return None

    while True:
        try:
            rows = until_sync(next_screen, deadline - time.monotonic(), "a screen", every=0.05)
        except AssertionError:
            raise AssertionError("the match took too long:\n" + "\n".join(last)) from None
        line = status(rows)
        if "wins the match" in line:
            break
        if line.startswith("Your turn") or "which end?" in line:
            total, logged = corner_total(rows), last_logged_total(rows)
            if total is not None and logged is not None:
                assert total == logged, "\n".join(rows)
                checked += 1
        if line.startswith("Press Enter to go on"):
            assert re.search(r"── hand \d+ result · Enter to go on", "\n".join(rows)), rows
            results += 1
            terminal.type("")
        elif "which end?" in line:
            letters = re.findall(r"\b([nsew]) →", line)
            terminal.type(letters[-1])
            asked += 1
        elif line.startswith("Your turn"):
            tiles = hand(rows)
            playable = [int(n) for n in re.findall(r"\d+", line.split("(")[0])]
            if line.startswith("Your turn: lead any tile"):
                playable = sorted(tiles)
            unplayable = [n for n in sorted(tiles) if n not in playable]
            if hints == 0:
                terminal.type("/hint")
                hinted = terminal.wait_for(r"Hint: the hard bot would play \d-\d", timeout=30)
                suggested = re.search(r"would play (\d-\d)", "\n".join(hinted))
                assert suggested is not None and suggested.group(1) in tiles.values()
                hints += 1
                continue
            if refusals == 0 and unplayable:
                terminal.type(tiles[unplayable[0]])
                refused = terminal.wait_for(r"✗ ")
                assert "fits no open end" in "\n".join(
                    refused
                ) or "cannot be played now" in "\n".join(refused)
                assert status(refused).startswith("Your turn")
                refusals += 1
                continue
            number = playable[moves % len(playable)]
            high, low = tiles[number].split("-")
            terminal.type(str(number) if moves % 2 else f"{low}-{high}")
            moves += 1
        typed_before = rows

    assert results or any("result · Enter to go on" in row for row in rows), "\n".join(rows)
    final = scores(rows)
    winner = "Tess" if line.startswith("Tess wins") else "Bot 2"
    assert line.startswith(f"{winner} wins the match: ")
    assert final[winner] >= 50 and final[winner] > min(final.values())
    assert f"Tess {final['Tess']}, Bot 2 {final['Bot 2']}." in line
    assert all(points % 5 == 0 for points in final.values())
    assert moves >= 3 and checked >= 3
    terminal.type("/quit")
    terminal.wait_for(r"EXITED 0")


def test_a_host_and_a_friend_who_joins_with_the_printed_line(
    terminal: Terminal, tmp_path: Path
) -> None:
    host = ["host", "--port", "0", "--players", "3", "--name", "Hana"]
    terminal.start_allfives(host, tmp_path / "host", "host")
    # The last line of the block, whole: the screen may be caught between its lines.
    rows = terminal.wait_for(
        r"or in a browser: +http://127\.0\.0\.1:\d+/r/[A-Z]{4}-[A-Z]{10}", window="host"
    )
    shown = re.search(
        r"allfives join (ws://127\.0\.0\.1:\d+) ([A-Z]{4}(?:-[A-Z]{10})?)", "\n".join(rows)
    )
    assert shown is not None, rows
    url, room = shown.groups()
    assert f"or in a browser:    http{url[2:]}/r/{room}" in "\n".join(rows)
    assert "2 free seats" in status(rows)

    femi = tmp_path / "friend"
    terminal.start_allfives(["join", url, room.lower(), "--name", "Femi"], femi, "friend")
    friend = terminal.wait_for(r"Waiting for the host to start", window="friend")
    assert "seat 2  Femi  (you)" in "\n".join(friend)
    rows = terminal.wait_for(r"Femi took seat 2", window="host")

    terminal.type("/start", "host")
    terminal.wait_for(r"✗ every seat must be taken first \(free: 3\)", window="host")
    terminal.type("/bots fill easy", "host")
    terminal.wait_for(r"seat 3  Bot 3  easy bot", window="host")
    terminal.type("/start", "friend")
    terminal.wait_for(r"✗ only the host may start the match", window="friend")
    terminal.type("/start", "host")
    terminal.wait_for(r"hand 1 · first to 200", window="friend")
    terminal.type("/chat good luck", "friend")
    terminal.wait_for(r"Femi: good luck", window="host")

    terminal.type("/quit", "friend")
    terminal.wait_for(r"EXITED 0", window="friend")
    terminal.wait_for(r"Femi is away", window="host")
    # The friend comes back to the seat; the host then closes the room, after saying yes.
    terminal.start_allfives(["join", url, room], femi, "back")
    terminal.wait_for(r"Back in your seat", window="back")
    terminal.wait_for(r"Femi is back", window="host")
    terminal.type("/quit", "host")
    terminal.wait_for(r"y closes the room", window="host")
    terminal.type("y", "host")
    terminal.wait_for(r"EXITED 0", window="host")
    rows = terminal.wait_for(r"EXITED 1", window="back")
    assert "allfives: the host closed the room" in "\n".join(rows)
