"""`allfives tournament` against a real server: `show` prints a played tournament (entrants,
each round's tables and scores, the standings with their tie-break columns, the champion) at 60
and 80 columns and in plain lines; `create` prints the code and follows the lobby, where a
friend's `join` shows at once; a refused start, a missing tournament and a name the server will
not have are one line and a non-zero status; what a server sends is shown with its control
characters made visible, whatever it holds."""

from __future__ import annotations

import re
import subprocess
import unicodedata
from pathlib import Path

import pexpect  # type: ignore[import-untyped]
import pytest
from client_helpers import played_tournament
from command_helpers import BOX_DRAWING, run_allfives
from hypothesis import given, settings
from hypothesis import strategies as st
from rich.cells import cell_len
from server_helpers import ServerThread
from tournament_helpers import (
    lobby_code,
    players_keyed,
    tournament_ended,
    tournament_terminal,
    tournament_view,
)
from waiting import until_sync

from clients.cli import i18n
from clients.cli.i18n import _
from clients.cli.tournament_words import tournament_rows
from protocol.rules import Rules
from protocol.tournaments import (
    EntrantView,
    RoundView,
    StandingView,
    TableView,
    TournamentView,
)
from server.desk.kept import Kept, encode
from server.tournaments.stored import Entrant, Round, Table, Tournament


def allfives(*args: str, config: Path, columns: int = 80) -> subprocess.CompletedProcess[str]:
    """What `allfives ARGS` prints, run in this process (`command_helpers.run_allfives`)."""
    return run_allfives(*args, config=config, columns=columns)


def test_show_prints_a_played_tournament_at_60_and_80_columns(tmp_path: Path) -> None:
    with ServerThread() as server:
        server.call(played_tournament(server.server, "QWRTZ", ["Ann", "Bea"], ["easy"], 3))
        view = tournament_view(server, "QWRTZ")
        assert view.phase == "finished" and view.champion is not None
        names = [entrant.name for entrant in view.entrants]
        for columns in (60, 80):
            done = allfives(
                "tournament", "show", server.server.url, "qwrtz", config=tmp_path, columns=columns
            )
            assert done.returncode == 0, done.stderr
            lines = done.stdout.splitlines()
            assert all(cell_len(line) <= columns for line in lines), done.stdout
            text = done.stdout
            assert "Friday cup · QWRTZ" in lines[0]
            for name in names:
                assert name in text
            for number, played in enumerate(view.rounds, start=1):
                assert f"Round {number}" in text
                for table in played.tables:
                    assert table.scores is not None
                    assert " : ".join(map(str, table.scores)) in text
            assert text.count("Sits this round out") == 3  # three entrants: one bye a round
            for heading in ("points", "Buchholz", "score", "played", "byes"):
                assert heading in text
            standings = [line for line in lines if re.match(r"^\W*\d+\W+\w", line)]
            first = names[view.standings[0].unit]
            assert first in standings[0], text  # best first
            assert f"Champion: {names[view.champion]}" in text


def test_an_eliminations_standings_say_who_is_still_in_and_when_each_went_out(
    tmp_path: Path,
) -> None:
    """Five in a bracket of eight: after each round the standings say "still in" or the round
    each went out (no tie-break columns), the champion last of all, at 60 and 80 columns."""
    for rounds in (1, 3):
        with ServerThread() as server:
            people, bots = ["Ann", "Bea", "Cid"], ["easy", "hard"]
            played = played_tournament(
                server.server, "QWRTZ", people, bots, rounds, format="elimination"
            )
            server.call(played)
            view = tournament_view(server, "QWRTZ")
            assert (view.champion is not None) == (rounds == 3)
            for columns in (60, 80):
                done = allfives(
                    "tournament",
                    "show",
                    server.server.url,
                    "QWRTZ",
                    config=tmp_path,
                    columns=columns,
                )
                assert done.returncode == 0, done.stderr
                lines = done.stdout.splitlines()
                assert all(cell_len(line) <= columns for line in lines), done.stdout
                table = lines[next(n for n, line in enumerate(lines) if line == "Standings") :]
                assert "status" in table[1] and "Buchholz" not in done.stdout, done.stdout
                for rank, line in enumerate(view.standings, start=1):
                    row = next(row for row in table if re.match(rf"^\s*{rank}\s", row))
                    name = view.entrants[view.units[line.unit][0]].name
                    if line.unit == view.champion:
                        said = "champion"
                    elif line.out_in_round is None:
                        said = "still in"
                    else:
                        said = f"out in round {line.out_in_round}"
                    assert name in row and said in row, (row, done.stdout)
                if rounds == 1:  # one table in round 1 (three byes): one went out
                    assert sum("out in round 1" in row for row in table) == 1, done.stdout


