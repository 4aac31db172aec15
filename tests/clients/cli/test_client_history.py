"""The terminal's ladder, history and replay against a real server with an archive.

Ann (her key kept where the terminal client keeps it) plays two matches against the normal bot;
then `allfives ladder` lists her beside every bot level, `allfives history` (no name: hers, by
her key) lists both games with their ids, and `allfives show` steps through one in a terminal
(tmux) with the arrow keys: the scores at the end of the replay are the record's, and the hard
bot's review is on the screen. The replay's steps agree with the engine hand by hand. `/review`
at the table uses the server's review when the game is in the server's archive.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import re
import socket
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path

import msgspec
import pytest
from browser_helpers import ARTIFACTS
from client_helpers import ROOT, play_first_legal
from command_helpers import keep_player_key, run_allfives
from engine_helpers import scores_after_each_hand
from i18n_helpers import (
    GETTEXT_NAMES,
    TRANSLATED,
    cli_words,
    english_leaks,
    english_only_cli_words,
)
from rich.text import Text
from server_helpers import ServerThread, api_get, fast_config, new_key
from tmux_helpers import NEEDS_TMUX, Terminal
from waiting import until, until_sync
from ws_client_helpers import finish_match

from allfives import cli
from bridge.positions import positions_of
from clients.cli import i18n, local, words
from clients.cli import review as review_module
from clients.cli import show as show_module
from clients.cli.api import Api, ApiError
from clients.cli.commands import Send, interpret
from clients.cli.connection import Connection
from clients.cli.keys import KeyStore, link_code
from clients.cli.replay_steps import replay_of
from clients.cli.review_words import seat_heading, seat_name
from clients.cli.show import screen, summary, with_summary
from clients.cli.state import TableState
from clients.cli.status import rating_text
from clients.cli.styles import wrap
from protocol import messages as msg
from protocol.api import GameDetail
from protocol.records import Record
from protocol.review import Review
from protocol.rules import RoomRules
from protocol.views import RoomView
from server.app import run_server

ENV = {"TERM": "xterm-256color", "PYTHONPATH": str(ROOT)}


def allfives(*args: str, config: Path, columns: int = 160) -> subprocess.CompletedProcess[str]:
    """What `allfives ARGS` prints, run in this process (`command_helpers.run_allfives`)."""
    return run_allfives(*args, config=config, columns=columns)


@pytest.fixture(scope="module")
def played(tmp_path_factory: pytest.TempPathFactory) -> Iterator[tuple[ServerThread, str, Path]]:
    """A server where Ann played two matches; her key kept in a config folder."""
    config = tmp_path_factory.mktemp("config")
    key = new_key()
    # Every test of the module reads the API from this one address: its budget (30 at once,
    # then 5 a second) is not what they test.
    with ServerThread(bot_delay=0.0, review_budget_ms=2.0, api_burst=10_000) as server:
        url = f"ws://127.0.0.1:{server.server.port}/"

        async def play(seed: int) -> None:
            client = await finish_match(url, "Ann", key, "normal", seed, target=50)
            await client.close()

        for seed in (1, 2):
            asyncio.run(play(seed))

        async def listed() -> int:
            answer = await api_get(url, "/api/players/Ann/games", key)
            return int(answer.json["total"]) if answer.status == 200 else 0

        async def both() -> bool:
            return await listed() >= 2

        asyncio.run(until(both, 30, "Ann's two games in her list", every=0.05))
        keep_player_key(config, url, "Ann", key)
        yield server, url, config


def test_the_ladder_lists_ann_beside_every_bot_level(
    played: tuple[ServerThread, str, Path],
) -> None:
    _, url, config = played
    done = allfives("ladder", url, config=config)
    assert done.returncode == 0, done.stderr
    assert "Two players" in done.stdout
    for name in ("Ann", "easy bot", "normal bot", "hard bot"):
        assert name in done.stdout


def test_history_without_a_name_is_your_own_with_the_ids_to_replay(
    played: tuple[ServerThread, str, Path],
) -> None:
    _, url, config = played
    done = allfives("history", url, config=config)
    assert done.returncode == 0, done.stderr
    assert "Ann: 2 games" in done.stdout and "Games 1-2 of 2" in done.stdout
    assert "Replay one with:" in done.stdout and " show " in done.stdout
    other = allfives("history", url, "bot:normal", config=config)
    assert other.returncode == 0 and "normal bot" in other.stdout
    missing = allfives("history", url, "Nobody", config=config)
    assert missing.returncode == 1 and "no such player" in missing.stderr


def test_history_on_a_device_with_no_key_claims_nothing(
    played: tuple[ServerThread, str, Path], tmp_path: Path
) -> None:
    _, url, _ = played
    done = allfives("history", url, config=tmp_path)
    assert done.returncode == 1 and "no player on that server yet" in done.stderr
    assert not (tmp_path / "allfives" / "keys.json").exists()


@pytest.mark.parametrize(("language", "columns"), [("en", 80), ("cs", 80), ("en", 60)])
def test_history_at_80_and_60_columns_shows_each_games_id_whole_and_who_played(
    played: tuple[ServerThread, str, Path], language: str, columns: int
) -> None:
    _, url, config = played
    done = allfives("--lang", language, "history", url, config=config, columns=columns)
    assert done.returncode == 0, done.stderr
    key = json.loads((config / "allfives" / "keys.json").read_text())[url]["keys"]["Ann"]
    ids = [
        game["id"]
        for game in asyncio.run(api_get(url, "/api/players/Ann/games", key)).json["games"]
    ]
    rows = done.stdout.splitlines()
    # Every row fits, the replay command's too: a folded row would cut the game id in two.
    assert all(len(row) <= columns for row in rows), done.stdout
    starts = [next(i for i, row in enumerate(rows) if row.split()[:1] == [game]) for game in ids]
    for at, end in zip(starts, [*starts[1:], len(rows)], strict=True):
        # The id whole at the start of a row, then the game's rows with who played.
        played_by = "\n".join(rows[at + 1 : end])
        # The bot's seat as the table named it, its level beside it: "Bot 2 (normal)".
        bot = cli_words(language, "{name} ({level})").format(
            name=cli_words(language, "Bot {seat}").format(seat=2),
            level=cli_words(language, "normal"),
        )
        assert f"Ann, {bot}" in played_by, done.stdout
    # The replay command is pasted whole: on one row, or continued with "\" onto a row that
    # holds the id whole.
    command = done.stdout.replace(" \\\n", " ")
    assert re.search(rf" show {re.escape(url.rstrip('/'))}\s+{ids[0]}\n", command), done.stdout
    assert ids[0] in rows[-1].split(), done.stdout


def test_history_of_a_named_player_from_another_device_says_private_games_are_not_counted(
    played: tuple[ServerThread, str, Path], tmp_path: Path
) -> None:
    _, url, config = played
    own = allfives("history", url, config=config)
    other = allfives("history", url, "Ann", config=tmp_path)
    assert own.returncode == other.returncode == 0
    assert "public rooms only" in other.stdout and "public rooms only" not in own.stdout


def test_ratings_are_written_with_the_languages_decimal_mark(
    played: tuple[ServerThread, str, Path],
) -> None:
    _, url, config = played
    for language, mark in (("en", "."), ("cs", ","), ("et", ","), ("sr-Latn", ",")):
        shown = allfives("--lang", language, "ladder", url, config=config).stdout
        shown += allfives("--lang", language, "history", url, config=config).stdout
        shown = "\n".join(row for row in shown.splitlines() if "://" not in row)
        ratings = re.findall(r"(?<![\d:-])\d+([.,])\d(?![\d.])", shown)
        assert ratings and set(ratings) == {mark}, shown


def test_history_with_the_server_down_says_it_did_not_answer(tmp_path: Path) -> None:
    with socket.socket() as closed:
        closed.bind(("127.0.0.1", 0))
        url = f"ws://127.0.0.1:{closed.getsockname()[1]}/"
    mine = allfives("history", url, config=tmp_path)
    named = allfives("history", url, "Ann", config=tmp_path)
    assert mine.returncode == named.returncode == 1
    assert "cannot reach" in mine.stderr and "no player on that server" not in mine.stderr
    assert "connection refused" in named.stderr and "Errno" not in named.stderr


def game_of(url: str, config: Path) -> tuple[str, Record]:
    key = json.loads((config / "allfives" / "keys.json").read_text())[url]["keys"]["Ann"]
    page = asyncio.run(api_get(url, "/api/players/Ann/games?limit=1", key)).json
    game = page["games"][0]["id"]
    detail = asyncio.run(api_get(url, f"/api/games/{game}", key))
    return game, msgspec.json.decode(detail.body, type=GameDetail).record


def test_the_replays_steps_end_each_hand_with_the_engines_scores(
    played: tuple[ServerThread, str, Path],
) -> None:
    _, url, config = played
    _, record = game_of(url, config)
    replay = replay_of(record, positions_of(record))
    ended = [step.scores for step in replay.steps if step.kind == "hand_ended"]
    assert ended == scores_after_each_hand(record)
    assert replay.steps[-1].scores == record.scores
    first = replay.steps[0]
    assert [len(t) for t in first.tiles] == [len(t) for t in record.hands[0].deal]
    rows = [row.plain for row in screen(replay, len(replay.steps) - 2, None, 80, 30, "g")]
    assert any("[" in row and "|" in row for row in rows[4:])  # the layout, as the table draws it


@pytest.mark.terminal
@NEEDS_TMUX
@pytest.mark.parametrize(
    "terminal", [(100, 40), (80, 30), (60, 40), (80, 24), (60, 20)], indirect=True
)
def test_show_steps_with_the_arrow_keys_and_shows_the_review(
    played: tuple[ServerThread, str, Path], terminal: Terminal
) -> None:
    _, url, config = played
    game, record = game_of(url, config)
    command = [sys.executable, "-m", "allfives.cli", "show", url, game]
    terminal.start(command, {**ENV, "XDG_CONFIG_HOME": str(config)})
    steps = sum(1 + len(h.moves) + (h.result is not None) for h in record.hands)
    rows = terminal.wait_for(rf"step 1 of {steps}", timeout=30)
    assert "the deal" in "\n".join(rows)
    terminal.keys("Right")
    terminal.wait_for(rf"step 2 of {steps}")
    terminal.keys("Right", "Right")
    rows = terminal.wait_for(rf"step 4 of {steps}")
    terminal.keys("Left")
    terminal.wait_for(rf"step 3 of {steps}")
    terminal.keys("End")
    rows = terminal.wait_for(rf"step {steps} of {steps}")
    screens = [rows]
    # A summary taller than the screen says which of its rows show; ↓ scrolls to its end.
    while more := re.search(r"review rows (\d+)-(\d+) of (\d+)", "\n".join(rows)):
        if more[2] == more[3]:
            break
        terminal.keys("Down")
        rows = terminal.wait_for(rf"review rows {int(more[1]) + 1}-\d+ of {more[3]}")
        screens.append(rows)
    for shown in screens:  # the keys are the last row, whole
        assert [row for row in shown if row.strip()][-1].rstrip().endswith("q quit"), shown
    text = "\n".join("\n".join(shown) for shown in screens)
    ARTIFACTS.mkdir(parents=True, exist_ok=True)
    (ARTIFACTS / f"show-review-{terminal.width}x{terminal.height}.txt").write_text(text + "\n")
    assert record.scores is not None
    assert re.search(rf"Ann {record.scores[0]}\b", text), text
    # The review, each player's: accuracy and game points a move, then each hand's.
    flat = " ".join(text.split())  # wrapped at 60 columns
    assert re.search(r"Ann \(seat 1\): accuracy \d+\.\d%, \d+\.\d points lost a move", flat), text
    assert re.search(r"hand 1: (accuracy \d+\.\d%|no move with a choice)", flat), text
    assert re.search(r"\d+ inaccurac(y|ies), \d+ mistakes?, \d+ blunders?", flat), text
    # Every row of the summary, wrapped at spaces, shows on one screen or another: none cut.
    key = KeyStore(config / "allfives" / "keys.json").existing(url)
    assert key is not None
    api = Api(url, key[1])
    review = until_sync(
        lambda: api.get(api.review_path(game), Review, "review"), 60, "the review", (ApiError,)
    )
    said = wrap(summary(replay_of(record, positions_of(record)), review), terminal.width - 1)
    seen = {row.rstrip() for shown in screens for row in shown}
    assert [row.plain for row in said if row.plain.rstrip() not in seen] == [], text
    assert f"step {steps} of {steps}" in rows[0] and "q quit" in text  # the keys stay on screen
    terminal.keys("Home")
    terminal.wait_for(rf"step 1 of {steps}")
    terminal.keys("q")
    terminal.wait_for(r"EXITED 0")


async def test_review_at_the_table_is_the_servers_once_it_archived_the_game() -> None:
    async with run_server(fast_config(review_budget_ms=2.0)) as server:
        state = TableState()
        changed = asyncio.Event()
        connection = Connection(server.url, "Ann", state, on_change=changed.set, key=new_key())
        first = [
            msg.CreateRoom(rules=RoomRules(players=2, target=50), seat=0),
            msg.AddBot(level="normal"),
            msg.Start(),
        ]
        link = asyncio.create_task(connection.run(first))
        played_at = None
        async with asyncio.timeout(60):
            while state.view is None or state.view.ratings is None:
                await changed.wait()
                changed.clear()
                played_at = await play_first_legal(connection, state, played_at)
            rows = await review_module.review(connection, state)
        await connection.close()
        link.cancel()
        assert state.player == "Ann"
        assert server.reviews.computed == 1  # worked out by the server, not here
        assert state.view is not None
        rated = rating_text(state.view)
        # Ann's first match: she is provisional, so no figure is shown as her rating, and the
        # server's count says what is still to go (a match to 50 is a third of a whole one).
        assert rated is not None
        assert rated.startswith("No rating moved: your rating is provisional until"), rated
        assert rated.endswith("Still to go: 5 more matches and 2 more opponents."), rated
    assert isinstance(rows, list)
    text = "\n".join(row.plain for row in rows)
    assert "the server's hard bot" in text and "Ann (seat 1): " in text
    assert "points lost a move" in text and "seat 2" not in text
    assert re.search(r"Ann \(seat 1\): accuracy \d+\.\d%", text), text


async def test_link_gives_a_code_that_makes_another_devices_key_the_same_player(
    tmp_path: Path,
) -> None:
    async with run_server(fast_config()) as server:
        first = TableState()
        changed = asyncio.Event()
        ann = Connection(server.url, "Ann", first, on_change=changed.set, key=new_key())
        running = asyncio.create_task(ann.run([]))
        async with asyncio.timeout(20):
            while first.player is None:
                await changed.wait()
                changed.clear()
        action = interpret("/link", msg_view(first))
        assert isinstance(action, Send)
        for message in action.messages:
            await ann.send(message)
        async with asyncio.timeout(20):
            while first.notice is None or "Link code" not in first.notice.text:
                await changed.wait()
                changed.clear()
        found = re.search(r"Link code (\w{4}-\w{4})", first.notice.text)
        assert found is not None
        # The whole command, to paste: as allfives runs here, this server, this code.
        command = f"{local.command()} join {server.url.rstrip('/')} --link {found.group(1)}"
        assert first.notice.text.endswith(f"run  {command}")
        # Another device: `allfives join URL --link CODE` sends its own new key with the code.
        second = TableState()
        other = Connection(server.url, "Someone", second, on_change=changed.set, key=new_key())
        code = link_code(found.group(1).lower())
        assert code is not None
        other.link = code
        also = asyncio.create_task(other.run([]))
        async with asyncio.timeout(20):
            while second.player is None:
                await changed.wait()
                changed.clear()
        assert second.player == "Ann"
        for connection, task in ((ann, running), (other, also)):
            await connection.close()
            task.cancel()
    bad = allfives("join", "ws://127.0.0.1:9/", "--link", "nope", config=tmp_path)
    assert bad.returncode == 2 and "8-letter code" in bad.stderr


def msg_view(state: TableState) -> RoomView:
    """A waiting room's view, for commands that need one (/link asks the server, not the room)."""
    return RoomView(
        code="ROOM",
        rules=RoomRules(players=2),
        seats=[None, None],
        you=None,
        host=None,
        phase="waiting",
    )


