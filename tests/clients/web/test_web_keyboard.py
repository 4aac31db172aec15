"""The browser table for a player without a mouse, or who cannot see it, in headless Chromium.

Ann plays a whole match to 150 against the normal bot with the keyboard alone (no click anywhere):
Tab to the name field, the target and "Create", Enter; Tab into her hand, the arrows to a tile
that fits, Enter; an end by its letter (N, E, S, W), a lead's facing turned with T, a picked
tile put back with Escape. After each move the focus is back on her tiles. The live region
(the only polite one at the table) says every move with its total and points, her turn, each
hand's result and the winner, in the words of the log with each tile named in words. The
board's text for screen readers names every open end with its pips and the total the server
sent, move after move, and the line tile by tile. Chromium's accessibility tree (DevTools
protocol) gives every control a role and a name: the hand is a toolbar of buttons named by
their tiles, the board's end targets are buttons named by their end and total.
"""

from __future__ import annotations

import re
from functools import partial
from typing import Any

import pytest
from accessibility_helpers import ax_nodes, focused, keys, tab_to
from browser_helpers import (
    PLAY_ON,
    PLAY_UNTIL,
    chromium,
    js_errors,
    play_until,
    screenshot,
    start_against_a_bot,
    wait_for,
)
from i18n_helpers import tile_words, web_words
from selenium.webdriver.common.by import By
from selenium.webdriver.common.keys import Keys
from selenium.webdriver.remote.webdriver import WebDriver
from server_helpers import ServerThread
from unit_page_helpers import unit_page

pytestmark = pytest.mark.browser

LAPTOP = (1280, 800)
PHONE = (360, 740)
END_KEYS = {"north": "n", "south": "s", "east": "e", "west": "w"}
END_ORDER = ("west", "east", "north", "south")

#: Records every announcement the live region gets (a paragraph added), and the most it held.
LISTEN = """
const region = document.getElementById("announcer");
window.heard = [];
window.heardMost = 0;
new MutationObserver((changes) => {
  for (const change of changes) for (const node of change.addedNodes) window.heard.push(node.textContent);
  window.heardMost = Math.max(window.heardMost, region.childElementCount);
}).observe(region, { childList: true });
"""

#: The turn as the server sent it, and what has the focus.
TURN = """
const doc = window.allfives.state.doc;
const game = doc?.game;
if (!game) return null;
const mine = doc.phase === "playing" && !game.over && game.turn === doc.you && (game.legal ?? []).length > 0;
return { over: game.over, mine, seq: window.allfives.state.seq, hand: game.hand ?? [],
  playable: [...new Set((game.legal ?? []).filter((m) => m.tile).map((m) => m.tile))],
  pass: (game.legal ?? []).some((m) => m.pass), leading: game.layout.line.length === 0,
  ends: Object.fromEntries(Object.entries((game.legal ?? []).reduce((all, m) => {
    if (m.tile) (all[m.tile] ??= []).push(m.end); return all; }, {}))) };
"""

#: Choosing a tile that fits two ends (PLAY_UNTIL's condition).
TWO_ENDS = (
    "const c = {}; for (const m of game.legal ?? []) if (m.tile) c[m.tile] = (c[m.tile] || 0) + 1;"
    " return doc.phase === 'playing' && game.turn === doc.you && Object.values(c).some((n) => n > 1);"
)


def turn(driver: WebDriver) -> dict[str, Any] | None:
    seen: dict[str, Any] | None = driver.execute_script(TURN)
    return seen


def turn_after(driver: WebDriver, seq: int) -> dict[str, Any] | None:
    """The turn once the room has moved past `seq` (None before)."""
    now = turn(driver)
    return now if now and now["seq"] != seq else None


def match_over(driver: WebDriver) -> bool:
    over: bool = driver.execute_script(
        "const doc = window.allfives.state.doc;"
        "return doc.phase === 'finished' || Boolean(doc.game && doc.game.over);"
    )
    return over


def on_a_tile(driver: WebDriver) -> bool:
    now = focused(driver)
    return bool(now and "hand-tile" in now["cls"])


def in_words(text: str) -> str:
    """A log line as the announcer says it: each tile ("5-3") in words."""
    return re.sub(r"\b(\d)-(\d)\b", lambda m: tile_words("en", m.group(0)), text)


