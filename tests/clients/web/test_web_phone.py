"""The browser table as a person meets it on a phone (360x740) and a laptop (1280x800).

A player with the longest legal name (24 characters) plays a bot on a phone: the page never
scrolls sideways, every control and tap spot on the board is at least 44 x 44 CSS px, and on
their turn the playable tiles and the corner total are on the first screen without scrolling.
Their lead is turned by a second tap and reaches the server facing as shown (rule 5.1). When
the connection drops the tiles stop being playable and a banner says so. On a laptop, a friend
who goes away gets a countdown to the stand-in, whose plays are labelled as the stand-in's.
Screenshots of each state go to tests/artifacts/. The phone's test runs in English, Estonian
and Czech (the longer words must fit as well).
"""

from __future__ import annotations

from typing import Any

import pytest
from browser_helpers import (
    PLAY_ON,
    assert_fits,
    chromium,
    js_errors,
    measure,
    open_lobby,
    play_until,
    screenshot,
    start_against_a_bot,
    uncovered,
    wait_for,
)
from i18n_helpers import BROWSER_TAGS, LANGUAGES, tile_words, web_prefix, web_words
from protocol_session import fixed_draws
from selenium.webdriver.common.by import By
from selenium.webdriver.remote.webdriver import WebDriver
from selenium.webdriver.support.ui import Select
from server_helpers import ServerThread
from ws_client_helpers import Client

pytestmark = pytest.mark.browser

PHONE = (360, 740)
LAPTOP = (1280, 800)
LONG_NAME = "Wolfgang Amadeus Mozartt"  # 24 characters, the longest name the server takes


def my_turn(driver: WebDriver) -> list[str]:
    tiles: list[str] = measure(driver)["playable"]
    return tiles