def test_keys_are_kept_per_server_and_name_readable_by_their_owner_only(tmp_path: Path) -> None:
    keys = KeyStore(tmp_path / "allfives" / "keys.json")
    url = "ws://example.org:8765/"
    assert keys.existing(url) is None
    ann = keys.key_for(url, "Ann")
    assert (
        keys.key_for("WS://EXAMPLE.ORG:8765", "Ann") == ann
    )  # the same server written another way
    carl = keys.key_for(url, "Carl")
    assert carl != ann and len(carl) == 43
    assert keys.existing(url) == ("Carl", carl)
    assert keys.key_for("ws://elsewhere:1/", "Ann") != ann
    keys.remember(url, "Ann", ann)  # a welcome naming Ann: the one used last
    assert keys.existing(url) == ("Ann", ann)
    assert (tmp_path / "allfives" / "keys.json").stat().st_mode & 0o777 == 0o600


@pytest.mark.parametrize("language", TRANSLATED)
def test_ladder_history_and_show_speak_the_players_language(
    played: tuple[ServerThread, str, Path], language: str
) -> None:
    """`allfives --lang LANG ladder` and `history`, and every screen of `show` with the server's
    review, have no English-only word (tests/artifacts/terminal-LANG-history.txt)."""
    _, url, config = played
    english_only = english_only_cli_words(language)
    ladder = allfives("--lang", language, "ladder", url, config=config)
    history = allfives("--lang", language, "history", url, config=config)
    assert ladder.returncode == 0 and history.returncode == 0, ladder.stderr + history.stderr
    assert cli_words(language, "Two players") in ladder.stdout
    game, record = game_of(url, config)
    key = KeyStore(config / "allfives" / "keys.json").existing(url)
    assert key is not None
    api = Api(url, key[1])
    review = until_sync(
        lambda: api.get(api.review_path(game), Review, "review"), 60, "the review", (ApiError,)
    )
    replay = replay_of(record, positions_of(record))
    i18n.set_language(GETTEXT_NAMES[language])
    try:
        screens = [
            "\n".join(row.plain for row in screen(replay, at, review, 80, 24, game))
            for at in range(len(replay.steps))
        ]
        screens.append("\n".join(row.plain for row in summary(replay, review)))
    finally:
        i18n.set_language("en")
    shown = "\n\n".join([ladder.stdout, history.stdout, *screens])
    ARTIFACTS.mkdir(parents=True, exist_ok=True)
    (ARTIFACTS / f"terminal-{language}-history.txt").write_text(shown, "utf-8")
    # "show" stays English in every language: the typed command `allfives show` (docs/i18n.md).
    assert english_leaks(shown, english_only - {"show"}) == [], shown


