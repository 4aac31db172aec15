"""An archived game's link in Chromium: the game is asked for on the page's WebSocket.

Ann plays an unrated private room's match to its end (her key's, through the Python client).
Its link (#/game/ID) opened by a stranger (a fresh profile, so a guest) says "No such game." in
the page's language, as an id that never was does; opened on a device that holds Ann's key, it
replays the game and shows its review, or says the server is busy with other reviews. Either way the page asks nothing of `/api/games/ID`
(its positions and review included: a refused request is a 404 the browser itself logs), and
the browser's console log holds no entry at all.
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any, cast

import pytest
from browser_helpers import chromium, screenshot, wait_for
from i18n_helpers import web_prefix, web_words
from selenium.webdriver.common.by import By
from selenium.webdriver.remote.webdriver import WebDriver
from server_helpers import ServerThread, new_key
from storage_helpers import Held, archived_game
from ws_client_helpers import Client, finish_match, until_archived

from protocol import errors
from protocol import messages as msg
from protocol.records import Record

pytestmark = pytest.mark.browser

#: The API's paths the page fetched.
API_ASKED = """
return performance.getEntriesByType('resource')
  .map((entry) => new URL(entry.name).pathname)
  .filter((path) => path.startsWith('/api/'));
"""


def private_game(server: ServerThread, key: str) -> tuple[str, Record]:
    """Ann (with `key`) plays an unrated private room's match against the easy bot: its id
    and its record."""

    async def play() -> tuple[str, Record]:
        ann = await finish_match(server.server.url, "Ann", key, public=False)
        await until_archived(ann)
        game = str(ann.document["game_id"])
        reply = await ann.request("record")
        assert isinstance(reply, msg.RecordReply), reply
        await ann.close()
        return game, reply.record

    played: tuple[str, Record] = server.call(play(), timeout=60)
    return played


@contextmanager
def two_games_reviews_held(
    held: Held, waiting: int
) -> Iterator[tuple[ServerThread, WebDriver, str, str, str]]:
    """A server whose reviews wait for `held` (`waiting` of them at most), a phone's page, and
    two private games of Ann's: the server, the page, her key and the two games' ids."""
    key = new_key()
    config = {"bot_delay": 0.0, "review_budget_ms": 2.0, "max_reviews_waiting": waiting}
    with ServerThread(**config) as server, chromium(360, 740) as driver:
        one, _ = private_game(server, key)
        two, _ = private_game(server, key)
        server.server.reviews.compute = held
        yield server, driver, key, one, two


def console(driver: WebDriver) -> list[dict[str, Any]]:
    """Every entry of the browser's console log since it was last read, whatever its level."""
    entries: list[dict[str, Any]] = cast(Any, driver).get_log("browser")
    return entries


def refusal(driver: WebDriver) -> list[str]:
    alerts = driver.find_elements(By.CSS_SELECTOR, "#page-body [role=alert]")
    return [alert.text for alert in alerts]


@pytest.mark.parametrize("language", ["en", "cs"])
def test_a_strangers_link_to_a_private_game_says_no_such_game_with_a_clean_console(
    language: str,
) -> None:
    with (
        ServerThread(bot_delay=0.0) as server,
        chromium(360, 740, language=f"{language}-CZ" if language == "cs" else "en-US") as driver,
    ):
        game, _ = private_game(server, new_key())
        said = web_words(language, "api.not_found.game")
        for id in (game, "AbCdEfGh1234"):  # the private game, and one that never was
            driver.get(f"{server.base}/#/game/{id}")
            assert wait_for(lambda: refusal(driver), what="the refusal") == [said]
            assert not driver.find_elements(By.ID, "replay")
            assert driver.execute_script(API_ASKED) == []
            assert console(driver) == []
        shot = screenshot(driver, f"archived-game-refused-{language}-360x740", 360, 740)
        assert Path(shot).exists()


def as_ann(driver: WebDriver, server: ServerThread, key: str) -> None:
    """This device holds Ann's key and name, as the page keeps them."""
    driver.get(f"{server.base}/web/i18n/en.json")
    driver.execute_script(
        "localStorage.setItem('allfives.key', arguments[0]);"
        "localStorage.setItem('allfives.name', 'Ann');",
        key,
    )