@pytest.mark.parametrize("language", ["en", "et", "cs"])
def test_a_phone_player_sees_everything_on_one_screen_and_turns_the_lead(language: str) -> None:

    def said(key: str, **params: Any) -> str:
        return web_words(language, key, **params)

    named = "" if language == "en" else f"-{language}"
    with fixed_draws(), ServerThread() as server, chromium(*PHONE, BROWSER_TAGS[language]) as page:
        open_lobby(page, server.base + "/", LONG_NAME, language)
        assert_fits(measure(page))
        page.find_element(By.ID, "create-button").click()
        start = wait_for(
            lambda: [b for b in page.find_elements(By.ID, "start-button") if b.is_enabled()],
            what="the room with its bot",
        )
        assert_fits(measure(page))
        start[0].click()
        # The draws are fixed so that seat 0 leads the first hand (as in protocol/README.md).
        wait_for(lambda: my_turn(page), what="the lead")
        seen = measure(page)
        assert_fits(seen)
        assert seen["playableInView"] and seen["totalInView"], seen
        # No turn clock in this room: no seconds.
        assert seen["turn"] == f"{said('strip.hand', number=1)} · {said('strip.your_turn')}"
        screenshot(page, f"phone-lead{named}", *PHONE)

        # The lead: a first tap shows how it will face, a second turns it, then it is led so.
        tile = next(t for t in seen["playable"] if t[0] != t[2])
        button = page.find_element(By.CSS_SELECTOR, f'.hand-tile[data-tile="{tile}"]')
        button.click()
        facing = page.find_element(By.ID, "lead-facing").text
        assert facing == said("dock.lead_facing", tile=tile, west=tile[0], east=tile[2]), facing
        page.find_element(By.CSS_SELECTOR, f'.hand-tile[data-tile="{tile}"]').click()
        turned = f"{tile[2]}-{tile[0]}"
        facing = page.find_element(By.ID, "lead-facing").text
        assert facing == said("dock.lead_facing", tile=turned, west=tile[2], east=tile[0]), facing
        label = page.find_element(By.CSS_SELECTOR, ".hand-tile.picked").get_attribute("aria-label")
        assert (label or "").startswith(tile_words(language, turned)), label
        screenshot(page, f"phone-lead-turned{named}", *PHONE)
        page.find_element(By.ID, "lead-button").click()
        led = web_prefix(language, "log.led", who=LONG_NAME, tile=turned)
        wait_for(
            lambda: any(line.startswith(led) for line in measure(page)["log"]),
            what="the lead in the log",
        )
        line = page.execute_script("return window.allfives.state.doc.game.layout.line")
        assert line[0] == [int(tile[2]), int(tile[0])], line  # as the server laid it

        # Play on, first playable tile each turn, until a tile fits two ends: the board's tap
        # spots are big enough and in sight, with the end choice open.
        chose = False
        for _ in range(60):
            tiles = wait_for(lambda: my_turn(page), what="my turn")
            seen = measure(page)
            assert_fits(seen)
            assert seen["playableInView"] and seen["totalInView"], seen
            page.find_element(By.CSS_SELECTOR, ".hand-tile.playable").click()
            targets = page.find_elements(By.CSS_SELECTOR, "#board .end-target")
            if targets:
                seen = measure(page)
                assert_fits(seen)
                assert len(seen["targets"]) >= 2 and seen["targetsInView"], seen
                assert seen["playableInView"] and seen["totalInView"], seen
                screenshot(page, f"phone-end-choice{named}", *PHONE)

                # The shot resized the window: the board is drawn again (a stale spot: retry).
                def tap_end() -> bool:
                    page.find_elements(By.CSS_SELECTOR, "#board .end-target")[0].click()
                    return True

                wait_for(tap_end, what="the end tapped")
                chose = True
                break
            wait_for(lambda: my_turn(page) != tiles, what="the move made")  # noqa: B023
        assert chose, "no tile fitting two ends came up"

        # The connection drops: the banner says so and the tiles stop being playable.
        page.execute_cdp_cmd("Network.enable", {})
        page.execute_cdp_cmd(
            "Network.emulateNetworkConditions",
            {"offline": True, "latency": 0, "downloadThroughput": -1, "uploadThroughput": -1},
        )
        wait_for(lambda: my_turn(page), what="my turn again")
        assert server.drop(LONG_NAME) == 1
        seen = wait_for(lambda: (s := measure(page))["banner"] and s, what="the banner")
        assert web_prefix(language, "status.lost") in seen["banner"] and seen["bannerInView"], seen
        assert seen["playable"] == [] and seen["enabledTiles"] == 0, seen
        assert seen["turn"].endswith(f"· {said('strip.offline')}"), seen["turn"]
        screenshot(page, f"phone-offline{named}", *PHONE)
        page.execute_cdp_cmd(
            "Network.emulateNetworkConditions",
            {"offline": False, "latency": 0, "downloadThroughput": -1, "uploadThroughput": -1},
        )
        wait_for(lambda: measure(page)["banner"] is None and my_turn(page), what="back")
        assert js_errors(page) == []


def test_a_friend_away_gets_a_countdown_and_the_stand_in_plays_under_its_own_name() -> None:
    with ServerThread() as server, chromium(*LAPTOP) as page:
        open_lobby(page, server.base + "/", "Ann")
        page.find_element(By.NAME, "turn_seconds").send_keys("8")
        Select(page.find_element(By.NAME, "bot_1")).select_by_value("")
        page.find_element(By.ID, "create-button").click()
        code = wait_for(
            lambda: page.find_elements(By.ID, "start-button") and page.current_url.rsplit("/")[-1],
            what="the room",
        )

        async def bob_sits_and_goes() -> None:
            bob = await Client.open(f"ws://127.0.0.1:{server.server.port}/", "Bob")
            await bob.request("join", room=code)
            await bob.close()

        server.call(bob_sits_and_goes())
        start = wait_for(
            lambda: [b for b in page.find_elements(By.ID, "start-button") if b.is_enabled()],
            what="Bob seated",
        )
        start[0].click()
        counts: list[int] = []

        def stood_in() -> bool:
            return any("Bob's stand-in played" in line for line in measure(page)["log"])

        for _ in range(40):
            wait_for(
                lambda: (s := measure(page))["playable"] or "Bob's turn" in s["turn"] or stood_in(),
                what="a turn",
            )
            if stood_in():
                break
            turn = measure(page)["turn"]
            if "Bob's turn · away: the stand-in plays in" in turn:
                counts.append(int(turn.rsplit(" ", 2)[1]))
                if len(counts) == 1:
                    screenshot(page, "laptop-stand-in-countdown", *LAPTOP)
                wait_for(
                    lambda: measure(page)["turn"] != turn,  # noqa: B023
                    what="the countdown moving",
                )
                if any("Bob's stand-in played" in line for line in measure(page)["log"]):
                    break
                continue
            if measure(page)["playable"]:
                assert " s left" in turn, turn  # Ann's own clock
                page.find_element(By.CSS_SELECTOR, ".hand-tile.playable").click()
                if page.find_elements(By.ID, "lead-button"):
                    page.find_element(By.ID, "lead-button").click()
                elif page.find_elements(By.CSS_SELECTOR, "#board .end-target"):
                    page.find_element(By.CSS_SELECTOR, "#board .end-target").click()
                wait_for(lambda: not measure(page)["playable"], what="Ann's move")
        log = measure(page)["log"]
        assert any(line.startswith("Bob's stand-in played") for line in log), log
        assert len(counts) >= 2 and counts == sorted(counts, reverse=True) and counts[0] <= 8
        assert not any(line.startswith("Bob played") for line in log), log
        seat = page.find_element(By.CSS_SELECTOR, '#seats .seat[data-seat="1"]').text
        assert "away, the stand-in plays" in seat, seat
        screenshot(page, "laptop-stand-in", *LAPTOP)
        assert js_errors(page) == []


