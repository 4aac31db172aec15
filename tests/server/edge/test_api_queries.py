"""The API reads a query strictly on every route (issue 45): a query it cannot read exactly is
a 400 `bad_request` saying what is wrong, never an answer to half of it."""

from __future__ import annotations

from collections.abc import AsyncIterator

import pytest
from server_helpers import api_get, fast_config, new_key
from ws_client_helpers import finish_match

from server.app import Server, run_server

pytestmark = pytest.mark.asyncio


@pytest.fixture
async def served() -> AsyncIterator[tuple[Server, str]]:
    """A server where Ann has finished a match, and that match's game id."""
    async with run_server(fast_config()) as server:
        ann = await finish_match(server.url, "Ann", new_key())
        games = await api_get(server.url, "/api/players/Ann/games")
        await ann.close()
        yield server, games.json["games"][0]["id"]


async def test_a_query_that_cannot_be_read_exactly_is_a_400_saying_why(
    served: tuple[Server, str],
) -> None:
    server, game = served
    refused = {
        "/api/players/Ann/games?limit=0": "limit: a whole number from 1 to 50",
        "/api/players/Ann/games?offset=1&offset=2": "offset is given more than once",
        "/api/players/Ann/games?limit=%zz": "two hex digits",
        "/api/players/Ann/games?limit=%FF": "not UTF-8",
        "/api/players/Ann/games?limit=%D9%A1": "limit: a whole number",  # an Arabic-Indic 1
        "/api/players/Ann/games?limt=5": "unknown query parameter 'limt'",
        "/api/players/Ann/games?limit": "NAME=VALUE",
        "/api/players/Ann/games?limit=1&&offset=0": "NAME=VALUE",
        "/api/players/Ann/games?" + "&".join(f"limit{n}=1" for n in range(9)): "at most 8 fields",
        "/api/ladder?x=%zz": "two hex digits",
        "/api/ladder?limit=5": "this path takes no parameter",
        "/api/players/Ann?x=1": "unknown query parameter 'x'",
        f"/api/games/{game}?x=1": "unknown query parameter",
        f"/api/games/{game}/positions?offset=0": "unknown query parameter 'offset'",
        f"/api/games/{game}/review?x=%zz": "two hex digits",
        f"/api/games/{game}/review?x=1": "this path takes no parameter",
    }
    for path, why in refused.items():
        answer = await api_get(server.url, path)
        assert answer.status == 400, path
        assert answer.json["error"] == "bad_request", path
        assert why in answer.json["message"], (path, answer.json)


async def test_a_query_read_exactly_is_answered(served: tuple[Server, str]) -> None:
    server, game = served
    for path in (
        "/api/ladder",
        "/api/ladder?",
        "/api/players/Ann/games?limit=1",
        "/api/players/Ann/games?offset=0&limit=50",
        "/api/players/Ann/games?limit=%31",
        f"/api/games/{game}/positions",
    ):
        assert (await api_get(server.url, path)).status == 200, path
    page = await api_get(server.url, "/api/players/Ann/games?offset=1&limit=1")
    assert page.json["offset"] == 1 and page.json["games"] == []
