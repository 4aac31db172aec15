"""A whole small tournament through the real terminal client: Ann creates a round robin at tables
of two (first to 10) with an easy bot, Bea joins, Ann starts it, and both, in plain lines,
follow it from the lobby to each of their tables by themselves, play their matches there, come
back to the tournament's standings between rounds, sit out their bye, and end on the final
standings and the champion with status 0: what the server's API says happened. And in a
terminal (tmux), the drawn screen: the lobby, Ann's table by itself once Ann starts it, and
back to the standings with that table's scores and her bye in the next round."""

from __future__ import annotations

import re
import sys
import time
from pathlib import Path
from typing import Any

import pexpect  # type: ignore[import-untyped]
import pytest
from client_helpers import played_tournament
from command_helpers import spawn_plain
from server_helpers import ServerThread
from table_helpers import status
from tmux_helpers import NEEDS_TMUX, Terminal
from tournament_helpers import (
    as_player,
    bots_tournament_started,
    lobby_code,
    players_keyed,
    tournament_terminal,
    tournament_view,
)

pytestmark = pytest.mark.terminal

#: The plain table's question on your turn.
YOUR_TURN = r"Type (?:a move's number, 1 to \d+|1 to make it), or /help\."
#: A finished table's countdown back to the tournament.
LINGER = r"Back to the tournament in \d+ s; Enter goes now"
#: Longer than the test's whole: a table left before it ran out was left by Enter.
LONG_LINGER = {"ALLFIVES_LINGER_SECONDS": "600"}
MATCH_SECONDS = 180.0
#: A round robin of three at tables of two, each match first to 10: three short rounds.
CUP_OPTIONS = ("--bots", "easy", "--target", "10")


def played_on(child: Any) -> bool:
    """Answer the child's turn with its first legal move if it asks, and a finished table's
    countdown with Enter; True once it has ended."""
    index = child.expect([YOUR_TURN, LINGER, pexpect.EOF, pexpect.TIMEOUT], timeout=0.2)
    if index in (0, 1):
        child.sendline("1" if index == 0 else "")
    return bool(index == 2)


