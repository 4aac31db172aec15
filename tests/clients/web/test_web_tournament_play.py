"""A tournament played in the browser at a phone's 360 x 740, in Chromium against a real server:
Ann makes a round robin to 25 with two easy bots from the lobby and starts it; her page says
when her table is ready and takes her to it by itself (the ordinary join, into the seat kept for
her), and after each match keeps the finished table in sight (its winner, a bar counting down
back to the tournament, Back now) before it brings her back to the tournament's page with the
standings and the next pairings, to the champion. Her bye is said in words."""

from __future__ import annotations

import re
from functools import partial
from typing import Any

import pytest
from accessibility_helpers import axe_problems, focused
from browser_helpers import (
    PLAY_ON,
    assert_fits,
    chromium,
    js_errors,
    measure,
    open_lobby,
    press,
    start_against_a_bot,
    wait_for,
)
from selenium.webdriver.common.by import By
from selenium.webdriver.common.keys import Keys
from selenium.webdriver.remote.webdriver import WebDriver
from server_helpers import ServerThread, new_key
from ws_client_helpers import Client

from protocol.tournaments import TournamentUpdate

pytestmark = pytest.mark.browser

PHONE = (360, 740)

#: Where the page is: its path, the tournament's hash, its room, and the last `tournament`.
WHERE = """
const app = window.allfives;
const last = app.tourney.last;
return { path: location.pathname, hash: location.hash, phase: app.state.doc?.phase ?? null,
  you: app.state.doc?.you ?? null, table: last?.table ?? null, state: last?.state ?? null };
"""


def where(page: WebDriver) -> dict[str, Any]:
    """The page's place (WHERE)."""
    seen: dict[str, Any] = page.execute_script(WHERE)
    return seen


def text_of(page: WebDriver, selector: str) -> str:
    """The text of the element `selector` finds, read in one go."""
    text: str = page.find_element(By.CSS_SELECTOR, selector).text
    return text


def table_ready(page: WebDriver) -> str | None:
    """What the live region says once it says a table is ready, else None."""
    said: str = page.find_element(By.ID, "tournament-ready").text
    return said if "is ready" in said else None


def at_table(page: WebDriver) -> str:
    """Wait until the page sits at its table (path /r/ROOM, the match being played, Ann in a
    seat); that room."""

    def seated() -> str | None:
        seen = where(page)
        if seen["path"].startswith("/r/") and seen["you"] is not None:
            return str(seen["path"].removeprefix("/r/"))
        return None

    return wait_for(seated, timeout=30, what="Ann at her table")


def play_until_back(page: WebDriver) -> None:
    """Play Ann's first legal move on each of her turns until the page is back on the
    tournament's page."""

    def step() -> bool:
        if where(page)["hash"].startswith("#/tournament/"):
            return True
        page.execute_script(PLAY_ON)
        return False

    wait_for(step, timeout=120, what="the page back on the tournament's page")


def play_until_the_end_shows(page: WebDriver) -> str:
    """Play Ann's first legal move on each of her turns until her finished table shows its bar
    back to the tournament; what the bar shows."""

    def step() -> str | None:
        bars = page.find_elements(By.ID, "tournament-back-shown")
        if bars:
            return str(bars[0].text) or None
        page.execute_script(PLAY_ON)
        return None

    return wait_for(step, timeout=120, what="the finished table's bar back")


