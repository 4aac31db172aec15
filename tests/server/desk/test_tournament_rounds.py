"""A tournament's rounds played on a real server with real WebSocket clients: the start opens
each table's room with every seat reserved, each entrant's `table` leads to its own seat, a
stranger cannot take one, a finished match is told to the tournament and the next round is
drawn and opened, to the champion; the standings are a recount of the rooms' final scores, and
no frame to a seat names another seat's tiles."""

from __future__ import annotations

import asyncio
import random
from pathlib import Path

import pytest
from cluster_helpers import two_servers
from hidden_helpers import check_room_frames
from redis_server import RedisServer
from restart_helpers import Keeping, ServerProcess, server_process
from server_helpers import fast_config, new_key
from storage_helpers import load_stored
from tournament_helpers import Entrant, keyed, tournament_update
from waiting import until

from bridge.records import record_of
from engine import Match, Rules
from protocol import messages as msg
from protocol.records import encode_record
from protocol.tournaments import TableView, TournamentView
from server.app import Server, run_server
from server.desk.kept import decode
from server.rooms import codes
from server.tournaments.standings import Bye, Outcome, bye_points, standings

CUP = {"name": "Friday cup", "format": "round_robin", "rules": {"players": 2, "target": 50}}


def recount(view: TournamentView) -> list[tuple[int, int, int, int]]:
    """The standings counted again from the finished tables' scores and the byes."""
    found: list[Outcome | Bye] = []
    for played in view.rounds:
        found += [Bye(unit=unit, points=bye_points(2)) for unit in played.byes]
        for table in played.tables:
            assert table.scores is not None
            found.append(Outcome(sides=[[seat] for seat in table.seats], scores=table.scores))
    return [
        (line.unit, line.match_points, line.buchholz, line.score)
        for line in standings(len(view.units), found)
    ]


def test_the_room_frames_check_notices_a_leak_in_its_room_only() -> None:
    """The check itself: a frame in the room naming another seat's tile is caught, however
    late the seat came in; frames of the rooms before are not this room's."""
    match = Match.new(Rules(players=2), seed=3)
    match.apply(match.turn, match.legal_moves()[0])
    record = encode_record(record_of(match, ["A", "B"]))
    seat = match.turn
    other_tile = str(match.hand_of(1 - seat)[0])
    leak = f'{{"type":"pong","id":null,"note":"{other_tile}"}}'
    frames = [
        msg.encode(msg.Joined(room="ELSE", seat=0, seat_token="t")).decode(),
        leak,  # in another room: not this room's to check
        msg.encode(msg.Joined(room="ROOM", seat=seat, seat_token="t")).decode(),
    ]
    assert check_room_frames(frames, "ROOM", record) == 0
    with pytest.raises(AssertionError, match=other_tile):
        check_room_frames([*frames, leak], "ROOM", record)


async def final_scores(server: Server, room: str) -> list[int]:
    """A table's final scores by seat, as its room holds them."""
    live = server.rooms[codes.split(room)[0]]
    scores = live.room.table_scores()
    assert scores is not None
    return scores


