"""The browser table in each language: a browser set to Czech, Serbian (Latin), Estonian or
English gets the page in it (`<html lang>` follows) and plays a whole match against a bot
without an English word on the screen (every word of the English catalog that the language's
catalog does not use is looked for): the lobby, the table mid-hand, a hand's explained result
and the winner with the match's scoreboard, each saved to tests/artifacts/. The language chosen
in the page is kept for the next visit, over the browser's; the rules page is the language's.
"""

from __future__ import annotations

import re
import urllib.request
from typing import Any

import pytest
from browser_helpers import chromium, js_errors, screenshot, wait_for
from i18n_helpers import (
    BROWSER_TAGS,
    LANGUAGES,
    english_leaks,
    english_only_web_words,
    web_prefix,
    web_words,
)
from selenium.webdriver.common.by import By
from selenium.webdriver.remote.webdriver import WebDriver
from selenium.webdriver.support.ui import Select
from server_helpers import ServerThread

LAPTOP = (1280, 800)
#: What the page shows, read in one go.
READ = """
const winner = document.getElementById("winner");
const summary = document.getElementById("summary");
return {
  text: document.body.innerText,
  lang: document.documentElement.lang,
  status: document.getElementById("status")?.textContent ?? "",
  playable: [...document.querySelectorAll(".hand-tile.playable")].map((b) => b.dataset.tile),
  pass: Boolean(document.getElementById("pass-button")),
  summary: summary && !summary.hidden ? summary.innerText : null,
  winner: winner && !winner.hidden ? winner.innerText : null,
  moves: window.allfives?.state?.doc?.game?.history?.length ?? 0,
};
"""


def read(page: WebDriver) -> dict[str, Any]:
    seen: dict[str, Any] = page.execute_script(READ)
    return seen


def assert_in_language(page: WebDriver, language: str) -> dict[str, Any]:
    """The page is in `language`: its lang attribute, and no English-only word on it."""
    seen = read(page)
    assert seen["lang"] == language
    if language != "en":
        assert english_leaks(seen["text"], english_only_web_words(language)) == [], seen["text"]
    return seen


def my_turn_or_the_end(page: WebDriver) -> dict[str, Any] | None:
    """What the page shows once it is this player's move or the match is over, else None."""
    seen = read(page)
    return seen if seen["playable"] or seen["pass"] or seen["winner"] else None


def move(page: WebDriver) -> None:
    """Make this player's move: the first playable tile (led or put on its first end), or pass."""
    seen = read(page)
    if not seen["playable"]:
        page.find_element(By.ID, "pass-button").click()
        return
    page.find_element(By.CSS_SELECTOR, ".hand-tile.playable").click()
    if page.find_elements(By.ID, "lead-button"):
        page.find_element(By.ID, "lead-button").click()
    elif page.find_elements(By.CSS_SELECTOR, "#board .end-target"):
        page.find_element(By.CSS_SELECTOR, "#board .end-target").click()


@pytest.mark.browser
@pytest.mark.parametrize("language", LANGUAGES)
def test_a_whole_match_in_the_browsers_language(language: str) -> None:
    with ServerThread() as server, chromium(*LAPTOP, BROWSER_TAGS[language]) as page:
        page.get(server.base + "/")
        connected = web_words(language, "status.connected")
        wait_for(lambda: read(page)["status"] == connected, what="connected")
        field = page.find_element(By.ID, "name")
        field.clear()
        field.send_keys("Ann")
        assert_in_language(page, language)
        rules = page.find_element(By.ID, "rules-link").get_attribute("href") or ""
        assert rules.endswith("/web/rules.html" if language == "en" else f"rules.{language}.html")
        screenshot(page, f"lang-{language}-lobby", *LAPTOP)

        # Short hands (five tiles each) to a target of 120: hands end and are explained (with
        # 60, a deal could reach the target in its first hand, which no summary explains).
        Select(page.find_element(By.NAME, "hand_size")).select_by_value("five")
        page.find_element(By.NAME, "target").send_keys("120")
        page.find_element(By.ID, "create-button").click()
        start = wait_for(
            lambda: [b for b in page.find_elements(By.ID, "start-button") if b.is_enabled()],
            what="the room with its bot",
        )
        assert_in_language(page, language)
        start[0].click()
        shot = {"mid": False, "summary": False}
        for _ in range(400):
            seen = wait_for(lambda: my_turn_or_the_end(page), what="my turn or the end")
            if seen["summary"] and not shot["summary"]:
                assert_in_language(page, language)
                hand = web_prefix(language, "summary.title")
                assert seen["summary"].startswith(hand), seen["summary"]
                screenshot(page, f"lang-{language}-summary", *LAPTOP)
                shot["summary"] = True
            if seen["winner"]:
                break
            if not shot["mid"] and seen["moves"] >= 3:
                assert_in_language(page, language)
                screenshot(page, f"lang-{language}-mid-hand", *LAPTOP)
                shot["mid"] = True
            before = seen["moves"]
            move(page)
            wait_for(
                lambda: read(page)["moves"] != before or read(page)["winner"],  # noqa: B023
                what="the move made",
            )
        seen = assert_in_language(page, language)
        assert seen["winner"], "the match did not end"
        assert web_prefix(language, "winner.final_scores") in seen["winner"]
        assert web_words(language, "winner.rematch") in seen["winner"]
        screenshot(page, f"lang-{language}-winner", *LAPTOP)
        assert shot["mid"] and shot["summary"], shot
        assert js_errors(page) == []


@pytest.mark.browser
def test_the_language_chosen_in_the_page_is_kept_over_the_browsers() -> None:
    with ServerThread() as server, chromium(*LAPTOP, BROWSER_TAGS["cs"]) as page:
        page.get(server.base + "/")
        wait_for(lambda: read(page)["status"] == web_words("cs", "status.connected"), what="cs")
        Select(page.find_element(By.ID, "lang-choice")).select_by_value("et")
        wait_for(lambda: read(page)["lang"] == "et", what="the page in Estonian")
        page.get(server.base + "/")
        wait_for(lambda: read(page)["status"] == web_words("et", "status.connected"), what="et")
        assert_in_language(page, "et")
        assert page.execute_script("return localStorage.getItem('allfives.lang')") == "et"


@pytest.mark.parametrize("language", ["cs", "sr-Latn", "et"])
def test_the_rules_page_is_served_in_each_language(language: str) -> None:
    with ServerThread() as server:
        url = f"{server.base}/web/rules.{language}.html"
        with urllib.request.urlopen(url, timeout=5) as response:
            page = response.read().decode()
    assert f'<html lang="{language}">' in page
    text = re.sub(r"<[^>]*>|[\w/.-]+\.md\b", " ", page)  # what it shows, not tags or file names
    assert english_leaks(text, english_only_web_words(language)) == []


@pytest.mark.parametrize("language", LANGUAGES)
def test_the_rules_page_names_nothing_the_server_does_not_serve(language: str) -> None:
    """No file name a player cannot open (it named docs/rules.md), and every link and asset
    on the page is there."""
    name = "rules.html" if language == "en" else f"rules.{language}.html"
    with ServerThread() as server:
        with urllib.request.urlopen(f"{server.base}/web/{name}", timeout=5) as response:
            page = response.read().decode()
        shown = re.sub(r"<[^>]*>", " ", page)
        assert not re.search(r"[\w/.-]+\.md\b", shown), re.findall(r"[\w/.-]+\.md\b", shown)
        for link in re.findall(r'(?:href|src)="([^"#]+)"', page):
            with urllib.request.urlopen(server.base + link, timeout=5) as answer:
                assert answer.status == 200, link