def test_two_players_and_a_bot_follow_a_tournament_from_lobby_to_tables_to_champion(
    tmp_path: Path,
) -> None:
    with ServerThread() as server:
        url = server.server.url
        ann_home, bea_home = players_keyed(tmp_path, url, "Ann", "Bea")
        create = ["create", url, "--title", "Cup", *CUP_OPTIONS]
        with tournament_terminal(ann_home, *create, **LONG_LINGER) as (ann, ann_said):
            code = lobby_code(ann)
            with tournament_terminal(bea_home, "join", url, code, **LONG_LINGER) as (
                bea,
                bea_said,
            ):
                bea.expect("Waiting for the host to start it")
                ann.expect("Entrants \\(3\\): 1 bot:easy 1, 2 Ann \\(you\\), 3 Bea")
                ann.sendline("/start")
                ended = {"ann": False, "bea": False}
                deadline = time.monotonic() + MATCH_SECONDS
                while not all(ended.values()):
                    assert time.monotonic() < deadline, ann_said.getvalue() + bea_said.getvalue()
                    ended["ann"] = ended["ann"] or played_on(ann)
                    ended["bea"] = ended["bea"] or played_on(bea)
                ann.close()
                bea.close()
                assert (ann.exitstatus, bea.exitstatus) == (0, 0)
        view = tournament_view(server, code)
    assert view.phase == "finished" and view.champion is not None
    names = [entrant.name for entrant in view.entrants]
    champion = names[view.units[view.champion][0]]
    for name, said in (("Ann", ann_said.getvalue()), ("Bea", bea_said.getvalue())):
        me = names.index(name)
        said = said.replace("\r\n", "\n")  # the terminal's line ends
        moves = list(re.finditer(r"Round (\d): to your table, room (\w+)", said))
        mine = [
            (number, table.room)
            for number, played in enumerate(view.rounds, start=1)
            for table in played.tables
            if me in table.seats
        ]
        assert [(int(m.group(1)), m.group(2)) for m in moves] == mine, said
        for move in moves:  # each move shows that room's table
            assert f"Room {move.group(2)}: 2 players" in said[move.end() :]
        for move, after in zip(moves, [*moves[1:], None], strict=True):
            at_table = said[move.end() : after.start() if after is not None else None]
            # The match's end is told, then the countdown, then the tournament's news.
            won = re.search(r" wins the match: [^\n]*\.\nYou (?:win|lose)\.", at_table)
            assert won is not None, at_table
            linger = re.search(LINGER, at_table)
            assert linger is not None and won.start() < linger.start(), at_table
            news = at_table[linger.end() :]
            assert "Standings" in news or "Champion" in news, at_table
        between = said[moves[0].end() : moves[1].start()]
        first_round = view.rounds[int(moves[0].group(1)) - 1].tables[0]
        assert first_round.scores is not None
        assert " : ".join(map(str, first_round.scores)) in between  # back at the standings
        assert "Standings" in between
        # Her bye is said: as hers while it is played, or in its round's pairings when that
        # round was over by the time she was back from her table.
        assert "You sit this round out" in said or f"Sits this round out: {name}\n" in said
        final = said[moves[-1].end() :]
        assert "Standings" in final and f"Champion: {champion}" in final
        assert "\x1b" not in said
        assert f"{name} left seat" not in said, said  # nobody is told of their own leaving
        # Told whole once, then only what changed: each line of news said once.
        assert "Entrants" not in said[moves[0].start() :], said
        assert said.count(f"Champion: {champion}") == 1, said
        assert said.count("Round 1\n") == 1 and said.count("Round 3\n") == 1, said
        for played in view.rounds:
            for table in played.tables:
                # Each result once: as news ("Round 2, table 1: ...") or, for a round over
                # before she was back from her table, in that round's pairings.
                assert table.scores is not None
                seated = " – ".join(names[seat] for seat in table.seats)
                result = f"{seated}: {table.scores[0]} : {table.scores[1]}\n"
                assert said.count(result) == 1, said


def drawn_turn(terminal: Terminal, rows: list[str]) -> None:
    """Answer what the drawn table asks: a legal tile on your turn, an end, or Enter after a
    hand's result."""
    prompt = max((i for i, row in enumerate(rows) if "›" in row), default=len(rows) - 1)
    line = status(rows[: prompt + 1])
    if line.startswith("Press Enter to go on"):
        terminal.type("")
    elif "which end?" in line:
        terminal.type(re.findall(r"\b([nsew]) →", line)[-1])
    elif line.startswith("Your turn: lead any tile"):
        terminal.type("1")
    elif line.startswith("Your turn"):
        terminal.type(re.findall(r"\d+", line.split("(")[0])[0])


def test_watching_a_tournaments_table_says_it_is_one_for_watching(tmp_path: Path) -> None:
    """`allfives watch` of a table's room: the room's line says it is a tournament's table, for
    watching (its seats are the entrants'), whoever watches."""
    with ServerThread(bot_delay=0.2) as server:
        url = server.server.url
        begun = server.call(bots_tournament_started(url, bots=2, target=500))
        room = begun.state.rounds[0].tables[0].room
        assert room is not None
        child, _said = spawn_plain(["watch", url, room, "--plain"], as_player(tmp_path))
        try:
            child.expect(rf"Room {room}: 2 players, first to 500, [^\n]*")
            line = str(child.after)
            assert line.rstrip().endswith("a tournament's table, for watching"), line
            assert "join" not in line
        finally:
            child.close(force=True)


