"""Tournaments in the browser table, in Chromium against a real server: the lobby lists the public
ones (and never a private one), a player makes one from the lobby's form and lands on its page, a
second player opens the shared link and enters, and the host's page shows them at once (it
follows the tournament); the host starts it and both pages take their players to their table; a
private tournament is found by its whole link only, and the page says
so without a line in the console; a refusal is said on the page and changes nothing."""

from __future__ import annotations

import re
from functools import partial
from typing import Any

import pytest
from accessibility_helpers import focused, keys, tab_to
from browser_helpers import chromium, js_errors, open_lobby, press, wait_for
from selenium.webdriver.common.by import By
from selenium.webdriver.common.keys import Keys
from selenium.webdriver.remote.webdriver import WebDriver
from selenium.webdriver.remote.webelement import WebElement
from selenium.webdriver.support.ui import Select
from server_helpers import ServerThread, new_key
from ws_client_helpers import Client

from protocol.tournaments import TournamentUpdate

pytestmark = pytest.mark.browser

PHONE = (360, 740)
#: Cat's key: the one player who makes the tournaments a test needs ready-made.
CAT = new_key()


def made(server: ServerThread, name: str, **fields: Any) -> TournamentUpdate:
    """Cat, a player with a key, makes a tournament (a public round robin of two unless told)."""

    async def make() -> TournamentUpdate:
        cat = await Client.open(server.server.url, "Cat", key=CAT)
        message = {"format": "round_robin", "rules": {"players": 2}, **fields}
        reply = await cat.request("create_tournament", name=name, **message)
        assert isinstance(reply, TournamentUpdate), reply
        return reply

    update: TournamentUpdate = server.call(make())
    return update


def entrants(page: WebDriver) -> list[str]:
    """The entrants the tournament's page lists, as read."""
    found = page.find_elements(By.CSS_SELECTOR, "#tournament-entrants .entrant-name")
    return [name.text for name in found]


def seated_in(page: WebDriver) -> str | None:
    """The room the page sits in (path /r/ROOM, a seat of its own), or None."""
    seen: str | None = page.execute_script(
        "const app = window.allfives;"
        "return app.state.doc && app.state.doc.you !== null ? app.state.room : null;"
    )
    return seen


def ready_said(page: WebDriver) -> str:
    """What the tournament page's live region says."""
    said: str = page.find_element(By.ID, "tournament-ready").text
    return said


def test_the_lobby_lists_a_public_tournament_and_its_link_opens_its_page() -> None:
    with ServerThread() as server, chromium(*PHONE) as page:
        cup = made(server, "Friday cup", bots=["easy", "hard"], rules={"players": 2, "target": 50})
        made(server, "Secret cup", rules={"players": 2, "public": False})
        open_lobby(page, server.base + "/", "Ann")
        listed = wait_for(
            lambda: page.find_elements(By.CSS_SELECTOR, "#tournaments-list li"),
            what="the tournaments listed",
        )
        assert [item.get_attribute("data-tournament") for item in listed] == [cup.tournament]
        line = " ".join(listed[0].text.split())
        assert line.startswith("Friday cup · Round robin · tables of 2 · to 50 · 2 entrants")
        assert "host Cat" in line and "open for entrants" in line
        assert "Secret" not in page.find_element(By.ID, "tournaments").text

        listed[0].find_element(By.CSS_SELECTOR, "a").click()
        wait_for(
            lambda: page.find_element(By.ID, "tournament-name").text == "Friday cup",
            what="the tournament's page",
        )
        assert page.title == f"All Fives · tournament {cup.tournament}"
        assert entrants(page) == ["bot:easy 1", "bot:hard 1"]
        assert "Cat starts the tournament." in page.find_element(By.ID, "tournament").text
        # Not the host: no start, no bots to add, nobody to take out.
        assert not page.find_elements(By.ID, "tournament-start")
        assert not page.find_elements(By.CSS_SELECTOR, ".take-out")
        assert js_errors(page) == []