def arrow_to(driver: WebDriver, wanted: list[str]) -> str:
    """Move along the hand with → until the focused tile is one of `wanted`; returns it."""
    for _ in range(30):
        now = focused(driver)
        if now and now["tile"] in wanted:
            return str(now["tile"])
        keys(driver, Keys.ARROW_RIGHT)
    raise AssertionError(f"→ never reached one of {wanted}: {focused(driver)}")


def test_a_whole_match_by_keys_alone_with_every_move_announced() -> None:
    with ServerThread() as server, chromium(*LAPTOP) as page:
        page.get(server.base + "/")
        connected = web_words("en", "status.connected")
        wait_for(lambda: page.find_element(By.ID, "status").text == connected, what="online")
        tab_to(page, lambda f: f["id"] == "name")
        keys(page, "Ann")
        tab_to(page, lambda f: f["name"] == "target")
        keys(page, "150")
        tab_to(page, lambda f: f["id"] == "create-button")
        keys(page, Keys.ENTER)
        wait_for(lambda: page.find_elements(By.ID, "announcer"), what="the room")
        page.execute_script(LISTEN)
        wait_for(
            lambda: [b for b in page.find_elements(By.ID, "start-button") if b.is_enabled()],
            what="the room with its bot",
        )
        tab_to(page, lambda f: f["id"] == "start-button")
        keys(page, Keys.ENTER)

        moves = escaped = turned = by_letter = 0
        for _ in range(400):
            now = wait_for(
                lambda: (t := turn(page)) and (t["over"] or t["mine"]) and t, 60, "a turn"
            )
            if now["over"]:
                break
            if not on_a_tile(page):
                # Past the page's other controls (after going out the hand was empty).
                tab_to(page, lambda f: "hand-tile" in f["cls"])
            if now["playable"]:
                tile = arrow_to(page, now["playable"])
                keys(page, Keys.ENTER)
                if now["leading"] and tile[0] != tile[2]:
                    assert focused(page)["id"] == "lead-button"  # type: ignore[index]
                    if moves % 2:
                        keys(page, "t")  # turned: 5-3 is led as 3-5
                        turned += 1
                        # Enter next leads it as turned (the focus stays on the lead button).
                        assert focused(page)["id"] == "lead-button"  # type: ignore[index]
                    keys(page, Keys.ENTER)
                elif len(now["ends"][tile]) > 1:
                    assert "end-button" in focused(page)["cls"]  # type: ignore[index]
                    if not escaped:
                        keys(page, Keys.ESCAPE)  # put back: the focus returns to the tile
                        wait_for(lambda: not page.find_elements(By.CSS_SELECTOR, ".end-button"))
                        assert focused(page)["tile"] == tile  # type: ignore[index]
                        escaped += 1
                        keys(page, Keys.ENTER)
                    keys(page, END_KEYS[now["ends"][tile][-1]])
                    by_letter += 1
            else:
                assert now["pass"], now
                tab_to(page, lambda f: f["id"] == "pass-button")
                keys(page, Keys.ENTER)
            moves += 1
            after = wait_for(partial(turn_after, page, now["seq"]), 20, "the move")
            if after["hand"] and not after["over"]:
                # A redraw took the played tile away: the focus stays on the tiles, unless a
                # bot's next move ended the match meanwhile (the focus then goes to the winner).
                wait_for(
                    lambda: on_a_tile(page) or match_over(page), 5, "the focus back on the tiles"
                )
        else:
            raise AssertionError("the match did not end")

        winner = wait_for(lambda: page.find_element(By.ID, "winner-text").text, what="the winner")
        assert moves >= 5 and escaped == 1 and by_letter >= 1, (moves, escaped, by_letter)
        screenshot(page, "keyboard-winner", *LAPTOP)

        # What was announced: every move, draw, pass and result the log holds, each tile in
        # words, and the winner; never more than a few announcements kept in the region.
        wait_for(
            lambda: page.execute_script(
                "return window.heard.join(' ').includes(arguments[0])", winner
            ),
            5,
        )
        heard: list[str] = page.execute_script("return window.heard")
        said = " ".join(heard)
        log = page.execute_script("return window.allfives.state.log")
        spoken = [
            in_words(line["text"])
            for line in log
            if line["kind"] in ("play", "score", "hand", "match")
        ]
        assert spoken and all(line in said for line in spoken), [
            line for line in spoken if line not in said
        ]
        assert any(
            re.fullmatch(r"Ann (led|played) [a-z]+-[a-z]+.*: total \d+(, scores \d+)?", line)
            for line in spoken
        )
        hand_results = [line["text"] for line in log if line["kind"] == "hand"]
        assert hand_results and all(result in said for result in hand_results)
        assert re.search(r"Your (turn|lead): ", said), said
        assert winner in said
        assert page.execute_script("return window.heardMost") <= 4
        # Turned leads went to the server as shown (and so to the log and the announcements).
        assert turned == 0 or re.search(r"Ann led \w+-\w+", said)

        # The announcer is the table's only polite voice: the ticking turn line, the corner
        # total, the log, the hand's card and the winner's card are not live regions.
        live = page.execute_script(
            "return [...document.querySelectorAll('[aria-live]:not([aria-live=off]), [role=status], [role=log]')].map((e) => e.id)"
        )
        assert "announcer" in live
        assert not {"turn", "total", "log", "winner", "summary", "end-choice"} & set(live), live
        assert js_errors(page) == []


