"""A whole small tournament through the real terminal client: Ann creates a round robin at tables
of two (first to 10) with an easy bot, Bea joins, Ann starts it, and both, in plain lines,
follow it from the lobby to each of their tables by themselves, play their matches there, come
back to the tournament's standings between rounds, sit out their bye, and end on the final
standings and the champion with status 0: what the server's API says happened."""

from __future__ import annotations

import re
import time
from pathlib import Path
from typing import Any

import pexpect  # type: ignore[import-untyped]
from client_helpers import ROOT, keep_player_key, spawn_plain
from server_helpers import ServerThread, api_get

from protocol import api
from protocol.tournaments import TournamentView

ENV = {"TERM": "xterm-256color", "PYTHONPATH": str(ROOT), "LANGUAGE": "en"}
#: The plain table's question on your turn.
YOUR_TURN = r"Type (?:a move's number, 1 to \d+|1 to make it), or /help\."
MATCH_SECONDS = 180.0
#: A round robin of three at tables of two, each match first to 10: three short rounds.
CUP_OPTIONS = ("--bots", "easy", "--target", "10", "--plain")


def played_on(child: Any) -> bool:
    """Answer the child's turn with its first legal move if it asks; True once it has ended."""
    index = child.expect([YOUR_TURN, pexpect.EOF, pexpect.TIMEOUT], timeout=0.2)
    if index == 0:
        child.sendline("1")
    return bool(index == 1)


def test_two_players_and_a_bot_follow_a_tournament_from_lobby_to_tables_to_champion(
    tmp_path: Path,
) -> None:
    with ServerThread() as server:
        url = server.server.url
        keep_player_key(tmp_path / "ann", url, "Ann")
        keep_player_key(tmp_path / "bea", url, "Bea")
        ann, ann_said = spawn_plain(
            ["tournament", "create", url, "--name", "Cup", *CUP_OPTIONS],
            {**ENV, "XDG_CONFIG_HOME": str(tmp_path / "ann")},
        )
        bea: Any = None
        try:
            ann.expect(r"Friends enter with: .*allfives tournament join \S+ ([A-Z]{5})")
            code = ann.match.group(1)
            bea, bea_said = spawn_plain(
                ["tournament", "join", url, code, "--plain"],
                {**ENV, "XDG_CONFIG_HOME": str(tmp_path / "bea")},
            )
            bea.expect("Waiting for the host to start it")
            ann.expect("Entrants \\(3\\): 1 bot:easy, 2 Ann, 3 Bea")
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
        finally:
            ann.close(force=True)
            if bea is not None:
                bea.close(force=True)
        answer = server.call(api_get(url, f"/api/tournaments/{code}"))
    view = api.decode_answer(answer.body, TournamentView)
    assert view.phase == "finished" and view.champion is not None
    names = [entrant.name for entrant in view.entrants]
    champion = names[view.units[view.champion][0]]
    for name, said in (("Ann", ann_said.getvalue()), ("Bea", bea_said.getvalue())):
        me = names.index(name)
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
        between = said[moves[0].end() : moves[1].start()]
        first_round = view.rounds[int(moves[0].group(1)) - 1].tables[0]
        assert first_round.scores is not None
        assert " : ".join(map(str, first_round.scores)) in between  # back at the standings
        assert "Standings" in between
        assert said.count("You sit this round out") >= 1
        final = said[moves[-1].end() :]
        assert "Standings" in final and f"Champion: {champion}" in final
        assert "\x1b" not in said