def test_the_room_form_says_when_an_unlisted_room_is_rated() -> None:
    with ServerThread() as server, chromium(*PHONE) as page:
        open_lobby(page, server.base + "/", "Ann")
        listed = page.find_element(By.NAME, "public")
        rated = page.find_element(By.ID, "rated")
        note = page.find_element(By.ID, "rated-note")
        said = web_words("en", "lobby.rated_private")
        # You and a bot: nobody else's games to keep private, so rated, and the note says where
        # the results of this unlisted room go.
        assert (listed.is_selected(), rated.is_selected(), note.text) == (False, True, said)
        page.execute_script("arguments[0].scrollIntoView({block: 'center'})", rated)
        assert_fits(measure(page))
        screenshot(page, "room-form-rated-unlisted", *PHONE)
        # A seat open for a friend: listed and rated, nothing to warn about.
        Select(page.find_element(By.NAME, "bot_1")).select_by_value("")
        assert (listed.is_selected(), rated.is_selected(), note.text) == (True, True, "")
        # Friends in a private room: unrated unless the host ticks it, and then told.
        listed.click()
        assert (listed.is_selected(), rated.is_selected(), note.text) == (False, False, "")
        rated.click()
        assert note.text == said
        page.find_element(By.ID, "create-button").click()
        rules = wait_for(
            lambda: page.execute_script("return window.allfives.state.doc?.rules"),
            what="the room",
        )
        assert (rules["public"], rules["rated"]) == (False, True)
        # The table says so too, with the room's rules.
        said = wait_for(lambda: page.find_element(By.ID, "target").text, what="the rules")
        assert said.endswith(f" · {web_words('en', 'table.rated')}")
        assert not js_errors(page)


def test_the_lobby_marks_a_listed_room_that_is_unrated() -> None:
    with ServerThread() as server, chromium(*PHONE) as page:
        open_lobby(page, server.base + "/", "Ann")
        page.execute_script(
            "window.allfives.create({rules: {players: 2, rated: false}, seat: 0, bots: []});"
        )
        wait_for(lambda: page.execute_script("return window.allfives.state.doc?.code"))
        page.switch_to.new_window("tab")
        open_lobby(page, server.base + "/", "Bea")
        unrated = web_words("en", "table.unrated")
        listed = wait_for(
            lambda: [
                row.text
                for row in page.find_elements(By.CSS_SELECTOR, "#rooms li")
                if f" · {unrated} · " in row.text
            ],
            what="the unrated room in the list",
        )
        assert len(listed) == 1
        assert not js_errors(page)