def test_show_in_plain_lines_draws_no_box(tmp_path: Path) -> None:
    with ServerThread() as server:
        server.call(played_tournament(server.server, "QWRTZ", ["Ann", "Bea"], ["easy"], 1))
        done = allfives(
            "tournament", "show", server.server.url, "QWRTZ", "--plain", config=tmp_path
        )
        assert done.returncode == 0, done.stderr
        assert "Standings" in done.stdout and "Buchholz" in done.stdout
        assert not BOX_DRAWING.search(done.stdout), done.stdout


def test_show_of_a_missing_tournament_is_one_line_and_status_1(tmp_path: Path) -> None:
    with ServerThread() as server:
        done = allfives("tournament", "show", server.server.url, "NOPEX", config=tmp_path)
    assert done.returncode == 1
    assert done.stdout == ""
    assert done.stderr.splitlines() == [
        "allfives tournament: there is no tournament 'NOPEX' on this server (a private one needs "
        "CODE-INVITE)"
    ]


def test_a_servers_control_characters_are_shown_visibly(tmp_path: Path) -> None:
    hostile = Tournament(
        name="Cup\x1b[2J\x07",
        format="round_robin",
        rules=Rules(players=2),
        partners=None,
        swiss_rounds=None,
        public=True,
        host="h",
        turn_seconds=None,
        phase="playing",
        entrants=[Entrant(name="Ann\x1b]0;owned\x07"), Entrant(name="B\u202eea")],
        units=[[0], [1]],
        planned=1,
        rounds=[Round(tables=[Table(seats=[0, 1], room="AB\x1bCD")], byes=[])],
    )
    with ServerThread() as server:
        kept = Kept(tournament=hostile, host_name="Host\x9b31m")
        server.call(server.server.store.tournaments.save("EVILX", 1, encode(kept)))
        done = allfives("tournament", "show", server.server.url, "EVILX", config=tmp_path)
    assert done.returncode == 0, done.stderr
    assert "\x1b" not in done.stdout and "\x07" not in done.stdout and "\x9b" not in done.stdout
    assert "Cup␛[2J␇" in done.stdout
    assert "Ann␛]0;owned␇" in done.stdout
    assert "B\ufffdea" in done.stdout
    assert "playing in room AB␛CD" in done.stdout


NAMES = st.text(min_size=1, max_size=24)


@settings(max_examples=60, deadline=None)
@given(
    names=st.lists(NAMES, min_size=2, max_size=9),
    title=st.text(min_size=1, max_size=48),
    width=st.integers(min_value=30, max_value=120),
)
def test_every_row_fits_its_width_and_holds_no_control_character(
    names: list[str], title: str, width: int
) -> None:
    pairs = [[index, index + 1] for index in range(0, len(names) - 1, 2)]
    tables = [TableView(seats=seats, room="ROOM", scores=[100, 5]) for seats in pairs]
    byes = [len(names) - 1] if len(names) % 2 else []
    view = TournamentView(
        code="QWRTZ",
        name=title,
        format="swiss",
        rules=Rules(players=2),
        partners=None,
        rounds_planned=3,
        public=True,
        turn_seconds=None,
        host=names[0],
        phase="playing",
        version=3,
        entrants=[EntrantView(name=name) for name in names],
        units=[[index] for index in range(len(names))],
        rounds=[RoundView(tables=tables, byes=byes)],
        standings=[
            StandingView(unit=unit, match_points=2, buchholz=0, score=100, played=1, byes=0)
            for unit in range(len(names))
        ],
    )
    rows = tournament_rows(view, width, you=len(names) - 1)
    for row in rows:
        assert cell_len(row.plain) <= width, row.plain
        assert not any(unicodedata.category(char) in ("Cc", "Cf") for char in row.plain)
    text = "\n".join(row.plain for row in rows)
    if byes:
        assert "You sit this round out" in text


