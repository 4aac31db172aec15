"""`GET /api/tournaments` and `GET /api/tournaments/ID` with a real server, in memory and on
Redis, the tournaments made by real WebSocket clients: the list holds the public ones newest first and
pages them, reading only the page's tournaments, a private one is never listed and answers 404 (byte for byte a
missing one's) unless asked with its invite, and the view is the one the desk sends followers."""

from __future__ import annotations

from collections.abc import AsyncIterator
from typing import Any

import pytest
from redis_server import REDIS, RedisServer
from server_helpers import ApiAnswer, api_get, fast_config, new_key
from ws_client_helpers import Client

from protocol import api
from protocol.rules import Rules
from protocol.tournaments import TournamentUpdate, TournamentView
from server.app import Server, run_server
from server.desk.kept import Kept, encode
from server.edge.tournaments_api import public_tournaments
from server.storage.redis_store import RedisStore
from server.storage.tournaments import Bounds, MemoryTournaments, StoredTournament
from server.tournaments.stored import Tournament

CUP = {"name": "Friday cup", "format": "round_robin", "rules": {"players": 2}}


@pytest.fixture(params=["memory", REDIS])
async def server(request: pytest.FixtureRequest) -> AsyncIterator[Server]:
    """A server on each store."""
    store = None
    if request.param == "redis":
        redis: RedisServer = request.getfixturevalue("redis_server")
        store = RedisStore(redis.url)
    async with run_server(fast_config(store=store, max_tournaments_per_ip=10)) as running:
        yield running


async def made(client: Client, **fields: Any) -> TournamentUpdate:
    reply = await client.request("create_tournament", **{**CUP, **fields})
    assert isinstance(reply, TournamentUpdate), reply
    return reply


async def page(server: Server, query: str = "") -> api.TournamentsPage:
    answer = await api_get(server.url, f"/api/tournaments{query}")
    assert answer.status == 200, answer.body
    return api.decode_answer(answer.body, api.TournamentsPage)


async def view(server: Server, id: str) -> TournamentView:
    answer = await api_get(server.url, f"/api/tournaments/{id}")
    assert answer.status == 200, answer.body
    return api.decode_answer(answer.body, TournamentView)


async def test_the_public_tournaments_are_listed_and_paged_and_a_private_one_never(
    server: Server,
) -> None:
    empty = await page(server)
    assert (empty.total, empty.tournaments, empty.offset, empty.limit) == (0, [], 0, 20)
    ann = await Client.open(server.url, "Ann", key=new_key())
    bea = await Client.open(server.url, "Bea", key=new_key())
    public = [
        await made(ann, name="Cup 1", bots=["easy"]),
        await made(ann, name="Cup 2"),
        await made(ann, name="Cup 3", rules={"players": 4, "partnership": True}, partners="fixed"),
    ]
    secret = await made(ann, name="Secret", rules={"players": 2, "public": False})
    joined = await bea.request("join_tournament", tournament=public[1].tournament)
    assert isinstance(joined, TournamentUpdate), joined

    listed = await page(server)
    assert listed.total == 3
    codes = [summary.code for summary in listed.tournaments]
    assert codes == [update.tournament for update in reversed(public)]  # newest first
    assert secret.state.code not in codes
    by_code = {summary.code: summary for summary in listed.tournaments}
    first, second, third = (by_code[update.tournament] for update in public)
    assert (first.name, first.host, first.entrants, first.phase) == ("Cup 1", "Ann", 1, "open")
    assert second.entrants == 1 and second.rounds_planned == 0 == second.rounds_begun
    assert third.rules.players == 4 and third.rules.partnership and third.partners == "fixed"
    # Each line of the list says what the tournament's own view says.
    shared = ("name", "format", "rules", "partners", "turn_seconds", "host", "phase")
    for summary in listed.tournaments:
        shown = await view(server, summary.code)
        assert [getattr(summary, f) for f in shared] == [getattr(shown, f) for f in shared]
        assert (summary.rounds_planned, summary.rounds_begun) == (
            shown.rounds_planned,
            len(shown.rounds),
        )
        assert summary.entrants == len(shown.entrants)

    halves = [await page(server, "?limit=2"), await page(server, "?offset=2&limit=2")]
    assert [len(half.tournaments) for half in halves] == [2, 1]
    assert [s.code for half in halves for s in half.tournaments] == codes
    assert all(half.total == 3 for half in halves)
    assert (await page(server, "?offset=3")).tournaments == []
    await ann.close()
    await bea.close()


async def test_a_tournament_is_its_followers_view_and_a_private_one_needs_its_invite(
    server: Server,
) -> None:
    ann = await Client.open(server.url, "Ann", key=new_key())
    cup = await made(ann, bots=["hard"])
    assert await view(server, cup.tournament) == cup.state
    assert await view(server, cup.tournament.lower()) == cup.state
    joined = await ann.request("join_tournament", tournament=cup.tournament, name="Annie")
    assert isinstance(joined, TournamentUpdate)
    seen = await view(server, cup.tournament)
    assert seen == joined.state and seen.version == 2
    assert [e.name for e in seen.entrants] == ["bot:hard 1", "Annie"]

    secret = await made(ann, rules={"players": 2, "public": False})
    code = secret.state.code
    assert secret.tournament.startswith(f"{code}-")
    missing = await api_get(server.url, "/api/tournaments/ZZZZZ")
    assert missing.status == 404
    assert missing.json == {"error": "not_found", "message": "no such tournament"}
    wrong_invite = f"{code}-{'B' if secret.tournament[-1] != 'B' else 'C'}"
    hidden: list[ApiAnswer] = [
        await api_get(server.url, f"/api/tournaments/{id}")
        for id in (code, wrong_invite, secret.tournament[:-1], f"{cup.tournament}-BCDFGHJKMN")
    ]
    for answer in hidden:
        assert (answer.status, answer.body) == (missing.status, missing.body)
    shown = await view(server, secret.tournament)
    assert shown == secret.state and not shown.public
    await ann.close()


@pytest.mark.parametrize(
    "path",
    [
        "/api/tournaments?limit=0",
        "/api/tournaments?limit=51",
        "/api/tournaments?limt=5",
        "/api/tournaments?offset=1&offset=2",
        "/api/tournaments?offset=-1",
        "/api/tournaments/ABCDE?limit=1",
    ],
)
async def test_a_bad_query_is_refused(server: Server, path: str) -> None:
    answer = await api_get(server.url, path)
    assert answer.status == 400, answer.body
    assert answer.json["error"] == "bad_request"


class CountedLoads(MemoryTournaments):
    """Tournaments in memory that count how many are loaded."""

    def __init__(self) -> None:
        super().__init__()
        self.loads = 0

    async def load(self, code: str) -> StoredTournament | None:
        self.loads += 1
        return await super().load(code)


async def test_a_page_of_the_list_loads_only_its_own_tournaments() -> None:
    store = CountedLoads()
    bounds = Bounds(maker="192.0.2.1", per_maker=100, most=100, now=0.0)
    made = []
    for number in range(60):
        tournament = Tournament(
            name=f"Cup {number}", format="swiss", rules=Rules(players=2), partners=None,
            swiss_rounds=3, public=number % 3 != 0, host="h", turn_seconds=None,
        )  # fmt: skip
        code = f"C{number:04d}"
        kept = Kept(tournament=tournament, host_name="Host")
        await store.create(code, encode(kept), tournament.public, bounds)
        if tournament.public:
            made.append(code)
    total, listed = await public_tournaments(store, offset=5, limit=20)
    assert total == 40 and store.loads == 20
    assert [summary.code for summary in listed] == made[::-1][5:25]  # newest first