@pytest.mark.parametrize("language", LANGUAGES)
def test_a_phone_shows_the_boneyard_and_your_team_on_your_turn_under_a_one_row_header(
    language: str,
) -> None:
    """The header took two rows (about 100 of 740 px); the pinned hand covered the boneyard's
    count; with partnerships nothing said which team was yours."""
    with ServerThread() as server, chromium(*PHONE, BROWSER_TAGS[language]) as page:
        start_against_a_bot(page, server, 150, players=4)
        play_until(page, "return game.turn === doc.you && game.legal.length > 0;", "my turn")
        # At the table (the lobby's header may take two rows).
        header = page.execute_script(
            "return document.querySelector('header.bar').getBoundingClientRect().height"
        )
        assert header <= 56, header
        wait_for(lambda: measure(page)["playable"], what="the glowing tiles")
        seen = measure(page)
        assert_fits(seen)
        boneyard = page.find_element(By.ID, "boneyard")
        count = page.execute_script("return window.allfives.state.doc.game.boneyard")
        assert boneyard.text == web_words(language, "table.boneyard", count=count)
        landing = uncovered(page, boneyard)
        assert landing["inView"] and landing["over"] == [], landing
        chips = page.find_elements(By.CSS_SELECTOR, "#strip-scores .chip")
        marks = [chip.find_elements(By.CLASS_NAME, "chip-you") for chip in chips]
        assert [len(mark) for mark in marks] == [1, 0]  # Ann sits in seat 0: team A
        assert marks[0][0].text == web_words(language, "strip.your_team")
        if language in ("en", "cs"):
            screenshot(page, f"phone-team-{language}-360x740", *PHONE)
            screenshot(page, f"phone-team-{language}-1280x800", *LAPTOP)
        assert js_errors(page) == []


def test_the_boneyard_count_is_not_under_the_pinned_hand() -> None:
    """On your turn with the last hand's card open (three players: its words are longer) the
    pinned dock covered the count below the board."""
    card_open = (
        "return game.turn === doc.you && game.legal.length > 0 && Boolean(game.last_hand)"
        " && app.playedAt !== app.state.seq"
        ' && !document.getElementById("summary").hidden;'
    )
    with ServerThread() as server, chromium(*PHONE) as page:
        start_against_a_bot(page, server, 250, players=3)
        for _ in range(5):  # five such turns, each with its own card and hand
            play_until(page, card_open, "my turn with the card open")
            wait_for(lambda: measure(page)["playable"], what="the glowing tiles")
            measure(page)  # at the top of the page, as it opens
            landing = uncovered(page, page.find_element(By.ID, "boneyard"))
            assert landing["inView"] and landing["over"] == [], landing
            page.execute_script(PLAY_ON)


#: Plays on (PLAY_ON), then scrolls to the page's foot, as a player reading the log does.
PLAY_AND_SCROLL_DOWN = PLAY_ON.replace(
    "return doc.phase;",
    "if (doc.phase !== 'finished') window.scrollTo(0, document.body.scrollHeight);"
    " return doc.phase;",
)

#: Where the winner's heading is against the sticky strip and the viewport's foot.
WINNER_PLACE = """
const heading = document.getElementById("winner-text");
const strip = document.getElementById("strip");
if (!heading) return null;
const r = heading.getBoundingClientRect();
return { top: r.top, bottom: r.bottom, stripBottom: strip.getBoundingClientRect().bottom,
  height: innerHeight, text: heading.textContent };
"""


@pytest.mark.parametrize(("width", "height"), [PHONE, (1280, 800)])
def test_the_winner_is_brought_into_view_when_the_match_ends(width: int, height: int) -> None:
    """The card came above the board while the page stayed where it was (on a phone the
    heading at -404 px): only the strip's "The match is over" was in view."""
    with ServerThread(bot_delay=0.0) as server, chromium(width, height) as page:
        start_against_a_bot(page, server, 50)
        wait_for(
            lambda: page.execute_script(PLAY_AND_SCROLL_DOWN) == "finished",
            timeout=90,
            what="the end",
        )
        place = wait_for(lambda: page.execute_script(WINNER_PLACE), what="the winner")
        assert place["top"] >= place["stripBottom"] - 1, place
        assert place["bottom"] <= place["height"], place
        screenshot(page, f"winner-in-view-{width}x{height}", width, height)
        assert not js_errors(page)