@pytest.mark.parametrize("language", ["en", *TRANSLATED])
def test_show_and_the_review_name_a_bot_by_its_seat_at_the_table_and_its_level(
    played: tuple[ServerThread, str, Path], language: str
) -> None:
    """The bot Ann played is "Bot 2 (normal)" in every row of `show` and its review, as the
    table named its seat; two bots of one level are told apart by their seats."""
    _, url, config = played
    _, record = game_of(url, config)
    replay = replay_of(record, positions_of(record))
    i18n.set_language(GETTEXT_NAMES[language])
    try:
        bot = words.bot_seat_name(1, "normal")
        level_only = words.BOT_PLAYER_WORDS["bot:normal"]
        shown = [row.plain for at in (0, 1) for row in screen(replay, at, None, 80, 24, "g")]
        both = [seat_name(["Ann", "bot:normal", "bot:normal"], seat) for seat in (1, 2)]
        heading = seat_heading(["Ann", "bot:normal"], 1), seat_heading(["Ann", "bot:normal"], 0)
    finally:
        i18n.set_language("en")
    expected = cli_words(language, "{name} ({level})").format(
        name=cli_words(language, "Bot {seat}").format(seat=2), level=cli_words(language, "normal")
    )
    assert bot == expected and (language != "en" or bot == "Bot 2 (normal)")
    assert any(row[2:].startswith(f"{bot}: [") for row in shown), shown  # the seat's hand
    assert any(f" · {bot} 0" in row for row in shown), shown  # the scores
    assert not any(cli_words(language, level_only) in row for row in shown), shown
    assert both[0] != both[1] and both[1].startswith(cli_words(language, "Bot {seat}")[:3])
    # The review's headings: "Ann (seat 1)", and the bot's seat not told twice.
    assert heading == (bot, cli_words(language, "{who} (seat {seat})").format(who="Ann", seat=1))


