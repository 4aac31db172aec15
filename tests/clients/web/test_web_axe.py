"""axe-core on every page and at every phase of a match, in Chromium: no serious or critical
violation anywhere.

axe's script is the one PyPI's axe-selenium-python ships (nothing is fetched). A phone
(360x740) plays a match to 150 against a bot, in English and in Czech, and axe looks at the page
in light and dark colours: the lobby, the room waiting for a player, the player's turn (the
lead), a choice of ends, a hand's result, the end of the match, the replay of it, the ladder,
the player's page and the rules page in each language.
"""

from __future__ import annotations

from typing import Any

import pytest
from accessibility_helpers import axe_problems, keys, tab_to
from browser_helpers import PLAY_UNTIL, chromium, js_errors, play_until, screenshot, wait_for
from i18n_helpers import BROWSER_TAGS, LANGUAGES, web_words
from selenium.webdriver.common.by import By
from selenium.webdriver.common.keys import Keys
from selenium.webdriver.remote.webdriver import WebDriver
from server_helpers import ServerThread

pytestmark = pytest.mark.browser

PHONE = (360, 740)

#: A tile that fits two ends on the page's turn (PLAY_UNTIL's condition).
TWO_ENDS = (
    "const c = {}; for (const m of game.legal ?? []) if (m.tile) c[m.tile] = (c[m.tile] || 0) + 1;"
    " return doc.phase === 'playing' && game.turn === doc.you && Object.values(c).some((n) => n > 1);"
)
#: The page's turn in the second hand or later: the last hand's result is on the dock.
A_RESULT = (
    "return doc.phase === 'playing' && game.hand_number >= 2 && Boolean(game.last_hand)"
    " && game.turn === doc.you && (game.legal ?? []).length > 0;"
)


#: Whether the element `arguments[0]` (an id) lies below the sticky strip and in the window
#: (to a pixel): true, or where it is.
CLEAR_OF_THE_STRIP = """
const box = document.getElementById(arguments[0]).getBoundingClientRect();
const strip = document.getElementById("strip").getBoundingClientRect();
const clear = box.top >= strip.bottom - 1 && box.bottom <= innerHeight + 1;
return clear || { top: box.top, bottom: box.bottom, strip: strip.bottom, window: innerHeight };
"""


def colours(driver: WebDriver, scheme: str) -> None:
    """Show the page in the light or dark colour scheme."""
    driver.execute_cdp_cmd(
        "Emulation.setEmulatedMedia",
        {"features": [{"name": "prefers-color-scheme", "value": scheme}]},
    )


def look(driver: WebDriver, what: str, found: dict[str, Any]) -> None:
    """axe on the page as it is, in light and in dark colours: what it finds, under `what`."""
    for scheme in ("light", "dark"):
        colours(driver, scheme)
        found[f"{what} ({scheme})"] = axe_problems(driver)
    colours(driver, "light")


@pytest.mark.parametrize("language", ["en", "cs"])
def test_axe_finds_nothing_serious_on_any_page_or_phase(language: str) -> None:
    found: dict[str, Any] = {}
    with (
        ServerThread(bot_delay=0.0) as server,
        chromium(*PHONE, BROWSER_TAGS[language]) as page,
    ):
        page.get(server.base + "/")
        connected = web_words(language, "status.connected")
        wait_for(lambda: page.find_element(By.ID, "status").text == connected, what="online")
        look(page, "lobby", found)

        # A room with a seat open for a friend: the waiting room.
        page.find_element(By.ID, "name").send_keys("Ann")
        page.execute_script(
            "window.allfives.create({rules: {players: 2, target: 150}, seat: 0, bots: []});"
        )
        wait_for(lambda: page.find_elements(By.CSS_SELECTOR, "[data-key='add-1']"), what="waiting")
        look(page, "waiting", found)
        page.find_element(By.CSS_SELECTOR, "[data-key='add-1']").click()
        wait_for(
            lambda: [b for b in page.find_elements(By.ID, "start-button") if b.is_enabled()],
            what="the bot seated",
        )[0].click()

        wait_for(lambda: page.find_elements(By.CSS_SELECTOR, ".hand-tile.playable"), what="turn")
        look(page, "your turn", found)

        play_until(page, TWO_ENDS, "a tile that fits two ends", timeout=240, matches=3)
        tile = page.execute_script(
            "const c = {}; for (const m of window.allfives.state.doc.game.legal) if (m.tile) c[m.tile] = (c[m.tile] || 0) + 1;"
            "return Object.keys(c).find((t) => c[t] > 1);"
        )
        page.execute_script(
            "document.querySelector(`.hand-tile[data-tile='${arguments[0]}']`).focus()", tile
        )
        keys(page, Keys.ENTER)
        wait_for(lambda: page.find_elements(By.CSS_SELECTOR, "#board .end-target"), what="ends")
        look(page, "a choice of ends", found)
        screenshot(page, f"axe-ends-{language}", *PHONE)
        keys(page, Keys.ESCAPE)

        # Ann must be to move while the last hand's card is up: some matches never have it.
        play_until(page, A_RESULT, "a hand's result", timeout=240, matches=3)
        wait_for(lambda: page.find_element(By.ID, "summary").is_displayed(), what="the result")
        look(page, "a hand's result", found)
        screenshot(page, f"axe-result-{language}", *PHONE)

        finish = PLAY_UNTIL.replace("CONDITION", "return false;")
        wait_for(lambda: page.execute_script(finish) == "finished", 120, "the end")
        wait_for(lambda: page.find_element(By.ID, "winner-text").text, what="the winner")
        look(page, "the end of the match", found)

        # Reached by Tab, the link stops clear of the sticky strip (WCAG 2.4.11), and opens.
        tab_to(page, lambda f: f["id"] == "replay-link")
        clear = page.execute_script(CLEAR_OF_THE_STRIP, "replay-link")
        assert clear is True, clear
        keys(page, Keys.ENTER)
        wait_for(lambda: page.find_elements(By.ID, "replay"), what="the replay")
        look(page, "the replay", found)
        for route in ("#/ladder", "#/player/Ann"):
            page.execute_script("location.hash = arguments[0]", route)
            wait_for(lambda: page.find_elements(By.CSS_SELECTOR, "#pages h2"), what=route)
            look(page, route, found)
        for each in LANGUAGES:
            page.get(
                server.base + ("/web/rules.html" if each == "en" else f"/web/rules.{each}.html")
            )
            wait_for(lambda: page.find_elements(By.ID, "keys"), what="the rules' keys")
            look(page, f"rules ({each})", found)
        assert js_errors(page) == []
    assert len(found) == 2 * (9 + len(LANGUAGES))
    assert {what: problems for what, problems in found.items() if problems} == {}
