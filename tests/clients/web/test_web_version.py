"""A page left open while the server was updated to another protocol version: its hello is
refused with `bad_version`, and the page says to reload it, once, with a button that does,
instead of taking it for a refused name and trying again and again (on a phone; screenshots
tests/artifacts/phone-bad-version-*.png)."""

from __future__ import annotations

import pytest
from browser_helpers import chromium, js_errors, screenshot, wait_for
from i18n_helpers import web_words
from selenium.webdriver.common.by import By
from selenium.webdriver.remote.webdriver import WebDriver
from server_helpers import ServerThread

from protocol import messages as msg

pytestmark = pytest.mark.browser


def said(page: WebDriver) -> str:
    """What the banner across the page says (its text, not its button's)."""
    shown = page.find_elements(By.CSS_SELECTOR, "#banner:not([hidden]) > span")
    return str(shown[0].text) if shown else ""


@pytest.mark.parametrize("language", ["en", "cs"])
def test_a_page_of_another_protocol_version_says_reload_and_stops_trying(
    monkeypatch: pytest.MonkeyPatch, language: str
) -> None:
    # The server in this process now speaks the next version; the page still speaks today's.
    monkeypatch.setattr(msg, "PROTOCOL_VERSION", msg.PROTOCOL_VERSION + 1)
    reload = web_words(language, "error.bad_version")
    with ServerThread() as server, chromium(360, 740, language=language) as page:
        page.get(server.base + "/")
        banner = wait_for(lambda: said(page) or None, what="the page's banner")
        assert banner == reload, banner
        assert page.find_element(By.ID, "status").text == reload
        assert (
            web_words(language, "error.name_refused")
            not in page.find_element(By.TAG_NAME, "body").text
        )
        # It stopped: its socket closed, no try waiting, one refusal in all.
        wait_for(
            lambda: page.execute_script(
                "const c = window.allfives.connection; return c.stopped && c.socket === null;"
            ),
            what="the page to stop trying",
        )
        assert server.server.metrics.errors["bad_version"] == 1
        screenshot(page, f"phone-bad-version-{language}", 360, 740)
        # The banner's button reloads the page (which, its server still newer, says it again).
        button = page.find_element(By.ID, "reload-button")
        assert button.text == web_words(language, "banner.reload")
        page.execute_script("window.beforeReload = true;")
        button.click()
        wait_for(
            lambda: page.execute_script("return window.beforeReload === undefined"),
            what="the page reloaded",
        )
        wait_for(lambda: said(page) == reload, what="said again")
        assert server.server.metrics.errors["bad_version"] == 2
        assert js_errors(page) == []