@pytest.mark.terminal
def test_create_prints_the_code_and_a_friends_join_shows_in_the_lobby(tmp_path: Path) -> None:
    with ServerThread() as server:
        url = server.server.url
        ann_home, bea_home = players_keyed(tmp_path, url, "Ann", "Bea")
        create = ["create", url, "--title", "Friday cup", "--bots", "easy,hard"]
        with tournament_terminal(ann_home, *create) as (ann, ann_said):
            # The host enters as the tournament is made: told once or twice, the lobby with
            # Ann in it says the code and how to start.
            ann.expect("Entrants \\(3\\): 1 bot:easy 1, 2 bot:hard 1, 3 Ann \\(you\\)")
            code = lobby_code(ann)
            ann.expect("Start it once everyone is in: type /start")
            with tournament_terminal(bea_home, "join", url, code.lower()) as (bea, _):
                bea.expect("4 Bea \\(you\\)")
                bea.expect("Waiting for the host to start it")
                ann.expect("Entrants \\(4\\): 1 bot:easy 1, 2 bot:hard 1, 3 Ann \\(you\\), 4 Bea")
                # Bea is no host: her start is refused, in one line, and nothing changes.
                done = allfives("tournament", "start", url, code, config=bea_home)
                assert done.returncode == 1
                assert len(done.stderr.splitlines()) == 1
                assert done.stderr.startswith(
                    "allfives tournament: could not start the tournament:"
                )
                view = tournament_view(server, code)
                assert view.phase == "open" and len(view.entrants) == 4
                bea.sendline("/quit")
                bea.expect("come back with: .*allfives tournament join")
                bea.expect(r"\n")
                bea.wait()
                assert bea.exitstatus == 0
            # Bea stays entered: she left the screen, not the tournament.
            assert [e.name for e in tournament_view(server, code).entrants][-1] == "Bea"
            # The host's start, from another terminal: one line, status 0, and the screen
            # that follows it moves Ann to her table.
            started = allfives("tournament", "start", url, code, config=ann_home)
            assert started.returncode == 0, started.stderr
            assert started.stdout == "Friday cup has started.\n"
            view = tournament_view(server, code)
            assert view.phase == "playing" and len(view.rounds) == 1
            ann.expect(r"Round 1: to your table, room ([A-Z]{4})")
            seated = [t.room for t in view.rounds[0].tables if 2 in t.seats]
            assert seated == [ann.match.group(1)]
            ann.expect(f"Room {seated[0]}: 2 players")
        assert "\x1b" not in ann_said.getvalue()


def folded(text: str) -> str:
    """A pattern for `text` as a screen may fold it: any run of blanks between its words."""
    return r"\s+".join(re.escape(word) for word in text.split())


@pytest.mark.terminal
def test_the_lobby_of_fixed_partners_shows_the_teams_as_they_stand(tmp_path: Path) -> None:
    """Before the start, partners are the 1st and 2nd to enter, the 3rd and 4th: the lobby
    says who partners whom, and who still waits for a partner, at every entry."""
    with ServerThread() as server:
        url = server.server.url
        ann_home, bea_home = players_keyed(tmp_path, url, "Ann", "Bea")
        options = ["--players", "4", "--partners", "fixed", "--bots", "easy,hard"]
        with tournament_terminal(ann_home, "create", url, "--title", "Pairs", *options) as (
            ann,
            _,
        ):
            teams = "Teams as they stand (partners in order of entry):"
            ann.expect(folded(f"{teams} bot:easy 1 & bot:hard 1; Ann waits for a partner"))
            code = lobby_code(ann)
            with tournament_terminal(bea_home, "join", url, code) as (bea, _):
                bea.expect(folded(f"{teams} bot:easy 1 & bot:hard 1; Ann & Bea"))
                ann.expect(folded(f"{teams} bot:easy 1 & bot:hard 1; Ann & Bea"))


@pytest.mark.terminal
def test_a_start_with_too_few_entrants_says_how_many_it_takes(tmp_path: Path) -> None:
    with ServerThread() as server:
        url = server.server.url
        [ann_home] = players_keyed(tmp_path, url, "Ann")
        create = ["create", url, "--title", "Cup", "--players", "3"]
        with tournament_terminal(ann_home, *create) as (ann, _):
            code = lobby_code(ann)
            done = allfives("tournament", "start", url, code, config=ann_home)
        assert done.returncode == 1
        assert done.stderr == (
            "allfives tournament: could not start the tournament: too few entrants to start it:"
            " at least as many as a table seats (with fixed partners, an even number)\n"
        )
        assert tournament_view(server, code).phase == "open"


