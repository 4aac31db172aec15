"""The browser table in Firefox too (Debian's firefox-esr, through its Marionette port): on a
phone's 360 x 740 CSS pixels a player with the longest name creates a room, starts against the
bot and leads by taps, with the page never wider than the screen, every control at least
44 x 44 CSS px, and the playable tiles and the corner total in sight on their turn; in English,
Estonian and Czech (the longer words must fit as well)."""

from __future__ import annotations

from typing import Any

import pytest
from browser_helpers import assert_fits, firefox, firefox_open, measure
from i18n_helpers import BROWSER_TAGS, web_prefix, web_words
from marionette_driver.by import By
from marionette_driver.errors import StaleElementException
from protocol_session import fixed_draws
from server_helpers import ServerThread
from waiting import until_sync

pytestmark = pytest.mark.browser

PHONE = (360, 740)
LONG_NAME = "Wolfgang Amadeus Mozartt"  # 24 characters, the longest name the server takes


@pytest.mark.parametrize("language", ["en", "et", "cs"])
def test_a_phone_player_leads_by_taps_in_firefox(language: str) -> None:
    connected = web_words(language, "status.connected")
    led = web_prefix(language, "log.led", who=LONG_NAME)
    with fixed_draws(), ServerThread() as server, firefox(*PHONE, BROWSER_TAGS[language]) as page:
        firefox_open(page, server.base + "/")

        def text_of(id: str) -> str:
            found = page.find_elements(By.ID, id)
            return str(found[0].text) if found else ""

        until_sync(lambda: text_of("status") == connected, 30, "the connection")
        assert abs(measure(page)["viewport"] - 360) <= 4  # the phone's width, zoomed into 500
        field = page.find_element(By.ID, "name")
        field.clear()
        field.send_keys(LONG_NAME)
        assert_fits(measure(page))
        page.find_element(By.ID, "create-button").click()

        def startable() -> Any:
            found = page.find_elements(By.ID, "start-button")
            return found[0] if found and found[0].is_enabled() else None

        # The waiting room is redrawn as its seats fill: a button gone meanwhile is "not yet".
        until_sync(startable, 30, "the room with its bot", (StaleElementException,)).click()
        # The draws are fixed so that seat 0 leads the first hand (as in protocol/README.md).
        until_sync(lambda: measure(page)["playable"], 30, "the lead")
        seen = measure(page)
        assert_fits(seen)
        assert seen["playableInView"] and seen["totalInView"], seen
        tile = seen["playable"][0]
        page.find_element(By.CSS_SELECTOR, f'.hand-tile[data-tile="{tile}"]').click()
        until_sync(lambda: page.find_elements(By.ID, "lead-button"), 10, "the lead button")
        page.find_element(By.ID, "lead-button").click()
        until_sync(
            lambda: any(line.startswith(led) for line in measure(page)["log"]),
            30,
            "the lead in the log",
        )
        assert_fits(measure(page))
