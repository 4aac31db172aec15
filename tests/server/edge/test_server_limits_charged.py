"""Every per-address limit is charged before the work it bounds: requests in flight at once
(32 from one address, while the store answers) cannot do more than the limit, on either store."""

from __future__ import annotations

import asyncio

import pytest
from server_helpers import new_key
from waiting import until
from ws_client_helpers import Client

from protocol import errors
from protocol import messages as msg
from server.app import Server

pytestmark = pytest.mark.asyncio

AT_ONCE = 32


async def answers_at_once(clients: list[Client], kind: str, **fields: object) -> list[str]:
    """Every client sends `kind` at once; the type (or error code) of each reply, sorted."""
    ids = await asyncio.gather(*(c.send(kind, **fields) for c in clients))

    async def reply(client: Client, id: int) -> str:
        answer = await client.until(lambda m: getattr(m, "id", None) == id)
        return answer.code if isinstance(answer, msg.Error) else str(answer.__struct_config__.tag)

    return sorted(await asyncio.gather(*(reply(c, id) for c, id in zip(clients, ids, strict=True))))


async def test_wrong_link_codes_sent_at_once_are_looked_up_only_within_the_budget(
    running: Server,
) -> None:
    burst = running.config.limits.bad_links_burst
    owner = await Client.open(running.url, "Owner", key=new_key())
    right = await owner.request("link_code")
    assert isinstance(right, msg.LinkCodeReply), right
    await owner.close()
    await until(lambda: not running.gate.per_address.counts, what="the owner's socket closed")
    clients = [await Client.open(running.url, "x", hello=False) for _ in range(AT_ONCE)]
    codes = await answers_at_once(
        clients, "hello", version=msg.PROTOCOL_VERSION, name="P", key=new_key(), link="ZZZZZZZZ"
    )
    assert codes == sorted([errors.BAD_LINK] * burst + [errors.RATE_LIMITED] * (AT_ONCE - burst))
    # With the budget spent, a right code is refused too, and links nothing.
    refused = await clients[0].error_for(
        "hello", version=msg.PROTOCOL_VERSION, name="P", key=new_key(), link=right.code
    )
    assert refused.code == errors.RATE_LIMITED
    for client in clients:
        await client.close()


async def test_rooms_created_at_once_open_no_more_than_the_limit(running: Server) -> None:
    limit = running.config.limits.max_rooms_per_ip
    clients = [await Client.open(running.url, f"M{n}") for n in range(AT_ONCE)]
    codes = await answers_at_once(clients, "create_room", rules={"players": 2})
    assert codes == sorted(["joined"] * limit + [errors.RATE_LIMITED] * (AT_ONCE - limit))
    assert len(running.rooms) == limit
    # The creations refused cost nothing of the hourly budget; the ones in flight are gone.
    assert running.registry.rooms_per_ip.counts == {"127.0.0.1": limit}
    for client in clients:
        await client.close()