def test_its_players_link_replays_the_private_game_with_a_clean_console() -> None:
    key = new_key()
    with ServerThread(bot_delay=0.0, review_budget_ms=2.0) as server, chromium(360, 740) as driver:
        game, record = private_game(server, key)
        as_ann(driver, server, key)
        driver.get(f"{server.base}/#/game/{game}")
        replay = wait_for(lambda: driver.find_element(By.ID, "replay"), what="the replay")
        assert (replay.get_attribute("data-hand"), replay.get_attribute("data-move")) == ("1", "0")
        hands = [b.text for b in driver.find_elements(By.CSS_SELECTOR, ".replay-hand > b")]
        assert hands[0] == "Ann" and len(hands) == len(record.names), hands
        driver.find_element(By.ID, "replay-last").click()
        scores = wait_for(
            lambda: (
                [
                    int(s.text)
                    for s in driver.find_elements(By.CSS_SELECTOR, "#replay-scores .score")
                ]
                == record.scores
                or None
            ),
            what="the final scores",
        )
        assert scores
        # The review, Ann's to see, came on the connection too.
        reviewed = wait_for(
            lambda: driver.find_elements(By.CSS_SELECTOR, "#review-summary > li"), 60
        )
        assert len(reviewed) == len(record.names) and reviewed[0].text.startswith("Ann")
        assert not refusal(driver)
        assert driver.execute_script(API_ASKED) == []
        assert console(driver) == []
        screenshot(driver, "archived-game-player-360x740", 360, 740)


def test_a_review_the_server_is_too_busy_for_is_said_with_a_clean_console() -> None:
    held = Held()
    with two_games_reviews_held(held, 1) as (server, driver, key, one, two):

        async def review_of_one() -> Client:
            ann = await Client.open(server.server.url, "Ann", key=key)
            await ann.send("review", game=one)
            return ann

        other: Client = server.call(review_of_one())
        try:
            wait_for(lambda: held.started.is_set(), what="the lane working on the other game")
            as_ann(driver, server, key)
            driver.get(f"{server.base}/#/game/{two}")
            wait_for(lambda: driver.find_element(By.ID, "replay"), what="the replay")
            # How long to wait, as the server said it (`retry_after`).
            busy = re.escape(web_prefix("en", "review.busy")) + r"(\d+)"
            status = wait_for(
                lambda: re.search(busy, driver.find_element(By.ID, "review").text),
                what="the busy review with its seconds",
            )
            seconds = int(status.group(1))
            assert seconds >= 1
            said = web_words("en", "review.busy", count=seconds)
            assert said in driver.find_element(By.ID, "review").text
            assert driver.find_elements(By.ID, "review-retry")  # and a way to ask again
            assert driver.execute_script(API_ASKED) == []
            assert console(driver) == []
        finally:
            held.release.set()
            server.call(other.close())


def test_a_refused_hello_is_said_on_the_games_page_rather_than_waited_on() -> None:
    """The player of this device chose the name "Player", which another player holds: the
    server refuses the hello, and with it the game asked for under it."""
    with ServerThread(bot_delay=0.0) as server, chromium(360, 740) as driver:
        game, _ = private_game(server, new_key())
        holder: Client = server.call(Client.open(server.server.url, "Player", key=new_key()))
        driver.get(f"{server.base}/web/i18n/en.json")
        driver.execute_script("localStorage.setItem('allfives.name', 'Player');")
        driver.get(f"{server.base}/#/game/{game}")
        said = wait_for(lambda: refusal(driver), what="the refusal")
        why = web_words("en", "error.name_taken")
        assert said == [web_words("en", "error.change_name", reason=why)]
        assert console(driver) == []
        server.call(holder.close())


