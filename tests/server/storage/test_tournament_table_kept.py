"""A tournament's table stays one (`RoomView.tournament_table`) wherever its room is read from:
after its server process is killed with SIGKILL and started again (under `--data` and on Redis),
and on a second process of a cluster that never opened it, with its seats' names as the
tournament gave them."""

from __future__ import annotations

from pathlib import Path

import pytest
from cluster_helpers import two_servers
from redis_server import RedisServer
from restart_helpers import Keeping, server_process
from tournament_helpers import bots_table
from ws_client_helpers import Client

from protocol import messages as msg
from protocol.views import RoomView


async def watched(url: str, room: str) -> RoomView:
    """The room as a watcher who connects to `url` is shown it first."""
    watcher = await Client.open(url, "Sue")
    try:
        joined = await watcher.request("spectate", room=room)
        assert isinstance(joined, msg.Joined), joined
        snapshot = await watcher.until(lambda m: isinstance(m, msg.Snapshot))
        assert isinstance(snapshot, msg.Snapshot)
        return snapshot.state
    finally:
        await watcher.close()


def bot_names(view: RoomView) -> list[str]:
    return [seat.name for seat in view.seats if seat is not None and seat.kind == "bot"]


async def test_a_tournaments_table_is_still_one_after_its_server_is_killed_and_started_again(
    keeping: Keeping, tmp_path: Path
) -> None:
    # Slow bots: the match is still being played when the server is killed.
    async with server_process(keeping, tmp_path, "--bot-delay", "0.5") as server:
        room = await bots_table(server.url)
        before = await watched(server.url, room)
        assert before.tournament_table and before.phase == "playing"
        names = bot_names(before)
        assert len(names) == 2 and all(name.startswith("bot:easy ") for name in names)

        await server.kill()
        await server.start()
        after = await watched(server.url, room)
        assert after.tournament_table
        assert bot_names(after) == names


@pytest.mark.redis
async def test_a_tournaments_table_is_one_on_a_second_process_of_a_cluster(
    redis_server: RedisServer,
) -> None:
    async with two_servers(redis_server, bot_delay=0.5) as (first, second):
        room = await bots_table(first.url)
        on_first = await watched(first.url, room)
        on_second = await watched(second.url, room)
        assert on_first.tournament_table and on_second.tournament_table
        assert bot_names(on_second) == bot_names(on_first)
        assert len(bot_names(on_second)) == 2
