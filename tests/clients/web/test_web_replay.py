"""The replay viewer in Chromium: a match played on a real server, stepped to its end.

The player (a laptop, 1280x800, and a phone, 360x740) plays a match to 50 against the normal
bot through the page's own connection, then opens "Replay this match" on the winner's card.
Stepping with → (and the buttons) to the end, the scores at the end of every hand equal those
of the record replayed by the engine (hand by hand), every seat's tiles are shown, and ← steps
back. Screenshots of the viewer go to tests/artifacts/.
"""

from __future__ import annotations

import re
from functools import partial
from typing import Any

import pytest
from browser_helpers import chromium, js_errors, play_a_match, screenshot, wait_for
from engine_helpers import scores_after_each_hand
from selenium.webdriver.common.by import By
from selenium.webdriver.common.keys import Keys
from selenium.webdriver.remote.webdriver import WebDriver
from server_helpers import ServerThread

from protocol.records import Record, decode_record

pytestmark = pytest.mark.browser

#: What the viewer shows now.
READ_STEP = """
const replay = document.getElementById("replay");
if (!replay) return null;
return {
  hand: Number(replay.dataset.hand),
  move: Number(replay.dataset.move),
  kind: replay.dataset.kind,
  said: document.getElementById("replay-said")?.textContent ?? "",
  scores: [...document.querySelectorAll("#replay-scores .score")].map((s) => Number(s.textContent)),
  tiles: [...document.querySelectorAll("#replay-hands .replay-hand")].map((h) => h.querySelectorAll(".replay-tile").length),
  board: document.querySelectorAll("#replay-board .domino").length,
  review: document.getElementById("review")?.hidden === false ? document.getElementById("review").textContent : null,
};
"""


def read_step(driver: WebDriver) -> dict[str, Any] | None:
    step: dict[str, Any] | None = driver.execute_script(READ_STEP)
    return step


def next_step(driver: WebDriver, before: dict[str, Any]) -> dict[str, Any] | None:
    """The step shown, once it is not `before` any more."""
    step = read_step(driver)
    return step if step is not None and step != before else None


@pytest.mark.parametrize(("width", "height"), [(1280, 800), (360, 740)])
def test_a_finished_match_stepped_to_its_end_shows_the_records_scores(
    width: int, height: int
) -> None:
    with (
        ServerThread(bot_delay=0.0, review_budget_ms=2.0) as server,
        chromium(width, height) as driver,
    ):
        code = play_a_match(driver, server)
        data = server.call(server.server.store.load_record(f"{code}/1"))
        record = decode_record(data)
        expected = scores_after_each_hand(record)
        # The rating's word comes to the winner's card once the server has rated the match: a
        # new key's first match moves no rating, and the card says so, what counts and what is
        # still to go, with no "0.0 (0.0)" figure (docs/ratings.md, issue 45).
        rated = wait_for(lambda: driver.find_element(By.ID, "rating-change").text, 30)
        assert re.fullmatch(
            r"No rating moved: your rating is provisional until you have played 5 whole matches "
            r"\(to 150 points; shorter ones count in part\) against 3 different opponents\. "
            r"Still to go: 5 more matches and 2 more opponents\.",
            rated,
        ), rated
        assert not driver.find_elements(By.ID, "rating-note")
        wait_for(lambda: driver.find_element(By.ID, "replay-link")).click()
        first = wait_for(lambda: read_step(driver), what="the viewer")
        assert (first["hand"], first["move"], first["kind"]) == (1, 0, "deal")
        assert first["scores"] == [0, 0] and first["board"] == 0
        assert first["tiles"] == [len(t) for t in record.hands[0].deal]
        # The bot's seat as the table named it ("Bot 2"), its level beside it.
        hand_names = [b.text for b in driver.find_elements(By.CSS_SELECTOR, ".replay-hand > b")]
        assert hand_names == ["Ann", "Bot 2 (normal)"], hand_names
        body = driver.find_element(By.TAG_NAME, "body")
        ended: list[list[int]] = []
        seen = [first]
        steps = sum(1 + len(h.moves) + (h.result is not None) for h in record.hands)
        for _ in range(steps - 1):
            body.send_keys(Keys.ARROW_RIGHT)
            step = wait_for(partial(next_step, driver, seen[-1]), what="the next step")
            seen.append(step)
            if step["kind"] == "hand_ended":
                ended.append(step["scores"])
            if step["kind"] == "played":
                assert step["board"] >= 1
        assert ended == expected, [(s["hand"], s["move"], s["kind"], s["scores"]) for s in seen]
        assert seen[-1]["scores"] == record.scores
        assert len(seen) == steps
        assert driver.find_element(By.ID, "replay-next").get_attribute("disabled") is not None
        screenshot(driver, f"replay-{width}x{height}", width, height)
        body.send_keys(Keys.ARROW_LEFT)
        assert wait_for(lambda: read_step(driver) == seen[-2] or None, what="a step back")
        driver.find_element(By.ID, "replay-first").click()
        assert wait_for(lambda: (s := read_step(driver)) and s["move"] == 0 and s["hand"] == 1)
        page_width = driver.execute_script("return document.documentElement.scrollWidth")
        assert page_width <= width
        # The archived game is found for the room's record: the review shows beside it.
        wait_for(lambda: driver.find_elements(By.CSS_SELECTOR, "#review-summary > li"), 60)
        check_review(driver, record)
        if width >= 1000:  # beside the review (on a phone the review comes below)
            board_in_first_screen(driver, height)
        reviewed = driver.find_element(By.CSS_SELECTOR, "#review-summary > li[data-seat='1'] > b")
        assert reviewed.text == "Bot 2 (normal)"
        screenshot(driver, f"replay-review-{width}x{height}", width, height)

        # Ann's page, from the header (on a phone from the page's own nav, which has the
        # header's ladder and "My page" there): her rating, its graph, the game, its replay.
        wide = width >= 1000
        driver.find_element(By.ID, "me-link" if wide else "nav-me").click()
        wait_for(lambda: driver.find_elements(By.CSS_SELECTOR, "#games-list .game-link"))
        assert driver.find_element(By.ID, "player-name").text == "Ann"
        assert driver.find_elements(By.CSS_SELECTOR, "#rating-graph circle.graph-point")
        assert "Two players" in driver.find_element(By.ID, "player-ratings").text
        assert driver.find_element(By.ID, "player").get_attribute("data-you") == "1"
        row = driver.find_element(By.CSS_SELECTOR, "#games-list .game-row").text
        assert "· Ann, Bot 2 (normal) · " in row and "normal bot" not in row, row
        screenshot(driver, f"player-{width}x{height}", width, height)
        driver.find_element(By.CSS_SELECTOR, "#games-list .game-link").click()
        wait_for(lambda: driver.find_elements(By.CSS_SELECTOR, "#review-summary > li"), 60)
        assert "#/game/" in driver.current_url
        driver.find_element(By.ID, "replay-last").click()
        assert wait_for(lambda: (s := read_step(driver)) and s["scores"] == record.scores)
        check_review(driver, record)

        # The ladder names Ann and every bot level.
        driver.find_element(By.ID, "ladder-link" if wide else "nav-ladder").click()
        ladder = wait_for(lambda: driver.find_element(By.CSS_SELECTOR, "[data-ladder='2p'] table"))
        assert "Ann" in ladder.text and "normal bot" in ladder.text and "hard bot" in ladder.text
        screenshot(driver, f"ladder-{width}x{height}", width, height)
        assert driver.execute_script("return document.documentElement.scrollWidth") <= width
        assert not js_errors(driver)