def test_a_visitor_without_a_name_opens_a_public_game_whose_default_name_is_held() -> None:
    """The page's default name, "Player", claimed by someone's key: a visitor who never chose
    a name still gets the public game its link names (the page says hello without a name)."""
    with ServerThread(bot_delay=0.0, review_budget_ms=2.0) as server, chromium(360, 740) as driver:
        game: str = server.call(archived_game(server.server, "Ann", new_key()), timeout=60)
        squatter: Client = server.call(Client.open(server.server.url, "Player", key=new_key()))
        driver.get(f"{server.base}/#/game/{game}")
        replay = wait_for(lambda: driver.find_element(By.ID, "replay"), what="the replay")
        assert replay.get_attribute("data-hand") == "1"
        hands = [b.text for b in driver.find_elements(By.CSS_SELECTOR, ".replay-hand > b")]
        assert hands[0] == "Ann", hands
        reviewed = wait_for(
            lambda: driver.find_elements(By.CSS_SELECTOR, "#review-summary > li"), 60
        )
        assert reviewed[0].text.startswith("Ann")
        assert not refusal(driver)
        assert driver.find_element(By.ID, "notice").text == ""
        assert driver.find_element(By.ID, "banner").get_attribute("hidden") is not None
        assert console(driver) == []
        server.call(squatter.close())


class HeldThenBroken(Held):
    """A review function that waits until released, then answers what is not a review."""

    def __call__(self, record: bytes, budget_ms: float) -> bytes:
        super().__call__(record, budget_ms)
        return b'{"not": "a review"}'


def test_a_late_answer_for_the_game_left_is_not_taken_for_the_game_shown() -> None:
    """Game one's review is still worked out when the page moves to game two; one's failure,
    coming late, is neither said in two's review nor in the notice."""
    held = HeldThenBroken()
    with two_games_reviews_held(held, 4) as (server, driver, key, one, two):
        as_ann(driver, server, key)
        driver.get(f"{server.base}/#/game/{one}")
        wait_for(lambda: driver.find_element(By.ID, "replay"), what="game one's replay")
        wait_for(lambda: held.started.is_set(), what="game one's review worked out")
        driver.get(f"{server.base}/#/game/{two}")
        wait_for(lambda: driver.find_element(By.ID, "replay"), what="game two's replay")
        # One review at a time per connection: two's is busy while one's is worked out.
        busy = web_words("en", "review.busy_soon")
        wait_for(lambda: busy in driver.find_element(By.ID, "review").text or None, what="busy")
        held.release.set()
        archived = server.server.sessions.archived
        wait_for(lambda: not archived.reviewing or None, what="one's review refused")
        # Asked again, two's review fails as one's did: said there, once, once its answer came
        # (after one's, on the same connection).
        driver.find_element(By.ID, "review-retry").click()
        failed = web_words("en", "error.unavailable")
        wait_for(lambda: failed in driver.find_element(By.ID, "review").text or None, what="two's")
        assert driver.find_element(By.ID, "notice").text == ""
        assert console(driver) == []


def test_a_game_asked_while_offline_is_asked_once_on_reconnecting() -> None:
    """The page's connection drops and the game is asked for before it is back: asked once
    (one refusal from the server, said once), not again by the reconnection as well."""
    with ServerThread(bot_delay=0.0) as server, chromium(360, 740) as driver:
        game, _ = private_game(server, new_key())
        public: str = server.call(archived_game(server.server, "Bea", new_key()), timeout=60)
        refused = server.server.sessions.metrics.errors
        driver.get(f"{server.base}/")
        connected = web_words("en", "status.connected")
        wait_for(lambda: driver.find_element(By.ID, "status").text == connected, what="online")
        driver.execute_script(
            f"window.allfives.connection.socket.close(); location.hash = '#/game/{game}';"
        )
        said = wait_for(lambda: refusal(driver), what="the refusal")
        assert said == [web_words("en", "api.not_found.game")]
        # Another game asked after it: once it is shown, all the first one's answers were read.
        driver.execute_script(f"location.hash = '#/game/{public}';")
        wait_for(lambda: driver.find_element(By.ID, "replay"), what="the public game")
        assert refused[errors.NO_SUCH_GAME] == 1
        assert driver.find_element(By.ID, "notice").text == ""
        assert console(driver) == []
