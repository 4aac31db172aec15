"""The desk with a real server and real WebSocket clients, in memory and on Redis: a
tournament is made, joined, left and followed by players with keys; each change is stored
before anyone is told of it and reaches every follower; a refused message changes nothing; a
private tournament is found only with its invite; a tournament outlives its server (`--data`); and two
processes on one Redis changing one tournament at once lose neither change."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
from redis_server import RedisServer
from server_helpers import fast_config, new_key
from ws_client_helpers import Client

from protocol import messages as msg
from protocol.tournaments import TournamentUpdate
from server.app import Server, run_server
from server.desk.kept import decode
from server.storage.redis_store import RedisStore
from server.storage.sqlite_store import SqliteStore


async def player(server: Server, name: str) -> Client:
    return await Client.open(server.url, name, key=new_key())


async def update_for(client: Client, kind: str, **fields: Any) -> TournamentUpdate:
    reply = await client.request(kind, **fields)
    assert isinstance(reply, TournamentUpdate), reply
    return reply


async def told(client: Client, version: int) -> TournamentUpdate:
    """The next update a follower is sent, which must be at `version`."""
    update = await client.until(lambda m: isinstance(m, TournamentUpdate))
    assert isinstance(update, TournamentUpdate) and update.state.version == version, update
    return update


async def stored_version(server: Server, code: str) -> int:
    stored = await server.store.tournaments.load(code)
    assert stored is not None
    return stored.version


CUP = {"name": " Friday cup ", "format": "round_robin", "rules": {"players": 2}}


async def test_a_tournament_is_made_joined_and_left_and_every_follower_is_told(
    running: Server,
) -> None:
    guest = await Client.open(running.url, "Guest")
    refused = await guest.error_for("create_tournament", **CUP)
    assert refused.code == "not_a_player"
    ann, bea, fan = [await player(running, name) for name in ("Ann", "Bea", "Fan")]
    made = await update_for(ann, "create_tournament", **CUP, bots=["easy", "hard"])
    code = made.tournament
    assert len(code) == 5 and made.state.code == code and made.state.version == 1
    assert made.state.name == "Friday cup" and made.state.host == "Ann"
    assert [e.name for e in made.state.entrants] == ["bot:easy 1", "bot:hard 1"]
    assert made.you is None and made.state.phase == "open" and made.state.public
    # Stored before it was shown: what the store holds is what Ann was sent.
    stored = await running.store.tournaments.load(code)
    assert stored is not None and stored.version == 1
    assert decode(stored.state).tournament.name == "Friday cup"

    watched = await update_for(fan, "follow_tournament", tournament=code.lower())
    assert watched.state == made.state and watched.you is None
    joined = await update_for(bea, "join_tournament", tournament=code)
    assert joined.you == 2 and joined.state.version == 2
    assert [e.name for e in joined.state.entrants] == ["bot:easy 1", "bot:hard 1", "Bea"]
    for follower in (ann, fan):
        assert (await told(follower, 2)).state == joined.state
    host_joined = await update_for(ann, "join_tournament", tournament=code, name="Annie")
    assert host_joined.you == 3 and await stored_version(running, code) == 3
    for follower in (bea, fan):
        await told(follower, 3)

    # Refused: nothing stored, nobody told (the next update each follower gets is version 4).
    refusals: list[tuple[str, dict[str, Any], str]] = [
        ("join_tournament", {"tournament": code}, "invalid"),  # Bea is in it already
        ("leave_tournament", {"tournament": code, "entrant": 0}, "not_host"),
        ("join_tournament", {"tournament": code, "bot": "easy"}, "not_host"),
        ("join_tournament", {"tournament": "ZZZZZ"}, "no_such_room"),
        ("start_tournament", {"tournament": code}, "not_host"),
    ]
    for kind, fields, code_expected in refusals:
        error = await bea.error_for(kind, **fields)
        assert error.code == code_expected, (kind, error)
    assert await stored_version(running, code) == 3

    left = await update_for(ann, "leave_tournament", tournament=code, entrant=0)
    assert [e.name for e in left.state.entrants] == ["bot:hard 1", "Bea", "Annie"]
    assert left.you == 2 and left.state.version == 4
    assert (await told(bea, 4)).you == 1
    await told(fan, 4)
    gone = await update_for(bea, "leave_tournament", tournament=code)
    assert gone.you is None and [e.name for e in gone.state.entrants] == ["bot:hard 1", "Annie"]
    for client in (guest, ann, bea, fan):
        await client.close()


async def test_a_private_tournament_is_found_only_with_its_invite(running: Server) -> None:
    ann, bea = await player(running, "Ann"), await player(running, "Bea")
    private = {**CUP, "rules": {"players": 2, "public": False}}
    made = await update_for(ann, "create_tournament", **private)
    code = made.state.code
    assert made.tournament.startswith(f"{code}-") and len(made.tournament) == 16
    assert not made.state.public
    for wrong in (code, f"{code}-BCDFGHJKMN", f"{code}-{made.tournament[-10:-1]}"):
        assert (await bea.error_for("join_tournament", tournament=wrong)).code == "no_such_room"
        assert (await bea.error_for("follow_tournament", tournament=wrong)).code == "no_such_room"
    assert await stored_version(running, code) == 1
    joined = await update_for(bea, "join_tournament", tournament=made.tournament)
    assert joined.tournament == made.tournament and joined.you == 0
    await ann.close()
    await bea.close()


async def test_a_tournament_outlives_its_server(tmp_path: Path) -> None:
    data = str(tmp_path / "data")
    key = new_key()
    async with run_server(fast_config(data=data, store=SqliteStore(data))) as first:
        ann = await Client.open(first.url, "Ann", key=key)
        made = await update_for(ann, "create_tournament", **CUP, bots=["normal"])
        await update_for(ann, "join_tournament", tournament=made.tournament)
        await ann.close()
    async with run_server(fast_config(data=data, store=SqliteStore(data))) as second:
        ann = await Client.open(second.url, "Ann", key=key)
        again = await update_for(ann, "follow_tournament", tournament=made.tournament)
        assert again.state.version == 2 and again.you == 1
        assert [e.name for e in again.state.entrants] == ["bot:normal 1", "Ann"]
        await ann.close()


@pytest.mark.redis
@pytest.mark.parametrize("joiners", [6])
async def test_two_processes_joining_one_tournament_at_once_lose_no_entrant(
    redis_server: RedisServer, joiners: int
) -> None:
    async with (
        run_server(fast_config(store=RedisStore(redis_server.url))) as one,
        run_server(fast_config(store=RedisStore(redis_server.url))) as two,
    ):
        host = await player(one, "Host")
        made = await update_for(host, "create_tournament", **CUP)
        clients = [await player(one if n % 2 else two, f"P{n}") for n in range(joiners)]
        ids = [await c.send("join_tournament", tournament=made.tournament) for c in clients]
        for client, id in zip(clients, ids, strict=True):

            def answered(message: msg.AnyServerMessage, id: int = id) -> bool:
                return getattr(message, "id", None) == id

            reply = await client.until(answered)
            assert isinstance(reply, TournamentUpdate), reply
        stored = await one.store.tournaments.load(made.tournament)
        assert stored is not None and stored.version == 1 + joiners
        names = sorted(e.name for e in decode(stored.state).tournament.entrants)
        assert names == sorted(f"P{n}" for n in range(joiners))
        for client in [host, *clients]:
            await client.close()


def test_the_error_of_a_refused_tournament_message_names_it() -> None:
    error = msg.Error(id=1, command="join_tournament", code="no_such_room", message="x")
    assert msg.decode_server(msg.encode(error)) == error


async def test_an_address_makes_a_bounded_number_of_tournaments(running: Server) -> None:
    ann = await player(running, "Ann")
    limit = running.config.limits.max_tournaments_per_ip
    for _ in range(limit):
        await update_for(ann, "create_tournament", **CUP)
    codes = await running.store.tournaments.codes()
    assert len(codes) == limit == 4
    refused = await ann.error_for("create_tournament", **CUP)
    assert (refused.code, refused.reason) == ("rate_limited", "tournaments_a_day")
    assert await running.store.tournaments.codes() == codes
    await ann.close()


async def test_a_server_stores_a_bounded_number_of_tournaments() -> None:
    async with run_server(fast_config(max_tournaments=2)) as server:
        ann, bea = await player(server, "Ann"), await player(server, "Bea")
        await update_for(ann, "create_tournament", **CUP)
        await update_for(bea, "create_tournament", **CUP)
        assert (await ann.error_for("create_tournament", **CUP)).code == "busy"
        assert len(await server.store.tournaments.codes()) == 2
        await ann.close()
        await bea.close()
