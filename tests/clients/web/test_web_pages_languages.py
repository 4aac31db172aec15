"""Issue 24's pages in a language other than English, in Chromium: a browser set to Czech plays
a match against the normal bot, then opens the replay viewer from the winner's card, steps it to
the end and reads the hard bot's review, then the ladder: no English-only word on either
(every word of the English catalog that the Czech one does not use is looked for), the rating
change worded in Czech. Screenshots go to tests/artifacts/lang-cs-replay.png and
lang-cs-ladder.png.
"""

from __future__ import annotations

import pytest
from browser_helpers import chromium, js_errors, play_a_match, screenshot, wait_for
from i18n_helpers import BROWSER_TAGS, english_leaks, english_only_web_words, web_prefix
from selenium.webdriver.common.by import By
from selenium.webdriver.remote.webdriver import WebDriver
from server_helpers import ServerThread

pytestmark = pytest.mark.browser

LAPTOP = (1280, 800)
LANGUAGE = "cs"


def shown(driver: WebDriver) -> str:
    text: str = driver.execute_script("return document.body.innerText")
    return text


def assert_in_language(driver: WebDriver) -> str:
    """The page is in Czech: its lang attribute, and no English-only word on it."""
    assert driver.execute_script("return document.documentElement.lang") == LANGUAGE
    text = shown(driver)
    assert english_leaks(text, english_only_web_words(LANGUAGE)) == [], text
    return text


def test_the_replay_viewer_with_its_review_and_the_ladder_in_czech() -> None:
    with (
        ServerThread(bot_delay=0.0, review_budget_ms=2.0) as server,
        chromium(*LAPTOP, BROWSER_TAGS[LANGUAGE]) as driver,
    ):
        play_a_match(driver, server)
        rated = wait_for(lambda: driver.find_element(By.ID, "rating-change").text, 30)
        assert rated.startswith(web_prefix(LANGUAGE, "rating.provisional_you")), rated
        wait_for(lambda: driver.find_element(By.ID, "replay-link")).click()
        wait_for(lambda: driver.find_elements(By.ID, "replay-step"), what="the viewer")
        driver.find_element(By.ID, "replay-last").click()
        wait_for(lambda: driver.find_elements(By.CSS_SELECTOR, "#review-summary > li"), 60)
        costliest = driver.find_elements(By.CSS_SELECTOR, "#review-summary .costliest button")
        if costliest:
            costliest[0].click()  # a move the review words, with its reasons
        text = assert_in_language(driver)
        assert web_prefix(LANGUAGE, "review.title") in text
        # The bot's seat as the table named it, its level beside it, in the page's language.
        hand = driver.find_element(By.CSS_SELECTOR, ".replay-hand[data-seat='1'] > b").text
        assert hand == "Bot 2 (běžný)", hand
        screenshot(driver, f"lang-{LANGUAGE}-replay", *LAPTOP)

        driver.find_element(By.ID, "ladder-link").click()
        ladder = wait_for(lambda: driver.find_element(By.CSS_SELECTOR, "[data-ladder='2p'] table"))
        assert "Ann" in ladder.text
        text = assert_in_language(driver)
        assert web_prefix(LANGUAGE, "ladder.name.2p") in text
        screenshot(driver, f"lang-{LANGUAGE}-ladder", *LAPTOP)
        assert not js_errors(driver)