def test_a_player_makes_one_a_second_enters_by_its_link_and_the_host_sees_it_at_once() -> None:
    with (
        ServerThread() as server,
        chromium(1280, 800) as ann,
        chromium(*PHONE) as bea,
    ):
        open_lobby(ann, server.base + "/", "Ann")
        press(ann, "new-tournament")
        ann.find_element(By.ID, "new-tournament-name").send_keys("Friday cup")
        form = ann.find_element(By.ID, "tournament-form")
        Select(form.find_element(By.NAME, "format")).select_by_value("swiss")
        rounds = form.find_element(By.NAME, "rounds")
        rounds.clear()
        rounds.send_keys("2")
        form.find_element(By.NAME, "target").send_keys("50")
        bots = form.find_element(By.NAME, "bots_normal")
        bots.clear()
        bots.send_keys("1")
        press(ann, "create-tournament")
        # The bots enter as the tournament is made, the host next ("I play in it too").
        wait_for(lambda: entrants(ann) == ["bot:normal 1", "Ann (you)"], what="the bot and Ann in")
        handle = ann.execute_script("return location.hash").removeprefix("#/tournament/")
        assert len(handle) == 5 and handle.isupper()
        about = ann.find_element(By.ID, "tournament-about").text
        assert about == "Swiss · tables of 2 · to 50"
        assert "round" not in ann.find_element(By.ID, "tournament-phase").text
        link = ann.find_element(By.ID, "tournament-link").text
        assert link == f"{server.base}/#/tournament/{handle}"

        # Bea opens the shared link, names herself there and enters.
        bea.get(link)
        wait_for(lambda: entrants(bea) == ["bot:normal 1", "Ann"], what="Bea sees the entrants")
        field = bea.find_element(By.ID, "tournament-entrant")
        field.clear()
        field.send_keys("Bea")
        press(bea, "tournament-join")
        wait_for(lambda: entrants(bea) == ["bot:normal 1", "Ann", "Bea (you)"], what="Bea in")
        assert bea.find_element(By.ID, "tournament-you").text.startswith("You play as Bea.")
        # Ann's page follows the tournament: Bea is there without a reload.
        wait_for(lambda: entrants(ann) == ["bot:normal 1", "Ann (you)", "Bea"], what="Ann sees Bea")

        # The host takes the bot out; Bea leaves; both pages follow.
        take_out = ann.find_elements(By.CSS_SELECTOR, ".take-out")
        assert [b.get_attribute("aria-label") for b in take_out] == [
            "Take out bot:normal 1",
            "Take out Ann",
            "Take out Bea",
        ]
        take_out[0].click()
        wait_for(lambda: entrants(bea) == ["Ann", "Bea (you)"], what="the bot out")
        press(bea, "tournament-leave")
        wait_for(lambda: entrants(ann) == ["Ann (you)"], what="Bea out, on Ann's page")

        # Bea enters again, and the host starts: one table, both taken to it by their pages.
        press(bea, "tournament-join")
        wait_for(lambda: entrants(ann) == ["Ann (you)", "Bea"], what="Bea in again")
        press(ann, "tournament-start")
        for page in (ann, bea):
            said = wait_for(partial(ready_said, page), what="ready")
            assert said.startswith("Your table for round 1 is ready"), said
            assert page.find_element(By.ID, "tournament-phase").text.startswith("round 1 of 2")
        tables = [
            " ".join(li.text.split()) for li in bea.find_elements(By.CSS_SELECTOR, ".table-line")
        ]
        assert len(tables) == 1
        assert re.fullmatch(
            r"Table 1: (Ann – Bea \(you\)|Bea \(you\) – Ann) · your table \(room \w+\)", tables[0]
        )
        rooms = [wait_for(partial(seated_in, page), what="seated") for page in (ann, bea)]
        assert rooms[0] == rooms[1]
        assert js_errors(ann) == [] and js_errors(bea) == []


def test_a_private_tournament_is_found_by_its_whole_link_only() -> None:
    with ServerThread() as server, chromium(*PHONE) as page:
        secret = made(server, "Secret cup", rules={"players": 2, "public": False})
        code, invite = secret.tournament.split("-")
        page.get(f"{server.base}/#/tournament/{code}")
        said = wait_for(
            lambda: page.find_element(By.ID, "tournament-missing").text, what="the refusal"
        )
        assert said.startswith("No such tournament")
        page.get(f"{server.base}/#/tournament/{code}-{invite}")
        page.refresh()
        wait_for(
            lambda: page.find_element(By.ID, "tournament-name").text == "Secret cup",
            what="the private tournament",
        )
        assert "private" in page.find_element(By.ID, "tournament-phase").text
        assert js_errors(page) == []