#: The board's text for screen readers and what the server sent, read in one go.
BOARD = """
const doc = window.allfives.state.doc;
const game = doc?.game;
return game ? { seq: window.allfives.state.seq, over: game.over, ends: game.ends, total: game.total,
  layout: game.layout, sentences: [...document.querySelectorAll("#board-text p")].map((p) => p.textContent) } : null;
"""


def expected_sentences(board: dict[str, Any]) -> list[str]:
    """What the board's text must say for the layout, open ends and total the server sent."""
    layout = board["layout"]
    tiles = [
        web_words("en", "board.spinner_tile", tile=tile_words("en", pips))
        if index == layout["spinner"]
        else tile_words("en", pips)
        for index, pips in enumerate(layout["line"])
    ]
    said = [web_words("en", "board.line", tiles=", ".join(tiles))]
    for arm in ("north", "south"):
        if layout[arm]:
            arm_tiles = ", ".join(tile_words("en", pips) for pips in layout[arm])
            said.append(web_words("en", f"board.arm_{arm}", tiles=arm_tiles))
    ends = board["ends"]
    shown = [f"{end} {ends[end]}" for end in END_ORDER if isinstance(ends.get(end), int)]
    said.append(web_words("en", "board.open_ends", ends=", ".join(shown)))
    return said


def moved_on(driver: WebDriver, seq: int | None) -> bool:
    """Whether the room moved past `seq` (or the match ended), playing the page's turns."""
    return bool(
        driver.execute_script(PLAY_ON) == "finished"
        or driver.execute_script("return window.allfives.state.seq") != seq
    )


def focus_path(driver: WebDriver) -> list[str]:
    """The focused element and its ancestors' ids, innermost first ([] for the page's body)."""
    path: list[str] = driver.execute_script(
        "const out = []; let el = document.activeElement;"
        "while (el && el !== document.body && el !== document.documentElement) {"
        " out.push(el.id || el.tagName); el = el.parentElement; } return out;"
    )
    return path


def test_the_focus_lands_on_the_room_after_create_and_on_the_table_after_start() -> None:
    """ "Create room" and "Start the match" went away under the focus, which fell to the
    page's body: the next Tab started again from the top of the page."""
    with ServerThread() as server, chromium(*LAPTOP) as page:
        page.get(server.base + "/")
        connected = web_words("en", "status.connected")
        wait_for(lambda: page.find_element(By.ID, "status").text == connected, what="online")
        tab_to(page, lambda f: f["id"] == "name")
        keys(page, "Ann")
        tab_to(page, lambda f: f["id"] == "create-button")
        keys(page, Keys.ENTER)
        wait_for(lambda: page.find_elements(By.ID, "waiting"), what="the room")
        assert "waiting" in wait_for(lambda: focus_path(page), what="the focus in the room")
        # The bot comes; the next Tab is the room's, not the header's.
        wait_for(
            lambda: [b for b in page.find_elements(By.ID, "start-button") if b.is_enabled()],
            what="the room with its bot",
        )
        keys(page, Keys.TAB)
        assert "waiting" in focus_path(page), focus_path(page)
        tab_to(page, lambda f: f["id"] == "start-button", limit=10)
        keys(page, Keys.ENTER)
        wait_for(lambda: (t := turn(page)) and t["seq"] and True, what="the match")
        where = wait_for(lambda: focus_path(page), what="the focus on the table")
        assert "game" in where or "dock" in where or any("hand" in p for p in where), where
        assert not js_errors(page)


