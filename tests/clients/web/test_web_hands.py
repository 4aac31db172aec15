"""A hand's end at the browser table, against a real server in headless Chromium.

The ended hand's table stays on the board (dimmed, with the tile that went out) until the next
lead, as the terminal shows it; a result card dismissed in one match is not hidden in the
rematch's hand of the same number; and while a picked tile waits for its end, nothing of the
pinned dock (the last hand's card above all) covers an end target on a phone.
"""

from __future__ import annotations

import pytest
from browser_helpers import (
    chromium,
    js_errors,
    play_until,
    press,
    screenshot,
    start_against_a_bot,
    uncovered,
    wait_for,
)
from selenium.webdriver.common.action_chains import ActionChains
from selenium.webdriver.common.by import By
from selenium.webdriver.remote.webdriver import WebDriver
from server_helpers import ServerThread

pytestmark = pytest.mark.browser

PHONE = (360, 740)
LAPTOP = (1280, 800)

#: My lead of a hand after the first: the board then holds no tile of its own.
MY_LEAD = "return game.hand_number > 1 && game.turn === doc.you && game.layout.line.length === 0;"
#: My turn with the last hand's card open and a tile that fits two ends or more.
CHOICE_FN = """() => {
if (game.turn !== doc.you || !game.last_hand || document.getElementById("summary").hidden) return false;
const ends = {};
for (const move of game.legal ?? []) if (move.end) ends[move.tile] = (ends[move.tile] ?? 0) + 1;
return Object.values(ends).some((count) => count > 1);
}"""
#: What the board shows: its tiles, its empty word, the note above it.
BOARD = """
const note = document.getElementById("board-note");
return { tiles: document.querySelectorAll("#board .domino").length,
         last: document.querySelectorAll("#board .domino.last").length,
         empty: Boolean(document.querySelector("#board .empty")),
         previous: document.getElementById("board").classList.contains("previous"),
         note: note && !note.hidden ? note.textContent : null,
         kept: window.allfives.state.finalLayout };
"""


def test_the_ended_hand_stays_on_the_board_until_the_next_lead() -> None:
    with ServerThread() as server, chromium(*PHONE) as ann:
        start_against_a_bot(ann, server, 250)
        # Only the player who went out leads the next hand: some matches Ann never does.
        play_until(ann, MY_LEAD, "my lead of a later hand", timeout=360, matches=4)
        seen = ann.execute_script(BOARD)
        kept = seen["kept"]
        placed = len(kept["line"]) + len(kept["north"]) + len(kept["south"])
        assert placed > 0
        assert seen["tiles"] == placed and seen["last"] == 1 and not seen["empty"], seen
        assert seen["previous"] and seen["note"].endswith("as it ended: the next lead clears it")
        screenshot(ann, "hand-kept-360x740", *PHONE)
        screenshot(ann, "hand-kept-1280x800", *LAPTOP)
        assert js_errors(ann) == []


#: Whether Ann's move (arguments[1] on arguments[2]) came back played since arguments[0], the
#: hand and the length of its history then (once the hand has ended, in the hand kept: a
#: tile is played once a hand).
PLAYED = """
const [hand, length] = arguments[0];
const state = window.allfives.state;
const game = state.doc.game;
const plays = game.hand_number === hand ? game.history.slice(length) : state.finalHistory;
return plays.some((e) => e.type === "played" && e.seat === 0 && e.tile === arguments[1] && e.end === arguments[2]);
"""


def all_uncovered(driver: WebDriver) -> bool:
    """Whether every end target on the board is in sight with nothing but another end on it."""
    targets = driver.find_elements(By.CSS_SELECTOR, "#board .end-target")
    seen = [uncovered(driver, target) for target in targets]
    return bool(seen) and all(
        s["inView"] and all(over["endTarget"] for over in s["over"]) for s in seen
    )


