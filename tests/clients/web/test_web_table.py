"""The browser table in headless Chromium against a real server: a whole match played by clicks.

Ann (a laptop, 1280x800) opens the lobby, creates a three-player room to 50 with a bot in seat
2 and seat 1 open; Femi (a phone, 360x740, a browser of his own) opens the link the page shows
and sits down. Both play by clicking a glowing tile, and an end when it fits several, or
(every other move) with the keyboard alone: Enter on the tile, Enter on the end button the page
focuses. After each move the corner total must match the log's, and be gold exactly on a
multiple of five. Ann's connection drops and comes back by itself; Femi reloads mid-game and is
back in his seat. The match ends with the winner named and the scores to show for it; the
host's rematch brings the seats back. Screenshots of the table at both sizes go to
tests/artifacts/.
"""

from __future__ import annotations

import re
from typing import Any

import pytest
from browser_helpers import chromium, js_errors, screenshot, uncovered, wait_for
from selenium.webdriver.common.action_chains import ActionChains
from selenium.webdriver.common.by import By
from selenium.webdriver.common.keys import Keys
from selenium.webdriver.remote.webdriver import WebDriver
from selenium.webdriver.support.ui import Select
from server_helpers import ServerThread
from ws_client_helpers import Client

from protocol import messages as msg

pytestmark = pytest.mark.browser

LAPTOP = (1280, 800)
PHONE = (360, 740)
GOLD = {"rgb(224, 168, 0)", "rgb(255, 204, 51)"}  # --gold, light and dark

#: What the page shows, read in one go so that no redraw falls between two readings.
READ_TABLE = """
const total = document.getElementById("total");
const lines = [...document.querySelectorAll("#log li")].map((li) => li.textContent);
// The board shows the hand being played: its totals are the lines since its "Hand N: … leads".
const start = lines.findLastIndex((line) => /^Hand \\d+: .* leads$/.test(line));
const totals = lines.slice(start + 1).map((line) => /: total (\\d+)/.exec(line)).filter(Boolean);
const winner = document.getElementById("winner");
return {
  total: total && total.textContent !== "" ? Number(total.textContent) : null,
  gold: Boolean(total && total.classList.contains("gold")),
  colour: total ? getComputedStyle(total).backgroundColor : null,
  logTotal: totals.length ? Number(totals[totals.length - 1][1]) : null,
  log: lines,
  hand: [...document.querySelectorAll(".hand-tile")].map((b) => b.dataset.tile),
  playable: [...document.querySelectorAll(".hand-tile.playable")].map((b) => b.dataset.tile),
  scores: [...document.querySelectorAll("#seats .score")].map((s) => Number(s.textContent)),
  names: [...document.querySelectorAll("#seats .seat b")].map((b) => b.textContent),
  you: [...document.querySelectorAll("#seats .seat")].filter((s) => /[(,] ?you[,)]/.test(s.textContent)).map((s) => Number(s.dataset.seat)),
  winner: winner && !winner.hidden ? document.getElementById("winner-text").textContent : null,
  status: document.getElementById("status").textContent,
};
"""


def read(driver: WebDriver) -> dict[str, Any]:
    table: dict[str, Any] = driver.execute_script(READ_TABLE)
    return table


def check_corner(driver: WebDriver) -> dict[str, Any]:
    """The corner total is the log's last total, gold exactly on a positive multiple of 5."""
    table = read(driver)
    if table["logTotal"] is not None:
        assert table["total"] == table["logTotal"], table
    scoring = table["total"] is not None and table["total"] > 0 and table["total"] % 5 == 0
    assert table["gold"] == scoring, table
    assert (table["colour"] in GOLD) == scoring, table
    return table


def open_lobby(driver: WebDriver, url: str, name: str) -> None:
    driver.get(url)
    wait_for(lambda: read(driver)["status"] == "Connected", what="the connection")
    field = driver.find_element(By.ID, "name")
    field.clear()
    field.send_keys(name)