async def test_a_round_robin_of_two_people_and_a_bot_is_played_to_its_champion() -> None:
    async with run_server(fast_config()) as server:
        ann, bea = await keyed(server.url, "Ann"), await keyed(server.url, "Bea")
        made = await tournament_update(ann, "create_tournament", **CUP, bots=["easy"])
        code = made.tournament
        await tournament_update(ann, "join_tournament", tournament=code)
        await tournament_update(bea, "join_tournament", tournament=code)
        refused = await bea.error_for("start_tournament", tournament=code)
        assert refused.code == "not_host"

        started = await tournament_update(ann, "start_tournament", tournament=code)
        assert started.state.phase == "playing" and started.state.rounds_planned == 3
        (first,) = started.state.rounds
        (table,) = first.tables
        # Every table of the round was opened (its room stored) before anyone was told.
        assert table.room is not None and codes.split(table.room)[0] in server.rooms
        # Ann (entrant 1) is told her table's room if she plays the first round.
        assert started.you == 1 and started.table == (table.room if 1 in table.seats else None)

        # A stranger may watch a table but not take a seat in it, whichever seat it asks for.
        stranger = await keyed(server.url, "Cid")
        for seat in (None, 0, 1):
            fields = {} if seat is None else {"seat": seat}
            error = await stranger.error_for("join", room=table.room, **fields)
            assert (error.code, error.reason) == ("room_full", "seat_taken"), error
        watched = await stranger.request("spectate", room=table.room)
        assert isinstance(watched, msg.Joined) and watched.seat is None

        people = [Entrant(ann, random.Random(1), latest=started), Entrant(bea, random.Random(2))]
        ends = await asyncio.gather(*(person.play_to_the_end() for person in people))
        final = max((end.state for end in ends), key=lambda view: view.version)
        assert final.phase == "finished" and len(final.rounds) == 3
        assert final.champion == final.standings[0].unit
        assert all(end.table is None for end in ends)

        # Each table's scores are its room's, and the standings their recount.
        for played in final.rounds:
            for done in played.tables:
                assert done.room is not None and done.scores is not None
                assert done.scores == await final_scores(server, done.room)
        shown = [(s.unit, s.match_points, s.buchholz, s.score) for s in final.standings]
        assert shown == recount(final)

        # Each person was told the two tables it played at, and sat at its reserved seat.
        for person, entrant in zip(people, (1, 2), strict=True):
            mine: list[tuple[str, int | None]] = [
                (done.room or "", done.seats.index(entrant))
                for played in final.rounds
                for done in played.tables
                if entrant in done.seats
            ]
            assert person.tables == [room for room, _ in mine]
            assert person.seated == mine
            for room, _ in mine:
                record = await server.store.load_record(f"{codes.split(room)[0]}/1")
                assert record is not None
                assert check_room_frames(person.client.frames, room, record) > 0
        for client in (ann, bea, stranger):
            await client.close()


async def test_a_tournament_table_offers_no_rematch() -> None:
    async with run_server(fast_config()) as server:
        ann = await keyed(server.url, "Ann")
        made = await tournament_update(ann, "create_tournament", **CUP, bots=["easy"])
        await tournament_update(ann, "join_tournament", tournament=made.tournament)
        started = await tournament_update(ann, "start_tournament", tournament=made.tournament)
        assert started.table is not None
        person = Entrant(ann, random.Random(3), latest=started)
        final = await person.play_to_the_end()
        assert final.state.champion is not None and ann.document["phase"] == "finished"
        assert ann.document["host"] is None
        refused = await ann.error_for("rematch")
        assert refused.code == "wrong_phase", refused
        assert server.rooms[codes.split(started.table)[0]].room.phase == "finished"
        await ann.close()


async def killed_mid_round(
    server: ServerProcess, keeping: Keeping, key: str
) -> tuple[str, TableView]:
    """Ann's round robin with two bots, started, killed while its first table's match is being
    played (some moves stored): the tournament's code and that table."""
    ann = await keyed(server.url, "Ann", key)
    made = await tournament_update(ann, "create_tournament", **CUP, bots=["easy", "normal"])
    await tournament_update(ann, "join_tournament", tournament=made.tournament)
    started = await tournament_update(ann, "start_tournament", tournament=made.tournament)
    (table,) = started.state.rounds[0].tables
    room = codes.split(table.room or "")[0]

    async def moves_stored() -> bool:
        stored = await load_stored(keeping.store, room)
        return stored is not None and stored.seq > 2

    await until(moves_stored, timeout=30)
    await server.kill()
    return made.tournament, table


async def played_to_the_end(
    server: ServerProcess, code: str, key: str, seed: int
) -> TournamentView:
    """After the restart: Ann follows her tournament again and plays it out; the finished
    tournament, its standings a recount of its tables' scores."""
    again = await keyed(server.url, "Ann", key)
    followed = await tournament_update(again, "follow_tournament", tournament=code)
    assert followed.you == 2 and followed.state.phase == "playing"
    final = await Entrant(again, random.Random(seed), latest=followed).play_to_the_end()
    assert final.state.phase == "finished" and len(final.state.rounds) == 3
    assert final.state.champion == final.state.standings[0].unit
    shown = [(s.unit, s.match_points, s.buchholz, s.score) for s in final.state.standings]
    assert shown == recount(final.state)
    await again.close()
    return final.state


