"""The full-screen table's header marks a tournament's table (`RoomView.tournament_table`) with
a translated word, first after the title, and stays whole beside it at 60 and 80 columns in
every language: drawn from crafted views, and watched in tmux at 60 columns on a real server."""

from __future__ import annotations

import re
import sys
from pathlib import Path

import pytest
from client_helpers import ROOT
from hypothesis import given
from hypothesis import strategies as st
from i18n_helpers import GETTEXT_NAMES, LANGUAGES, cli_words
from server_helpers import ServerThread
from table_helpers import make_view
from tmux_helpers import NEEDS_TMUX, Terminal
from tournament_helpers import bots_table

from clients.cli import i18n
from clients.cli.render import header
from protocol.views import Ends, Layout, Played, RoomView

#: The word for each language, as the catalogs have it (a test of its own that it is translated
#: is tests/test_i18n_catalogs.py's).
MARKS = {language: cli_words(language, "tournament") for language in LANGUAGES}


def table_view(
    hand_number: int, boneyard: int, total: int, target: int, tournament: bool
) -> RoomView:
    view = make_view(
        layout=Layout(line=[[6, 4]]),
        ends=Ends(west=6, east=4),
        total=total,
        target=target,
        history=[Played(seat=1, tile="6-4", end=None, total=total, points=total)],
    )
    assert view.game is not None
    view.code = "KNDF"
    view.game.hand_number = hand_number
    view.game.boneyard = boneyard
    view.tournament_table = tournament
    return view


def test_each_language_has_a_word_of_its_own_for_the_mark() -> None:
    assert MARKS["en"] == "tournament"
    assert len(set(MARKS.values())) == len(MARKS), MARKS


@given(
    language=st.sampled_from(LANGUAGES),
    width=st.sampled_from([60, 80]),
    hand_number=st.integers(1, 40),
    boneyard=st.integers(0, 28),
    total=st.integers(0, 12).map(lambda fives: fives * 5),
    target=st.integers(1, 200).map(lambda fives: fives * 5),
)
def test_a_tournament_tables_header_says_so_and_stays_whole_at_60_and_80_columns(
    language: str, width: int, hand_number: int, boneyard: int, total: int, target: int
) -> None:
    i18n.set_language(GETTEXT_NAMES[language])
    try:
        marked = header(table_view(hand_number, boneyard, total, target, True), width).plain
        plain = header(table_view(hand_number, boneyard, total, target, False), width).plain
    finally:
        i18n.set_language("en")
    mark = MARKS[language]
    assert len(marked) <= width and "…" not in marked, marked
    # The mark comes first (after the title when there is room), the room's code right after.
    assert re.match(rf"(All Fives · )?{re.escape(mark)} · \D*KNDF · ", marked), marked
    # Nothing else gives way: the hand, the target, the boneyard and the total are all there.
    numbers = [int(n) for n in re.findall(r"\d+", marked.replace("KNDF", ""))]
    assert numbers[:3] == [hand_number, target, boneyard], marked
    assert numbers[-1] == total, marked
    # An ordinary room's header has no mark.
    assert mark not in plain, plain


@NEEDS_TMUX
@pytest.mark.terminal
@pytest.mark.parametrize("terminal", [(60, 20)], indirect=True)
@pytest.mark.parametrize("language", LANGUAGES)
def test_watching_a_tournaments_table_at_60_columns_the_header_marks_it(
    terminal: Terminal, language: str, tmp_path: Path
) -> None:
    with ServerThread(bot_delay=0.3) as server:
        url = server.server.url
        room = server.call(bots_table(url))
        command = [sys.executable, "-m", "allfives.cli", "watch", url, room, "--lang", language]
        env = {
            "TERM": "xterm-256color",
            "PYTHONPATH": str(ROOT),
            "LANG": "C.UTF-8",
            "XDG_CONFIG_HOME": str(tmp_path),
            "COLUMNS": str(terminal.width),
            "LINES": str(terminal.height),
        }
        terminal.start(command, env)
        mark = MARKS[language]
        rows = terminal.wait_for(rf"^{re.escape(mark)} · {room} · ", timeout=30)
        top = rows[0]
        assert len(top) <= 60 and "…" not in top, top
        # The header is whole: the hand, the target and the boneyard, then the total on the right
        # (a dash before the hand's first tile).
        whole = rf"{re.escape(mark)} · {room} · \D+\d+ · \D*\d+\D* · \D+\d+ {{2,}}\D+(\d+|—)( ★)?"
        assert re.fullmatch(whole, top.rstrip()), top
