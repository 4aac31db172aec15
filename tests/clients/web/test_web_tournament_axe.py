"""axe-core on the tournaments' parts of the page, in Chromium at a phone's 360 x 740, in English
and in Czech, in light and dark colours: no serious or critical violation in the lobby's
tournaments (the new tournament's form open), a tournament's page before the start (as its
host) and after its end (the rounds, byes, standings and champion)."""

from __future__ import annotations

from typing import Any

import pytest
from accessibility_helpers import axe_problems
from browser_helpers import chromium, js_errors, open_lobby, press, wait_for
from i18n_helpers import BROWSER_TAGS, web_words
from selenium.webdriver.common.by import By
from selenium.webdriver.remote.webdriver import WebDriver
from server_helpers import ServerThread

pytestmark = pytest.mark.browser

PHONE = (360, 740)


def look(driver: WebDriver, what: str, found: dict[str, Any]) -> None:
    """axe on the page as it is, in light and in dark colours: what it finds, under `what`."""
    for scheme in ("light", "dark"):
        driver.execute_cdp_cmd(
            "Emulation.setEmulatedMedia",
            {"features": [{"name": "prefers-color-scheme", "value": scheme}]},
        )
        found[f"{what} ({scheme})"] = axe_problems(driver)


@pytest.mark.parametrize("language", ["en", "cs"])
def test_axe_finds_nothing_serious_in_the_tournaments_parts(language: str) -> None:
    found: dict[str, Any] = {}
    with ServerThread(bot_delay=0.0) as server, chromium(*PHONE, BROWSER_TAGS[language]) as page:
        open_lobby(page, server.base + "/", "Ann", language)
        press(page, "new-tournament")
        look(page, "lobby", found)

        # Ann hosts three bots' round robin without playing in it.
        page.find_element(By.ID, "new-tournament-name").send_keys("Bots' cup")
        form = page.find_element(By.ID, "tournament-form")
        form.find_element(By.NAME, "play").click()
        form.find_element(By.NAME, "target").send_keys("25")
        bots = form.find_element(By.NAME, "bots_easy")
        bots.clear()
        bots.send_keys("3")
        press(page, "create-tournament")
        wait_for(lambda: page.find_elements(By.ID, "tournament-start"), what="the host's page")
        look(page, "open", found)

        press(page, "tournament-start")
        champion = web_words(language, "tourney.champion", name="")
        wait_for(
            lambda: page.find_element(By.ID, "tournament-champion").text.startswith(champion),
            timeout=120,
            what="the champion",
        )
        assert page.find_elements(By.CSS_SELECTOR, ".bye")  # three bots: one sits out a round
        look(page, "finished", found)
        assert js_errors(page) == []
    assert len(found) == 2 * 3
    assert {what: problems for what, problems in found.items() if problems} == {}
