"""A tournament table's room that the server does not hold (alone, with `--data`): read from the
store while it is there (a room still being loaded at start-up, or one forgotten after it
expired while the store did not answer), and only once the store has it no more is the table
noted lost and dealt again in a new room (docs/tournaments.md, "A lost room")."""

from __future__ import annotations

from pathlib import Path

import pytest
from cluster_helpers import two_servers
from redis_server import RedisServer
from server_helpers import fast_config
from storage_helpers import load_stored
from tournament_helpers import keyed, tournament_update
from waiting import until

from server.app import run_server
from server.desk import kept
from server.desk.kept import decode
from server.rooms import codes
from server.rooms.room_state import TableOf
from server.rooms.tables import RoomGone
from server.storage.sqlite_store import SqliteStore

CUP = {"name": "Lost cup", "format": "round_robin", "rules": {"players": 2, "target": 50}}


async def test_a_table_room_not_held_is_read_from_the_store_and_lost_only_once_gone_from_it(
    tmp_path: Path, caplog: pytest.LogCaptureFixture
) -> None:
    # Rooms in SQLite, as with `--data`; slow bots: the first table's match is still being
    # played while the test looks at it.
    store = SqliteStore(tmp_path)
    async with run_server(fast_config(data=str(tmp_path), store=store, bot_delay=60.0)) as server:
        ann = await keyed(server.url, "Ann")
        # A private cup: its tables' rooms are private, found with their invites.
        private = {"players": 2, "target": 50, "public": False}
        made = await tournament_update(
            ann, "create_tournament", **{**CUP, "rules": private}, bots=["easy", "normal"]
        )
        await tournament_update(ann, "join_tournament", tournament=made.tournament)
        started = await tournament_update(ann, "start_tournament", tournament=made.tournament)
        code = kept.split(made.tournament)[0]  # (a private tournament's code has its invite)
        (table,) = started.state.rounds[0].tables
        assert table.room is not None
        room, invite = codes.split(table.room)
        assert invite
        of = TableOf(code, 0, 0)

        async def table_room() -> str | None:
            stored = await server.store.tournaments.load(code)
            assert stored is not None
            return decode(stored.state).tournament.rounds[0].tables[0].room

        # Not held here (as while the rooms load at start-up), but stored: its result is read
        # from the store, the match is still being played, and the table keeps its room.
        live = server.registry.rooms[room]
        server.registry.forget(live)
        assert await server.tables.result(table.room, of) is None
        assert await server.desk.rounds.reconcile_now(code) is None
        assert await table_room() == table.room

        # Gone from the store too: the table is noted lost and opened in a new room at once.
        await server.store.delete_room(room)
        with pytest.raises(RoomGone):
            await server.tables.result(table.room, of)
        assert await server.desk.rounds.reconcile_now(code) is not None
        again = await table_room()
        assert again is not None and again != table.room
        assert codes.split(again)[0] in server.registry.rooms
        # The log names the lost room by its code; its invite stays out of it.
        said = [r.getMessage() for r in caplog.records if "is gone" in r.getMessage()]
        assert len(said) == 1 and f"its room {room} is gone" in said[0], said
        assert invite not in caplog.text
        await ann.close()


async def test_a_one_table_round_whose_room_is_lost_while_the_server_runs_is_dealt_again(
    tmp_path: Path,
) -> None:
    """A round of one table has no other table whose end would look at it: the server's sweep
    of tournaments finds its room gone and deals the table again in a new room, with no restart
    (it waited for ever). A table whose room is only not held here, but stored, keeps it."""
    store = SqliteStore(tmp_path)
    config = fast_config(data=str(tmp_path), store=store, bot_delay=60.0, sweep_seconds=0.05)
    async with run_server(config) as server:
        ann = await keyed(server.url, "Ann")
        made = await tournament_update(ann, "create_tournament", **CUP, bots=["easy", "normal"])
        await tournament_update(ann, "join_tournament", tournament=made.tournament)
        started = await tournament_update(ann, "start_tournament", tournament=made.tournament)
        code = made.tournament
        (table,) = started.state.rounds[0].tables
        assert table.room is not None
        room = codes.split(table.room)[0]

        async def table_room() -> str | None:
            stored = await server.store.tournaments.load(code)
            assert stored is not None
            return decode(stored.state).tournament.rounds[0].tables[0].room

        # Not held here but stored: a sweep leaves the table its room.
        server.registry.forget(server.registry.rooms[room])
        await server.desk.rounds.sweep([code])
        assert await table_room() == table.room

        # Gone from the store too: the server's next sweep deals the table again.
        await server.store.delete_room(room)

        async def dealt_again() -> str | None:
            again = await table_room()
            return again if again != table.room else None

        again = await until(dealt_again, what="the table dealt again in a new room")
        assert codes.split(again)[0] in server.registry.rooms
        await ann.close()


@pytest.mark.redis
async def test_with_redis_a_room_redis_lost_is_not_gone_while_its_keeper_runs(
    redis_server: RedisServer,
) -> None:
    async with two_servers(redis_server, bot_delay=60.0) as (first, second):
        ann = await keyed(first.url, "Ann")
        made = await tournament_update(ann, "create_tournament", **CUP, bots=["easy", "normal"])
        await tournament_update(ann, "join_tournament", tournament=made.tournament)
        started = await tournament_update(ann, "start_tournament", tournament=made.tournament)
        (table,) = started.state.rounds[0].tables
        assert table.room is not None
        room = codes.split(table.room)[0]
        keeper, other = (first, second) if room in first.registry.rooms else (second, first)
        await keeper.store.delete_room(room)  # Redis lost it: its keeper still runs
        assert await other.committer.unheld(room) is None  # not gone: not read here either
        assert await keeper.committer.unheld(room) is None

        async def written_back() -> bool:
            return await load_stored(keeper.store, room) is not None

        await until(written_back, timeout=10, what="the keeper to write the room back")
        assert await other.committer.unheld(room) is None
        await ann.close()
