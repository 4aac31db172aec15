"""Several servers on one Redis: clients of one room on different processes play together.

Servers run in this process (`run_server`, each with its own `RedisStore` on the same real
redis-server). Every client checks what it holds (`CheckedState`, tests/cluster_helpers.py): each
patch follows the last `seq` (a gap fails the test), and each snapshot answering a `resync` equals
the document the client held at that `seq`. A server going away (stopped, or killed as a
process) is in tests/server/cluster/test_cluster_failover.py; what the servers keep in Redis, in
tests/server/cluster/test_cluster_redis.py.
"""

from __future__ import annotations

import asyncio
import random

import pytest
from cluster_helpers import (
    check_record,
    check_resync,
    finished,
    held,
    open_client,
    play,
    reconnect,
    sit,
    two_servers,
)
from redis_server import RedisServer
from websockets.exceptions import ConnectionClosed
from ws_client_helpers import Client, caught_up, read_until, until_holds, until_someone_to_play

from protocol import messages as msg
from protocol.views import ChatLine
from server.app import Config, run_server
from server.storage.store import MemoryStore


@pytest.mark.redis
async def test_players_on_two_servers_play_a_match_with_bots(redis_server: RedisServer) -> None:
    async with two_servers(redis_server) as (a, b):
        ann = await open_client(a.url, "Ann")
        rules = {"players": 4, "target": 100, "spectator_chat": True}
        joined = await ann.request("create_room", rules=rules)
        assert isinstance(joined, msg.Joined) and joined.room is not None
        await ann.until(lambda m: isinstance(m, msg.Snapshot))
        bob = await sit(b.url, "Bob", joined.room)
        sue = await open_client(b.url, "Sue")
        assert isinstance(await sue.request("spectate", room=joined.room), msg.Joined)
        await sue.until(lambda m: isinstance(m, msg.Snapshot))
        for level in ("easy", "normal"):
            assert isinstance(await ann.request("add_bot", level=level), msg.Ack)
        assert isinstance(await ann.request("start"), msg.Ack)
        players = [ann, bob, sue]

        async def chatter(rng: random.Random) -> None:
            # Chat lines from both servers meet the moves: compare-and-set at work.
            for number in range(60):
                await rng.choice(players).send("chat", text=f"line {number}")
                # A stimulus, not a wait: random short pauses spread the lines among the
                # moves, so that chat and moves from two servers race for the same room.
                await asyncio.sleep(rng.uniform(0.002, 0.01))

        chatting = asyncio.get_running_loop().create_task(chatter(random.Random(2)))
        await play(players, random.Random(1), finished(players))
        await chatting

        def said(client: Client) -> list[str]:
            return [e.text for e in held(client).events if isinstance(e, ChatLine)]

        await read_until(
            players, lambda: len({c.state.seq for c in players}) == 1 and len(said(sue)) >= 60
        )
        assert said(ann) == said(bob) == said(sue), "the servers applied the lines in other orders"
        assert sorted(said(sue)) == sorted(f"line {n}" for n in range(60)), "a line lost or doubled"
        assert ann.document["game"]["scores"] == sue.document["game"]["scores"]
        for client in players:
            await check_resync(client)
        record = await bob.request("record")
        assert isinstance(record, msg.RecordReply)
        check_record(record.record, sue.document, held(sue).events)
        assert a.rooms[joined.room].kept and not b.rooms[joined.room].kept


