"""The page words the review as the terminal does, steps a record as the terminal's replay does,
and reads its hash routes and link codes strictly (tests/clients/web/unit_page/unit.html, headless Chromium)."""

from __future__ import annotations

from collections.abc import Iterator

import msgspec
import pytest
from i18n_helpers import GETTEXT_NAMES, TRANSLATED, english_leaks, english_only_web_words
from selenium.webdriver.remote.webdriver import WebDriver
from unit_page_helpers import call, unit_page

from bridge.positions import positions_of
from bridge.records import record_of
from bridge.reviews import review_record
from clients.cli import i18n
from clients.cli.replay_steps import replay_of
from clients.cli.review_words import hand_words, line_words, move_words, reason_words, total_words
from engine import Match, Rules
from engine.bots import make_bot
from protocol.review import Reason, Review, ReviewMove

pytestmark = pytest.mark.browser


@pytest.fixture(scope="module")
def page() -> Iterator[WebDriver]:
    with unit_page() as driver:
        yield driver


REASONS = [
    Reason(kind="passed_up", points=15, move=ReviewMove(tile="6-6", end="west")),
    Reason(kind="opened", points=20, move=ReviewMove(tile="4-4", end="east"), seat=1),
    Reason(kind="opened", points=10, move=ReviewMove(tile="4-1", end="east"), seat=1, scored=5),
    Reason(kind="kept_heavy", tile="6-6", points=12, counted=True),
    Reason(kind="kept_heavy", tile="6-4", points=10),
]


@pytest.mark.parametrize("reason", REASONS, ids=lambda r: r.kind)
def test_each_reason_reads_the_same_in_the_page_and_the_terminal(
    page: WebDriver, reason: Reason
) -> None:
    names = ["Ann", "Bob"]
    shown = call(
        page, "unit.reviewWords.reasonWords(a[0], a[1])", msgspec.to_builtins(reason), names
    )
    assert shown == reason_words(reason, names)


@pytest.mark.parametrize(("players", "teams", "seed"), [(2, False, 4), (3, False, 5), (4, True, 6)])
def test_the_page_steps_a_record_as_the_terminal_does(
    page: WebDriver, players: int, teams: bool, seed: int
) -> None:
    match = Match.new(Rules(players=players, teams=teams, target=100), seed=seed)
    bots = [make_bot("normal", seed + s) for s in range(players)]
    while not match.over:
        match.apply(match.turn, bots[match.turn].choose(match.view_for(match.turn)))
    record = record_of(match, [f"P{s}" for s in range(players)])
    positions = positions_of(record)
    steps = call(
        page,
        "unit.replayModel.replaySteps(a[0], a[1]).steps",
        msgspec.to_builtins(record),
        msgspec.to_builtins(positions),
    )
    mine = replay_of(record, positions).steps
    assert len(steps) == len(mine)
    for theirs, ours in zip(steps, mine, strict=True):
        assert (theirs["hand"], theirs["move"], theirs["kind"]) == (ours.hand, ours.move, ours.kind)
        assert theirs["scores"] == ours.scores and theirs["tiles"] == ours.tiles
        assert theirs["layout"] == msgspec.to_builtins(ours.layout) | {
            "spinner": ours.layout.spinner
        }
    assert steps[-1]["scores"] == record.scores


def test_routes_and_link_codes_are_read_strictly(page: WebDriver) -> None:
    route = "unit.pages.parseRoute(a[0])"
    assert call(page, route, "#/ladder") == {"page": "ladder"}
    assert call(page, route, "#/player/Ann%20B") == {"page": "player", "name": "Ann B"}
    assert call(page, route, "#/game/abc_DEF-1") == {"page": "game", "id": "abc_DEF-1"}
    assert call(page, route, "#/game/a.b") is None
    assert call(page, route, "#/player/%E0%A4%A") is None
    assert call(page, route, "") is None
    assert call(page, "unit.key.linkCode(a[0])", "abcd-efgh") == "ABCDEFGH"
    assert call(page, "unit.key.linkCode(a[0])", "abc") is None
    made = call(page, "unit.key.newKey()")
    assert isinstance(made, str) and len(made) == 43 and "=" not in made


@pytest.mark.parametrize("language", TRANSLATED)
def test_the_page_and_the_terminal_word_the_review_alike_in_each_language(
    page: WebDriver, language: str
) -> None:
    """The same catalog sentences: every reason and a player's total, in the page and in the
    terminal, in Czech, Serbian and Estonian, with no English-only word."""
    load = "const done = arguments[arguments.length - 1]; unit.i18n.load(arguments[0]).then(done);"
    page.execute_async_script(load, language)
    i18n.set_language(GETTEXT_NAMES[language])
    try:
        names = ["Ann", "Bob"]
        for reason in REASONS:
            shown = call(
                page, "unit.reviewWords.reasonWords(a[0], a[1])", msgspec.to_builtins(reason), names
            )
            assert shown == reason_words(reason, names)
            assert english_leaks(shown, english_only_web_words(language)) == [], shown
        move = call(page, "unit.reviewWords.moveWords(a[0])", {"tile": "6-6", "end": "west"})
        assert move == move_words(ReviewMove(tile="6-6", end="west"))
    finally:
        i18n.set_language("en")
        page.execute_async_script(load, "en")


@pytest.fixture(scope="module")
def reviewed() -> Review:
    """A whole 2-player match to 100 (won 105-55), reviewed: every grade and a hand each."""
    match = Match.new(Rules(players=2, target=100), seed=207)
    bots = [make_bot("normal", 207 * 2 + s) for s in range(2)]
    while not match.over:
        match.apply(match.turn, bots[match.turn].choose(match.view_for(match.turn)))
    return review_record(record_of(match, ["Ann", "Bob"]), None, 10.0, seed=0)


@pytest.mark.parametrize("language", ["en", *TRANSLATED])
def test_a_players_accuracy_hands_and_graded_moves_read_the_same_in_the_page_and_the_terminal(
    page: WebDriver, language: str, reviewed: Review
) -> None:
    """The sentences of `/review` and `allfives show` are the page's: a player's accuracy and
    points lost a move, each hand's, and every move with its grade, in each language."""
    load = "const done = arguments[arguments.length - 1]; unit.i18n.load(arguments[0]).then(done);"
    page.execute_async_script(load, language)
    i18n.set_language(GETTEXT_NAMES.get(language, "en"))
    names = ["Ann", "Bob"]
    try:
        for player in reviewed.players:
            data = msgspec.to_builtins(player)
            theirs = call(page, "unit.reviewWords.playerWords(a[0])", data)
            assert theirs == total_words(player)
            for hand in player.by_hand:
                said = call(page, "unit.reviewWords.handWords(a[0])", msgspec.to_builtins(hand))
                assert said == hand_words(hand)
        grades = set()
        for line in reviewed.moves:
            data = msgspec.to_builtins(line)
            theirs = call(page, "unit.reviewWords.lineWords(a[0], a[1])", data, names)
            assert theirs == line_words(line, names)
            if language != "en":
                assert english_leaks(theirs, english_only_web_words(language)) == [], theirs
            grades.add(line.grade)
        assert grades >= {"best", "inaccuracy", "mistake", "blunder"}
        older = msgspec.to_builtins(reviewed.players[0]) | {"accuracy": None}
        del older["by_hand"]
        theirs = call(page, "unit.reviewWords.playerWords(a[0])", older)
        assert theirs == total_words(msgspec.convert(older, type=type(reviewed.players[0])))
    finally:
        i18n.set_language("en")
        page.execute_async_script(load, "en")
