"""Why a hand scored what it did, as the browser table explains it, and the rules page.

The explanation words the hand's result the server sends (each seat's pips, the points, and the
counts: which side counted whose pips, and what that made rounded to five, docs/rules.md 7); the
counts must add up to the points. Here: the rule book's worked examples, the
issue's two cases (12 rounded to 10; 53 counted for a team, 55 scored), and the name and chat
limits the page checks before sending. The rules page is served, from this origin only.
"""

from __future__ import annotations

import urllib.request
from collections.abc import Iterator
from typing import Any

import msgspec
import pytest
from i18n_helpers import web_words
from protocol_helpers import BOT_LOOK_ALIKES, LOOK_ALIKES, hand_ended
from selenium.webdriver.remote.webdriver import WebDriver
from server_helpers import ServerThread
from unit_page_helpers import call, unit_page

from protocol.names import name_problem


@pytest.fixture(scope="module")
def page() -> Iterator[WebDriver]:
    with unit_page() as driver:
        yield driver


def explain(page: WebDriver, result: dict[str, Any], names: list[str], **rules: Any) -> Any:
    teams = bool(rules.get("teams")) and len(names) == 4
    # Each seat's side, as the room document says it (`sides`).
    sides = [seat % 2 if teams else seat for seat in range(len(names))]
    return call(
        page,
        "unit.results.explainHand(a[0], {rules: a[1], names: a[2], teams: a[3], sides: a[4]})",
        result,
        {"players": len(names), "end_scoring": "opponents", **rules},
        names,
        teams,
        sides,
    )


def ended(by: int | None, pips: list[int], **rules: Any) -> dict[str, Any]:
    """A hand's result as the server sends it (`protocol_helpers.hand_ended`), as JSON."""
    result: dict[str, Any] = msgspec.to_builtins(hand_ended(by, pips, **rules))
    return result


@pytest.mark.browser
def test_a_domino_shows_the_pips_counted_and_their_rounding(page: WebDriver) -> None:
    shown = explain(page, ended(0, [0, 12]), ["Ann", "Bot 2"])
    assert shown["title"] == "Ann went out" and shown["agrees"]
    assert shown["steps"] == [
        "Left in the opponent's hand: 12 (Bot 2) pips.",
        "12 rounds to 10: Ann scores 10.",
    ]


#: A hand's card (report.handCard) put on the page, and the text a reader sees of it.
HAND_CARD = """
const card = document.createElement("section");
card.append(...window.unit.report.handCard(arguments[0]).filter(Boolean));
document.body.append(card);
const seen = card.innerText;
card.remove();
return seen;
"""


@pytest.mark.browser
@pytest.mark.parametrize("language", ["en", "cs"])
def test_a_hands_card_says_its_figures_are_the_end_count(page: WebDriver, language: str) -> None:
    """The winner's last hand read "Team A 0 Team B 0" where team B had made 30 by plays:
    the figures are the points of the hand's end alone, and nothing on the card said so."""
    summary = {
        "hand": 4,
        "title": "Ann went out",
        "steps": [],
        "agrees": True,
        "text": "",
        "sides": [
            {"side": 0, "name": "Team A", "points": 0},
            {"side": 1, "name": "Team B", "points": 0},
        ],
    }
    page.execute_async_script(
        "const done = arguments[arguments.length - 1]; window.unit.i18n.load(arguments[0]).then(done);",
        language,
    )
    try:
        seen = page.execute_script(HAND_CARD, summary)
    finally:
        page.execute_async_script(
            "const done = arguments[arguments.length - 1]; window.unit.i18n.load('en').then(done);"
        )
    label = web_words(language, "summary.points_label")
    assert label in seen, seen
    assert seen.index(label) < seen.index("Team A"), seen


@pytest.mark.browser
def test_a_team_domino_says_53_was_counted(page: WebDriver) -> None:
    names = ["Tester", "Bot 2", "Bot 3", "Bot 4"]
    result = ended(2, [30, 4, 0, 49], teams=True)
    assert result["points"] == [55, 0]
    shown = explain(page, result, names, teams=True)
    assert shown["agrees"], shown
    assert "4 (Bot 2) + 49 (Bot 4) = 53 pips" in shown["steps"][0]
    assert "53 rounds to 55: Team A scores 55." in shown["steps"]
    assert any("Tester's 30 count for nobody" in step for step in shown["steps"])