def play_one(driver: WebDriver, name: str, shots: dict[str, Any], keyboard: bool = False) -> str:
    """Click the first glowing tile (and an end if it asks), or with `keyboard` press Enter on
    it (and on the end button the page focuses); check the total the page promised against the
    log's line for the move. Returns the tile."""
    button = driver.find_element(By.CSS_SELECTOR, ".hand-tile.playable")
    tile = button.get_attribute("data-tile")
    label = button.get_attribute("aria-label") or ""
    pattern = re.compile(rf"{name} (led|played) {tile}( (\w+))?: total (\d+)")

    def logged() -> list[re.Match[str]]:
        """This player's lines for the tile in the page's whole log (the same tile may have
        been played in an earlier hand)."""
        lines = driver.execute_script("return window.allfives.state.log.map((l) => l.text)")
        return [m for m in map(pattern.match, lines) if m]

    earlier = len(logged())
    if keyboard:
        button.send_keys(Keys.ENTER)
    else:
        button.click()
    targets = driver.find_elements(By.CSS_SELECTOR, "#board .end-target")
    lead = driver.find_elements(By.ID, "lead-button")
    if lead:
        # A lead shows how it will face first; a second press of the button leads it so.
        focused = driver.switch_to.active_element
        assert focused.get_attribute("id") == "lead-button"
        end = None
        promised = int((lead[0].text or "").rsplit(" ", 1)[1])
        if keyboard:
            focused.send_keys(Keys.ENTER)
        else:
            lead[0].click()
    elif targets:
        buttons = driver.find_elements(By.CSS_SELECTOR, "#end-choice .end-button")
        assert len(targets) == len(buttons) >= 2
        if shots.get("choice") is None:
            shots["choice"] = screenshot(driver, shots["name"] + "-ends", *shots["size"])
            # The board was drawn again for the taller window the whole-page shot needs.
            targets = driver.find_elements(By.CSS_SELECTOR, "#board .end-target")

        # A redraw after the screenshot may replace the elements under us: read and press them
        # again until it holds still (a stale element means "not yet").
        def press() -> tuple[str | None, int] | None:
            if keyboard:
                focused = driver.switch_to.active_element
                assert "end-button" in (focused.get_attribute("class") or "")
                chosen, text = focused.get_attribute("data-end"), focused.text or ""
                promise = int(re.search(r"→ (\d+)", text).group(1))  # type: ignore[union-attr]
                focused.send_keys(Keys.ENTER)
                return chosen, promise
            found = driver.find_elements(By.CSS_SELECTOR, "#board .end-target")
            if not found:
                return None
            # (a scoring end's total has a star beside it)
            chosen, promise = found[-1].get_attribute("data-end"), int(found[-1].text.rstrip("★"))
            # Nothing of the page but another end's tap spot may lie on the end: a tap goes
            # to the nearest end's ghost, which the tap on this one's middle is.
            landing = uncovered(driver, found[-1])
            if not landing["inView"]:
                return None  # the board is still being drawn for the window
            assert all(over["endTarget"] for over in landing["over"]), landing
            ActionChains(driver).move_to_element(found[-1]).click().perform()
            return chosen, promise

        end, promised = wait_for(press, what="an end to press")
    else:
        end = None
        promised = int(re.search(r"makes (\d+)", label).group(1))  # type: ignore[union-attr]
    try:
        line = wait_for(lambda: logged()[earlier:], what=f"the log line for {tile}")[0]
    except AssertionError:
        notice = driver.find_element(By.ID, "notice").text
        raise AssertionError(f"{tile} was not played: {notice!r} {read(driver)}") from None
    assert int(line.group(4)) == promised, (line.group(0), promised)
    if end is not None:
        assert line.group(3) == end
    assert tile is not None
    return tile


