"""`--plain` (and ALLFIVES_PLAIN=1): the terminal told as lines for screen readers. The real
`allfives play` in a pseudo-terminal (pexpect) plays a whole match against a bot by reading
lines and typing move numbers; what it wrote holds no escape sequence and no box drawing, each
move line names the ends total and the open ends the server's match had after it, and the
match's result is printed. Captures go to tests/artifacts/plain-*.txt.
"""

from __future__ import annotations

import re
from pathlib import Path

import pexpect  # type: ignore[import-untyped]
import pytest
from browser_helpers import ARTIFACTS
from command_helpers import BOX_DRAWING, spawn_plain
from i18n_helpers import cli_words, english_leaks, english_only_cli_words
from table_helpers import make_view

from bridge.convert import layout
from bridge.records import match_of
from clients.cli.plain_words import ends_words
from engine import Match, Move
from protocol.records import decode_record
from protocol.views import Ends, Layout

pytestmark = pytest.mark.terminal

#: A short match: five tiles each, first to 30.
SHORT = ["--hand-size", "five", "--target", "30", "--name", "Ann"]
ESCAPE = "\x1b"
MOVES = 200
MOVE_LINE = re.compile(
    r"^(?P<who>Ann|Bot 2) (?:led|played) (?P<tile>\d-\d)(?: (?P<end>north|south|east|west))?: "
    r"total (?P<total>\d+)(?:, scores (?P<points>\d+))?(?:\. Open ends: (?P<ends>[^.\n]*))?",
    re.MULTILINE,
)


def environment(tmp_path: Path, **more: str) -> dict[str, str]:
    return {
        "ALLFIVES_BOT_DELAY": "0.02",
        "XDG_CONFIG_HOME": str(tmp_path),
        "TERM": "xterm-256color",
        "LANG": "C.UTF-8",
        **more,
    }


def keep(name: str, text: str) -> None:
    ARTIFACTS.mkdir(parents=True, exist_ok=True)
    (ARTIFACTS / f"plain-{name}.txt").write_text(text, "utf-8")


def play_match(child: pexpect.spawn, language: str = "en") -> None:
    """Read lines, type the last move's number at each turn, until the match's end is said."""
    many = cli_words(language, "Type a move's number, 1 to {last}, or /help.")
    before, after = many.split("{last}")
    one = cli_words(language, "Type 1 to make it, or /help.")
    wins = cli_words(language, "{side} wins the match").split("{side}")[1]
    shared = cli_words(language, "{names} share the win").split("{names}")[1]
    prompts = [re.escape(before) + r"(\d+)" + re.escape(after), re.escape(one)]
    for _move in range(MOVES):
        found = child.expect([*prompts, re.escape(wins) + ":", re.escape(shared) + ":"])
        if found == 0:
            child.sendline(child.match.group(1))
        elif found == 1:
            child.sendline("1")
        else:
            return
    raise AssertionError("the match did not end")


def ends_after_each_play(record_path: Path) -> list[dict[str, int] | None]:
    """For each play of the saved match, in order, the open ends the server's engine had after
    it (None for a play that ended its hand)."""
    record = decode_record(record_path.read_bytes())
    before: dict[tuple[int, int], dict[str, int]] = {}

    def seen(match: Match, seat: int, move: Move) -> None:
        ends = layout(match.view_for(None))[1]
        named = {"west": ends.west, "east": ends.east, "north": ends.north, "south": ends.south}
        key = (match.hand_number, sum(len(hand.moves) for hand in match.record[-1:]))
        before[key] = {end: number for end, number in named.items() if number is not None}

    match_of(record, seen)
    after: list[dict[str, int] | None] = []
    for number, hand in enumerate(record.hands, start=1):
        for index, move in enumerate(hand.moves):
            if move.tile is not None:
                after.append(before.get((number, index + 1)))
    return after


def test_the_open_ends_say_which_count_and_which_arms_count_nothing_yet() -> None:
    # 4-4 spinner between 0-4 and 4-3: north and south are open but empty (docs/rules.md 6.3),
    # so the total is 3, not 11 (issue 45, item O).
    spinner = Layout(line=[[0, 4], [4, 4], [4, 3]], spinner=1)
    view = make_view(layout=spinner, ends=Ends(west=0, east=3, north=4, south=4), total=3)
    assert view.game is not None
    assert ends_words(view.game) == "west 0, east 3; open, counting nothing yet: north 4, south 4"
    north = Layout(line=[[0, 4], [4, 4], [4, 3]], spinner=1, north=[[4, 6]])
    view = make_view(layout=north, ends=Ends(west=0, east=3, north=6, south=4), total=9)
    assert view.game is not None
    assert ends_words(view.game) == "west 0, east 3, north 6; open, counting nothing yet: south 4"
    line = Layout(line=[[0, 4], [4, 3]])
    view = make_view(layout=line, ends=Ends(west=0, east=3), total=3)
    assert view.game is not None
    assert ends_words(view.game) == "west 0, east 3"


