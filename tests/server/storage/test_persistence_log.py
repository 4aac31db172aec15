"""A move is stored as the move alone, the room's whole state every STATE_EVERY changes.

What Redis holds must always read back (state, then the logged moves made again) as exactly the
room the server holds, and a server started on it must resume that room.
"""

from __future__ import annotations

import asyncio_redis
import pytest
from asyncio_redis.encoders import BytesEncoder
from redis_server import RedisServer
from server_helpers import fast_config
from storage_helpers import load_stored
from websockets.asyncio.client import connect
from ws_client_helpers import Client, caught_up, live_of, next_mover, play_out_one, seat_players

from protocol import messages as msg
from server.app import run_server
from server.cluster.shared import STATE_EVERY
from server.storage.redis_store import RedisStore

pytestmark = pytest.mark.redis


async def logged_moves(redis: RedisServer, code: str) -> int:
    """How many moves the room's hash holds as moves alone (fields `m:<seq>` above `base`)."""
    connection = await asyncio_redis.Connection.create(
        host=redis.host, port=redis.port, encoder=BytesEncoder()
    )
    try:
        fields = await (await connection.hgetall(f"allfives:room:{code}".encode())).asdict()
    finally:
        connection.close()
    seq, base = int(fields[b"seq"]), int(fields[b"base"])
    moves = {int(key[2:]) for key in fields if key.startswith(b"m:")}
    assert moves == set(range(base + 1, seq + 1)), "a logged move is missing, or a stale one left"
    return seq - base


async def test_redis_holds_moves_as_moves_and_reads_back_as_the_servers_room(
    redis_server: RedisServer,
) -> None:
    store = RedisStore(redis_server.url)
    async with run_server(fast_config(store=RedisStore(redis_server.url))) as server:
        clients = await seat_players(server.url, 2, 2, target=150)
        host = clients[0]
        assert isinstance(await host.request("start"), msg.Ack) and host.room is not None
        most = 0
        taken: dict[str, tuple[int, int]] = {}
        while (mover := await next_mover(clients, taken, lambda: False)) is not None:
            await play_out_one(mover)
            live = live_of(server, host)
            async with live.exclusive():  # the room as stored, outside any change
                stored = await load_stored(store, host.room)
                assert stored is not None and stored.seq == live.room.seq
                assert stored.state == live.room.to_bytes()
                logged = await logged_moves(redis_server, host.room)
            assert logged < STATE_EVERY
            most = max(most, logged)
            if live.room.seq > 2 * STATE_EVERY or live.room.phase != "playing":
                break
        assert most > 1, "moves were stored as moves"
        await caught_up(server, *clients)
        seen = host.document
    # A server started on that Redis resumes the room as the players last saw it.
    async with run_server(fast_config(store=RedisStore(redis_server.url))) as again:
        back = Client(await connect(again.url, max_size=2**22), "P0")
        hello = {"token": host.token, "room": host.room}
        reply = await back.request("hello", version=msg.PROTOCOL_VERSION, name="P0", **hello)
        assert isinstance(reply, msg.Welcome | msg.Joined), reply
        await back.until(lambda m: isinstance(m, msg.Snapshot))
        # Newer only by the players' going and coming back; the game is as they left it.
        assert back.state.seq is not None and host.state.seq is not None
        assert back.state.seq > host.state.seq
        assert back.document["game"] == seen["game"]
    await store.close()