def test_a_whole_match_by_clicks_with_a_friend_from_the_link_and_a_reload() -> None:
    with (
        ServerThread() as server,
        chromium(*LAPTOP) as ann,
        chromium(*PHONE) as femi,
    ):
        open_lobby(ann, server.base + "/", "Ann")
        Select(ann.find_element(By.NAME, "players")).select_by_value("3")
        ann.find_element(By.NAME, "target").send_keys("50")
        Select(ann.find_element(By.NAME, "bot_1")).select_by_value("")
        Select(ann.find_element(By.NAME, "bot_2")).select_by_value("easy")
        ann.find_element(By.NAME, "public").click()  # a private room: found by its link only
        ann.find_element(By.ID, "create-button").click()
        link = wait_for(
            lambda: ann.find_element(By.ID, "invite-link").get_attribute("href"), what="link"
        )
        code = ann.current_url.rsplit("/", 1)[1]
        assert link == f"{server.base}/r/{code}"
        assert re.fullmatch(r"[A-Z]{4}-[A-Z]{10}", code), code  # CODE-INVITE
        wait_for(lambda: "Bot 3" in read(ann)["names"], what="the bot in seat 3")

        open_lobby(femi, link, "Femi")
        assert code in femi.find_element(By.ID, "join-form").text
        femi.find_element(By.ID, "join-button").click()
        wait_for(lambda: read(femi)["you"] == [1], what="Femi in seat 2")
        start = wait_for(
            lambda: [b for b in ann.find_elements(By.ID, "start-button") if b.is_enabled()],
            what="start",
        )
        start[0].click()

        # Chat goes to everyone as text, never as markup.
        femi.find_element(By.ID, "chat-input").send_keys("good luck <b>all</b>\n")
        wait_for(
            lambda: "Femi: good luck <b>all</b>" in ann.find_element(By.ID, "chat").text,
            what="the chat line",
        )
        assert not ann.find_elements(By.CSS_SELECTOR, "#chat li b b")

        players = [(ann, "Ann", LAPTOP), (femi, "Femi", PHONE)]
        shots: dict[str, dict[str, Any]] = {
            name: {"name": f"table-{size[0]}x{size[1]}", "size": size, "choice": None}
            for _, name, size in players
        }
        moves = {"Ann": 0, "Femi": 0}
        reloaded = False
        dropped = 0
        while True:
            tables = {name: check_corner(driver) for driver, name, _ in players}
            if all(table["winner"] for table in tables.values()):
                break
            for driver, name, size in players:
                if not read(driver)["playable"]:
                    continue
                if name == "Ann" and moves[name] == 1:
                    ann.find_element(By.ID, "hint-button").click()
                    hint = wait_for(lambda: ann.find_elements(By.ID, "hint"), what="hint")
                    shown = re.search(r"would play (\d-\d)", hint[0].text)
                    assert shown is not None, hint[0].text
                    hinted = ann.find_element(By.CSS_SELECTOR, ".hand-tile.hinted")
                    assert hinted.get_attribute("data-tile") == shown.group(1)
                play_one(driver, name, shots[name], keyboard=moves[name] % 2 == 1)
                moves[name] += 1
                check_corner(driver)
                if moves[name] == 3 and "table" not in shots[name]:
                    shots[name]["table"] = screenshot(driver, shots[name]["name"], *size)
            if moves["Ann"] == 2 and not dropped:
                # Ann's network drops: the page says so, comes back by itself to her seat.
                dropped = server.drop("Ann")
                wait_for(lambda: "Connection lost" in read(ann)["status"], what="the word")
                wait_for(lambda: read(ann)["status"] == "Back online", what="back online")
                assert read(ann)["you"] == [0]
            if moves["Femi"] == 2 and not reloaded:
                reloaded = True
                before = read(femi)["hand"]
                femi.refresh()
                wait_for(lambda: read(femi)["you"] == [1], what="Femi back in seat 2")
                after = read(femi)
                assert set(before) <= set(after["hand"]), (before, after["hand"])
                # It resumed from the document it kept: the missed patches, no snapshot.
                wait_for(lambda: read(femi)["status"] == "Connected", what="Femi connected")
                kept = femi.execute_script(
                    "const s = window.allfives.state; return [s.snapshots, s.mending, s.seq];"
                )
                assert kept[:2] == [0, False], kept
                assert after["names"][1] == "Femi"
                wait_for(lambda: "Femi is back" in read(ann)["log"], what="Femi back")
            wait_for(
                lambda: any(read(d)["playable"] or read(d)["winner"] for d, _, _ in players),
                what="a turn for a player or the end",
            )

        assert reloaded and dropped == 1 and moves["Ann"] >= 2 and moves["Femi"] >= 2
        for driver, _, size in players:
            table = read(driver)
            winner = re.fullmatch(r"(.+) wins the match", table["winner"])
            assert winner is not None, table["winner"]
            scores = dict(zip(table["names"], table["scores"], strict=True))
            assert scores[winner.group(1)] >= 50
            assert scores[winner.group(1)] == max(scores.values())
            assert table["winner"] in table["log"]
            screenshot(driver, f"winner-{size[0]}x{size[1]}", *size)
        assert js_errors(ann) == [] and js_errors(femi) == []

        ann.find_element(By.ID, "rematch-button").click()
        # The same seats play again at once, and the log marks where the new match begins.
        wait_for(lambda: read(ann)["winner"] is None and read(ann)["hand"], what="the rematch")
        assert read(femi)["names"] == ["Ann", "Femi", "Bot 3"]
        wait_for(lambda: "A new match begins" in read(femi)["log"], what="the marker")

        # Femi leaves the match (it asks first: his seat stays his, a stand-in plays it) and
        # watches the room instead, by its code.
        femi.find_element(By.ID, "leave-button").click()
        wait_for(
            lambda: femi.find_element(By.ID, "leave-confirm").is_displayed(), what="the question"
        )
        question = femi.find_element(By.ID, "leave-confirm")
        assert "stand-in bot plays it" in question.text
        femi.find_element(By.ID, "leave-confirm-button").click()
        wait_for(lambda: "Femi is away" in read(ann)["log"], what="Femi gone")
        wait_for(lambda: femi.find_elements(By.ID, "join-code"), what="the lobby")
        assert femi.find_element(By.ID, "notice").text == ""  # no refusal on the way out
        femi.find_element(By.ID, "join-code").send_keys(code.lower())
        femi.find_element(By.ID, "watch-button").click()
        wait_for(
            lambda: "you are watching" in femi.find_element(By.ID, "room-link").text,
            what="watching",
        )
        assert read(femi)["you"] == [] and read(femi)["names"] == ["Ann", "Femi", "Bot 3"]

        # The same table in the dark, with motion reduced, for people to look at.
        ann.execute_cdp_cmd(
            "Emulation.setEmulatedMedia",
            {
                "features": [
                    {"name": "prefers-color-scheme", "value": "dark"},
                    {"name": "prefers-reduced-motion", "value": "reduce"},
                ]
            },
        )
        animation = ann.execute_script(
            "return getComputedStyle(document.querySelector('.hand-tile') || document.body)"
            ".animationName"
        )
        assert animation == "none"
        screenshot(ann, "lobby-dark-1280x800", *LAPTOP)