#: What an Announcer says for a run of tables (each `[events, model]`), one flush after each.
ANNOUNCED = """
const announcer = new window.unit.announce.Announcer();
const said = [];
for (const [events, model] of arguments[0]) {
  announcer.hear(events, model);
  announcer.flush();
  said.push([...announcer.node.children].map((p) => p.textContent));
}
announcer.destroy();
return said;
"""


def my_turn(hand: int, moves: int, leading: bool) -> dict[str, Any]:
    """A table model at the player's turn: hand `hand`, `moves` moves made in it."""
    return {
        "names": ["Ann", "Lea"],
        "teams": False,
        "game": {
            "handNumber": hand,
            "history": [{"type": "passed", "seat": 1}] * moves,
            "myTurn": True,
            "leading": leading,
            "hand": [{"tile": "5-0", "playable": True}, {"tile": "3-3", "playable": True}],
        },
    }


def test_going_out_and_leading_the_next_hand_is_announced_as_your_lead() -> None:
    """After going out the next table was the player's turn again (a lead in a new hand): the
    region heard "Hand 2: Lea leads"-like lines and never "Your lead"."""
    with unit_page() as page:
        said = page.execute_script(
            ANNOUNCED,
            [
                [[], my_turn(1, 6, False)],
                [[], my_turn(1, 6, False)],  # the same turn drawn again: said once
                [[], my_turn(2, 0, True)],  # went out with that move; leads hand 2
            ],
        )
        assert said[0] == ["Your turn: 2 tiles can be played."]
        assert said[1] == said[0]
        assert said[2][-1] == "Your lead: any of your 2 tiles.", said


def test_the_boards_text_names_every_open_end_and_the_servers_total() -> None:
    with ServerThread() as server, chromium(*PHONE) as page:
        start_against_a_bot(page, server, 100, players=3)
        checked = arms = 0
        last = None
        for _ in range(3000):
            phase = page.execute_script(PLAY_ON)
            board = page.execute_script(BOARD)
            if board and board["seq"] != last and board["layout"]["line"]:
                last = board["seq"]
                sentences = board["sentences"]
                assert sentences[:-1] == expected_sentences(board), (sentences, board)
                total = board["total"]
                assert sentences[-1] in (
                    web_words("en", "a11y.total", total=total),
                    web_words("en", "a11y.total_scored", total=total),
                ), (sentences, total)
                checked += 1
                arms += bool(board["layout"]["north"] or board["layout"]["south"])
            if phase == "finished":
                break
            wait_for(partial(moved_on, page, last), 30, "the next move")
        assert checked >= 10, checked
        print(f"board text checked at {checked} moves, {arms} with a spinner's arm")