#: Makes the review as long as a long match's (13 hands a player), then measures the viewer.
LONG_REVIEW = """
const summary = document.getElementById("review-summary");
for (let i = 0; i < 40; i += 1) {
  const copy = summary.firstElementChild.cloneNode(true);
  copy.classList.add("copied");
  summary.append(copy);
}
const head = document.querySelector(".replay-head").getBoundingClientRect();
const download = document.getElementById("replay-download").getBoundingClientRect();
return { headBlank: head.bottom - download.bottom, page: document.documentElement.scrollHeight,
  board: document.getElementById("replay-board").getBoundingClientRect().top + scrollY,
  next: document.getElementById("replay-next").getBoundingClientRect().bottom + scrollY };
"""


def board_in_first_screen(driver: WebDriver, height: int) -> None:
    """However long the review beside it, the replay's board and its ◀ ▶ are on the first
    screen, the "Replay" card no taller than what it holds (it stretched to the review's
    height, blank below "Download the record", and pushed the board two screens down)."""
    driver.execute_script("window.scrollTo(0, 0)")
    seen = driver.execute_script(LONG_REVIEW)
    assert seen["page"] > 2 * height, seen  # the review is long indeed
    assert seen["headBlank"] < 40, seen
    assert seen["next"] <= height and seen["board"] < height, seen
    driver.execute_script(
        "document.querySelectorAll('#review-summary > .copied').forEach((li) => li.remove())"
    )


def check_review(driver: WebDriver, record: Record) -> None:
    """The review names each player's loss, and the move of a costly step in words."""
    players = driver.find_elements(By.CSS_SELECTOR, "#review-summary > li")
    assert len(players) == len(record.names)
    for player in players:
        # Game points a move, an accuracy, and each hand's (the match premium is no point).
        assert re.search(r": accuracy \d+\.\d%, \d+\.\d points lost a move, ", player.text)
        hands = player.find_elements(By.CSS_SELECTOR, ".hands > li")
        assert len(hands) == len(record.hands)
        assert all(hand.text.startswith(f"hand {n}: ") for n, hand in enumerate(hands, 1))
    costliest = driver.find_elements(By.CSS_SELECTOR, "#review-summary .costliest button")
    if costliest:
        costliest[0].click()
        said = wait_for(lambda: driver.find_element(By.ID, "review-move").text)
        assert " lost " in said and "against" in said