def test_a_link_whose_seat_is_gone_offers_the_room_again() -> None:
    """A saved token the room no longer knows, or a room that closed: the join form, in words."""
    with ServerThread() as server, chromium(*PHONE) as page:
        open_lobby(page, server.base + "/", "Ann")
        page.find_element(By.ID, "create-button").click()
        wait_for(lambda: page.find_elements(By.ID, "start-button"), what="the room")
        code = page.current_url.rsplit("/", 1)[1]
        stale = {
            code: {"token": "t0-not-this-one", "seat": 0},
            "ZZZZ": {"token": "t0-x", "seat": 0},
        }
        page.execute_script(
            "localStorage.setItem('allfives.seats', JSON.stringify(arguments[0]))", stale
        )

        page.get(f"{server.base}/r/{code}")
        notice = wait_for(lambda: page.find_element(By.ID, "notice").text, what="the notice")
        assert notice.startswith(f"Your seat in room {code} is gone: the room has closed")
        assert f"Room {code}" in page.find_element(By.ID, "join-form").text
        assert code not in page.execute_script("return localStorage.getItem('allfives.seats')")

        # A room that closed answers a resume as a wrong token does (so resumes cannot probe).
        page.get(f"{server.base}/r/zzzz")
        notice = wait_for(lambda: page.find_element(By.ID, "notice").text, what="the notice")
        assert notice.startswith("Your seat in room ZZZZ is gone: the room has closed")
        assert "Room ZZZZ" in page.find_element(By.ID, "join-form").text
        assert js_errors(page) == []

        # The page's policy holds in the browser: an inline script is refused.
        page.execute_script(
            "const s = document.createElement('script'); s.textContent = 'window.injected = 1';"
            "document.body.append(s);"
        )
        refused = wait_for(lambda: js_errors(page), what="the refusal")
        assert "Content Security Policy" in refused[0]
        assert page.execute_script("return window.injected") is None


def test_the_lobby_pages_through_many_public_rooms() -> None:
    limits = {"max_connections_per_ip": 200, "max_rooms_per_ip": 200, "rooms_burst": 200}
    with ServerThread(**limits) as server, chromium(*LAPTOP) as page:

        async def hosts(count: int) -> list[Client]:
            opened = []
            for n in range(count):
                host = await Client.open(server.server.url, f"Host {n}")
                await host.request("create_room", rules={"players": 2})
                opened.append(host)
            return opened

        server.call(hosts(msg.ROOMS_PAGE + 3))
        open_lobby(page, server.base + "/", "Ann")
        first = wait_for(lambda: page.find_element(By.ID, "rooms-page").text, what="the page")
        assert first.startswith(f"Rooms 1–{msg.ROOMS_PAGE} of {msg.ROOMS_PAGE + 3}")
        assert len(page.find_elements(By.CSS_SELECTOR, "#rooms .code")) == msg.ROOMS_PAGE
        page.find_element(By.ID, "more-rooms").click()
        wait_for(
            lambda: "Rooms 51–53 of 53" in page.find_element(By.ID, "rooms-page").text,
            what="the next page",
        )
        assert len(page.find_elements(By.CSS_SELECTOR, "#rooms .code")) == 3
        assert js_errors(page) == []
