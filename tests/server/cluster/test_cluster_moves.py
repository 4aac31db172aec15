"""A move's notice carries the move: the other server makes it again instead of reading the room.

Each server's replica counts what it adopted (`Replica.adopted`): "move" for a move made again,
"state" for a notice that carried the room, "misfit" for a move that did not give the events the
writer stored (the room is then read from Redis, its clients sent snapshots).
"""

from __future__ import annotations

import random
from typing import Any

import pytest
from cluster_helpers import check_resync, finished, play, started_across, two_servers
from redis_server import RedisServer
from server_helpers import metrics_of

from server.app import Server
from server.cluster.shared import SharedCommitter
from server.rooms import notes
from server.rooms.room import Room

pytestmark = pytest.mark.redis


def adopted(server: Server, kind: str) -> int:
    """How many changes of another server this one adopted as `kind`."""
    committer = server.committer
    assert isinstance(committer, SharedCommitter)
    return committer.replica.adopted[kind]


async def test_players_on_two_servers_take_each_others_moves_as_moves(
    redis_server: RedisServer,
) -> None:
    async with two_servers(redis_server) as (a, b):
        ann, bob, _ = await started_across(a, b, bots=1, players=3, target=60)
        await play([ann, bob], random.Random(3), finished([ann, bob]))
        # Every move each server's player or bot made reached the other as a move; the start,
        # seats and hands dealt anew come as states.
        # (How many depends on the deal: a short hand gave one side exactly 5.)
        assert adopted(a, "move") > 0 and adopted(b, "move") > 0
        assert adopted(a, "misfit") == adopted(b, "misfit") == 0
        counted = await metrics_of(b)  # what an operator sees of it
        assert counted['allfives_changes_adopted_total{kind="move"}'] == adopted(b, "move")
        assert counted['allfives_changes_adopted_total{kind="misfit"}'] == 0
        for client in (ann, bob):
            await check_resync(client)  # the document each holds is the server's own
        assert ann.document["game"]["scores"] == bob.document["game"]["scores"]


async def test_a_move_that_does_not_replay_as_stored_is_read_from_redis(
    redis_server: RedisServer, monkeypatch: pytest.MonkeyPatch
) -> None:
    replay_move = notes.replay_move
    spoiled: list[int] = []

    def replay_once_wrong(room: Room, data: bytes) -> list[Any]:
        events = replay_move(room, data)
        if not spoiled:  # as if this copy had gone astray: other events than the writer's
            spoiled.append(room.seq)
            return events[:-1]
        return events

    async with two_servers(redis_server) as (a, b):
        ann, bob, _ = await started_across(a, b, players=2, target=60)
        monkeypatch.setattr(notes, "replay_move", replay_once_wrong)
        await play([ann, bob], random.Random(4), finished([ann, bob]))
        assert spoiled, "a move was made again"
        assert adopted(a, "misfit") + adopted(b, "misfit") == 1
        for client in (ann, bob):
            await check_resync(client)  # the server that misfit sent the room as Redis holds it
        assert ann.document["game"]["scores"] == bob.document["game"]["scores"]