@pytest.mark.browser
def test_a_seats_pips_come_before_its_name_so_no_bot_number_runs_into_them(
    page: WebDriver,
) -> None:
    """ "Bořek Ž. 5 + Bot 4 2 = 7 pips" read as "Bot 32": the count comes first."""
    names = ["Ann", "Bořek Ž.", "Cid", "Bot 4"]
    shown = explain(page, ended(0, [0, 5, 4, 2], teams=True), names, teams=True)
    assert "5 (Bořek Ž.) + 2 (Bot 4) = 7 pips" in shown["steps"][0], shown["steps"]
    assert not any("Bot 4 2" in step for step in shown["steps"])
    held = explain(page, ended(None, [3, 3, 13]), ["A", "Bot 2", "Bot 3"])
    assert "Pips held: 3 (A), 3 (Bot 2), 13 (Bot 3)." in held["steps"]


@pytest.mark.browser
def test_a_team_winning_the_match_begins_the_sentence_with_a_capital(page: WebDriver) -> None:
    names = ["Ann", "Bot 2", "Cid", "Bot 4"]
    said = call(page, "unit.describe.describeWinner(1, a[0], true)", names)
    assert said == "Team B (Bot 2 & Bot 4) wins the match"
    # A name stays as its player wrote it.
    alone = call(page, "unit.describe.describeWinner(0, a[0], false)", ["ann", "Bot 2"])
    assert alone == "ann wins the match"


@pytest.mark.browser
def test_blocked_hands_and_penalties_follow_the_worked_examples(page: WebDriver) -> None:
    three = explain(page, ended(None, [3, 3, 13]), ["A", "B", "C"])
    assert three["agrees"] and "6.5 rounds to 5: each scores 5." in three["steps"]
    teams = explain(
        page,
        ended(None, [4, 9, 7, 9], teams=True),
        ["A", "B", "C", "D"],
        teams=True,
    )
    assert (
        teams["agrees"]
        and "Team A holds 4 (A) + 7 (C) = 11; team B holds 9 (B) + 9 (D) = 18." in teams["steps"]
    )
    penalty = explain(
        page,
        ended(0, [0, 8], end_scoring="penalty"),
        ["A", "B"],
        end_scoring="penalty",
    )
    assert penalty["agrees"] and "B: 8 rounds to 10, loses 10." in penalty["steps"]
    # Points the counts do not add up to are flagged, not explained away.
    wrong = explain(page, {**ended(0, [0, 12]), "points": [15, 0]}, ["A", "B"])
    assert not wrong["agrees"]


@pytest.mark.browser
def test_names_and_chat_lines_are_checked_before_sending(page: WebDriver) -> None:
    assert call(page, "unit.limits.checkName(a[0]).problem", "x" * 500) == (
        "A name has at most 24 characters: this one has 500."
    )
    assert call(page, "unit.limits.checkName(a[0]).problem", "\u202e evil") is not None
    assert call(page, "unit.limits.checkName(a[0]).problem", "W" * 24) is None
    # A name the server refuses as invisible or as a bot's is refused before sending.
    problems = call(
        page,
        "a[0].map((name) => unit.limits.checkName(name).problem)",
        [name for name in LOOK_ALIKES + BOT_LOOK_ALIKES if name_problem(name) is not None],
    )
    assert all(problem is not None for problem in problems)
    for name in ("Bořek", "Bottle", "Zoë"):
        assert call(page, "unit.limits.checkName(a[0]).problem", name) is None
    assert "at most 200" in call(page, "unit.limits.checkChat(a[0]).problem", "y" * 2000)


def test_the_rules_page_is_served_from_this_origin() -> None:
    with ServerThread() as server:
        with urllib.request.urlopen(server.base + "/web/rules.html", timeout=5) as response:
            body = response.read().decode()
            policy = response.headers["Content-Security-Policy"]
        index = urllib.request.urlopen(server.base + "/", timeout=5).read().decode()
    assert 'href="/web/rules.html"' in index
    assert "default-src 'none'" in policy and "http" not in body.replace("http-equiv", "")
    assert "12 pips, which" in body and "rounds to 10" in body and "6.5" in body
