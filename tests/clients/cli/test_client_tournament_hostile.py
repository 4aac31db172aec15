"""A hostile server cannot drive the terminal through a tournament: its title, code, host and
entrants' names, a refusal's words, and the names at one of its tables (with the line of a move a
stand-in made for you) reach the screen with their escape sequences made visible, on the drawn
tournament screen, in its plain lines and on the table. The server refuses such names from
players (protocol/text_checks.py), so these views are crafted, as a hostile server would send
them."""

from __future__ import annotations

import argparse
import io
import re
from pathlib import Path

from rich.console import Console
from table_helpers import make_view

from clients.cli.app import App
from clients.cli.connection import Connection
from clients.cli.keys import KeyStore
from clients.cli.state import TableState
from clients.cli.tournament_link import TournamentLink, refusal
from clients.cli.tournament_screen import TournamentScreen
from protocol import messages as msg
from protocol.rules import Rules
from protocol.tournaments import (
    EntrantView,
    Phase,
    RoundView,
    StandingView,
    TableView,
    TournamentUpdate,
    TournamentView,
)
from protocol.views import HandStarted, Played, SeatInfo

#: Set the window title; blink what follows; a CSI in one byte; a bell; a bidi override.
TITLE = "Cup\x1b]0;owned\x07"
CODE = "QW\x1b[5mRTZ"
HOST = "Host\x9b31m"
ANN = "Ann\u202eeno"
BEA = "Bea\x1b]8;;http://x\x1b\\link"
ERROR = "no\x1b]8;;http://y\x1b\\link\x07"
#: What none of the output may hold: the hostile sequences and characters themselves.
FORBIDDEN = ["\x1b]", "\x1b[5m", "\x9b", "\x07", "\u202e"]
#: What stays to be read, made visible.
SHOWN = ["Cup␛]0;owned␇", "QW␛[5mRTZ", "Host�31m", "Ann�eno", "Bea␛]8;;http://x␛\\link"]


def hostile_view(phase: Phase, played: bool = False) -> TournamentView:
    tables = [TableView(seats=[0, 1], room="AB\x1bCD", scores=[100, 15] if played else None)]
    return TournamentView(
        code=CODE,
        name=TITLE,
        format="round_robin",
        rules=Rules(players=2),
        partners=None,
        rounds_planned=1,
        public=True,
        turn_seconds=None,
        host=HOST,
        phase=phase,
        version=3 if played else 2 if phase == "playing" else 1,
        entrants=[EntrantView(name=ANN), EntrantView(name=BEA)],
        units=[[0], [1]],
        rounds=[RoundView(tables=tables, byes=[])] if phase != "open" else [],
        standings=[
            StandingView(
                unit=unit, match_points=2 - 2 * unit, buchholz=0, score=0, played=1, byes=0
            )
            for unit in (0, 1)
        ]
        if played
        else [],
        champion=0 if played else None,
    )


def screen_of(tmp_path: Path, plain: bool) -> tuple[TournamentScreen, TournamentLink, io.StringIO]:
    keys = KeyStore(tmp_path / "keys.json")
    link = TournamentLink("ws://host:1/", "Ann", "key", keys)
    link.player = HOST  # the host: the lobby says how to start it, with the code
    output = io.StringIO()
    screen = TournamentScreen(link, argparse.Namespace(plain=plain), keys, output)
    return screen, link, output


def check(printed: str, shown: list[str] = SHOWN) -> str:
    """The output's text without the console's own styles, once none of the hostile sequences
    is in it and each of the server's words is there to read."""
    for sequence in FORBIDDEN:
        assert sequence not in printed, (repr(sequence), printed)
    text = re.sub(r"\x1b\[[0-9;?]*[A-Za-z]", "", printed)
    for words in shown:
        assert words in text, (words, text)
    return text


def test_the_drawn_tournament_screen_shows_a_hostile_servers_words_as_text(tmp_path: Path) -> None:
    screen, link, output = screen_of(tmp_path, plain=False)
    screen.console = Console(file=output, force_terminal=True, color_system="truecolor", width=100)
    # The lobby: how friends enter and how to start it, with the server's code in them.
    link.update = TournamentUpdate(tournament=CODE, state=hostile_view("open"), you=0)
    link.notice = refusal(
        msg.Error(id=None, command="start_tournament", code="no_such_code", message=ERROR), CODE
    )
    screen.show(force=True)
    # Then its round, and its end with the standings and the champion.
    link.update = TournamentUpdate(tournament=CODE, state=hostile_view("finished", True), you=0)
    screen.show(force=True)
    printed = check(output.getvalue())
    assert "tournament join ws://host:1 QW␛[5mRTZ" in printed
    # A refusal's words (rich drops the bell itself).
    assert "no␛]8;;http://y␛\\link" in printed


def test_the_plain_tournament_lines_show_a_hostile_servers_words_as_text(tmp_path: Path) -> None:
    screen, link, output = screen_of(tmp_path, plain=True)
    phases: list[tuple[Phase, bool]] = [("open", False), ("playing", False), ("finished", True)]
    for phase, played in phases:
        state = hostile_view(phase, played)
        link.update = TournamentUpdate(tournament=CODE, state=state, you=0)
        screen.show(force=True)
    printed = check(output.getvalue())
    # The news of the round's result and the champion came as lines of their own.
    assert "Round 1, table 1: Ann�eno – Bea␛]8;;http://x␛\\link: 100 : 15" in printed
    assert "Champion: Ann�eno" in printed


def test_a_tournaments_table_shows_hostile_names_and_a_stand_ins_move_as_text() -> None:
    seats = [SeatInfo(seat=0, name=ANN, kind="human"), SeatInfo(seat=1, name=BEA, kind="bot")]
    history = [
        HandStarted(number=1, leader=0),
        Played(seat=0, tile="5-5", end=None, total=10, points=10, stand_in=True),
    ]
    view = make_view(seats=seats, you=0, turn=1, history=history)
    view.code = CODE
    view.tournament_table = True
    state = TableState()
    state.receive(msg.Snapshot(seq=1, state=view))
    output = io.StringIO()
    app = App(Connection("ws://host:1/", "Ann", state), join_url="ws://host:1", output=output)
    app.console = Console(file=output, force_terminal=True, color_system="truecolor", width=100)
    app.paint()
    printed = check(output.getvalue(), ["QW␛[5mRTZ", "Ann�eno", "Bea␛]8;;http://x␛\\link"])
    assert "tournament · room QW␛[5mRTZ" in printed
    assert "Ann�eno led 5-5: total 10, scores 10 (a bot, standing in for you)" in printed
    assert "Bea␛]8;;http://x␛\\link" in printed