@pytest.mark.terminal
def test_a_create_past_the_days_tournaments_says_so(tmp_path: Path) -> None:
    with ServerThread(max_tournaments_per_ip=1) as server:
        url = server.server.url
        [ann_home] = players_keyed(tmp_path, url, "Ann")
        with tournament_terminal(ann_home, "create", url, "--title", "Cup") as (first, _):
            lobby_code(first)
        status, said = tournament_ended(ann_home, "create", url, "--title", "Cup 2")
        assert status == 1
        # Not "too many messages at once: slow down": waiting a moment would not help.
        assert " ".join(said.split()).endswith(
            "this address has made as many tournaments as the server allows in a day: try again"
            " tomorrow"
        ), said


@pytest.mark.terminal
def test_joining_a_missing_tournament_is_one_line_and_status_1(tmp_path: Path) -> None:
    with ServerThread() as server:
        url = server.server.url
        [ann_home] = players_keyed(tmp_path, url, "Ann")
        status, said = tournament_ended(ann_home, "join", url, "NOPEX")
        assert status == 1
        lines = [line for line in said.splitlines() if line.strip()]
        assert lines == [
            "allfives tournament: could not enter the tournament: there is no tournament "
            "'NOPEX' on this server (a private one needs CODE-INVITE)"
        ]


@pytest.mark.terminal
def test_a_first_time_host_enters_under_the_name_given_with_name(tmp_path: Path) -> None:
    with ServerThread() as server:
        url = server.server.url
        create = ["create", url, "--title", "Cup", "--name", "Cid"]
        with tournament_terminal(tmp_path, *create) as (cid, _):
            cid.expect(r"Cup · ([A-Z]{5})\s")
            code = cid.match.group(1)
            cid.expect("Entrants \\(1\\): 1 Cid \\(you\\)")
        view = tournament_view(server, code)
        assert view.name == "Cup" and view.host == "Cid"
        assert [entrant.name for entrant in view.entrants] == ["Cid"]


@pytest.mark.terminal
@pytest.mark.parametrize(
    ("options", "said"),
    [
        (["--name", "Cid"], "name the tournament with --title (--name is your own name in it"),
        (["--title", "Cup", "--name", "\x1b[2J"], "--name: "),
    ],
)
def test_a_create_without_a_title_or_with_a_bad_name_is_refused_in_one_line(
    tmp_path: Path, options: list[str], said: str
) -> None:
    # `--name Cid` typed as for `join` never silently names the tournament "Cid".
    status, written = tournament_ended(tmp_path, "create", "ws://127.0.0.1:9", *options)
    assert status == 2
    lines = [line for line in written.splitlines() if line.strip()]
    assert len(lines) == 1 and said in lines[0], lines
    assert lines[0].startswith("allfives tournament")
    assert not (tmp_path / "allfives" / "keys.json").exists()  # nothing was kept or sent


@pytest.mark.terminal
def test_joining_a_finished_tournament_says_you_did_not_play_in_it(tmp_path: Path) -> None:
    with ServerThread() as server:
        url = server.server.url
        server.call(played_tournament(server.server, "QWRTZ", ["Ann", "Bea"], [], 1))
        assert tournament_view(server, "QWRTZ").phase == "finished"
        [cid_home] = players_keyed(tmp_path, url, "Cid")
        status, said = tournament_ended(cid_home, "join", url, "QWRTZ")
        assert status == 0
        text = " ".join(said.split())
        assert "Champion: " in text
        assert "This tournament is over; you did not play in it" in text
        assert "Cid" not in text  # shown, not entered
        entrants = tournament_view(server, "QWRTZ").entrants
        assert [entrant.name for entrant in entrants] == ["Ann", "Bea"]


def test_a_name_the_server_will_not_have_is_refused_before_connecting(tmp_path: Path) -> None:
    done = allfives(
        "tournament", "create", "ws://127.0.0.1:9", "--title", "\x1b[2J", config=tmp_path
    )
    assert done.returncode == 2
    assert len(done.stderr.splitlines()) == 1
    assert "a tournament's name is 1 to 48 characters a reader can see" in done.stderr