def test_a_link_with_the_code_in_small_letters_opens_the_tournament() -> None:
    with ServerThread() as server, chromium(*PHONE) as page:
        cup = made(server, "Friday cup")
        secret = made(server, "Secret cup", rules={"players": 2, "public": False})
        page.get(f"{server.base}/#/tournament/{cup.tournament.lower()}")
        wait_for(
            lambda: page.find_element(By.ID, "tournament-name").text == "Friday cup",
            what="the tournament by its code in small letters",
        )
        assert page.find_element(By.ID, "tournament-link").text.endswith(
            f"#/tournament/{cup.tournament}"
        )
        page.get(f"{server.base}/#/tournament/{secret.tournament.lower()}")
        wait_for(
            lambda: page.find_element(By.ID, "tournament-name").text == "Secret cup",
            what="the private tournament by its whole link in small letters",
        )
        # Typed into the address bar of a page open at the lobby, as much as opened afresh.
        open_lobby(page, server.base + "/", "Ann")
        page.execute_script(
            "location.hash = arguments[0]", f"#/tournament/{cup.tournament.lower()}"
        )
        wait_for(
            lambda: page.find_element(By.ID, "tournament-name").text == "Friday cup",
            what="the tournament by its code in small letters, from the lobby",
        )
        assert js_errors(page) == []


@pytest.mark.parametrize("asked", ["letters", "wrong invite"])
def test_a_private_tournament_seen_is_not_shown_again_by_a_link_without_its_invite(
    asked: str,
) -> None:
    with ServerThread() as server, chromium(*PHONE) as page:
        secret = made(server, "Secret cup", rules={"players": 2, "public": False})
        code, invite = secret.tournament.split("-")
        page.get(f"{server.base}/#/tournament/{secret.tournament}")
        wait_for(
            lambda: page.find_element(By.ID, "tournament-name").text == "Secret cup",
            what="the private tournament by its whole link",
        )
        # The same page, another link: the page asks the server for what it names.
        wrong = code if asked == "letters" else f"{code}-{'Z' * len(invite)}"
        page.execute_script("location.hash = arguments[0]", f"#/tournament/{wrong}")
        said = wait_for(
            lambda: page.find_element(By.ID, "tournament-missing").text, what="the refusal"
        )
        assert said.startswith("No such tournament")
        shown = page.find_element(By.ID, "tournament").text
        assert "Secret cup" not in shown and invite not in shown
        assert js_errors(page) == []


def test_a_start_refused_is_said_on_the_page_and_changes_nothing() -> None:
    """The host starts with nobody entered: refused, said on the page, still open."""
    with ServerThread() as server, chromium(*PHONE) as page:
        open_lobby(page, server.base + "/", "Ann")
        press(page, "new-tournament")
        page.find_element(By.ID, "new-tournament-name").send_keys("Empty cup")
        page.find_element(By.CSS_SELECTOR, "#tournament-form [name=play]").click()
        press(page, "create-tournament")
        wait_for(lambda: page.find_elements(By.ID, "tournament-start"), what="the host's page")
        assert entrants(page) == []
        press(page, "tournament-start")
        said = wait_for(lambda: page.find_element(By.ID, "tournament-note").text, what="refused")
        # Why, in words the host can act on (not "the server found that request invalid").
        assert said == (
            "Refused (starting the tournament): too few entrants to start it: at least as many"
            " as a table seats (with fixed partners, an even number)"
        ), said
        assert page.find_element(By.ID, "tournament-phase").text.startswith("open for entrants")
        assert js_errors(page) == []


def test_a_tournament_past_the_days_allowance_is_refused_in_words_that_say_so() -> None:
    """The address made its one tournament of the day: the form's next one is refused, and the
    page says why (not "too many messages at once", which waiting a moment would mend)."""
    with ServerThread(max_tournaments_per_ip=1) as server, chromium(*PHONE) as page:
        made(server, "Friday cup")
        open_lobby(page, server.base + "/", "Ann")
        press(page, "new-tournament")
        page.find_element(By.ID, "new-tournament-name").send_keys("Saturday cup")
        press(page, "create-tournament")
        said = wait_for(lambda: page.find_element(By.ID, "notice").text, what="refused")
        assert said == (
            "Refused (new tournament): this address has made as many tournaments as the server"
            " allows in a day: try again tomorrow"
        ), said
        assert not page.execute_script("return location.hash").startswith("#/tournament/")
        assert js_errors(page) == []


