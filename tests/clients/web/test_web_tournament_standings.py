"""A tournament's standings on a phone, in Chromium against a real server, in each language: at
360 x 740 every column shows whole without scrolling sideways (short headings on a narrow screen,
each column still named in full for a screen reader), no word of a bot entrant's name ("bot:normal
1") is split across lines, axe finds nothing serious; at 1280 x 800 the headings are the full
words and the names' words are whole as well. A name of one word longer than the column may take
(a player's 24 letters) breaks in it rather than widen the table past a phone's screen."""

from __future__ import annotations

from typing import Any

import pytest
from accessibility_helpers import ax_nodes, axe_problems
from browser_helpers import chromium, js_errors, screenshot, wait_for
from i18n_helpers import BROWSER_TAGS, web_words
from selenium.webdriver.common.by import By
from server_helpers import ServerThread
from tournament_helpers import round_robin

from protocol.tournaments import TournamentUpdate

pytestmark = pytest.mark.browser

PHONE = (360, 740)
DESK = (1280, 800)
#: The standings' columns after the rank, by their words in the page's catalog.
COLUMNS = ("who", "points", "buchholz", "score", "played", "byes")

#: Where each cell of the standings lies against its scrolling region, measured in one go.
CELLS = """
const wrap = document.querySelector("#tournament-standings .scoreboard-wrap");
const box = wrap.getBoundingClientRect();
const cells = [...wrap.querySelectorAll("th, td")].map((cell) => {
  const r = cell.getBoundingClientRect();
  return { text: cell.innerText, left: r.left - box.left, right: r.right - box.left };
});
const heads = [...wrap.querySelectorAll("thead th")].map((th) => th.innerText.trim());
return { cells, heads, width: box.width, scrolls: wrap.scrollWidth - wrap.clientWidth,
         pageScrolls: document.documentElement.scrollWidth - innerWidth };
"""

#: The words of the players' names that the page broke across two lines (a name wraps at its
#: spaces, never inside a word such as "bot:normal").
BROKEN_WORDS = r"""
const broken = [];
for (const cell of document.querySelectorAll("#tournament-standings tbody td:nth-child(2)")) {
  const walker = document.createTreeWalker(cell, NodeFilter.SHOW_TEXT);
  for (let node = walker.nextNode(); node; node = walker.nextNode()) {
    for (const found of node.data.matchAll(/\S+/g)) {
      const range = document.createRange();
      range.setStart(node, found.index);
      range.setEnd(node, found.index + found[0].length);
      const tops = new Set([...range.getClientRects()].map((r) => Math.round(r.top)));
      if (tops.size > 1) broken.push(found[0]);
    }
  }
}
return broken;
"""


def finished_cup(server: ServerThread) -> str:
    """A round robin to 25 points of three bots, one of each level ("bot:easy 1", "bot:normal 1",
    "bot:hard 1"), made and started by Cat: its id."""
    bots = ["easy", "normal", "hard"]
    made = round_robin(server.server.url, "Cat", bots, name="Phone cup", target=25, start=True)
    started: TournamentUpdate = server.call(made)
    return started.tournament


@pytest.mark.parametrize("language", list(BROWSER_TAGS))
def test_every_standings_column_shows_on_a_phone_without_sideways_scrolling(
    language: str,
) -> None:
    with ServerThread(bot_delay=0.0) as server, chromium(*PHONE, BROWSER_TAGS[language]) as page:
        cup = finished_cup(server)
        page.get(f"{server.base}/#/tournament/{cup}")
        champion = web_words(language, "tourney.champion", name="")
        wait_for(
            lambda: page.find_element(By.ID, "tournament-champion").text.startswith(champion),
            timeout=120,
            what="the champion",
        )
        page.execute_script(
            "document.getElementById('tournament-standings').scrollIntoView({block: 'start'})"
        )
        screenshot(page, f"standings-{language}-360x740", *PHONE)
        seen: dict[str, Any] = page.execute_script(CELLS)
        assert seen["scrolls"] <= 0 and seen["pageScrolls"] <= 0, seen
        outside = [c for c in seen["cells"] if c["left"] < -0.5 or c["right"] > seen["width"] + 0.5]
        assert outside == [], seen
        assert len(seen["cells"]) == 7 * 4  # the heading row and three players, seven columns
        names = page.find_elements(By.CSS_SELECTOR, "#tournament-standings tbody td:nth-child(2)")
        assert sorted(name.text for name in names) == ["bot:easy 1", "bot:hard 1", "bot:normal 1"]
        assert page.execute_script(BROKEN_WORDS) == []

        # Each column keeps its whole name for a screen reader, whatever the heading shows.
        named = [node["name"] for node in ax_nodes(page) if node["role"] == "columnheader"]
        full = [web_words(language, f"tourney.col.{column}") for column in COLUMNS]
        assert named[1:] == full, named
        assert axe_problems(page) == []

        # On a wide screen the headings are the full words.
        screenshot(page, f"standings-{language}-1280x800", *DESK)
        wide: dict[str, Any] = page.execute_script(CELLS)
        assert wide["heads"][1:] == full, wide["heads"]
        assert page.execute_script(BROKEN_WORDS) == []
        assert js_errors(page) == []


#: The longest name the server takes, in one word.
ONE_LONG_WORD = "Abcdefghijklmnopqrstuvwx"


def started_cup_with_a_long_name(server: ServerThread) -> str:
    """A round robin of two normal bots and a player named `ONE_LONG_WORD`, who made, entered
    and started it: its id."""
    made = round_robin(
        server.server.url,
        ONE_LONG_WORD,
        ["normal", "normal"],
        name="Long names cup",
        enter=True,
        start=True,
    )
    started: TournamentUpdate = server.call(made)
    return started.tournament


@pytest.mark.parametrize("language", list(BROWSER_TAGS))
def test_a_name_of_one_long_word_breaks_rather_than_widen_the_standings_on_a_phone(
    language: str,
) -> None:
    with ServerThread(bot_delay=0.0) as server, chromium(*PHONE, BROWSER_TAGS[language]) as page:
        cup = started_cup_with_a_long_name(server)
        page.get(f"{server.base}/#/tournament/{cup}")
        wait_for(
            lambda: len(page.find_elements(By.CSS_SELECTOR, "#tournament-standings tbody tr")) == 3,
            what="the standings",
        )
        seen: dict[str, Any] = page.execute_script(CELLS)
        assert seen["scrolls"] <= 0 and seen["pageScrolls"] <= 0, seen
        # Only the long word breaks: the bots' "bot:normal" stay whole beside it.
        assert page.execute_script(BROKEN_WORDS) == [ONE_LONG_WORD]
        assert js_errors(page) == []
