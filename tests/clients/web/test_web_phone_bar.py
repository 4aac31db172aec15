"""The page's top bar on a phone (360 x 740), in Chromium against a real server, in each language:
nothing of it leaves the screen and it never scrolls sideways. Someone who opened a tournament's
link and follows it without entering sees the bar on one row, the ladder and "Link this device"
in the page's own nav just below it; the lobby's bar wraps onto a second row with every link in
sight; at the table the bar keeps to one row with the title, the rules, the language and the
status (the ladder and "My page" are in the lobby). On a laptop (1280 x 800) the bar shows all
its links on one row."""

from __future__ import annotations

from typing import Any

import pytest
from browser_helpers import chromium, js_errors, screenshot, start_against_a_bot, wait_for
from i18n_helpers import BROWSER_TAGS, web_words
from selenium.webdriver.common.by import By
from selenium.webdriver.remote.webdriver import WebDriver
from server_helpers import ServerThread
from tournament_helpers import round_robin

pytestmark = pytest.mark.browser

PHONE = (360, 740)
DESK = (1280, 800)
#: One row of the bar: its controls are 44 px tall.
ONE_ROW = 56
#: What the bar shows, in its order: the title, the rules, the ladder, "Link this device" (or
#: "My page"), the language and the connection's status.
EVERY_PART = ["H1", "rules-link", "ladder-link", "me-link", "lang-choice", "status"]

#: Where each part of the bar lies that a person sees, measured in one go.
BAR = """
const bar = document.querySelector("header.bar");
const shown = [...bar.children].filter((part) => part.getClientRects().length > 0).map((part) => {
  const r = part.getBoundingClientRect();
  return { what: part.id || part.tagName, text: part.innerText, left: r.left, right: r.right };
});
return { shown, height: bar.getBoundingClientRect().height, viewport: innerWidth,
         scrolls: bar.scrollWidth - bar.clientWidth,
         pageScrolls: document.documentElement.scrollWidth - innerWidth };
"""


def the_bar(page: WebDriver) -> dict[str, Any]:
    """The bar as seen now (`BAR`)."""
    seen: dict[str, Any] = page.execute_script(BAR)
    return seen


def assert_on_screen(seen: dict[str, Any]) -> None:
    """No part of the bar lies past either edge of the screen, and nothing scrolls sideways."""
    assert seen["scrolls"] <= 0 and seen["pageScrolls"] <= 0, seen
    outside = [p for p in seen["shown"] if p["left"] < -0.5 or p["right"] > seen["viewport"] + 0.5]
    assert outside == [], seen


def connected(page: WebDriver, language: str) -> None:
    """Wait until the page says it is connected."""
    said = web_words(language, "status.connected")
    wait_for(lambda: page.find_element(By.ID, "status").text == said, what="connected")


@pytest.mark.parametrize("language", list(BROWSER_TAGS))
def test_the_top_bar_stays_on_a_phones_screen_for_a_tournaments_watcher_and_in_the_lobby(
    language: str,
) -> None:
    with ServerThread() as server, chromium(*PHONE, BROWSER_TAGS[language]) as page:
        # A public round robin of two normal bots, open for entries, made by Cat.
        made = server.call(round_robin(server.server.url, "Cat", ["normal"] * 2, name="Phone cup"))
        cup = made.tournament
        page.get(f"{server.base}/#/tournament/{cup}")
        wait_for(
            lambda: len(page.find_elements(By.CSS_SELECTOR, "#tournament-entrants li")) == 2,
            what="the entrants",
        )
        connected(page, language)
        screenshot(page, f"bar-watcher-{language}-360x740", *PHONE)
        seen = the_bar(page)
        assert_on_screen(seen)
        assert seen["height"] <= ONE_ROW, seen
        # The ladder and "Link this device" are in the page's own nav, in full, on the screen.
        offer = page.find_element(By.ID, "nav-link")
        assert offer.text == web_words(language, "app.link")
        place = offer.rect
        assert offer.is_displayed() and place["x"] >= 0 and place["x"] + place["width"] <= 360
        assert page.find_element(By.ID, "nav-ladder").is_displayed()

        screenshot(page, f"bar-watcher-{language}-1280x800", *DESK)
        wide = the_bar(page)
        assert [part["what"] for part in wide["shown"]] == EVERY_PART, wide
        assert wide["shown"][3]["text"] == web_words(language, "app.link")
        assert wide["height"] <= ONE_ROW, wide

        page.get(f"{server.base}/")
        connected(page, language)
        screenshot(page, f"bar-lobby-{language}-360x740", *PHONE)
        lobby = the_bar(page)
        assert_on_screen(lobby)
        assert [part["what"] for part in lobby["shown"]] == EVERY_PART, lobby
        assert js_errors(page) == []


@pytest.mark.parametrize("language", list(BROWSER_TAGS))
def test_at_the_table_a_phones_top_bar_is_one_row_with_the_language_and_status_in_sight(
    language: str,
) -> None:
    with ServerThread() as server, chromium(*PHONE, BROWSER_TAGS[language]) as page:
        start_against_a_bot(page, server, target=100)
        wait_for(lambda: page.find_elements(By.CSS_SELECTOR, "#board"), what="the table")
        connected(page, language)
        screenshot(page, f"bar-table-{language}-360x740", *PHONE)
        seen = the_bar(page)
        assert_on_screen(seen)
        assert seen["height"] <= ONE_ROW, seen
        shown = [part["what"] for part in seen["shown"]]
        assert shown == ["H1", "rules-link", "lang-choice", "status"], seen
        assert js_errors(page) == []
