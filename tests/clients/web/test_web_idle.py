"""The browser table counts down to the idle bound on the player's turn (a room without a turn
clock), says when the stand-in has taken the seat, and its button takes the seat back; on a
phone (360x740; screenshots tests/artifacts/phone-idle-*.png)."""

from __future__ import annotations

import pytest
from browser_helpers import (
    assert_fits,
    chromium,
    js_errors,
    measure,
    open_lobby,
    press,
    screenshot,
    wait_for,
)
from i18n_helpers import web_words
from protocol_session import fixed_draws
from selenium.webdriver.common.by import By
from server_helpers import ServerThread

pytestmark = pytest.mark.browser

PHONE = (360, 740)


def test_a_phone_player_idle_on_their_turn_sees_the_countdown_the_stand_in_and_comes_back() -> None:
    idle_you = web_words("en", "strip.idle_you", seconds="{s}").split("{s}")
    with (
        fixed_draws(),
        ServerThread(idle_seconds=6, bot_delay=0.4) as server,
        chromium(*PHONE) as page,
    ):
        open_lobby(page, server.base + "/", "Ann")
        page.find_element(By.ID, "create-button").click()
        start = wait_for(
            lambda: [b for b in page.find_elements(By.ID, "start-button") if b.is_enabled()],
            what="the room with its bot",
        )
        start[0].click()
        # Seat 0 leads (fixed draws); Ann does not move: the strip counts down to the stand-in.

        def countdown() -> str | None:
            text: str = page.find_element(By.ID, "turn").text
            return text if idle_you[0] in text else None

        turn = wait_for(countdown, what="the idle countdown")
        assert turn.startswith(web_words("en", "strip.hand", number=1)), turn
        assert turn.endswith(idle_you[1]), turn
        assert_fits(measure(page))
        screenshot(page, "phone-idle-countdown", *PHONE)
        # Past the bound the stand-in takes the seat; the dock says so and offers it back.
        back = wait_for(
            lambda: [b for b in page.find_elements(By.ID, "back-button") if b.is_displayed()],
            timeout=20,
            what="the button that takes the seat back",
        )[0]
        note = page.find_element(By.ID, "stand-in-note").text
        assert note == web_words("en", "dock.stand_in_note"), note
        assert back.text == web_words("en", "dock.back")
        seats = page.find_element(By.ID, "seats").text
        assert web_words("en", "seat.idle_stand_in") in seats, seats
        # Its move is told to Ann as her stand-in's, never by her own name as someone else's.
        yours = web_words("en", "log.stand_in_you")
        log = "return [...document.querySelectorAll('#log li')].map((li) => li.textContent)"
        told = wait_for(
            lambda: [line for line in page.execute_script(log) if yours in line],
            what="the stand-in's move in the log",
        )
        assert told[0].startswith(yours), told
        theirs = web_words("en", "log.stand_in", who="Ann")
        assert not [line for line in page.execute_script(log) if theirs in line]
        assert_fits(measure(page))
        screenshot(page, "phone-idle-stand-in", *PHONE)
        press(page, "back-button")  # (a frame may have drawn the dock again since: found anew)
        wait_for(lambda: not page.find_elements(By.ID, "back-button"), what="the seat back")
        seats = page.find_element(By.ID, "seats").text
        assert web_words("en", "seat.idle_stand_in") not in seats, seats
        assert not js_errors(page)
