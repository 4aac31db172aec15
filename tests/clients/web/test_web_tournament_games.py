"""A finished tournament's page in Chromium against a real server: each finished table links to
its archived game, and the link opens that game's review page (`#/game/ID`), whose replay ends
on the table's scores."""

from __future__ import annotations

import re
from typing import Any

import pytest
from browser_helpers import chromium, js_errors, wait_for
from client_helpers import bots_tournament_with_games
from selenium.webdriver.common.by import By
from selenium.webdriver.remote.webdriver import WebDriver
from server_helpers import ServerThread

from protocol.tournaments import TournamentView

pytestmark = pytest.mark.browser

PHONE = (360, 740)

#: The scores the replay shows now, or null before it is drawn.
REPLAY_SCORES = """
if (!document.getElementById("replay")) return null;
return [...document.querySelectorAll("#replay-scores .score")].map((s) => Number(s.textContent));
"""


def replay_scores(page: WebDriver) -> list[int] | None:
    shown: Any = page.execute_script(REPLAY_SCORES)
    return shown if shown else None


def test_each_finished_table_links_to_its_game_and_the_link_opens_its_review() -> None:
    with ServerThread() as server, chromium(*PHONE) as page:
        view: TournamentView = server.call(bots_tournament_with_games(server.server.url))
        tables = [table for played in view.rounds for table in played.tables]
        page.get(f"{server.base}/#/tournament/{view.code}")
        links = wait_for(
            lambda: page.find_elements(By.CSS_SELECTOR, "#tournament-rounds .game-link"),
            what="the games' links",
        )
        assert len(links) == len(tables) == 3
        rounds = [number for number, played in enumerate(view.rounds, 1) for _ in played.tables]
        for round_number, table in zip(rounds, tables, strict=True):
            assert table.game is not None and table.room is not None
            line = page.find_element(By.CSS_SELECTOR, f"li.table-line[data-room='{table.room}']")
            link = line.find_element(By.CSS_SELECTOR, ".game-link")
            assert str(link.get_attribute("href")).endswith(f"#/game/{table.game}")
            # Each link names its round as well as its table, so a list of the page's links
            # (as a screen reader gives it) tells one game from another.
            assert re.fullmatch(rf"review the game of round {round_number}, table \d", link.text)

        first = tables[0]
        line = page.find_element(By.CSS_SELECTOR, f"li.table-line[data-room='{first.room}']")
        line.find_element(By.CSS_SELECTOR, ".game-link").click()
        wait_for(lambda: page.find_elements(By.ID, "replay-last"), 60, "the game's review page")
        assert page.current_url.endswith(f"#/game/{first.game}")
        page.find_element(By.ID, "replay-last").click()
        shown = wait_for(
            lambda: (scores := replay_scores(page)) == first.scores and scores,
            what="the replay's last step",
        )
        assert shown == first.scores
        assert js_errors(page) == []
