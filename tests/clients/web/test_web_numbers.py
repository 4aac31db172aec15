"""Numbers, dates and the create form's checks in the page's language, in headless Chromium.

A rating is "3,4" on a Czech page and a change "−1,8" (a minus sign, never a hyphen, and the
same sign in the rating and its change); a game's date is written the language's way; the
create form's own checks (a target not a multiple of five) are worded by the page in its
language, not by the browser in the browser's.
"""

from __future__ import annotations

import re
from collections.abc import Iterator

import pytest
from browser_helpers import chromium, wait_for
from i18n_helpers import BROWSER_TAGS
from selenium.webdriver.common.by import By
from selenium.webdriver.remote.webdriver import WebDriver
from server_helpers import ServerThread
from unit_page_helpers import call, unit_page

pytestmark = pytest.mark.browser

#: 2026-12-03 11:34:03 UTC.
MOMENT = 1796297643


@pytest.fixture(scope="module")
def page() -> Iterator[WebDriver]:
    with unit_page() as driver:
        yield driver


def in_language(page: WebDriver, language: str, expression: str, *args: object) -> object:
    """`expression` evaluated on the test page with `language`'s catalog loaded (then English)."""
    page.execute_async_script(
        "const done = arguments[arguments.length - 1];"
        "window.unit.i18n.load(arguments[0]).then(() => done(true));",
        language,
    )
    try:
        return call(page, expression, *args)
    finally:
        page.execute_async_script(
            "const done = arguments[arguments.length - 1];"
            "window.unit.i18n.load('en').then(() => done(true));"
        )


def test_ratings_use_the_languages_decimal_mark_and_one_minus_sign(page: WebDriver) -> None:
    ratings = [{"seat": 0, "ladder": "2p", "before": {"rating": 0.2}, "after": {"rating": -1.6}}]
    english = call(page, "unit.model.ratingText(a[0], 0)", ratings)
    assert english == "Your rating on the two-player ladder: \u22121.6 (\u22121.8)"
    czech = in_language(page, "cs", "unit.model.ratingText(a[0], 0)", ratings)
    assert isinstance(czech, str) and czech.endswith(": \u22121,6 (\u22121,8)"), czech
    assert "-" not in czech
    estonian = in_language(page, "et", "unit.i18n.signedDecimal(3.44)")
    assert estonian == "+3,4"


def test_a_games_date_and_rating_change_are_written_the_languages_way(page: WebDriver) -> None:
    game = {
        "id": "g1",
        "finished_at": MOMENT,
        "players": [{"seat": 0, "name": "Ann"}, {"seat": 1, "name": "bot:hard"}],
        "scores": [170, 250],
        "winner": 1,
        "rules": {"players": 2},
        "changes": [{"name": "Ann", "before": {"rating": 4.0}, "after": {"rating": 2.4}}],
    }
    row = "unit.player.gameRow(a[0], 'Ann').textContent"
    english = call(page, row, game)
    czech = in_language(page, "cs", row, game)
    assert isinstance(czech, str)
    # Czech writes the day first with dots and a 24-hour clock: "3. 12. 2026 …", no AM or PM.
    assert re.search(r"\b3\. ?12\. ?2026\b", czech), czech
    assert not re.search(r"\b(AM|PM)\b", czech) and "12/3/2026" not in czech
    assert "2,4 (\u22121,6)" in czech and "2.4 (\u22121.6)" in english, (czech, english)


@pytest.mark.parametrize("language", ["cs", "et"])
def test_the_create_forms_checks_are_in_the_pages_language(language: str) -> None:
    with ServerThread() as server, chromium(1280, 800, language=BROWSER_TAGS[language]) as page:
        page.get(server.base + "/")
        target = wait_for(lambda: page.find_element(By.NAME, "target"), what="the form")
        target.send_keys("7")
        page.find_element(By.ID, "create-button").click()
        said = page.execute_script("return arguments[0].validationMessage", target)
        words = {"cs": "Zadejte prosím násobek 5.", "et": "Palun sisestage arvu 5 kordne."}
        assert said == words[language]
        # Nothing was sent: the page still shows the lobby, no room.
        assert page.find_elements(By.ID, "create-form") and not page.find_elements(
            By.ID, "start-button"
        )
        target.clear()
        target.send_keys("-5")
        page.find_element(By.ID, "create-button").click()
        said = page.execute_script("return arguments[0].validationMessage", target)
        assert (
            said
            == {"cs": "Zadejte prosím 5 nebo víc.", "et": "Palun sisestage 5 või rohkem."}[language]
        )


def test_the_rating_graph_has_a_legend_and_ticks_that_differ_on_one_day(page: WebDriver) -> None:
    """Three colours had no legend; two games on one day gave both ticks the same date."""
    history = [
        {"at": MOMENT, "ladder": "2p", "rating": 1.0},
        {"at": MOMENT + 3600, "ladder": "2p", "rating": 2.5},
        {"at": MOMENT + 7200, "ladder": "teams", "rating": -0.5},
    ]
    ticks = call(
        page,
        "[...unit.player.ratingGraph(a[0]).querySelectorAll('text.tick')].map((e) => e.textContent)",
        history,
    )
    first, last = ticks[-2], ticks[-1]
    assert first != last and ":" in first and ":" in last, ticks
    assert ticks[0] == "\u22120.5", ticks  # the lowest rating, with a minus sign
    legend = call(
        page,
        "[...unit.player.graphLegend(a[0]).querySelectorAll('li')]"
        ".map((li) => [li.dataset.ladder, li.textContent])",
        history,
    )
    assert legend == [["2p", "Two players"], ["teams", "Partnerships (four players)"]], legend
    assert call(page, "unit.player.graphLegend([])") is None
