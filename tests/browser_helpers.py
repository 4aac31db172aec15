"""Browser tests' helpers: Debian's headless Chromium driven by selenium, a real server in a thread.

Selenium never downloads a driver here: /usr/bin/chromedriver and /usr/bin/chromium are given to
it. Without them the browser tests skip, except under CI=true, where they fail.

The page-logic test page has its own helpers (unit_page_helpers.py), and so do axe-core,
the accessibility tree and the keyboard (accessibility_helpers.py).
"""

from __future__ import annotations

import json
import os
import shutil
import socket
import subprocess
import tempfile
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import TYPE_CHECKING, Any, TypeVar, cast

import pytest
from i18n_helpers import web_words
from selenium import webdriver
from selenium.common.exceptions import (
    NoSuchElementException,
    StaleElementReferenceException,
    WebDriverException,
)
from selenium.webdriver.chrome.service import Service
from selenium.webdriver.common.by import By
from selenium.webdriver.remote.webdriver import WebDriver
from waiting import until_sync

if TYPE_CHECKING:
    from server_helpers import ServerThread

T = TypeVar("T")
ROOT = Path(__file__).resolve().parent.parent
#: Screenshots of the table, for people to look at (ignored by git).
ARTIFACTS = ROOT / "tests" / "artifacts"
CHROMIUM = os.environ.get("ALLFIVES_CHROMIUM", "/usr/bin/chromium")
CHROMEDRIVER = os.environ.get("ALLFIVES_CHROMEDRIVER", "/usr/bin/chromedriver")
TIMEOUT = 20.0


def require_browser() -> None:
    """Skip (fail under CI=true) when Chromium or its driver is not installed."""
    missing = [path for path in (CHROMIUM, CHROMEDRIVER) if not shutil.which(path)]
    if missing:
        text = f"browser tests need {' and '.join(missing)} (Debian: chromium chromium-driver)"
        if os.environ.get("CI") == "true":
            pytest.fail(text)
        pytest.skip(text)


@contextmanager
def chromium(width: int = 1280, height: int = 800, language: str = "en-US") -> Iterator[WebDriver]:
    """A headless Chromium with a fresh profile of its own, `width` x `height` CSS pixels;
    `language` (a BCP 47 tag such as "cs-CZ") is the one it asks pages for (navigator.languages)."""
    require_browser()
    profile = tempfile.mkdtemp(prefix="allfives-chromium-")
    options = webdriver.ChromeOptions()
    options.binary_location = CHROMIUM
    for flag in (
        "--headless",
        "--no-sandbox",
        "--disable-gpu",
        "--disable-dev-shm-usage",
        "--disable-background-networking",
        "--disable-component-update",
        "--disable-sync",
        "--no-first-run",
        "--force-device-scale-factor=1",
        f"--user-data-dir={profile}",
        f"--window-size={width},{height}",
    ):
        options.add_argument(flag)
    options.add_argument(f"--lang={language}")
    options.add_experimental_option("prefs", {"intl.accept_languages": language})
    options.set_capability("goog:loggingPrefs", {"browser": "ALL"})
    driver = webdriver.Chrome(service=Service(executable_path=CHROMEDRIVER), options=options)
    try:
        set_viewport(driver, width, height)
        yield driver
    finally:
        driver.quit()
        shutil.rmtree(profile, ignore_errors=True)


FIREFOX = "/usr/bin/firefox-esr"
#: Headless Firefox keeps its window at least this wide: narrower pages are zoomed into it.
FIREFOX_MIN_WIDTH = 500