async def test_a_tournament_killed_mid_round_is_played_to_its_end_after_a_restart(
    keeping: Keeping, tmp_path: Path
) -> None:
    async with server_process(keeping, tmp_path, "--bot-delay", "0.02") as server:
        key = new_key()
        code, table = await killed_mid_round(server, keeping, key)
        stored = await keeping.store.tournaments.load(code)
        assert stored is not None
        assert decode(stored.state).tournament.rounds[0].tables[0].scores is None

        await server.start()
        final = await played_to_the_end(server, code, key, 4)
        # The table killed mid-round was played out in its own room and told once.
        assert final.rounds[0].tables[0].room == table.room
        assert final.rounds[0].tables[0].scores is not None


async def test_a_table_whose_room_was_lost_while_the_server_was_down_is_dealt_again(
    keeping: Keeping, tmp_path: Path
) -> None:
    async with server_process(keeping, tmp_path, "--bot-delay", "0.02") as server:
        key = new_key()
        code, table = await killed_mid_round(server, keeping, key)
        room = codes.split(table.room or "")[0]
        await keeping.store.delete_room(room)  # by hand, while the server is down
        assert await load_stored(keeping.store, room) is None

        await server.start()
        final = await played_to_the_end(server, code, key, 5)
        # The table was dealt again in a room of its own, played out and counted once.
        first = final.rounds[0].tables[0]
        assert first.room is not None and first.room != table.room
        assert first.scores is not None
        assert f"its room {room} is gone" in server.log.read_text()


async def test_a_private_tournament_plays_in_private_rooms_with_its_rules() -> None:
    async with run_server(fast_config()) as server:
        ann = await keyed(server.url, "Ann")
        rules = {"players": 2, "target": 50, "public": False, "turn_seconds": 30}
        made = await tournament_update(
            ann, "create_tournament", name="Cup", format="round_robin", rules=rules,
            bots=["easy"],
        )  # fmt: skip
        await tournament_update(ann, "join_tournament", tournament=made.tournament)
        started = await tournament_update(ann, "start_tournament", tournament=made.tournament)
        table = started.table
        assert table is not None and table == started.state.rounds[0].tables[0].room
        code, invite = codes.split(table)
        assert invite  # found only with its invite, as a private room
        room = server.rooms[code].room
        assert (room.rules.public, room.rules.turn_seconds, room.rules.target) == (False, 30, 50)
        assert room.rules.is_rated is False
        stranger = await keyed(server.url, "Cid")
        assert (await stranger.error_for("spectate", room=code)).code == "no_such_room"
        listed = await stranger.request("list_rooms")
        assert isinstance(listed, msg.Rooms) and all(r.code != code for r in listed.rooms)
        joined = await ann.request("join", room=table, seat=1)
        assert isinstance(joined, msg.Joined) and joined.room == table
        assert joined.seat == started.state.rounds[0].tables[0].seats.index(1)
        for client in (ann, stranger):
            await client.close()


@pytest.mark.redis
async def test_an_entrant_on_another_process_is_told_its_table_and_plays_it(
    redis_server: RedisServer,
) -> None:
    async with two_servers(redis_server) as (first, second):
        ann = await keyed(first.url, "Ann")
        made = await tournament_update(ann, "create_tournament", **CUP, bots=["easy", "easy"])
        bea = await keyed(second.url, "Bea")
        joined = await tournament_update(bea, "join_tournament", tournament=made.tournament)
        started = await tournament_update(ann, "start_tournament", tournament=made.tournament)
        # Bea follows it through the second process: the changes the first made reach her.
        person = Entrant(bea, random.Random(5), latest=joined)
        final = await person.play_to_the_end()
        assert final.state.phase == "finished" and final.state.champion is not None
        assert final.state.version >= started.state.version
        mine = [
            table.room
            for played in final.state.rounds
            for table in played.tables
            if joined.you in table.seats
        ]
        assert person.tables == mine and len(mine) == 2
        assert [room for room, _ in person.seated] == mine
        for client in (ann, bea):
            await client.close()
