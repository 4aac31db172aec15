"""The rounds' one step (`server/desk/rounds.py`) on a real server: tournaments of bots alone are
played to their end in every format and table size, each table's result the one its room
holds; a server that starts over a tournament whose table was never opened opens it, and one
that starts over a table whose match ended untold tells it; the step run again changes
nothing; and of two processes on one Redis taking the step at once, only the one that took
the tournament's lease opens its tables."""

from __future__ import annotations

import asyncio
from typing import Any

import pytest
from cluster_helpers import two_servers
from redis_server import RedisServer
from server_helpers import fast_config, metrics_of
from storage_helpers import load_stored
from tournament_helpers import keyed, tournament_update
from waiting import until

from protocol.rules import Rules
from protocol.tournaments import TournamentUpdate
from server.app import Server, run_server
from server.desk.kept import Kept, decode, encode
from server.rooms import codes
from server.rooms.room import Room
from server.rooms.room_state import TableOf
from server.storage.store import MemoryStore
from server.tournaments import state


async def played_out(server: Server, code: str, timeout: float = 60.0) -> Kept:
    """The tournament as stored once it is finished."""

    async def finished() -> Kept | None:
        stored = await server.store.tournaments.load(code)
        kept = None if stored is None else decode(stored.state)
        return kept if kept is not None and kept.tournament.phase == "finished" else None

    return await until(finished, timeout=timeout, what=f"tournament {code} finished")


async def games_noted(server: Server, code: str) -> Kept | None:
    """The tournament as stored once each of its tables notes its archived game."""
    stored = await server.store.tournaments.load(code)
    kept = None if stored is None else decode(stored.state)
    if kept is None:
        return None
    tables = [table for played in kept.tournament.rounds for table in played.tables]
    return kept if all(table.game is not None for table in tables) else None


def check_tables(server: Server, code: str, kept: Kept) -> None:
    """Each table played in a room of its own, which plays that table, with its scores."""
    rooms = set()
    for number, played in enumerate(kept.tournament.rounds):
        for index, table in enumerate(played.tables):
            assert table.room is not None and table.scores is not None
            live = server.rooms[codes.split(table.room)[0]]
            assert live.room.state.tournament == TableOf(code, number, index)
            assert live.room.table_scores() == table.scores
            assert live.room.state.host is None
            rooms.add(table.room)
    assert len(rooms) == sum(len(played.tables) for played in kept.tournament.rounds)


FORMATS: list[tuple[dict[str, Any], int]] = [
    ({"format": "elimination", "rules": {"players": 2, "target": 50}}, 3),
    (
        {
            "format": "swiss",
            "rounds": 2,
            "rules": {"players": 4, "target": 50},
            "partners": "fixed",
        },
        4,
    ),
    ({"format": "round_robin", "rules": {"players": 3, "target": 50}}, 4),
    (
        {"format": "round_robin", "rules": {"players": 4, "target": 50}, "partners": "rotating"},
        5,
    ),
]


@pytest.mark.parametrize(("settings", "bots"), FORMATS, ids=lambda value: str(value))
async def test_a_tournament_of_bots_is_played_to_its_champion(
    settings: dict[str, Any], bots: int
) -> None:
    async with run_server(fast_config()) as server:
        host = await keyed(server.url, "Ann")
        made = await tournament_update(
            host, "create_tournament", name="Bots", bots=["easy"] * bots, **settings
        )
        code = made.tournament
        started = await tournament_update(host, "start_tournament", tournament=code)
        assert started.you is None and started.table is None
        assert all(table.room for table in started.state.rounds[0].tables)
        versions = [started.state.version]
        while True:
            update = await host.until(lambda m: isinstance(m, TournamentUpdate), timeout=60)
            assert isinstance(update, TournamentUpdate)
            versions.append(update.state.version)
            if update.state.phase == "finished":
                break
        assert versions == sorted(set(versions))  # every change told, each a new version
        assert update.state.champion is not None
        kept = await played_out(server, code)
        check_tables(server, code, kept)
        tables = sum(len(played.tables) for played in kept.tournament.rounds)
        # Each table's match is archived as any room's, under its entrants' names.
        entrants = kept.tournament.entrants
        rooms = {
            server.rooms[codes.split(table.room or "")[0]].room: table
            for played in kept.tournament.rounds
            for table in played.tables
        }
        await until(lambda: all(isinstance(room.state.game_id, str) for room in rooms))
        for room, table in rooms.items():
            assert isinstance(room.state.game_id, str)
            archived = await server.ledger.game(room.state.game_id)
            assert archived is not None
            names = [player.name for player in archived.detail.players]
            assert names == [entrants[seat].name for seat in table.seats]
        assert (await metrics_of(server))["allfives_matches_started_total"] == tables
        # Each table notes its game, archived after its result was told.
        noted = await until(lambda: games_noted(server, code), what="every game noted")
        for room in rooms:
            of = room.state.tournament
            assert isinstance(of, TableOf)
            assert noted.tournament.rounds[of.round].tables[of.table].game == room.state.game_id
        stored = await server.store.tournaments.load(code)
        assert stored is not None
        # The step again: nothing left to do, nothing stored.
        assert await server.desk.rounds.reconcile_now(code) is None
        again = await server.store.tournaments.load(code)
        assert again is not None and again.version == stored.version
        await host.close()


