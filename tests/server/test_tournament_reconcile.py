"""The rounds' one step (`server/desk/rounds.py`) on a real server: tournaments of bots alone are
played to their end in every format and table size, each table's result the one its room
holds; a server that starts over a tournament whose table was never opened opens it, and one
that starts over a table whose match ended untold tells it; and the step run again changes
nothing."""

from __future__ import annotations

from typing import Any

import pytest
from server_helpers import fast_config
from tournament_helpers import keyed, tournament_update
from waiting import until

from protocol.rules import Rules
from protocol.tournaments import TournamentUpdate
from server.app import Server, run_server
from server.desk.kept import Kept, decode, encode
from server.rooms import codes
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
        # The step again: nothing left to do, nothing stored.
        assert await server.desk.rounds.reconcile_now(code) is None
        stored = await server.store.tournaments.load(code)
        assert stored is not None and stored.version == versions[-1]
        await host.close()


def started_tournament() -> Kept:
    """A tournament of two bots, started (its one table drawn) but its table never opened."""
    rules = Rules(players=2, target=50)
    create = state.Create(name="Cup", format="round_robin", table_size=2, rules=rules, host="host")
    tournament = state.apply(None, create)
    for _ in range(2):
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
