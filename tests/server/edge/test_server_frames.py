"""With `--compression` a client that offers permessage-deflate gets its frames compressed, the
others plain, in one room: every one must still hold, after each patch, exactly the document a
fresh snapshot would give.
"""

from __future__ import annotations

import asyncio
import random

from server_helpers import fast_config
from websockets.asyncio.client import connect
from ws_client_helpers import Client, References, check_against, play_out

from protocol import messages as msg
from server.app import run_server


async def open_with(url: str, name: str, compression: str | None) -> Client:
    """A client that offers (or not) permessage-deflate, after its hello."""
    client = Client(await connect(url, max_size=2**22, compression=compression), name)
    reply = await client.request("hello", version=msg.PROTOCOL_VERSION, name=name)
    assert isinstance(reply, msg.Welcome), reply
    return client


async def test_compressed_and_plain_clients_in_one_room_follow_every_patch(
    references: References,
) -> None:
    async with run_server(fast_config(compression=True)) as server:
        ann = await open_with(server.url, "Ann", "deflate")
        bob = await open_with(server.url, "Bob", None)
        sue = await open_with(server.url, "Sue", None)
        joined = await ann.request("create_room", rules={"players": 2, "target": 50})
        assert isinstance(joined, msg.Joined) and joined.room is not None
        assert isinstance(await bob.request("join", room=joined.room), msg.Joined)
        assert isinstance(await sue.request("spectate", room=joined.room), msg.Joined)
        for client in (ann, bob, sue):
            await client.until(lambda m: isinstance(m, msg.Snapshot))
            check_against(references, client)
        assert ann.socket.protocol.extensions, "Ann's frames are compressed"
        assert not bob.socket.protocol.extensions and not sue.socket.protocol.extensions
        plain = {c.name: c.plain for c in server.connections}
        assert plain == {"Ann": False, "Bob": True, "Sue": True}
        before = {c.name: (c.patches, c.state.seq or 0) for c in (ann, bob, sue)}
        assert isinstance(await ann.request("start"), msg.Ack)
        rng = random.Random(7)
        await asyncio.gather(
            play_out(ann, rng),
            play_out(bob, rng),
            sue.until(lambda m: sue.document["phase"] == "finished", timeout=30),
        )
        for client in (ann, bob, sue):  # every change of the match reached it as a patch
            patches, seq = before[client.name]
            assert client.patches - patches == (client.state.seq or 0) - seq > 2, client.name
        assert ann.document["game"]["scores"] == bob.document["game"]["scores"]
        assert sue.document["game"]["scores"] == ann.document["game"]["scores"]
