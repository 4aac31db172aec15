"""The bounds on making tournaments and on listing them, in memory, in SQLite and in a real
redis-server: an address makes `--max-tournaments-per-ip` a day, counted once in the store for
every process on it (two processes on one Redis, creations from one address at once on both,
make no more), the store holds `--max-tournaments` at most, a refused creation stores nothing,
and the public ones are read a page at a time, newest first, from an index of their own."""

from __future__ import annotations

import asyncio

import pytest
from cluster_helpers import two_servers
from redis_server import RedisServer
from server_helpers import new_key
from ws_client_helpers import Client

from protocol import messages as msg
from protocol.rules import Rules
from protocol.tournaments import TournamentUpdate
from server.desk.kept import Kept, encode
from server.storage.redis_store import RedisStore
from server.storage.store import Store
from server.storage.tournaments import (
    MAKER_WINDOW,
    Bounds,
    TooManyTournaments,
    TournamentChanged,
)
from server.tournaments.stored import Tournament

CUP = {"name": "Friday cup", "format": "round_robin", "rules": {"players": 2}}


def kept(name: str, public: bool = True) -> bytes:
    tournament = Tournament(
        name=name, format="swiss", rules=Rules(players=2), partners=None, swiss_rounds=3,
        public=public, host="h", turn_seconds=None,
    )  # fmt: skip
    return encode(Kept(tournament=tournament, host_name="Host"))


async def test_an_address_makes_its_tournaments_a_day_and_a_refusal_stores_nothing(
    each_store: Store,
) -> None:
    tournaments = each_store.tournaments
    ann = Bounds(maker="192.0.2.1", per_maker=2, most=4, now=1000.0)
    await tournaments.create("AAAAA", kept("A"), True, ann)
    await tournaments.create("BBBBB", kept("B"), True, ann)
    with pytest.raises(TooManyTournaments) as refused:
        await tournaments.create("CCCCC", kept("C"), True, ann)
    assert refused.value.bound == "maker"
    assert await tournaments.load("CCCCC") is None
    assert await tournaments.public_page(0, 10) == (2, ["BBBBB", "AAAAA"])
    # A code taken is refused and changes nothing, nor counts.
    bea = Bounds(maker="192.0.2.2", per_maker=2, most=4, now=1000.0)
    with pytest.raises(TournamentChanged):
        await tournaments.create("AAAAA", kept("Other"), True, bea)
    stored = await tournaments.load("AAAAA")
    assert stored is not None and stored.state == kept("A")
    await tournaments.create("DDDDD", kept("D"), False, bea)
    await tournaments.create("EEEEE", kept("E"), True, bea)
    # The store is full: nobody makes one, whatever its day.
    cid = Bounds(maker="192.0.2.3", per_maker=2, most=4, now=1000.0)
    with pytest.raises(TooManyTournaments) as full:
        await tournaments.create("FFFFF", kept("F"), True, cid)
    assert full.value.bound == "store"
    await tournaments.delete("EEEEE")
    await tournaments.create("FFFFF", kept("F"), True, cid)
    # A day after its first, the address makes them again.
    await tournaments.delete("FFFFF")
    later = Bounds(maker="192.0.2.1", per_maker=2, most=4, now=1000.0 + MAKER_WINDOW - 1)
    with pytest.raises(TooManyTournaments):
        await tournaments.create("GGGGG", kept("G"), True, later)
    if isinstance(each_store, RedisStore):
        return  # Redis expires the count by its own clock: a day is not waited for here
    next_day = Bounds(maker="192.0.2.1", per_maker=2, most=4, now=1000.0 + MAKER_WINDOW)
    await tournaments.create("GGGGG", kept("G"), True, next_day)
    assert await tournaments.public_page(0, 10) == (3, ["GGGGG", "BBBBB", "AAAAA"])


async def test_the_public_tournaments_are_paged_newest_first_without_the_private_ones(
    each_store: Store,
) -> None:
    bounds = Bounds(maker="192.0.2.1", per_maker=100, most=100, now=0.0)
    public = []
    for number in range(30):
        code = f"T{number:04d}"
        await each_store.tournaments.create(
            code, kept(code, number % 4 != 1), number % 4 != 1, bounds
        )
        if number % 4 != 1:
            public.append(code)
    newest = public[::-1]
    assert await each_store.tournaments.public_page(0, 10) == (22, newest[:10])
    assert await each_store.tournaments.public_page(20, 10) == (22, newest[20:])
    assert await each_store.tournaments.public_page(22, 10) == (22, [])
    await each_store.tournaments.delete(newest[0])
    assert await each_store.tournaments.public_page(0, 2) == (21, newest[1:3])


async def made_by(client: Client) -> msg.AnyServerMessage:
    return await client.request("create_tournament", **CUP)


@pytest.mark.redis
async def test_an_address_has_one_count_on_every_process_of_one_redis(
    redis_server: RedisServer,
) -> None:
    async with two_servers(redis_server) as (first, second):
        limit = first.config.limits.max_tournaments_per_ip
        key = new_key()
        clients = [
            await Client.open(server.url, "Ann", key=key) for server in [first, second] * limit
        ]
        # From one address (127.0.0.1), twice the limit at once, half on each process.
        answers = await asyncio.gather(*(made_by(client) for client in clients))
        made = [answer for answer in answers if isinstance(answer, TournamentUpdate)]
        refused = [answer for answer in answers if isinstance(answer, msg.Error)]
        assert len(made) == limit == 4 and len(refused) == limit
        assert {error.code for error in refused} == {"rate_limited"}
        assert len(await first.store.tournaments.codes()) == limit
        for client in clients[:2]:  # one on each process
            assert (await client.error_for("create_tournament", **CUP)).code == "rate_limited"
        for client in clients:
            await client.close()