@contextmanager
def firefox(width: int = 1280, height: int = 800, language: str = "en-US") -> Iterator[Any]:
    """A headless Firefox (Debian's firefox-esr) driven through its own Marionette port, with a
    fresh profile, showing pages at `width` x `height` CSS pixels. No driver is downloaded.

    Headless Firefox windows are at least 500 px wide, so a phone's 360 px are had by zooming
    the page (500 / 360): the page then lays itself out in 360 CSS pixels, as on the phone.
    `language` is the one it asks pages for (navigator.languages)."""
    if not shutil.which(FIREFOX):
        text = "the Firefox tests need firefox-esr (Debian: apt-get install firefox-esr)"
        if os.environ.get("CI") == "true":
            pytest.fail(text)
        pytest.skip(text)
    from marionette_driver.marionette import Marionette

    profile = tempfile.mkdtemp(prefix="allfives-firefox-")
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        port = probe.getsockname()[1]
    prefs = {
        "marionette.port": port,
        "browser.shell.checkDefaultBrowser": False,
        "app.update.enabled": False,
        "browser.startup.homepage_override.mstone": "ignore",
        "datareporting.policy.dataSubmissionEnabled": False,
        "network.captive-portal-service.enabled": False,
        "intl.accept_languages": language,
    }
    with open(os.path.join(profile, "user.js"), "w") as user:
        for key, value in prefs.items():
            user.write(f"user_pref({json.dumps(key)}, {json.dumps(value)});\n")
    zoom = max(1.0, FIREFOX_MIN_WIDTH / width)
    command = [FIREFOX, "--marionette", "-remote-allow-system-access", "--headless"]
    browser = subprocess.Popen(
        [*command, "--no-remote", "--profile", profile],
        env=dict(os.environ, MOZ_HEADLESS="1"),
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
    )
    try:
        page = Marionette(host="127.0.0.1", port=port)
        page.start_session(timeout=60)
        page.set_window_rect(width=round(width * zoom), height=round(height * zoom))
        page.allfives_zoom = zoom
        yield page
        page.delete_session()
    finally:
        browser.kill()
        browser.wait()
        shutil.rmtree(profile, ignore_errors=True)


def firefox_open(page: Any, url: str) -> None:
    """Load `url` in a `firefox` page, zoomed to the page's width (each load resets the zoom)."""
    page.navigate(url)
    zoom = page.allfives_zoom
    with page.using_context("chrome"):
        page.execute_script(f"gBrowser.selectedBrowser.browsingContext.fullZoom = {zoom};")


def set_viewport(driver: WebDriver, width: int, height: int) -> None:
    """Make the page's viewport exactly `width` x `height` (the window has borders of its own)."""
    driver.execute_cdp_cmd(
        "Emulation.setDeviceMetricsOverride",
        {"width": width, "height": height, "deviceScaleFactor": 1, "mobile": width < 600},
    )


def wait_for(
    condition: Callable[[], T | None], timeout: float = TIMEOUT, what: str = "condition"
) -> T:
    """Poll `condition` until it returns something truthy (a missing or stale element: not yet)."""
    stale = (StaleElementReferenceException, NoSuchElementException)
    return until_sync(condition, timeout, what, stale)


def open_lobby(driver: WebDriver, url: str, name: str, language: str = "en") -> None:
    """Open the page at `url`, wait until it is connected, and type `name` into the lobby."""
    driver.get(url)
    connected = web_words(language, "status.connected")
    wait_for(lambda: driver.find_element(By.ID, "status").text == connected, what="connected")
    field = driver.find_element(By.ID, "name")
    field.clear()
    field.send_keys(name)


