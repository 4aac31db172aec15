"""`provisional` in the API is the rater's own test (issue 45): on the embedded store (a --data
file) and on Redis, a player the next match counts for is not called provisional, and the
ladder's `total` counts the players holding a rating on it."""

from __future__ import annotations

from typing import Any

import pytest
from server_helpers import api_get, new_key
from ws_client_helpers import finish_match, until_holds

from server.app import Server

pytestmark = pytest.mark.asyncio

NAME = "Xenia"
#: Five full matches against the three bot levels end the provisional period; the sixth counts.
BOTS = ("easy", "normal", "hard", "easy", "normal", "hard")


async def provisional_now(url: str) -> tuple[bool, bool, dict[str, Any]]:
    """What the player's page and the 2-player ladder say of the player, and that ladder."""
    page = (await api_get(url, f"/api/players/{NAME}")).json
    (two,) = [rating for rating in page["ratings"] if rating["ladder"] == "2p"]
    ladders = (await api_get(url, "/api/ladder")).json["ladders"]
    (ladder,) = [ladder for ladder in ladders if ladder["ladder"] == "2p"]
    (entry,) = [entry for entry in ladder["entries"] if entry["name"] == NAME]
    return two["provisional"], entry["provisional"], ladder


async def test_provisional_says_whether_the_next_match_counts(running: Server) -> None:
    key = new_key()
    said: bool | None = None
    counts = []
    to_go = []
    for seed, bot in enumerate(BOTS):
        client = await finish_match(running.url, NAME, key, bot=bot, seed=seed, target=150)
        await until_holds(client, lambda d: d.get("ratings") is not None)
        (mine,) = [change for change in client.document["ratings"] if change["name"] == NAME]
        await client.close()
        counted = mine["counted"] > 0
        to_go.append((mine["provisional"], mine["matches_to_go"], mine["opponents_to_go"]))
        (bot_change,) = [change for change in client.document["ratings"] if change is not mine]
        assert (bot_change["provisional"], bot_change["matches_to_go"]) == (False, 0)
        counts.append(counted)
        if said is not None:
            # The API said before this match whether it would count: the rater agrees.
            assert counted == (not said), (seed, mine)
        on_page, on_ladder, ladder = await provisional_now(running.url)
        assert on_page == on_ladder
        said = on_page
        assert mine["provisional"] == on_page  # the room's word agrees with the API's
        played = [entry for entry in ladder["entries"] if entry["games"] > 0]
        assert ladder["total"] == len(played)  # the player and the bot levels it met
    assert counts == [False] * 5 + [True]
    assert said is False
    # What a new player still lacks, match by match: 5 whole matches against 3 opponents.
    assert to_go == [
        (True, 4, 2),
        (True, 3, 1),
        (True, 2, 0),
        (True, 1, 0),
        (False, 0, 0),
        (False, 0, 0),
    ]


async def test_a_short_match_counts_in_part_towards_the_matches_to_go(running: Server) -> None:
    client = await finish_match(running.url, "Yann", new_key(), bot="hard", seed=3, target=50)
    await until_holds(client, lambda d: d.get("ratings") is not None)
    (mine,) = [change for change in client.document["ratings"] if change["name"] == "Yann"]
    await client.close()
    # A match to 50 is a third of a whole one: 4 2/3 whole matches to go, said as 5.
    assert (mine["provisional"], mine["matches_to_go"], mine["opponents_to_go"]) == (True, 5, 2)
