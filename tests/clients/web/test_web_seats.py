"""The page numbers seats as a player reads them, from 1, and names a bot by its seat's number
(the bot in seat 3 is "Bot 3"), in the lobby, the waiting room and the table; the wire's seats
stay 0-based. Chromium against a real server."""

from __future__ import annotations

import pytest
from browser_helpers import chromium, js_errors, open_lobby, screenshot, wait_for
from i18n_helpers import BROWSER_TAGS, web_words
from selenium.webdriver.common.by import By
from selenium.webdriver.support.ui import Select
from server_helpers import ServerThread
from ws_client_helpers import Client

pytestmark = pytest.mark.browser


def options(driver: object, name: str) -> list[str]:
    select = driver.find_element(By.NAME, name)  # type: ignore[attr-defined]
    return [option.text for option in Select(select).options]


def test_seats_are_numbered_from_one_and_a_bot_is_named_by_its_seat() -> None:
    with ServerThread() as server, chromium(1280, 800) as ann:
        open_lobby(ann, server.base + "/", "Ann")
        Select(ann.find_element(By.NAME, "players")).select_by_value("4")
        assert options(ann, "seat") == ["1", "2", "3", "4"]
        assert options(ann, "join_seat")[1:] == ["1", "2", "3", "4"]
        labels = [
            el.text for el in ann.find_elements(By.CSS_SELECTOR, "fieldset.bots .field > span")
        ]
        assert labels == ["Seat 2", "Seat 3", "Seat 4"]  # Ann sits in seat 1
        Select(ann.find_element(By.NAME, "bot_1")).select_by_value("")  # seat 2 for a friend
        Select(ann.find_element(By.NAME, "bot_2")).select_by_value("hard")
        Select(ann.find_element(By.NAME, "bot_3")).select_by_value("easy")
        ann.find_element(By.NAME, "public").click()
        ann.find_element(By.ID, "create-button").click()

        def rows() -> list[str]:
            script = "return [...document.querySelectorAll('#waiting .seat-list li')]"
            found: list[str] = ann.execute_script(script + ".map((li) => li.textContent)")
            return found

        wait_for(lambda: "Bot 4" in " ".join(rows()), what="the bots")
        listed = rows()
        assert [row.split(":")[0] for row in listed] == ["Seat 1", "Seat 2", "Seat 3", "Seat 4"]
        assert listed[0].startswith("Seat 1: Ann")
        assert listed[1].startswith("Seat 2: free")
        assert listed[2].startswith("Seat 3: Bot 3") and listed[3].startswith("Seat 4: Bot 4")
        level = ann.find_element(By.CSS_SELECTOR, "#waiting select")
        assert level.get_attribute("aria-label") == "Bot level for seat 2"
        seats = ann.find_element(By.ID, "seats").text
        assert "seat 2: free" in seats and "Bot 3" in seats and "Bot 4" in seats, seats
        assert "seat 0" not in seats.lower() and "Bot 1" not in seats, seats
        screenshot(ann, "seats-waiting-1280", 1280, 800)
        screenshot(ann, "seats-waiting-360", 360, 740)


@pytest.mark.parametrize("language", ["en", "cs"])
def test_the_public_rooms_list_names_bots_as_the_table_does(language: str) -> None:
    """The list showed the protocol's "bot:easy, bot:normal" where the table says
    "Bot 2 (easy bot)"."""
    with ServerThread() as server, chromium(1280, 800, BROWSER_TAGS[language]) as bea:

        async def host() -> Client:
            cat = await Client.open(server.server.url, "Cat")
            await cat.request("create_room", rules={"players": 4})
            await cat.request("add_bot", seat=1, level="easy")
            await cat.request("add_bot", seat=2, level="normal")
            return cat

        server.call(host())
        open_lobby(bea, server.base + "/", "Bea", language)
        row = wait_for(
            lambda: (
                bea.find_element(By.CSS_SELECTOR, "#rooms li").text
                if bea.find_elements(By.CSS_SELECTOR, "#rooms .code")
                else None
            ),
            what="the room in the list",
        )
        bot = web_words(language, "seat.bot_name")
        level = web_words(language, "seat.bot_level")
        easy = level.format(name=bot.format(seat=2), level=web_words(language, "bot.easy"))
        normal = level.format(name=bot.format(seat=3), level=web_words(language, "bot.normal"))
        assert f"Cat, {easy}, {normal}, {web_words(language, 'lobby.free')}" in row, row
        assert "bot:" not in row
        assert not js_errors(bea)


def test_the_other_seats_say_who_sits_there_and_keep_the_hosts_last_choice() -> None:
    """ "Other seats" started at "normal bot" with nothing said: a host who wanted a friend
    in seat 3 got a bot unless they changed it, every time. A first room seats bots (play at
    once, as in the game players know); the form says what an open seat is, and from then on
    starts from the host's own last choice."""
    with ServerThread() as server, chromium(1280, 800) as ann:
        open_lobby(ann, server.base + "/", "Ann")
        Select(ann.find_element(By.NAME, "players")).select_by_value("4")
        assert [
            Select(ann.find_element(By.NAME, f"bot_{seat}")).first_selected_option.text
            for seat in (1, 2, 3)
        ] == ["normal bot"] * 3
        note = ann.find_element(By.ID, "other-seats-note")
        assert note.text == web_words("en", "lobby.other_seats_note")
        assert note.is_displayed()
        legend = ann.find_element(By.CSS_SELECTOR, "fieldset.bots")
        assert legend.get_attribute("aria-describedby") == "other-seats-note"
        Select(ann.find_element(By.NAME, "bot_2")).select_by_value("")  # seat 3 for a friend
        Select(ann.find_element(By.NAME, "bot_3")).select_by_value("hard")
        ann.find_element(By.ID, "create-button").click()
        wait_for(lambda: ann.find_elements(By.ID, "waiting"), what="the room")
        wait_for(lambda: "Bot 4" in ann.find_element(By.ID, "waiting").text, what="the bots")
        assert "Seat 3:\nfree" in ann.find_element(By.ID, "waiting").text

        # The next room, on a new visit: the form starts from that choice.
        ann.get("about:blank")
        open_lobby(ann, server.base + "/", "Ann")
        Select(ann.find_element(By.NAME, "players")).select_by_value("4")
        chosen = [
            Select(ann.find_element(By.NAME, f"bot_{seat}")).first_selected_option.get_attribute(
                "value"
            )
            for seat in (1, 2, 3)
        ]
        assert chosen == ["normal", "", "hard"], chosen
        screenshot(ann, "lobby-other-seats-1280", 1280, 800)
        assert not js_errors(ann)
