"""A refused command leaves the sender where it was: a join, spectate or create_room that fails
takes no one out of the room they are in (issue: the connection used to leave first)."""

from __future__ import annotations

from typing import Any

import msgspec
import pytest
from server_helpers import fast_config
from ws_client_helpers import Client, assert_error, seat_players

from protocol import messages as msg
from server.app import run_server


async def resynced(client: Client) -> tuple[int, dict[str, Any]]:
    """The seq and document a fresh resync gives the client."""
    reply = await client.request("resync")
    assert isinstance(reply, msg.Snapshot), reply
    document: dict[str, Any] = msgspec.to_builtins(reply.state)
    return reply.seq, document


async def refused_elsewhere(mover: Client, room: str) -> list[tuple[str, str]]:
    """What each way of going to `room` answers `mover` (every one must be refused)."""
    answers = []
    tries: list[tuple[str, dict[str, Any]]] = [
        ("join", {"room": room}),
        ("join", {"room": room, "seat": 3}),
        ("create_room", {"rules": {"players": 2}, "seat": 3}),
    ]
    for kind, fields in tries:
        reply = await mover.request(kind, **fields)
        assert isinstance(reply, msg.Error), (kind, fields, reply)
        answers.append((kind, reply.code))
    return answers


@pytest.mark.parametrize("phase", ["waiting", "playing"])
async def test_a_refused_join_leaves_the_sender_in_its_room(phase: str) -> None:
    async with run_server(fast_config()) as server:
        host, guest = await seat_players(server.url, 3, 2)
        if phase == "playing":
            assert isinstance(await host.request("start"), msg.Ack)
        # A room that is playing (wrong_phase) and one that is full (room_full), both 2 seats.
        busy = await seat_players(server.url, 2, 1)
        assert isinstance(await busy[0].request("start"), msg.Ack)
        full = await seat_players(server.url, 2, 2)
        before = {c.name: await resynced(c) for c in (host, guest)}
        answers = [
            *(await refused_elsewhere(host, busy[0].room or "")),
            *(await refused_elsewhere(host, full[0].room or "")),
        ]
        assert ("join", "wrong_phase") in answers and ("join", "room_full") in answers
        assert ("join", "no_such_room") in answers  # seat 3 of a 2-seat room
        watched = await host.request("spectate", room="ZZZZ")
        assert_error(watched, "no_such_room", "spectate", watched.id)  # type: ignore[union-attr]
        after = {c.name: await resynced(c) for c in (host, guest)}
        # Nothing changed: the same seq and document for both, the host still hosts, no seat away.
        assert after == before
        _, document = after[host.name]
        assert document["host"] == 0 and document["you"] == 0
        assert all(s is None or s["connected"] for s in document["seats"])
        assert len(server.rooms) == 3  # no room was left behind by the refused create_room


async def test_a_successful_join_elsewhere_still_leaves_the_first_room() -> None:
    async with run_server(fast_config()) as server:
        host, guest = await seat_players(server.url, 3, 2)
        other = await Client.open(server.url, "Other")
        await other.request("create_room", rules={"players": 3})
        joined = await guest.request("join", room=other.room)
        assert isinstance(joined, msg.Joined), joined
        _, document = await resynced(host)
        assert document["seats"][1] is None  # the guest's seat in the waiting room is free
        _, there = await resynced(guest)
        assert there["code"] == other.room and there["you"] == 1


async def test_a_chat_line_sent_again_with_its_id_is_posted_once() -> None:
    async with run_server(fast_config()) as server:
        host, guest = await seat_players(server.url, 2, 2, public=False)
        fan = await Client.open(server.url, "Fan")
        assert isinstance(await fan.request("spectate", room=host.room), msg.Joined)
        for sender in (guest, fan):
            for _ in range(2):
                await sender.send_raw('{"type": "chat", "id": 77, "text": "gg"}')
                assert isinstance(await sender.until(lambda m: isinstance(m, msg.Ack)), msg.Ack)
        # A player whose ack was lost comes back on a new connection and sends it again.
        await guest.close()
        back = await Client.open(server.url, "P1", token=guest.token, room=host.room)
        await back.until(lambda m: isinstance(m, msg.Snapshot))
        await back.send_raw('{"type": "chat", "id": 77, "text": "gg"}')
        await back.until(lambda m: isinstance(m, msg.Ack))
        assert isinstance(await back.request("chat", text="new line"), msg.Ack)
        _, document = await resynced(host)
        lines = [(line["name"], line["text"]) for line in document["chat"]]
        assert lines == [("P1", "gg"), ("Fan", "gg"), ("P1", "new line")]