def test_ann_is_taken_to_each_table_and_back_to_the_standings_until_the_champion() -> None:
    with ServerThread(bot_delay=0.0) as server, chromium(*PHONE) as page:
        open_lobby(page, server.base + "/", "Ann")
        press(page, "new-tournament")
        page.find_element(By.ID, "new-tournament-name").send_keys("Quick cup")
        form = page.find_element(By.ID, "tournament-form")
        form.find_element(By.NAME, "target").send_keys("25")
        bots = form.find_element(By.NAME, "bots_easy")
        bots.clear()
        bots.send_keys("2")
        press(page, "create-tournament")
        wait_for(lambda: page.find_elements(By.ID, "tournament-start"), what="the host's page")
        handle = where(page)["hash"].removeprefix("#/tournament/")
        press(page, "tournament-start")

        played: list[str] = []
        for match in range(2):  # three in a round robin: Ann plays two rounds, sits one out
            # (the table's result may come a message before the next round's pairings)
            said = wait_for(partial(table_ready, page), what="her table ready")
            state = where(page)["state"]
            round_number = len(state["rounds"])
            ready = f"Your table for round {round_number} is ready: the page takes you there in 5"
            assert ready in said, said
            # A round Ann sits out is said in words, as hers.
            for bye in page.find_elements(By.CSS_SELECTOR, ".bye.yours"):
                assert bye.text == "Bye: you (Ann) sit this round out, and it counts as a win."
            if match:
                assert said.startswith("Your match is over: the standings and the next pairings")
                # Going at once, by the keyboard.
                page.find_element(By.ID, "tournament-go").send_keys(Keys.ENTER)
            room = at_table(page)
            assert room == where(page)["table"]
            played.append(room)
            # Its seats are kept for the entrants: the room's link is offered for watching,
            # not as a way for friends to join.
            link = page.find_element(By.ID, "room-link").text
            assert link.startswith(f"Others watch at {server.base}/r/{room}"), link
            assert_fits(measure(page))
            # The first match's end stays until Back now; the second's goes back by itself.
            seconds = 600
            page.execute_script(f"window.allfives.tourney.lingerSeconds = {seconds}")
            shown = play_until_the_end_shows(page)
            assert re.fullmatch(r"Back to the tournament in \d+ s", shown), shown
            # Still at the finished table, its end in sight: who won the match.
            seen = where(page)
            assert seen["path"] == f"/r/{room}" and seen["phase"] == "finished", seen
            body = page.find_element(By.TAG_NAME, "body").text
            assert re.search(r"\S wins the match", body), body
            said = wait_for(
                lambda: page.find_element(By.ID, "tournament-back-said").text, what="the bar said"
            )
            assert said == (
                f"Your match is over: back to the tournament in {seconds} seconds, or at Back now."
            )
            assert (focused(page) or {}).get("id") != "tournament-back-now"  # not taken
            if match == 0:
                assert_fits(measure(page))
                assert axe_problems(page) == []
                # Her next table is ready meanwhile: it waits for the countdown, not counted
                # down under the finished table; back on the tournament's page it is (as any).
                going = wait_for(
                    lambda: page.execute_script("return window.allfives.tourney.going"),
                    timeout=60,
                    what="her next table known while the finished one is in sight",
                )
                assert going["at"] is None and where(page)["path"] == f"/r/{room}", going
                page.find_element(By.ID, "tournament-back-now").send_keys(Keys.ENTER)
            else:  # the seconds run out a second from now
                page.execute_script("window.allfives.tourney.lingering.at = Date.now() + 1000")
            play_until_back(page)
            assert not page.find_elements(By.ID, "tournament-back")
            assert where(page)["hash"] == f"#/tournament/{handle}"
            # The keyboard starts from the tournament's name, not from where the table had it.
            assert (focused(page) or {}).get("id") == "tournament-name"
            # Her table's line has its scores, and the standings count her match.
            line = wait_for(
                partial(text_of, page, f".table-line[data-room='{room}']"), what="her table's line"
            )  # (read once: the line is drawn again as its game is archived)
            assert re.search(r"\bAnn \(you\): \d+\b", line), line
            # (then, once archived, the link to its game)
            assert re.search(r"· finished( ·\s+review the game of round \d, table 1)?$", line), line
            played_cell = "#tournament-standings tr.yours td:nth-of-type(5)"  # matches played
            assert wait_for(partial(text_of, page, played_cell)) == str(match + 1)

        assert len(set(played)) == 2
        wait_for(lambda: where(page)["state"]["phase"] == "finished", timeout=60, what="the end")
        champion = wait_for(
            lambda: page.find_element(By.ID, "tournament-champion").text, what="the champion"
        )
        assert champion.startswith("Champion: ")
        standings = page.find_elements(By.CSS_SELECTOR, "#tournament-standings tbody tr")
        assert len(standings) == 3
        assert champion == f"Champion: {standings[0].find_elements(By.TAG_NAME, 'td')[0].text}"
        assert page.find_element(By.ID, "standings-title").text == "Final standings"
        # Ann sat one round out (in a round robin of three, each does once): said in its round.
        assert len(page.find_elements(By.CSS_SELECTOR, ".bye.yours")) == 1
        assert_fits(measure(page))
        assert js_errors(page) == []


def test_a_player_at_another_match_is_not_taken_from_it_but_offered_the_table() -> None:
    """Ann entered Cat's tournament, then sat down to a match against a bot: when the tournament
    starts, her page keeps her at that match; the tournament's page says her table waits, and
    Go now takes her there."""
    with ServerThread(bot_delay=0.2) as server, chromium(*PHONE) as page:
        cat_key = new_key()

        async def make() -> tuple[Client, str]:
            cat = await Client.open(server.server.url, "Cat", key=cat_key)
            reply = await cat.request(
                "create_tournament", name="Cup", format="round_robin", rules={"players": 2}
            )
            assert isinstance(reply, TournamentUpdate), reply
            return cat, reply.tournament

        cat, handle = server.call(make())
        page.get(f"{server.base}/#/tournament/{handle}")
        field = wait_for(lambda: page.find_element(By.ID, "tournament-entrant"), what="the form")
        field.clear()
        field.send_keys("Ann")
        press(page, "tournament-join")
        wait_for(lambda: page.find_elements(By.ID, "tournament-leave"), what="Ann in")
        page.execute_script("location.hash = ''")
        start_against_a_bot(page, server, 500)
        wait_for(lambda: where(page)["phase"] == "playing", what="Ann's match against a bot")
        casual = where(page)["path"]

        async def bot_and_start() -> None:
            added = await cat.request("join_tournament", tournament=handle, bot="easy")
            assert isinstance(added, TournamentUpdate), added
            started = await cat.request("start_tournament", tournament=handle)
            assert isinstance(started, TournamentUpdate), started

        server.call(bot_and_start())
        going = wait_for(
            lambda: page.execute_script("return window.allfives.tourney.going"),
            what="her table known to the page",
        )
        assert going["at"] is None  # offered, not counted down
        assert where(page)["path"] == casual

        page.execute_script("location.hash = arguments[0]", f"#/tournament/{handle}")
        said = wait_for(partial(table_ready, page), what="the table offered")
        assert (
            said == "Your table for round 1 is ready, and waits for you while you play here. Go now"
        )
        press(page, "tournament-go")
        assert at_table(page) == going["table"]
        assert js_errors(page) == []