def test_the_accessibility_tree_names_every_control_with_its_role() -> None:
    with ServerThread() as server, chromium(*PHONE) as page:
        start_against_a_bot(page, server, 150)
        play_until(page, TWO_ENDS, "a tile that fits two ends", timeout=240, matches=3)
        now = wait_for(lambda: (t := turn(page)) and t["mine"] and t, what="the turn")
        tile = next(t for t, ends in now["ends"].items() if len(ends) > 1)
        tab_to(page, lambda f: "hand-tile" in f["cls"])
        arrow_to(page, [tile])
        keys(page, Keys.ENTER)
        wait_for(lambda: page.find_elements(By.CSS_SELECTOR, "#board .end-target"), what="targets")
        nodes = [n for n in ax_nodes(page) if not n["ignored"]]

        toolbars = [n for n in nodes if n["role"] == "toolbar"]
        assert [n["name"] for n in toolbars] == [web_words("en", "dock.hand_label")], toolbars
        buttons = [n["name"] for n in nodes if n["role"] == "button"]
        for held in now["hand"]:
            assert any(name.startswith(tile_words("en", held)) for name in buttons), (held, buttons)
        legal = page.execute_script("return window.allfives.state.doc.game.legal")
        for move in (m for m in legal if m.get("tile") == tile):
            end = web_words("en", f"end.{move['end']}")
            key = "a11y.end_target_scores" if move.get("points") else "a11y.end_target"
            assert web_words("en", key, end=end, total=move["total"]) in buttons, buttons
            if move.get("points"):
                dock = web_words("en", "a11y.end_button_scores", end=end, total=move["total"])
            else:
                dock = f"{end} → {move['total']}"
            assert dock in buttons, buttons
        # Every control has a name; the board is read as text, its tiles are hidden.
        controls = ("button", "link", "textbox", "combobox", "checkbox", "toolbar", "image")
        unnamed = [n for n in nodes if n["role"] in controls and not n["name"].strip()]
        assert not unnamed, unnamed
        text = " ".join(n["name"] for n in nodes if n["role"] == "StaticText")
        assert web_words("en", "board.open_ends", ends="").rstrip(".") in text
        total = page.execute_script("return window.allfives.state.doc.game.total")
        assert any(
            n["role"] == "image" and n["name"].startswith(f"Ends total {total}") for n in nodes
        )


ZOOMED = (180, 370)  # 360 x 740 at 200 %

#: Whether anything of the page reaches past the window's right edge.
SIDEWAYS = """
return { width: document.documentElement.scrollWidth, viewport: innerWidth,
  past: [...document.querySelectorAll("body *")].filter((e) => e.getBoundingClientRect().right > innerWidth + 1)
    .slice(0, 5).map((e) => `${e.tagName}#${e.id}.${e.getAttribute("class") ?? ""}`) };
"""


def zoom(driver: WebDriver) -> None:
    """The phone's 360 x 740 at 200 % zoom: 180 x 370 CSS px, two device pixels each."""
    driver.execute_cdp_cmd(
        "Emulation.setDeviceMetricsOverride",
        {"width": ZOOMED[0], "height": ZOOMED[1], "deviceScaleFactor": 2, "mobile": False},
    )


def no_sideways(driver: WebDriver, what: str) -> None:
    seen = driver.execute_script(SIDEWAYS)
    assert seen["width"] <= seen["viewport"] == ZOOMED[0] and not seen["past"], (what, seen)


def test_at_200_percent_zoom_on_a_phone_nothing_scrolls_sideways() -> None:
    with ServerThread() as server, chromium(*PHONE) as page:
        page.get(server.base + "/")
        zoom(page)
        wait_for(lambda: page.execute_script("return window.allfives?.online"), what="online")
        no_sideways(page, "the lobby")
        start_against_a_bot(page, server, 50)
        zoom(page)
        play_until(page, TWO_ENDS, "a tile that fits two ends", timeout=240, matches=3)
        page.find_element(By.CSS_SELECTOR, ".hand-tile.playable")
        tile = next(t for t, ends in turn(page)["ends"].items() if len(ends) > 1)  # type: ignore[index]
        page.execute_script(
            "document.querySelector(`.hand-tile[data-tile='${arguments[0]}']`).click()", tile
        )
        wait_for(lambda: page.find_elements(By.CSS_SELECTOR, "#board .end-target"), what="targets")
        no_sideways(page, "a choice of ends")
        page.save_screenshot("tests/artifacts/zoom-200-ends.png")
        script = PLAY_UNTIL.replace("CONDITION", "return false;")
        wait_for(lambda: page.execute_script(script) == "finished", 90, "the end")
        wait_for(lambda: page.find_element(By.ID, "winner-text").text, what="the winner")
        no_sideways(page, "the winner")
        for route in ("#/replay", "#/ladder", "#/player/Ann"):
            page.execute_script("location.hash = arguments[0]", route)
            wait_for(lambda: page.find_element(By.ID, "pages").is_displayed(), what=route)
            wait_for(lambda: page.find_elements(By.CSS_SELECTOR, "#pages h2"), what=route)
            no_sideways(page, route)
        page.get(server.base + "/web/rules.html")
        zoom(page)
        no_sideways(page, "the rules")