def pick_check_and_tap(ann: WebDriver, shot: bool) -> None:
    """On Ann's turn with a tile for two ends or more: pick it, check that nothing but another
    end lies on any end target (a screenshot with `shot`), tap one end, see the move played."""
    tile = ann.execute_script(
        "const ends = {};"
        "for (const m of window.allfives.state.doc.game.legal)"
        " if (m.end) ends[m.tile] = (ends[m.tile] ?? 0) + 1;"
        "return Object.keys(ends).find((t) => ends[t] > 1);"
    )
    ann.find_element(By.CSS_SELECTOR, f'.hand-tile[data-tile="{tile}"]').click()
    targets = wait_for(
        lambda: ann.find_elements(By.CSS_SELECTOR, "#board .end-target"), what="the ends"
    )
    assert len(targets) >= 2
    for target in targets:
        landing = uncovered(ann, target)
        # Nothing but another end (whose tap spot may reach over) lies on it.
        assert landing["inView"], landing
        assert all(over["endTarget"] for over in landing["over"]), landing
    end = targets[-1].get_attribute("data-end")
    if shot:
        screenshot(ann, "hand-ends-360x740", *PHONE)
        # The shot drew the board for a taller window and back: let it settle again.
        wait_for(lambda: all_uncovered(ann), what="the ends in sight again")
    # A tap on an end's middle plays there, even where another end's spot reaches over.
    before = ann.execute_script(
        "const g = window.allfives.state.doc.game; return [g.hand_number, g.history.length];"
    )
    tapped = ann.find_element(By.CSS_SELECTOR, f'#board .end-target[data-end="{end}"]')
    ActionChains(ann).move_to_element(tapped).click().perform()
    wait_for(lambda: ann.execute_script(PLAYED, before, tile, end), what="the move on that end")


def test_no_card_covers_an_end_target_on_a_phone() -> None:
    """Each time Ann (three players, a phone) picks a tile for two ends with the last hand's
    card open (eight times, or until the match ends), no part of the dock or the strip lies on
    any end; she then taps one."""
    with ServerThread() as server, chromium(*PHONE) as ann:
        start_against_a_bot(ann, server, 250, players=3)
        checked = 0
        while checked < 8:
            play_until(ann, f"return game.over || ({CHOICE_FN})();", "a choice of ends")
            if ann.execute_script("return window.allfives.state.doc.game.over"):
                break
            pick_check_and_tap(ann, shot=not checked)
            checked += 1
        assert checked >= 1
        assert js_errors(ann) == []


def test_a_card_dismissed_in_one_match_shows_in_the_rematch() -> None:
    with ServerThread() as server, chromium(*LAPTOP) as ann:
        start_against_a_bot(ann, server, 150)
        play_until(ann, "return game.hand_number === 2;", "hand 2")
        card = wait_for(lambda: ann.find_element(By.ID, "summary"), what="the card")
        wait_for(card.is_displayed, what="hand 1's card")
        assert card.text.startswith("Hand 1: ")
        press(ann, "summary-ok")
        wait_for(lambda: not card.is_displayed(), what="the card dismissed")
        play_until(ann, "return game.over;", "the match's end")
        press(ann, "rematch-button")
        wait_for(
            lambda: ann.execute_script("return window.allfives.state.doc.game?.over === false"),
            what="the rematch",
        )
        play_until(ann, "return game.hand_number === 2;", "the rematch's hand 2")
        card = ann.find_element(By.ID, "summary")
        wait_for(card.is_displayed, what="the rematch's hand 1 card")
        assert card.text.startswith("Hand 1: ")
        assert js_errors(ann) == []


def test_the_match_end_card_gives_no_id_twice() -> None:
    """The winner's card holds the last hand's card beside the dock's (hidden) one: each
    title has its own id, and the final card is labelled by its own."""
    with ServerThread() as server, chromium(*LAPTOP) as ann:
        start_against_a_bot(ann, server, 150)
        play_until(ann, "return game.over;", "the match's end")
        wait_for(lambda: ann.find_element(By.ID, "final-hand").is_displayed(), what="the card")
        ids = ann.execute_script("return [...document.querySelectorAll('[id]')].map((e) => e.id)")
        twice = sorted({i for i in ids if ids.count(i) > 1})
        assert twice == [], twice
        final = ann.find_element(By.ID, "final-hand")
        title = ann.find_element(By.ID, final.get_attribute("aria-labelledby") or "")
        assert title.text.startswith("Hand ") and final.text.startswith(title.text)