@NEEDS_TMUX
@pytest.mark.parametrize("terminal", [(80, 24), (60, 24)], indirect=True)
def test_the_drawn_screen_moves_to_the_table_and_back_to_the_standings(
    terminal: Terminal, tmp_path: Path
) -> None:
    with ServerThread() as server:
        url = server.server.url
        ann_home, bea_home = players_keyed(tmp_path, url, "Ann", "Bea")
        command = [sys.executable, "-m", "allfives.cli", "tournament", "create", url]
        command += ["--title", "Cup", "--bots", "easy", "--target", "10"]
        size = {"COLUMNS": str(terminal.width), "LINES": str(terminal.height)}
        terminal.start(command, as_player(ann_home, **size, **LONG_LINGER))
        rows = terminal.wait_for(r"Friends enter with: ")
        found = re.search(r"^Cup · ([A-Z]{5})$", rows[0])
        assert found is not None, rows
        code = found.group(1)
        assert code in "".join(rows[rows.index(next(r for r in rows if "Friends" in r)) :])
        assert "Start it once everyone is in: type /start" in "\n".join(rows)
        with tournament_terminal(bea_home, "join", url, code) as (bea, _):
            bea.expect("Waiting for the host to start it")
            terminal.wait_for(r"Entrants \(3\): 1 bot:easy 1, 2 Ann \(you\), 3 Bea")
            terminal.type("/start")
            # Round 1 seats Ann with the bot: her table comes by itself.
            # (A narrow header, or a match the bot won at its first lead, drops "room".)
            rows = terminal.wait_for(r"\b[A-Z]{4} · hand", timeout=30)
            room = re.search(r"\b([A-Z]{4}) · hand", rows[0])
            assert room is not None and "Ann (you)" in "\n".join(rows[:3])
            deadline = time.monotonic() + MATCH_SECONDS
            while not re.search(LINGER, "\n".join(rows)):
                assert time.monotonic() < deadline, "\n".join(rows)
                assert not any(row.startswith("Standings") for row in rows), "\n".join(rows)
                drawn_turn(terminal, rows)
                rows = terminal.screen()
            # The finished table stays, its end in sight, until Enter (the countdown is long).
            ended = "\n".join(rows)
            assert re.search(r"(Ann|bot:easy 1) wins the match", ended), ended
            assert not any(row.startswith("Standings") for row in rows), ended
            terminal.type("")
            rows = terminal.wait_for(r"Standings")
            if not any(row.startswith("Round 3") for row in rows):  # round 2 may be over
                rows = terminal.wait_for(r"You sit this round out")
        view = tournament_view(server, code)
    first = view.rounds[0].tables[0]
    assert first.room == room.group(1) and first.scores is not None
    shown = "\n".join(rows)
    seated = " – ".join(view.entrants[seat].name for seat in first.seats)
    assert sorted(seated.split(" – ")) == ["Ann", "bot:easy 1"]
    if "(1 earlier round" not in shown:
        assert f"Table 1: {seated}: {first.scores[0]} : {first.scores[1]}" in shown, shown
    else:  # round 3 is drawn already: 24 rows show rounds 2 and 3, and Ann's one match so far
        ann = first.scores[[view.entrants[seat].name for seat in first.seats].index("Ann")]
        assert re.search(rf"^\d+\s+Ann\s+\d+\s+\d+\s+{ann}\s+1\s", shown, re.M), shown
    assert "Round 2" in shown and "playing in room" in shown


@pytest.mark.terminal
@NEEDS_TMUX
@pytest.mark.parametrize("terminal", [(80, 24), (60, 24)], indirect=True)
def test_a_screen_too_short_for_every_round_names_the_whole_command_that_shows_them(
    terminal: Terminal, tmp_path: Path
) -> None:
    """The drawn screen counts the rounds it has no room for and names the command that
    shows them, with its server and code, ready to type."""
    with ServerThread() as server:
        server.call(played_tournament(server.server, "QWRTZ", ["Ann", "Bea"], ["easy"], 3))
        url = server.server.url.rstrip("/")
        [cid_home] = players_keyed(tmp_path, url, "Cid")
        size = {"COLUMNS": str(terminal.width), "LINES": str(terminal.height)}
        command = [sys.executable, "-m", "allfives.cli", "tournament", "join", url, "QWRTZ"]
        terminal.start(command, as_player(cid_home, **size))
        rows = terminal.wait_for(r"Champion: ")
    shown = " ".join("\n".join(rows).split())
    found = re.search(r"\((\d) earlier rounds?: ([^)]*)\)", shown)
    assert found is not None, "\n".join(rows)
    assert found.group(2).endswith(f" tournament show {url} QWRTZ"), found.group(2)
    assert f"Round {int(found.group(1)) + 1}" in shown  # the last rounds are drawn