def test_the_last_steps_summary_leaves_the_keys_on_a_short_screen() -> None:
    """The table gives way to the review's summary, and a summary taller than the screen
    scrolls above the keys, a row saying which of its rows show: the keys are always last."""
    rows = [Text("header"), Text("scores"), Text("step"), Text("── the table"), Text("[6|6]")]
    rows += [Text("──"), Text("keys")]
    said = [Text(f"summary {n}") for n in range(40)]
    shown = [row.plain for row in with_summary(rows, said, 24, 80)[0]]
    assert len(shown) == 24 and shown[-2:] == ["──", "keys"]
    assert shown[:4] == ["header", "scores", "step", "summary 0"]
    assert shown[-3] == " (review rows 1-18 of 40: ↓ ↑ scroll)"  # nothing cut unsaid
    scrolled, at = with_summary(rows, said, 24, 80, 99)
    assert at == 22 and [row.plain for row in scrolled][3] == "summary 22"
    assert scrolled[-3].plain == " (review rows 23-40 of 40: ↓ ↑ scroll)"
    roomy = [row.plain for row in with_summary(rows, said[:3], 24, 80)[0]]
    assert "[6|6]" in roomy and roomy[-1] == "keys"


#: A game id of the server's form (20 characters of URL-safe base64) that begins with "-".
DASH_GAME = "-Ab3" + "x" * 16


@pytest.mark.parametrize(
    "argv",
    [
        ["show", "ws://127.0.0.1:1", DASH_GAME],
        ["show", "ws://127.0.0.1:1", DASH_GAME, "--lang", "cs"],
        ["--lang", "et", "show", DASH_GAME, "ws://127.0.0.1:1"],
    ],
)
def test_a_game_id_that_begins_with_a_dash_is_the_game_not_an_option(
    argv: list[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    # One id in 64 begins with "-": `allfives show URL ID` as `history` prints it must work.
    shown: list[tuple[str, str]] = []

    def run(args: argparse.Namespace) -> int:
        shown.append((args.url, args.game))
        return 0

    monkeypatch.setattr(show_module, "run", run)
    try:
        assert cli.main(argv) == 0
    finally:
        i18n.set_language("en")  # --lang sets the process's language: the next tests read English
    assert shown == [("ws://127.0.0.1:1", DASH_GAME)]