@pytest.mark.parametrize("language", i18n.LANGUAGES)
@pytest.mark.parametrize("columns", [60, 80])
def test_the_standings_fit_60_and_80_columns_in_every_language(language: str, columns: int) -> None:
    names = ["Bartholomew-Featherstone", "bot:normal 12", "Ann", "Žofie"]
    view = TournamentView(
        code="QWRTZ",
        name="Páteční pohár pro celou ulici a její přátele, kteří",
        format="swiss",
        rules=Rules(players=2),
        partners=None,
        rounds_planned=3,
        public=False,
        turn_seconds=30,
        host="Ann",
        phase="playing",
        version=3,
        entrants=[EntrantView(name=name) for name in names],
        units=[[index] for index in range(len(names))],
        rounds=[
            RoundView(
                tables=[
                    TableView(seats=[0, 1], room="ABCD-EFGHJKMNPQ", scores=[100_000, -15]),
                    TableView(seats=[2, 3], room="EFGH-EFGHJKMNPQ"),
                ],
                byes=[],
            )
        ],
        standings=[
            StandingView(unit=0, match_points=2, buchholz=0, score=100_000, played=1, byes=0),
            *(
                StandingView(unit=u, match_points=0, buchholz=2, score=-15, played=1, byes=0)
                for u in (1, 2, 3)
            ),
        ],
    )
    i18n.set_language(language)
    try:
        rows = [row.plain for row in tournament_rows(view, columns - 1, you=2)]
        name, points = _("entrant"), _("points")
    finally:
        i18n.set_language("en")
    assert all(cell_len(row) <= columns - 1 for row in rows), "\n".join(rows)
    text = "\n".join(rows)
    assert "100000" in text and "-15" in text  # the figures are never cut
    header = next(index for index, row in enumerate(rows) if f" {name} " in row)
    start, end = rows[header].index(name), rows[header].index(points)
    lines = [*rows[header + 2 :], ""]
    lines = lines[: lines.index("")]
    second = next(index for index, line in enumerate(lines) if line.startswith("2 "))
    folded = "".join(line[start:end].strip() for line in lines[:second])
    assert folded == "Bartholomew-Featherstone"  # the leader's long name folds, whole
    # A name of a bot's length stays on its line (folded, "bot:normal" would read as another).
    assert "bot:normal 12" in lines[second], "\n".join(lines)


def test_a_screen_too_short_for_every_round_shows_the_last_and_counts_the_others() -> None:
    rounds = [
        RoundView(tables=[TableView(seats=[0, 1], room=f"ROOM{n}", scores=[10, n])], byes=[2])
        for n in range(3)
    ]
    view = TournamentView(
        code="QWRTZ",
        name="Cup",
        format="round_robin",
        rules=Rules(players=2),
        partners=None,
        rounds_planned=3,
        public=True,
        turn_seconds=None,
        host="Ann",
        phase="playing",
        version=9,
        entrants=[EntrantView(name=name) for name in ("Ann", "Bea", "Cid")],
        units=[[0], [1], [2]],
        rounds=rounds,
        standings=[
            StandingView(unit=u, match_points=2, buchholz=2, score=10, played=2, byes=1)
            for u in range(3)
        ],
    )
    every = "\n".join(row.plain for row in tournament_rows(view, 59))
    show = "allfives tournament show ws://10.0.0.2:8765 QWRTZ"
    rows = tournament_rows(view, 59, last_rounds=1, show_all=show)
    last = "\n".join(row.plain for row in rows)
    assert all(f"Round {n}" in every for n in (1, 2, 3))
    assert "Round 3" in last and "Round 1" not in last and "Round 2" not in last
    # The count names the whole command that shows them, its server and code with it.
    assert "(2 earlier rounds: " + show + ")" in " ".join(last.split())
    assert last.startswith("Cup · QWRTZ") and "Standings" in last