#: What a person sees of the page at this moment, measured in one go.
MEASURE = """
const visible = (el) => {
  const r = el.getBoundingClientRect();
  return r.width > 0 && r.height > 0 && getComputedStyle(el).visibility !== "hidden";
};
const controls = [...document.querySelectorAll("button, a[href], input, select, #board .end-target")]
  .filter(visible)
  .map((el) => {
    // A checkbox is tapped through its label, the whole row.
    const tapped = el.matches("input[type=checkbox]") && el.closest("label") ? el.closest("label") : el;
    const r = tapped.getBoundingClientRect();
    return { what: el.id || el.dataset.tile || el.dataset.end || el.textContent.slice(0, 30),
             width: r.width, height: r.height };
  });
const inView = (el) => {
  const r = el.getBoundingClientRect();
  return r.top >= 0 && r.left >= 0 && r.bottom <= innerHeight && r.right <= innerWidth;
};
const playable = [...document.querySelectorAll(".hand-tile.playable")];
const total = document.getElementById("total");
const banner = document.getElementById("banner");
return {
  pageWidth: document.documentElement.scrollWidth,
  viewport: innerWidth,
  controls,
  playable: playable.map((b) => b.dataset.tile),
  playableInView: playable.length > 0 && playable.every(inView),
  // A tile that cannot be played stays focusable, marked aria-disabled.
  enabledTiles: [...document.querySelectorAll(".hand-tile")].filter((b) => !b.disabled && b.getAttribute("aria-disabled") !== "true").length,
  totalInView: Boolean(total) && inView(total),
  targets: [...document.querySelectorAll("#board .end-target")].map((g) => g.dataset.end),
  targetsInView: [...document.querySelectorAll("#board .end-target")].every(inView),
  banner: banner && !banner.hidden ? banner.textContent : null,
  bannerInView: Boolean(banner) && !banner.hidden && inView(banner),
  log: [...document.querySelectorAll("#log li")].map((li) => li.textContent),
  turn: document.getElementById("turn")?.textContent ?? null,
};
"""


def measure(driver: Any) -> dict[str, Any]:
    """What a person sees of the page now (`MEASURE`), scrolled to the top; any driver."""
    driver.execute_script("window.scrollTo(0, 0)")
    seen: dict[str, Any] = driver.execute_script(MEASURE)
    return seen


def assert_fits(seen: dict[str, Any]) -> None:
    """No sideways scrolling, and nothing to tap smaller than 44 x 44 CSS px."""
    assert seen["pageWidth"] <= seen["viewport"], seen["pageWidth"]
    small = [c for c in seen["controls"] if c["width"] < 44 or c["height"] < 44]
    assert not small, small


def js_errors(driver: WebDriver) -> list[str]:
    """Console errors the page logged (a failed script, a CSP refusal)."""
    try:
        entries = cast(Any, driver).get_log("browser")  # Chrome's driver has the log
    except WebDriverException:
        return []
    return [entry["message"] for entry in entries if entry.get("level") == "SEVERE"]


def screenshot(driver: WebDriver, name: str, width: int, height: int) -> Path:
    """Save the page as seen in a `width` x `height` viewport (then the whole page, as
    NAME-full.png) into tests/artifacts/, and say where."""
    ARTIFACTS.mkdir(parents=True, exist_ok=True)
    path = ARTIFACTS / f"{name}.png"
    set_viewport(driver, width, height)
    driver.execute_script("window.scrollTo(0, 0)")
    driver.save_screenshot(str(path))
    full = driver.execute_script("return document.documentElement.scrollHeight")
    set_viewport(driver, width, max(height, int(full)))
    driver.save_screenshot(str(ARTIFACTS / f"{name}-full.png"))
    set_viewport(driver, width, height)
    print(f"screenshot: {path}")
    return path


def press(driver: WebDriver, element_id: str) -> None:
    """Click the element with this id once it is there, finding it again when a redraw
    replaced it under the click (a stale element means "not yet")."""

    def click() -> bool:
        driver.find_element(By.ID, element_id).click()
        return True

    wait_for(click, what=f"#{element_id} to press")


#: Plays the first legal move when it is the page's turn (once per seq); says the phase.
PLAY_ON = """
const app = window.allfives;
const doc = app.state.doc;
if (!doc || !doc.game) return doc ? doc.phase : null;
const game = doc.game;
if (doc.phase === "playing" && game.turn === doc.you && (game.legal ?? []).length && app.playedAt !== app.state.seq) {
  app.playedAt = app.state.seq;
  const move = game.legal[0];
  app.send(move.pass ? { type: "pass" } : move.end ? { type: "play", tile: move.tile, end: move.end } : { type: "play", tile: move.tile });
}
return doc.phase;
"""