def test_a_name_another_player_holds_is_refused_on_the_tournaments_page() -> None:
    """Typed on the tournament's page, the name goes with a fresh hello; the server's refusal of
    it is said there, where it is changed, and nobody entered."""
    with ServerThread() as server, chromium(*PHONE) as page:
        cup = made(server, "Friday cup")

        async def enter() -> None:
            dan = await Client.open(server.server.url, "Dan", key=new_key())
            reply = await dan.request("join_tournament", tournament=cup.tournament)
            assert isinstance(reply, TournamentUpdate), reply

        server.call(enter())
        page.get(f"{server.base}/#/tournament/{cup.tournament}")
        wait_for(lambda: entrants(page) == ["Dan"], what="Dan in")
        field = page.find_element(By.ID, "tournament-entrant")
        field.clear()
        field.send_keys("Dan")
        press(page, "tournament-join")
        said = wait_for(lambda: page.find_element(By.ID, "tournament-note").text, what="refused")
        assert said.startswith("Change your name and try again: that name belongs to another")
        assert entrants(page) == ["Dan"]


def test_the_form_makes_a_private_tournament_at_tables_of_four_with_fixed_partners() -> None:
    """The form's choices reach the server: four at a table in teams, fixed partners, private,
    a turn clock; the page's link then carries the invite."""
    with ServerThread() as server, chromium(1280, 800) as page:
        open_lobby(page, server.base + "/", "Ann")
        press(page, "new-tournament")
        form = page.find_element(By.ID, "tournament-form")
        partners = form.find_element(By.NAME, "partners")
        assert not partners.is_displayed()  # only at tables of four in teams
        page.find_element(By.ID, "new-tournament-name").send_keys("Pairs")
        Select(form.find_element(By.NAME, "players")).select_by_value("4")
        assert partners.is_displayed()
        Select(partners).select_by_value("fixed")
        form.find_element(By.NAME, "turn_seconds").send_keys("30")
        form.find_element(By.NAME, "private").click()
        bots = form.find_element(By.NAME, "bots_hard")
        bots.clear()
        bots.send_keys("3")
        press(page, "create-tournament")
        wait_for(lambda: len(entrants(page)) == 4, what="three bots and Ann")
        about = page.find_element(By.ID, "tournament-about").text
        assert about == ("Round robin · tables of 4 in teams · fixed partners · 30 seconds a turn")
        assert page.find_element(By.ID, "tournament-phase").text.endswith("· private")
        handle = page.execute_script("return location.hash").removeprefix("#/tournament/")
        code, invite = handle.split("-")
        assert len(code) == 5 and invite
        assert page.find_element(By.ID, "tournament-link").text.endswith(f"/#/tournament/{handle}")


def test_before_the_start_fixed_partners_are_shown_as_the_teams_they_make() -> None:
    """Partners are the 1st and 2nd to enter, the 3rd and 4th: the page says so before the
    start, and who waits for a partner, and says it again when someone enters."""
    with ServerThread() as server, chromium(*PHONE) as page:
        cup = made(server, "Pairs", bots=["hard"] * 3, rules={"players": 4}, partners="fixed")
        page.get(f"{server.base}/#/tournament/{cup.tournament}")
        names = wait_for(lambda: entrants(page), what="the entrants")

        def expected(names: list[str]) -> str:
            teams = [f"{names[n]} & {names[n + 1]}" for n in range(0, len(names) - 1, 2)]
            if len(names) % 2:
                teams.append(f"{names[-1]} waits for a partner")
            return "Teams as they stand (partners in order of entry): " + "; ".join(teams)

        teams = page.find_element(By.ID, "tournament-teams")
        assert teams.text == expected(names), teams.text

        async def enter() -> None:
            dan = await Client.open(server.server.url, "Dan", key=new_key())
            reply = await dan.request("join_tournament", tournament=cup.tournament)
            assert isinstance(reply, TournamentUpdate), reply

        server.call(enter())
        grown = wait_for(
            lambda: found if len(found := entrants(page)) > len(names) else None, what="Dan in"
        )
        assert grown[-1] == "Dan"
        wait_for(
            lambda: page.find_element(By.ID, "tournament-teams").text == expected(grown),
            what="the teams with Dan",
        )
        assert js_errors(page) == []