def test_a_whole_match_in_plain_mode(tmp_path: Path) -> None:
    child, written = spawn_plain(["play", "--plain", *SHORT], environment(tmp_path))
    play_match(child)
    saved = tmp_path / "match.json"
    child.sendline(f"/save {saved}")
    child.expect("Saved the match record")
    child.sendline("/quit")
    child.expect(pexpect.EOF)
    child.close()
    assert child.exitstatus == 0
    text = written.getvalue().replace("\r\n", "\n")
    keep("en-80", text)
    assert ESCAPE not in text, repr(text[text.index(ESCAPE) - 40 :][:80])
    assert BOX_DRAWING.search(text) is None, BOX_DRAWING.findall(text)

    record = decode_record(saved.read_bytes())
    plays = [move for hand in record.hands for move in hand.moves if move.tile is not None]
    lines = list(MOVE_LINE.finditer(text))
    assert len(lines) == len(plays), text
    ends = ends_after_each_play(saved)
    named_ends = batched = 0
    for line, play, after in zip(lines, plays, ends, strict=True):
        assert sorted(line["tile"]) == sorted(play.tile or ""), line[0]
        assert int(line["total"]) == play.total, line[0]
        assert int(line["points"] or 0) == (play.points or 0), line[0]
        if after is None:
            assert line["ends"] is None, line[0]
            continue
        if line["ends"] is None:
            # The next play came before this one was written (a slow machine): the client says
            # the open ends of the view it holds, after the later play, on that play's line.
            later = next(found for found in lines if found.start() > line.start())
            between = text[line.end() : later.start()]
            assert "Type " not in between and "Result of hand" not in between, line[0]
            batched += 1
            continue
        counted, _, idle = line["ends"].partition("; open, counting nothing yet: ")
        shown = dict(part.split(" ") for part in [*counted.split(", "), *idle.split(", ")] if part)
        assert {end: int(number) for end, number in shown.items()} == after, line[0]
        named_ends += 1
    assert named_ends + batched >= len(plays) - len(record.hands)
    assert batched <= len(plays) // 2, text
    assert text.count("Result of hand ") == len(record.hands)
    verdict = re.search(r"wins the match: Ann (\d+), Bot 2 (\d+)\.", text)
    assert verdict is not None, text
    assert [int(verdict[1]), int(verdict[2])] == record.scores


def test_allfives_plain_in_the_environment_asks_for_it(tmp_path: Path) -> None:
    child, written = spawn_plain(["play", *SHORT], environment(tmp_path, ALLFIVES_PLAIN="1"))
    child.expect(r"Move 1: ")
    child.expect(r"or /help\.")
    child.sendintr()  # Ctrl-C: quitting ends the match, so it is asked first, as a line
    child.expect(r"y ends it")
    child.sendline("n")
    child.expect("The match goes on")
    child.sendline("/quit")
    child.expect(r"y ends it")
    child.sendline("y")
    child.expect(pexpect.EOF)
    child.close()
    text = written.getvalue()
    assert "Your turn. Your tiles: " in text
    assert ESCAPE not in text and BOX_DRAWING.search(text) is None, repr(text[:400])


def test_a_whole_match_in_plain_mode_in_czech_at_60_columns(tmp_path: Path) -> None:
    env = environment(tmp_path, LANG="cs_CZ.UTF-8", LC_CTYPE="C.UTF-8")
    child, written = spawn_plain(["play", "--plain", *SHORT], env, width=60)
    play_match(child, "cs")
    child.sendline("/quit")
    child.expect(pexpect.EOF)
    child.close()
    text = written.getvalue().replace("\r\n", "\n")
    keep("cs-60", text)
    assert ESCAPE not in text and BOX_DRAWING.search(text) is None
    assert cli_words("cs", "Your turn. Your tiles: {tiles}.").split("{tiles}")[0] in text
    assert cli_words("cs", "Result of hand {number}:").split("{number}")[0] in text
    assert cli_words("cs", "The match is over.") in text
    assert english_leaks(text, english_only_cli_words("cs")) == []