def test_a_player_who_leaves_the_table_mid_match_comes_back_to_the_same_seat(
    tmp_path: Path,
) -> None:
    with ServerThread() as server:
        url = server.server.url
        ann_home, bea_home = players_keyed(tmp_path, url, "Ann", "Bea")
        create = ["create", url, "--title", "Cup", "--bots", "easy"]
        with tournament_terminal(ann_home, *create) as (ann, said):
            code = lobby_code(ann)
            with tournament_terminal(bea_home, "join", url, code):
                ann.expect("Entrants \\(3\\): 1 bot:easy 1, 2 Ann \\(you\\), 3 Bea")
                ann.sendline("/start")
                ann.expect(r"Round 1: to your table, room ([A-Z]{4})")
                room = ann.match.group(1)
                ann.expect(f"Room {room}: 2 players")
                ann.sendline("/quit")
                ann.expect(f"come back with: .*allfives tournament join \\S+ {code}")
                ann.expect(pexpect.EOF)
                ann.close()
                assert ann.exitstatus == 0
                # The table's own farewell names the same way back: the tournament's, not the
                # room's `join` (which would seat her but never bring her to her next table).
                told = " ".join(said.getvalue().split())
                back = rf"You left room {room} during a match: a bot plays your seat until you"
                back += rf" come back with: [^:]*\btournament join \S+ {code}\b"
                assert re.search(back, told), told
                still = tournament_view(server, code).rounds[0].tables[0].scores
                assert still is None  # still playing
                with tournament_terminal(ann_home, "join", url, code) as (again, _):
                    again.expect(f"Round 1: to your table, room {room}")
                    again.expect(f"Back in your seat \\(seat \\d of room {room}")


@pytest.mark.terminal
@NEEDS_TMUX
@pytest.mark.parametrize("terminal", [(80, 24), (60, 24)], indirect=True)
def test_the_goodbye_after_quit_keeps_the_command_to_come_back_whole_on_its_row(
    terminal: Terminal, tmp_path: Path
) -> None:
    """Folded at spaces to the terminal's width, not cut mid-word by the terminal's wrap."""
    with ServerThread() as server:
        url = server.server.url.rstrip("/")
        [ann_home] = players_keyed(tmp_path, url, "Ann")
        size = {"COLUMNS": str(terminal.width), "LINES": str(terminal.height)}
        command = [sys.executable, "-m", "allfives.cli", "tournament", "create", url]
        terminal.start([*command, "--title", "Cup"], as_player(ann_home, **size))
        rows = terminal.wait_for(r"Friends enter with: ")
        found = re.search(r"^Cup · ([A-Z]{5})$", rows[0])
        assert found is not None, rows
        terminal.type("/quit")
        rows = terminal.wait_for(r"EXITED 0")
    shown = [row.rstrip() for row in rows]
    come_back = next(i for i, row in enumerate(shown) if row.startswith("You left the"))
    said = shown[come_back : shown.index("EXITED 0")]
    assert " ".join(" ".join(said).split()).startswith(
        "You left the tournament's screen; come back with: "
    )
    whole = f"tournament join {url} {found.group(1)}"
    assert said[-1].endswith(whole) and said[-1].split()[0] in ("uv", "allfives"), said
    assert all(len(row) < terminal.width for row in said), said