def test_the_host_adds_bots_by_the_keyboard_alone_and_the_focus_stays_on_the_button() -> None:
    """Each change draws the page again; the control that had the focus keeps it, so Enter
    twice on "Add a bot" adds two."""
    with ServerThread() as server, chromium(*PHONE) as page:
        open_lobby(page, server.base + "/", "Ann")
        press(page, "new-tournament")
        page.find_element(By.ID, "new-tournament-name").send_keys("Keys cup")
        press(page, "create-tournament")
        wait_for(lambda: entrants(page) == ["Ann (you)"], what="Ann in")
        tab_to(page, lambda now: now["id"] == "tournament-add-bot")
        keys(page, Keys.ENTER)
        wait_for(lambda: len(entrants(page)) == 2, what="a bot in")
        assert (focused(page) or {}).get("id") == "tournament-add-bot"
        keys(page, Keys.ENTER)
        wait_for(
            lambda: entrants(page) == ["Ann (you)", "bot:normal 1", "bot:normal 2"], what="two"
        )
        assert (focused(page) or {}).get("id") == "tournament-add-bot"


def test_a_table_being_played_is_watched_from_the_tournaments_page() -> None:
    """Each table's room is a link: followed, the page watches that room (no seat of its own)."""
    with ServerThread(bot_delay=0.2) as server, chromium(*PHONE) as page:
        cup = made(server, "Bots' cup", bots=["easy"] * 4, rules={"players": 2, "target": 500})

        async def start() -> None:
            cat = await Client.open(server.server.url, "Cat", key=CAT)
            reply = await cat.request("start_tournament", tournament=cup.tournament)
            assert isinstance(reply, TournamentUpdate), reply

        server.call(start())
        page.get(f"{server.base}/#/tournament/{cup.tournament}")

        # Both tables' links, whole (a wait for the first link found may see the list half drawn).
        def both_links() -> list[WebElement] | None:
            found = page.find_elements(By.CSS_SELECTOR, ".watch-link")
            whole = len(found) == 2 and all(f.text.startswith("watch (room ") for f in found)
            return found if whole else None

        links = wait_for(both_links, what="both rooms' links")
        room = str(links[0].get_attribute("href")).rsplit("/r/", 1)[1]
        links[0].click()
        wait_for(
            lambda: page.execute_script(
                "const app = window.allfives;"
                "return location.pathname === '/r/' + arguments[0] && app.state.doc?.phase === 'playing'"
                " && app.state.doc.you === null;",
                room,
            ),
            what="the page watching the table",
        )
        assert js_errors(page) == []


def test_a_stranger_opening_a_tables_link_reads_that_others_watch_there_not_join() -> None:
    """A page that follows no tournament opens a table's link and watches: the room's own
    document says it is a tournament's table, so the page offers watching, never joining."""
    with ServerThread(bot_delay=0.2) as server, chromium(*PHONE) as page:
        cup = made(server, "Bots' cup", bots=["easy"] * 2, rules={"players": 2, "target": 500})

        async def start() -> str:
            cat = await Client.open(server.server.url, "Cat", key=CAT)
            reply = await cat.request("start_tournament", tournament=cup.tournament)
            assert isinstance(reply, TournamentUpdate), reply
            room = reply.state.rounds[0].tables[0].room
            assert room is not None
            return room

        room = server.call(start())
        open_lobby(page, f"{server.base}/r/{room}", "Dan")
        page.find_element(By.ID, "watch-button").click()
        wait_for(
            lambda: "you are watching" in page.find_element(By.ID, "room-link").text,
            what="watching the table",
        )
        link = page.find_element(By.ID, "room-link").text
        assert link.startswith(f"Others watch at {server.base}/r/{room}"), link
        assert "you are watching" in link and "join" not in link.lower(), link
        assert js_errors(page) == []