@pytest.mark.redis
async def test_commands_sent_at_once_on_two_servers_are_applied_once_each_in_one_order(
    redis_server: RedisServer,
) -> None:
    async with two_servers(redis_server) as (a, b):
        ann = await open_client(a.url, "Ann")
        joined = await ann.request("create_room", rules={"players": 3})
        assert isinstance(joined, msg.Joined) and joined.room is not None
        await ann.until(lambda m: isinstance(m, msg.Snapshot))
        room = joined.room
        listed = await (await open_client(b.url, "Lee")).request("list_rooms")
        assert isinstance(listed, msg.Rooms) and [r.code for r in listed.rooms] == [room]
        bob = await sit(b.url, "Bob", room)
        while ann.state.seq != bob.state.seq:
            await ann.receive()  # Bob's seat, sent on from the other server
        start = ann.state.seq
        assert start is not None and bob.state.seq == start

        lines = 30
        sent: dict[str, list[int]] = {}
        for client in (ann, bob):
            sent[client.name] = [
                await client.send("chat", text=f"{client.name} {i}") for i in range(lines)
            ]

        async def replies(client: Client) -> list[msg.AnyServerMessage]:
            wanted = set(sent[client.name])
            got = []
            while wanted:
                message = await client.receive()
                if getattr(message, "id", None) in wanted:
                    wanted.discard(message.id)  # type: ignore[union-attr]
                    got.append(message)
            return got

        for reply in [r for c in (ann, bob) for r in await replies(c)]:
            assert isinstance(reply, msg.Ack), reply
        for client in (ann, bob):
            while client.state.seq != start + 2 * lines:
                await client.receive()  # the other server's lines
        said = {
            c.name: [(e.name, e.text) for e in held(c).events if isinstance(e, ChatLine)]
            for c in (ann, bob)
        }
        assert said["Ann"] == said["Bob"], "the two servers applied the lines in other orders"
        expected = {(name, f"{name} {i}") for name in ("Ann", "Bob") for i in range(lines)}
        assert sorted(said["Ann"]) == sorted(expected), "a line was lost or applied twice"
        assert ann.state.seq == bob.state.seq == start + 2 * lines
        assert a.committer.conflicts + b.committer.conflicts > 0, (
            "the commands never met: nothing was tested"
        )

        # The last seat, asked for from both servers at once: one gets it.
        cy, di = await open_client(a.url, "Cy"), await open_client(b.url, "Di")
        answers = await asyncio.gather(cy.request("join", room=room), di.request("join", room=room))
        assert sorted(type(r).__name__ for r in answers) == ["Error", "Joined"], answers
        refused = next(r for r in answers if isinstance(r, msg.Error))
        assert refused.code == "room_full"
        winner = "Cy" if isinstance(answers[0], msg.Joined) else "Di"
        for client in (ann, bob):
            await until_holds(client, lambda d: d["seats"][2] is not None)
        assert [s["name"] for s in ann.document["seats"]] == ["Ann", "Bob", winner]
        assert ann.state.seq == bob.state.seq
        assert ann.document == {**bob.document, "you": ann.document["you"]}


@pytest.mark.redis
async def test_a_room_is_found_and_resumed_through_either_server(
    redis_server: RedisServer,
) -> None:
    async with two_servers(redis_server) as (a, b):
        ann = await open_client(a.url, "Ann")
        joined = await ann.request("create_room", rules={"players": 2})
        assert isinstance(joined, msg.Joined) and joined.room is not None
        await ann.until(lambda m: isinstance(m, msg.Snapshot))
        assert isinstance(await ann.request("add_bot", level="easy"), msg.Ack)
        assert isinstance(await ann.request("start"), msg.Ack)
        await until_someone_to_play([ann])  # the room waits for her
        await ann.close()
        # Back through the other server: the patches missed, then the seat connected again.
        back = await reconnect(ann, b.url)
        await caught_up(b, back)
        assert back.document["seats"][0]["connected"] is True
        await check_resync(back)
        # A second connection for the seat on the first server closes this one (4000).
        again = await reconnect(back, a.url)
        await caught_up(a, again)
        with pytest.raises(ConnectionClosed, match="4000"):
            await back.until(lambda m: False)
        await play([again], random.Random(2), finished([again]))
        missing = await open_client(b.url, "Max")
        assert (await missing.error_for("join", room="ZZZZ")).code == "no_such_room"


class SlowStore(MemoryStore):
    """Memory that takes its time to save, so commands and resyncs meet mid-save."""

    holds_live_rooms = False  # saved as bytes through save_room, which takes its time

    async def save_room(self, code: str, seq: int, state: bytes) -> None:
        """Save after a pause: the stimulus, a save that is still under way when the next
        command and resync come (nothing waits on this pause for a result)."""
        await asyncio.sleep(0.05)
        await super().save_room(code, seq, state)


async def test_a_resync_during_a_save_answers_with_the_document_of_its_seq() -> None:
    config = Config.of(port=0, bot_delay=0.0, bot_processes=False, store=SlowStore())
    async with run_server(config) as server:
        ann = await open_client(server.url, "Ann")
        joined = await ann.request("create_room", rules={"players": 2})
        assert isinstance(joined, msg.Joined) and joined.room is not None
        await ann.until(lambda m: isinstance(m, msg.Snapshot))
        bob = await sit(server.url, "Bob", joined.room)
        for text in ("one", "two", "three"):
            await ann.send("chat", text=text)
            await check_resync(bob)
        await until_holds(bob, lambda d: len(d["chat"]) == 3)
        await check_resync(bob)
        assert [line["text"] for line in bob.document["chat"]] == ["one", "two", "three"]