def test_host_join_and_watch_in_plain_mode(tmp_path: Path) -> None:
    """The host's room, a friend's seat and a watcher, each told as lines: the seat taken, a
    chat line, the host's lead with its open ends, on every screen and without an escape."""
    host, hosted = spawn_plain(
        ["host", "--plain", "--port", "0", "--players", "3", "--bots", "easy", "--name", "Hana"],
        environment(tmp_path / "host"),
    )
    host.expect(r"join (ws://127\.0\.0\.1:\d+) ([A-Z]{4}-[A-Z]+)")
    url, code = host.match.group(1), host.match.group(2)
    friend, joined = spawn_plain(
        ["join", url, code, "--name", "Jan"], environment(tmp_path / "jan", ALLFIVES_PLAIN="1")
    )
    watcher, watched = spawn_plain(["watch", "--plain", url, code], environment(tmp_path / "w"))
    host.expect("Jan took seat 2")
    watcher.expect("Waiting for the host to start the match")
    friend.sendline("/chat hello all")
    for child in (host, friend, watcher):
        child.expect("Jan: hello all")
    host.sendline("/start")
    watcher.expect(r"Hand 1: (Hana|Jan|Bot 3) leads")
    leader = watcher.match.group(1)
    seated = {"Hana": host, "Jan": friend}
    if leader in seated:  # the leader reads the numbered leads and types one
        seated[leader].expect(r"Move 1: lead \d-\d, total \d+")
        seated[leader].sendline("1")
    lead = rf"{leader} led (\d-\d): total (\d+)(?:, scores \d+)?\. Open ends: west \d, east \d"
    watcher.expect(lead)
    said = re.escape(watcher.match.group(0))
    for child in (host, friend):
        child.expect(said)
    for child in (watcher, friend):
        child.sendline("/quit")
        child.expect(pexpect.EOF)
    host.sendline("/quit")
    host.expect("y closes the room")
    host.sendline("y")
    host.expect(pexpect.EOF)
    for text in (hosted.getvalue(), joined.getvalue(), watched.getvalue()):
        assert ESCAPE not in text and BOX_DRAWING.search(text) is None, repr(text[:300])
    assert "a bot plays your seat" not in watched.getvalue()  # a watcher left no seat
    assert "a bot plays your seat" in joined.getvalue()
    keep("host-80", hosted.getvalue().replace("\r\n", "\n"))
    keep("watch-80", watched.getvalue().replace("\r\n", "\n"))


@pytest.mark.parametrize("bots", ["hard", "normal"])
def test_ctrl_c_prints_no_bot_worker_traceback(bots: str, tmp_path: Path) -> None:
    """Ctrl-C reaches the whole foreground process group, the bot workers too (hard bots and
    /hint run in worker processes): only the table answers it, asking, and the second Ctrl-C
    ends the match; no worker prints its KeyboardInterrupt into the transcript."""
    args = ["play", "--plain", "--bots", bots, *SHORT]
    child, written = spawn_plain(args, environment(tmp_path, ALLFIVES_BOT_DELAY="0"))
    child.expect(r"or /help\.")
    child.sendline("/hint")
    child.expect(r"Hint: the hard bot would .*\n")  # a worker has worked
    child.sendintr()
    child.expect(r"y ends it")
    child.sendintr()  # Ctrl-C at the question: yes
    child.expect(pexpect.EOF)
    child.wait()
    child.close()
    text = written.getvalue()
    assert child.exitstatus == 0, text
    for sign in ("Traceback", "KeyboardInterrupt", "ForkServerProcess"):
        assert sign not in text, text[text.index(sign) - 200 :][:1200]


def test_the_scores_columns_line_up(tmp_path: Path) -> None:
    """/scores after a match: each side's figures end in the column its name ends in, in every
    hand's row and the total's (plain mode stripped the rows' leading spaces)."""
    child, _written = spawn_plain(["play", "--plain", *SHORT], environment(tmp_path))
    play_match(child)
    child.sendline("/scores")
    child.expect(r"\ntotal .*\n")
    rows = [row.rstrip("\r") for row in (child.before + child.after).split("\n")]
    head = next(index for index, row in enumerate(rows) if row.startswith("hand "))
    table = rows[head : next(i for i, row in enumerate(rows) if row.startswith("total")) + 1]
    # The titles, apart by two spaces or more: hand, Ann, Bot 2, how it ended.
    ends = [match.end() for match in re.finditer(r"\S+(?: \S+)*", table[0])][1:3]
    assert len(table) >= 3, "\n".join(table)
    for row in table[1:]:
        figures = [match.end() for match in re.finditer(r"\d+", row)]
        assert figures[-2:] == ends or figures[1:3] == ends, "\n".join(table)
    child.sendline("/quit")
    child.expect(pexpect.EOF)
    child.close()