def test_fixed_partners_are_shown_as_teams_in_the_tables_the_byes_and_the_standings() -> None:
    """Six bots in three teams of fixed partners (the server's units), played to the end."""
    with ServerThread(bot_delay=0.0) as server, chromium(*PHONE) as page:
        cup = made(
            server, "Pairs", bots=["easy"] * 6, rules={"players": 4, "target": 25}, partners="fixed"
        )

        async def start() -> None:
            cat = await Client.open(server.server.url, "Cat", key=CAT)
            reply = await cat.request("start_tournament", tournament=cup.tournament)
            assert isinstance(reply, TournamentUpdate), reply

        server.call(start())
        page.get(f"{server.base}/#/tournament/{cup.tournament}")
        champion = wait_for(
            lambda: page.find_element(By.ID, "tournament-champion").text, timeout=120
        )
        teams = {"bot:easy 1 & bot:easy 2", "bot:easy 3 & bot:easy 4", "bot:easy 5 & bot:easy 6"}
        assert champion.removeprefix("Champion: ") in teams
        standings = page.find_elements(
            By.CSS_SELECTOR, "#tournament-standings tbody tr td:nth-child(2)"
        )
        assert {cell.text for cell in standings} == teams
        team = r"bot:easy \d & bot:easy \d"
        for line in page.find_elements(By.CSS_SELECTOR, ".table-line"):
            # Once archived, a finished table links to its game.
            said = " ".join(line.text.split())
            game = r"( · review the game of round \d, table 1)?"
            assert re.fullmatch(rf"Table 1: {team}: \d+ – {team}: \d+ · finished{game}", said)
        byes = [bye.text for bye in page.find_elements(By.CSS_SELECTOR, ".bye")]
        assert len(byes) == 3
        assert all(
            re.fullmatch(rf"Bye: {team} sit this round out, and it counts as a win\.", b)
            for b in byes
        )


def test_an_eliminations_standings_say_who_went_out_in_which_round_not_tie_breaks() -> None:
    """Three bots in a bracket of four played to the end: the standings say the champion and
    the round each other went out, with no Buchholz, score or match points."""
    with ServerThread(bot_delay=0.0) as server, chromium(*PHONE) as page:
        cup = made(
            server,
            "Knockout",
            format="elimination",
            bots=["easy"] * 3,
            rules={"players": 2, "target": 25},
        )

        async def start() -> None:
            cat = await Client.open(server.server.url, "Cat", key=CAT)
            reply = await cat.request("start_tournament", tournament=cup.tournament)
            assert isinstance(reply, TournamentUpdate), reply

        server.call(start())
        page.get(f"{server.base}/#/tournament/{cup.tournament}")
        wait_for(lambda: page.find_element(By.ID, "tournament-champion").text, timeout=120)
        heads = page.find_elements(By.CSS_SELECTOR, "#tournament-standings thead th")
        # Each column's full name (its title; on a phone a short word is what shows).
        named = [head.get_attribute("title") or head.text for head in heads]
        assert named == ["#", "Player or team", "Status", "Played", "Byes"]
        rows = page.find_elements(By.CSS_SELECTOR, "#tournament-standings tbody tr")
        said = [row.find_elements(By.TAG_NAME, "td")[1].text for row in rows]
        # Seed 1 sits round 1 out: the champion, then round 2's loser, then round 1's.
        assert said == ["champion", "out in round 2", "out in round 1"], said
        note = page.find_element(By.CSS_SELECTOR, "#tournament-standings p.muted").text
        assert note.startswith("Those still in come first") and "Buchholz" not in note
        assert js_errors(page) == []


def test_the_lobby_pages_the_tournaments_ten_at_a_time() -> None:
    with ServerThread(max_tournaments_per_ip=20) as server, chromium(*PHONE) as page:
        # The list is newest first (docs/tournaments.md).
        codes = [made(server, f"Cup {n}").tournament for n in range(12)][::-1]
        open_lobby(page, server.base + "/", "Ann")

        def listed() -> list[str]:
            items = page.find_elements(By.CSS_SELECTOR, "#tournaments-list li")
            return [str(item.get_attribute("data-tournament")) for item in items]

        wait_for(lambda: listed() == codes[:10], what="the first ten")
        assert page.find_element(By.ID, "tournaments-page").text.startswith(
            "Tournaments 1–10 of 12"
        )
        press(page, "more-tournaments")
        wait_for(lambda: listed() == codes[10:], what="the last two")
        assert page.find_element(By.ID, "tournaments-page").text.startswith(
            "Tournaments 11–12 of 12"
        )
        assert not page.find_elements(By.ID, "more-tournaments")