@pytest.mark.terminal
def test_a_private_tournament_is_shown_and_entered_with_its_whole_code(tmp_path: Path) -> None:
    with ServerThread() as server:
        url = server.server.url
        ann_home, bea_home = players_keyed(tmp_path, url, "Ann", "Bea")
        create = ["create", url, "--title", "Quiet cup", "--private"]
        with tournament_terminal(ann_home, *create) as (ann, _):
            ann.expect(r"Quiet cup · ([A-Z]{5}-[A-Z]{4,})\s")
            whole = ann.match.group(1)
            ann.expect(f"Friends enter with: .*allfives tournament join \\S+ {whole}")
            letters = whole.split("-")[0]
            hidden = allfives("tournament", "show", url, letters, config=bea_home)
            assert hidden.returncode == 1 and "a private one needs CODE-INVITE" in hidden.stderr
            # A wrong invite is not told to give the invite it gave: the invite may be wrong.
            wrong = f"{letters}-{'A' * len(whole.split('-')[1])}"
            with tournament_terminal(bea_home, "join", url, wrong) as (refused, refused_said):
                # `show` says the same of the same code as `join` does.
                told = allfives("tournament", "show", url, wrong.lower(), config=bea_home)
                assert told.returncode == 1 and told.stdout == ""
                assert told.stderr.splitlines() == [
                    f"allfives tournament: there is no tournament '{wrong}' on this server, or "
                    "the invite after its dash is wrong"
                ]
                refused.expect(pexpect.EOF)
                refused.close()
            assert refused.exitstatus == 1
            assert " ".join(refused_said.getvalue().split()) == (
                "allfives tournament: could not enter the tournament: there is no tournament "
                f"'{wrong}' on this server, or the invite after its dash is wrong"
            )
            shown = allfives("tournament", "show", url, whole, config=bea_home)
            assert shown.returncode == 0, shown.stderr
            assert shown.stdout.startswith(f"Quiet cup · {whole}\n")
            assert "private" in shown.stdout.splitlines()[1]
            with tournament_terminal(bea_home, "join", url, whole.lower()) as (bea, _):
                bea.expect("2 Bea \\(you\\)")
                ann.expect("Entrants \\(2\\): 1 Ann \\(you\\), 2 Bea")


@pytest.mark.terminal
def test_a_dropped_connection_follows_the_tournament_again(tmp_path: Path) -> None:
    with ServerThread() as server:
        url = server.server.url
        ann_home, bea_home = players_keyed(tmp_path, url, "Ann", "Bea")
        with tournament_terminal(ann_home, "create", url, "--title", "Cup") as (ann, _):
            ann.expect("Entrants \\(1\\): 1 Ann \\(you\\)")
            code = lobby_code(ann)
            assert until_sync(lambda: server.drop("Ann"), what="Ann's connection cut")
            with tournament_terminal(bea_home, "join", url, code) as (bea, _):
                bea.expect("2 Bea \\(you\\)")
                ann.expect("Entrants \\(2\\): 1 Ann \\(you\\), 2 Bea")  # told after coming back


@pytest.mark.terminal
@pytest.mark.parametrize(
    ("options", "said"),
    [
        (["--rounds", "3"], "--rounds is for --format swiss only"),
        (["--partners", "rotating"], "--partners is for tables of 4 in teams only"),
        (["--format", "swiss", "--rounds", "99"], "'99' is not a number of rounds from 1 to 20"),
        (["--bots", "easy,expert"], "is not a list of bot levels"),
    ],
)
def test_options_that_do_not_go_together_are_one_line_and_status_2(
    tmp_path: Path, options: list[str], said: str
) -> None:
    status, written = tournament_ended(
        tmp_path, "create", "ws://127.0.0.1:9", "--title", "Cup", *options
    )
    assert status == 2
    lines = [line for line in written.splitlines() if line.strip()]
    assert len(lines) == 1 and said in lines[0] and lines[0].startswith("allfives tournament")
    assert not (tmp_path / "allfives" / "keys.json").exists()  # nothing was kept or sent


def test_fixed_partners_are_shown_as_teams_with_their_sides_score() -> None:
    names = ("Ann", "Bea", "Cid", "Dan")
    view = TournamentView(
        code="QWRTZ",
        name="Pairs",
        format="round_robin",
        rules=Rules(players=4, teams=True),
        partners="fixed",
        rounds_planned=1,
        public=True,
        turn_seconds=None,
        host="Ann",
        phase="finished",
        version=5,
        entrants=[EntrantView(name=name) for name in names],
        units=[[0, 1], [2, 3]],
        rounds=[
            RoundView(
                tables=[TableView(seats=[0, 2, 1, 3], room="ABCD", scores=[150, 85, 150, 85])],
                byes=[],
            )
        ],
        standings=[
            StandingView(unit=0, match_points=2, buchholz=0, score=150, played=1, byes=0),
            StandingView(unit=1, match_points=0, buchholz=2, score=85, played=1, byes=0),
        ],
        champion=0,
    )
    text = "\n".join(row.plain for row in tournament_rows(view, 79))
    assert "tables of 4 (teams), fixed partners" in text
    assert "Table 1: Ann & Bea – Cid & Dan: 150 : 85" in text
    assert re.search(r"^1\s+Ann & Bea\s+2\s+0\s+150\s+1\s+0$", text, re.MULTILINE), text
    assert "Champion: Ann & Bea" in text
