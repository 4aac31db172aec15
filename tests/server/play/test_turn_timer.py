"""A turn's clock after a move: the player who stops next is stood in for once their own turn's
time is up, not before, and not never (the timer set for an earlier turn, which fires first, sets
itself again for what is left of the current one)."""

from __future__ import annotations

import time

import pytest
from server_helpers import fast_config
from waiting import until
from ws_client_helpers import play_out_one, read_until, seat_players, until_someone_to_play

from server.app import run_server

pytestmark = pytest.mark.asyncio

IDLE = 1.0


async def test_a_stand_in_takes_the_seat_at_its_own_turns_deadline_not_an_earlier_turns() -> None:
    async with run_server(fast_config(idle_seconds=IDLE)) as server:
        clients = await seat_players(server.url, 2, 2, target=250)
        await clients[0].request("start")
        first = await until_someone_to_play(clients)
        other = next(client for client in clients if client is not first)
        first_deadline = first.document["deadline"]
        # The first player moves halfway through their time: the next turn ends later.
        await until(lambda: time.time() >= first_deadline - IDLE / 2, what="half the turn")
        await play_out_one(first)
        seat = other.document["you"]
        await read_until(clients, lambda: other.my_turn())
        deadline = other.document["deadline"]
        assert deadline >= first_deadline + IDLE / 4
        # The other player never moves: the stand-in comes once their own turn ran out.
        await read_until(clients, lambda: other.document["seats"][seat]["stand_in"], timeout=10)
        assert time.time() >= deadline, "stood in before the player's own turn ran out"
        assert first.document["seats"][seat]["stand_in"]
