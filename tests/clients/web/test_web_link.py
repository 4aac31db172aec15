"""A player moves to another device in the browser: the key is made on first use and kept, the
player's own page shows a one-time link code, and a second browser that types it plays as her."""

from __future__ import annotations

import pytest
from browser_helpers import chromium, js_errors, open_lobby, screenshot, uncovered, wait_for
from i18n_helpers import web_words
from selenium.webdriver.common.by import By
from selenium.webdriver.common.keys import Keys
from selenium.webdriver.remote.webdriver import WebDriver
from server_helpers import ServerThread, new_key
from ws_client_helpers import Client

pytestmark = pytest.mark.browser


def note_with(driver: WebDriver, *where: str) -> str | None:
    """The link page's note (or the element whose id comes first), once it says the words
    given last."""
    element, words = where if len(where) == 2 else ("link-note", where[0])
    text: str = driver.find_element(By.ID, element).text
    return text if words in text else None


def test_a_second_browser_linked_by_the_code_plays_as_the_same_player() -> None:
    with ServerThread() as server, chromium(1280, 800) as ann, chromium(360, 740) as phone:
        ann.get(server.base + "/")
        wait_for(lambda: ann.execute_script("return window.allfives?.online"), what="online")
        assert ann.execute_script("return localStorage.getItem('allfives.key')") is None
        # A name chosen (kept like the lobby keeps it), the next hello claims it with the key.
        ann.execute_script("localStorage.setItem('allfives.name', 'Ann')")
        ann.refresh()
        wait_for(lambda: ann.find_element(By.ID, "me-link").text == "My page")
        me = ann.find_element(By.ID, "me-link")
        key = ann.execute_script("return localStorage.getItem('allfives.key')")
        assert isinstance(key, str) and len(key) == 43
        me.click()
        wait_for(lambda: ann.find_element(By.ID, "player").get_attribute("data-you") == "1")
        ann.find_element(By.ID, "link-code-button").click()
        code = wait_for(lambda: ann.find_element(By.ID, "link-code").text)
        assert len(code) == 9 and code[4] == "-"
        screenshot(ann, "player-link-code-1280x800", 1280, 800)

        phone.get(server.base + "/#/link")
        field = wait_for(lambda: phone.find_element(By.ID, "link-input"))
        field.send_keys(code.lower())
        phone.find_element(By.ID, "link-submit").click()
        note = wait_for(lambda: note_with(phone, "plays as"))
        assert note == "This device now plays as Ann."  # the name alone, no placeholder mark
        assert phone.find_element(By.ID, "link-input").get_attribute("value") == ""
        assert phone.find_element(By.CSS_SELECTOR, "#link-note a").text == "Ann"
        # The page's own navigation offers the player's page now, no longer to link (on a
        # phone the header leaves these links to it).
        assert not phone.find_elements(By.ID, "nav-link")
        assert phone.find_element(By.ID, "nav-me").text == "My page"
        assert not phone.find_element(By.ID, "me-link").is_displayed()
        screenshot(phone, "link-linked-360x740", 360, 740)
        assert phone.execute_script("return localStorage.getItem('allfives.key')") != key
        phone.find_element(By.ID, "nav-me").click()
        wait_for(lambda: phone.find_element(By.ID, "player").get_attribute("data-you") == "1")
        # The code works once: a third try with it is refused in words.
        phone.get(server.base + "/#/link")
        wait_for(lambda: phone.find_element(By.ID, "link-input")).send_keys(code)
        phone.find_element(By.ID, "link-submit").click()
        refused = wait_for(lambda: note_with(phone, "expired"))
        assert "unknown, used already or expired" in refused
        assert not js_errors(ann) and not js_errors(phone)