#: Like PLAY_ON, but first asks CONDITION (a function's body over `app`, `doc` and `game`,
#: put in by `play_until`: the page's policy allows no eval): when it holds, plays nothing
#: and returns "stop".
PLAY_UNTIL = (
    """
const stop = (app, doc, game) => { CONDITION };
const doc0 = window.allfives.state.doc;
if (doc0 && doc0.game && stop(window.allfives, doc0, doc0.game)) return "stop";
"""
    + PLAY_ON
)


def play_until(
    driver: WebDriver, condition: str, what: str, timeout: float = 120, matches: int = 1
) -> None:
    """Play the page's first legal move on each of its turns until `condition` (a function's
    body over `app`, `doc` and `game`, as PLAY_UNTIL) holds; fails if the match ends first, or
    with `matches` above 1, asks for a rematch that many times first (for a condition the deal
    decides, such as leading a later hand, which only the player who went out does)."""
    script = PLAY_UNTIL.replace("CONDITION", condition)
    left = [matches - 1]

    def step() -> bool:
        phase: str | None = driver.execute_script(script)
        if phase == "finished" and left[0] > 0 and driver.find_elements(By.ID, "rematch-button"):
            left[0] -= 1
            driver.execute_script("document.getElementById('rematch-button').click()")
            wait_for(
                lambda: (
                    driver.execute_script("return window.allfives.state.doc.phase") != "finished"
                ),
                what="the rematch",
            )
            return False
        assert phase != "finished", f"the match ended before {what}"
        return phase == "stop"

    wait_for(step, timeout=timeout, what=what)


#: What lies on top of an element where a tap would land: at its middle and near each corner
#: (3 px in), each topmost element that is not inside it (`endTarget`: one of the board's
#: other end targets).
UNCOVERED = """
const el = arguments[0];
const r = el.getBoundingClientRect();
const points = [[r.left + r.width / 2, r.top + r.height / 2], [r.left + 3, r.top + 3],
  [r.right - 3, r.top + 3], [r.left + 3, r.bottom - 3], [r.right - 3, r.bottom - 3]];
const inView = r.top >= 0 && r.left >= 0 && r.bottom <= innerHeight && r.right <= innerWidth;
const over = points.map(([x, y]) => document.elementFromPoint(x, y)).filter((top) => !top || !el.contains(top));
return { inView, over: over.map((top) => ({
  what: top ? `${top.tagName}#${top.id}.${top.getAttribute("class") ?? ""}` : null,
  endTarget: Boolean(top?.closest(".end-target")) })) };
"""


def uncovered(driver: WebDriver, element: Any) -> dict[str, Any]:
    """Where a tap on `element`'s middle would land (UNCOVERED)."""
    seen: dict[str, Any] = driver.execute_script(UNCOVERED, element)
    return seen


def start_against_a_bot(
    driver: WebDriver, server: ServerThread, target: int, players: int = 2
) -> None:
    """Ann opens the lobby and starts a match to `target` against normal bots in every other
    seat (one, unless `players` says more)."""
    driver.get(server.base + "/")
    wait_for(lambda: driver.find_element(By.ID, "name"), what="the lobby")
    field = driver.find_element(By.ID, "name")
    field.clear()
    field.send_keys("Ann")
    wait_for(lambda: driver.execute_script("return window.allfives?.online"), what="online")
    driver.execute_script(
        "const app = window.allfives; app.autoStart = true;"
        "const bots = [...Array(arguments[1] - 1).keys()].map((i) => ({seat: i + 1, level: 'normal'}));"
        "app.create({rules: {players: arguments[1], target: arguments[0]}, seat: 0, bots});",
        target,
        players,
    )


def play_a_match(driver: WebDriver, server: ServerThread) -> str:
    """Ann plays a two-player match to 50 against the normal bot; returns the room's code."""
    start_against_a_bot(driver, server, 50)
    wait_for(lambda: driver.execute_script(PLAY_ON) == "finished", timeout=90, what="the end")
    code: str = driver.execute_script("return window.allfives.state.doc.code")
    return code