def started_tournament(bots: int = 2) -> Kept:
    """A round robin of bots at tables of two, started (its first round drawn) but none of its
    tables opened."""
    rules = Rules(players=2, target=50)
    create = state.Create(name="Cup", format="round_robin", table_size=2, rules=rules, host="host")
    tournament = state.apply(None, create)
    for _ in range(bots):
        tournament = state.apply(tournament, state.Join(by="host", bot="easy"))
    tournament = state.apply(tournament, state.Start(by="host"))
    return Kept(tournament=tournament, host_name="Ann")


async def test_a_server_opens_at_start_a_table_never_opened() -> None:
    store = MemoryStore()
    await store.tournaments.save("QWRTZ", 1, encode(started_tournament()))
    async with run_server(fast_config(store=store)) as server:
        stored = await store.tournaments.load("QWRTZ")
        assert stored is not None and stored.version == 2  # opened before it listened
        (table,) = decode(stored.state).tournament.rounds[0].tables
        assert table.room is not None and codes.split(table.room)[0] in server.rooms
        kept = await played_out(server, "QWRTZ")
        check_tables(server, "QWRTZ", kept)
        assert kept.tournament.rounds[0].tables[0].room == table.room


async def test_a_server_tells_at_start_a_match_that_ended_untold() -> None:
    store = MemoryStore()
    async with run_server(fast_config(store=store)) as first:
        host = await keyed(first.url, "Ann")
        made = await tournament_update(
            host, "create_tournament", name="Cup", format="round_robin",
            rules={"players": 2, "target": 50}, bots=["easy", "easy"],
        )  # fmt: skip
        # The process stops telling tournaments, as one killed between a match's end and its
        # telling would.
        first.tables.listener = None
        started = await tournament_update(host, "start_tournament", tournament=made.tournament)
        (table,) = started.state.rounds[0].tables
        assert table.room is not None
        live = first.rooms[codes.split(table.room)[0]]
        await until(lambda: live.room.phase == "finished", timeout=30, what="the match's end")
        stored = await store.tournaments.load(made.tournament)
        assert stored is not None
        assert decode(stored.state).tournament.rounds[0].tables[0].scores is None
        scores = live.room.table_scores()
        await host.close()
    async with run_server(fast_config(store=store)) as second:
        kept = await played_out(second, made.tournament)
        assert kept.tournament.rounds[0].tables[0].scores == scores
        assert kept.tournament.phase == "finished"


@pytest.mark.redis
async def test_of_two_processes_taking_the_step_at_once_one_opens_the_tables(
    redis_server: RedisServer,
) -> None:
    async with two_servers(redis_server) as (first, second):
        await first.store.tournaments.save("QWRTZ", 1, encode(started_tournament(bots=4)))
        raced = await asyncio.gather(
            first.desk.rounds.reconcile_now("QWRTZ"),
            second.desk.rounds.reconcile_now("QWRTZ"),
        )
        assert any(result is not None for result in raced)  # one opened the tables
        kept = await played_out(first, "QWRTZ")
        assert kept.opening is None  # the lease given back with the tables noted
        assert [len(played.tables) for played in kept.tournament.rounds] == [2, 2, 2]
        noted = [table.room for played in kept.tournament.rounds for table in played.tables]
        assert len(set(noted)) == 6
        for number, played in enumerate(kept.tournament.rounds):
            for index, table in enumerate(played.tables):
                assert table.room is not None
                stored = await load_stored(first.store, codes.split(table.room)[0])
                assert stored is not None
                room = Room.from_bytes(stored.state)
                assert room.state.tournament == TableOf("QWRTZ", number, index)
                assert room.table_scores() == table.scores
        # Only the lease's holder opened rooms: none was made for a table in vain.
        made = []
        for code in await first.store.room_codes():
            stored = await load_stored(first.store, code)
            if stored is not None and Room.from_bytes(stored.state).state.tournament:
                made.append(code)
        assert sorted(made) == sorted(codes.split(room or "")[0] for room in noted)


async def test_a_running_server_opens_tables_another_process_left_without_rooms() -> None:
    async with run_server(fast_config(sweep_seconds=0.05)) as server:
        # Stored by a process that stopped between the start and opening the tables.
        await server.store.tournaments.save("QWRTZ", 1, encode(started_tournament(bots=3)))
        kept = await played_out(server, "QWRTZ")
        check_tables(server, "QWRTZ", kept)
        assert len(kept.tournament.rounds) == 3