def test_a_browser_that_forgot_its_key_gets_the_name_back_with_the_recovery_code() -> None:
    with ServerThread() as server, chromium(1280, 800) as ann:
        ann.get(server.base + "/")
        wait_for(lambda: ann.execute_script("return window.allfives?.online"), what="online")
        ann.execute_script("localStorage.setItem('allfives.name', 'Ann')")
        ann.refresh()
        wait_for(lambda: ann.find_element(By.ID, "me-link").text == "My page")
        ann.find_element(By.ID, "me-link").click()
        wait_for(lambda: ann.find_element(By.ID, "player").get_attribute("data-you") == "1")
        ann.find_element(By.ID, "recovery-code-button").click()
        code = wait_for(lambda: ann.find_element(By.ID, "recovery-code").text)
        assert len(code) == 24 and code.count("-") == 4
        screenshot(ann, "player-recovery-code-1280x800", 1280, 800)
        screenshot(ann, "player-recovery-code-360x740", 360, 740)
        # Site data cleared: a new key, and the name refused, saying what can be done.
        ann.execute_script("localStorage.clear()")
        ann.get(server.base + "/")
        wait_for(lambda: ann.execute_script("return window.allfives?.online"), what="online")
        ann.execute_script("localStorage.setItem('allfives.name', 'Ann')")
        ann.refresh()
        # Said at the name's field in the lobby (the header says it in short).
        wait_for(lambda: "refused the name" in ann.find_element(By.ID, "status").text)
        notice = ann.find_element(By.ID, "name-note").text
        assert "belongs to another player" in notice and "Link this device" in notice
        assert "recovery code" in notice
        screenshot(ann, "name-refused-360x740", 360, 740)
        ann.get(server.base + "/#/link")
        field = wait_for(lambda: ann.find_element(By.ID, "link-input"))
        field.send_keys(code.lower().replace("-", " "))
        screenshot(ann, "link-recovery-360x740", 360, 740)
        ann.find_element(By.ID, "link-submit").click()
        note = wait_for(lambda: note_with(ann, "plays as"))
        assert "Ann" in note
        # At 360 px since the screenshots: "My page" is in the page's own nav, as on a phone.
        assert ann.find_element(By.ID, "nav-me").text == "My page"
        # The recovery code is a secret: once used, it is no longer in plain view.
        assert ann.find_element(By.ID, "link-input").get_attribute("value") == ""
        # A wrong code is refused in words, and nothing changes.
        field = ann.find_element(By.ID, "link-input")
        field.clear()
        field.send_keys("A" * 20)
        ann.find_element(By.ID, "link-submit").click()
        refused = wait_for(lambda: note_with(ann, "recovery code"))
        assert "not one of this server's" in refused
        wait_for(lambda: ann.find_element(By.ID, "nav-me").text == "My page")
        assert not js_errors(ann)


def test_the_players_own_page_offers_her_page_not_to_link_when_loaded_directly() -> None:
    """Opened (or reloaded) at #/player/NAME, the page's navigation agrees with the header
    once the server has said who this device is: "My page", no "Link this device"."""
    with ServerThread() as server, chromium(1280, 800) as ann:
        ann.get(server.base + "/")
        wait_for(lambda: ann.execute_script("return window.allfives?.online"), what="online")
        ann.execute_script("localStorage.setItem('allfives.name', 'Ann')")
        ann.refresh()
        wait_for(lambda: ann.find_element(By.ID, "me-link").text == "My page")
        ann.get("about:blank")  # another document, so the next is a load
        for _ in range(2):  # opened at the address, then reloaded there
            if ann.current_url.endswith("/#/player/Ann"):
                ann.refresh()
            else:
                ann.get(server.base + "/#/player/Ann")
            wait_for(lambda: ann.find_element(By.ID, "me-link").text == "My page")
            wait_for(lambda: ann.find_element(By.ID, "player").get_attribute("data-you") == "1")
            assert not ann.find_elements(By.ID, "nav-link")
            assert ann.find_element(By.ID, "nav-me").text == "My page"
        assert not js_errors(ann)


def test_a_refused_name_is_said_at_the_field_and_cleared_when_the_name_changes() -> None:
    """The refusal was only a bottom banner over "Create room" and a notice out of view, the
    field's note still "1 to 24 characters", and it stayed after the name was changed."""
    with ServerThread() as server, chromium(360, 740) as page:

        async def claim() -> None:
            ann = await Client.open(server.server.url, "Ann", key=new_key())
            await ann.close()

        server.call(claim())
        open_lobby(page, server.base + "/", "Ann")
        page.find_element(By.ID, "create-button").click()
        note = wait_for(lambda: note_with(page, "name-note", "belongs to another player"))
        assert "Link this device" in note and "recovery code" in note, note
        field = page.find_element(By.ID, "name")
        assert field.get_attribute("aria-invalid") == "true"
        assert page.switch_to.active_element == field
        # Nothing lies over the form's button, and the reason is in sight.
        create = page.find_element(By.ID, "create-button")
        page.execute_script("arguments[0].scrollIntoView({block: 'center'})", create)
        assert not uncovered(page, create)["over"], uncovered(page, create)
        page.execute_script("arguments[0].scrollIntoView({block: 'center'})", field)
        assert uncovered(page, page.find_element(By.ID, "name-note"))["inView"]
        screenshot(page, "name-refused-at-field-360x740", 360, 740)
        # A new name: the refusal goes at once, and the page says hello again with it.
        field.send_keys(Keys.BACKSPACE * 3, "Bea")
        assert "belongs" not in page.find_element(By.ID, "name-note").text
        field.send_keys(Keys.TAB)
        connected = web_words("en", "status.connected")
        wait_for(lambda: page.find_element(By.ID, "status").text == connected, what="connected")
        assert page.find_element(By.ID, "banner").get_attribute("hidden") is not None
        assert page.find_element(By.ID, "notice").text == ""
        assert field.get_attribute("aria-invalid") == "false"
        page.find_element(By.ID, "create-button").click()
        wait_for(lambda: page.find_elements(By.ID, "waiting"), what="the room")
        assert not js_errors(page)
