"""Limits on what a client can make the server do: chat, connections, numbers, floods, names, HTTP."""

from __future__ import annotations

import asyncio
import itertools
import json
import random

import msgspec
import pytest
from server_helpers import fast_config
from waiting import until
from websockets.asyncio.client import connect
from websockets.exceptions import ConnectionClosed, InvalidStatus
from ws_client_helpers import Client, assert_error, play_out, seat_players

from protocol import messages as msg
from protocol.names import name_key
from protocol.rules import RoomRules, Rules
from server.app import run_server
from server.rooms import codes


async def test_spectators_chat_only_where_the_room_allows_it() -> None:
    async with run_server(fast_config()) as server:
        for rules, allowed in [
            ({}, False),
            ({"public": False}, True),
            ({"spectator_chat": True}, True),
            ({"public": False, "spectator_chat": False}, False),
        ]:
            host = await Client.open(server.url, "Host")
            await host.request("create_room", rules={"players": 2, **rules})
            fan = await Client.open(server.url, "Fan")
            await fan.request("spectate", room=host.room)
            reply = await fan.request("chat", text="go go go")
            if allowed:
                assert isinstance(reply, msg.Ack), rules
            else:
                assert_error(reply, "invalid", "chat", reply.id)  # type: ignore[union-attr]
                assert "spectators" in reply.message  # type: ignore[union-attr]
            assert isinstance(await host.request("chat", text="hello"), msg.Ack)


async def test_a_room_chat_has_its_own_rate_whoever_speaks() -> None:
    async with run_server(fast_config(room_chat_rate=0.5, room_chat_burst=4)) as server:
        speakers = await seat_players(server.url, 4, 4)
        codes = []
        for line in range(8):
            reply = await speakers[line % 4].request("chat", text=f"line {line}")
            codes.append(getattr(reply, "code", "ack"))
        # Each speaker sent two lines, far under its own limit; the room took four.
        assert codes == ["ack"] * 4 + ["rate_limited"] * 4
        other = await seat_players(server.url, 2, 2)
        assert isinstance(await other[0].request("chat", text="another room"), msg.Ack)


async def test_a_connection_that_never_says_hello_is_closed() -> None:
    async with run_server(fast_config(hello_seconds=0.2)) as server:
        talker = await Client.open(server.url, "Talker")
        silent = await connect(server.url)
        with pytest.raises(ConnectionClosed) as closed:
            await asyncio.wait_for(silent.recv(), 5.0)
        assert closed.value.rcvd is not None and closed.value.rcvd.code == 1008
        assert "hello" in closed.value.rcvd.reason
        # The talker connected first: its deadline passed before the silent one's.
        assert isinstance(await talker.request("ping"), msg.Pong), "a greeted connection stays"


async def test_the_server_refuses_connections_past_its_cap_and_says_why() -> None:
    async with run_server(fast_config(max_connections=2)) as server:
        first = await Client.open(server.url, "A")
        await Client.open(server.url, "B")
        with pytest.raises(InvalidStatus) as refused:
            await connect(server.url)
        assert refused.value.response.status_code == 503
        assert b"server is full" in refused.value.response.body
        await first.close()
        await until(lambda: len(server.connections) <= 1, what="the server to drop A")
        assert isinstance(await (await Client.open(server.url, "C")).request("ping"), msg.Pong)


@pytest.mark.parametrize("target", [1005, 5 * 10**17, 10**30])
async def test_a_room_target_above_a_thousand_is_refused(target: int) -> None:
    async with run_server(fast_config()) as server:
        host = await Client.open(server.url, "Host")
        error = await host.error_for("create_room", rules={"players": 2, "target": target})
        assert (error.code, error.command) == ("invalid", "create_room")
        assert "rules.target" in error.message
        assert not server.rooms
        assert isinstance(
            await host.request("create_room", rules={"players": 2, "target": 1000}), msg.Joined
        )


def test_records_keep_the_rules_target_without_a_ceiling() -> None:
    assert msgspec.convert({"players": 2, "target": 5000}, Rules).target == 5000
    with pytest.raises(msgspec.ValidationError):
        msgspec.convert({"players": 2, "target": 5000}, RoomRules)


async def test_huge_numbers_are_refused_as_invalid() -> None:
    async with run_server(fast_config()) as server:
        client = await Client.open(server.url, hello=False)
        await client.send_raw(
            json.dumps({"type": "hello", "version": 10**30, "name": "A", "id": 1})
        )
        assert_error(await client.receive(), "invalid", "hello", 1)
        await client.send_raw(json.dumps({"type": "ping", "id": 10**30}))
        assert_error(await client.receive(), "invalid", "ping", None)
        await client.send_raw(
            json.dumps(
                {
                    "type": "hello",
                    "version": msg.PROTOCOL_VERSION,
                    "name": "A",
                    "room": "BCDF",
                    "token": "t",
                    "last_seq": 10**20,
                    "id": 2,
                }
            )
        )
        assert_error(await client.receive(), "invalid", "hello", 2)


async def test_every_message_of_a_flood_is_answered_by_name_until_the_connection_closes() -> None:
    async with run_server(fast_config(rate=5.0, burst=5, flood_limit=20)) as server:
        flooder = await Client.open(server.url, "Flood")
        sent = 40
        for id in range(100, 100 + sent):
            await flooder.send_raw(json.dumps({"type": "ping", "id": id}))
        answered: dict[int, str] = {}
        with pytest.raises(ConnectionClosed) as closed:
            while True:
                message = await flooder.receive(5.0)
                assert isinstance(message, msg.Pong | msg.Error), message
                assert message.id is not None
                answered[message.id] = type(message).__name__
                if isinstance(message, msg.Error):
                    assert (message.code, message.command) == ("rate_limited", "ping")
        assert closed.value.rcvd is not None and closed.value.rcvd.code == 1008
        assert "flooding" in closed.value.rcvd.reason
        # Every message up to the close was answered, in order, with its own id.
        assert list(answered) == list(range(100, 100 + len(answered)))
        assert "Error" in answered.values() and len(answered) > 20


async def test_finished_rooms_do_not_count_against_their_address() -> None:
    async with run_server(fast_config(max_rooms_per_ip=1)) as server:
        (host,) = await seat_players(server.url, 2, 1, "easy", target=5)
        await host.request("start")
        await play_out(host, random.Random(4))
        assert host.document["phase"] == "finished"
        other = await Client.open(server.url, "Other")
        assert isinstance(await other.request("create_room", rules={"players": 2}), msg.Joined)
        third = await Client.open(server.url, "Third")
        error = await third.error_for("create_room", rules={"players": 2})
        assert error.code == "rate_limited"


async def test_names_are_unique_at_a_table_and_never_a_bots() -> None:
    async with run_server(fast_config()) as server:
        ann = await Client.open(server.url, "Ann")
        await ann.request("create_room", rules={"players": 4})
        twin = await Client.open(server.url, "Twin")
        error = await twin.error_for("join", room=ann.room, name=" ann ")
        assert error.code == "invalid" and "at this table" in error.message
        assert isinstance(await twin.request("join", room=ann.room, name="Annie"), msg.Joined)
        for name in ["bot:hard", "BOT:normal", "bot : easy", "ｂｏｔ：hard"]:
            impostor = await Client.open(server.url, hello=False)
            error = await impostor.error_for("hello", version=msg.PROTOCOL_VERSION, name=name)
            assert (error.code, error.command) == ("invalid", "hello"), name
            assert "bot" in error.message
            error = await twin.error_for("join", room=ann.room, name=name)
            assert error.code == "invalid"


async def test_only_the_websocket_path_upgrades() -> None:
    async with run_server(fast_config()) as server:
        for path in ["other", "ws", "healthz/x"]:
            with pytest.raises(InvalidStatus) as refused:
                await connect(server.url + path)
            assert refused.value.response.status_code == 404
        assert isinstance(await (await Client.open(server.url)).request("ping"), msg.Pong)


async def test_an_allowed_origin_keeps_other_sites_out() -> None:
    config = fast_config(allowed_origin="https://play.example, https://www.play.example")
    async with run_server(config) as server:
        with pytest.raises(InvalidStatus) as refused:
            await connect(server.url, origin="https://evil.example")  # type: ignore[arg-type]
        assert refused.value.response.status_code == 403
        for origin in ["https://play.example", "https://www.play.example"]:
            socket = await connect(server.url, origin=origin)  # type: ignore[arg-type]
            await socket.close()
        socket = await connect(server.url)  # no Origin: not a browser
        await socket.close()


async def http(port: int, method: str, path: str) -> tuple[int, bytes]:
    """One plain HTTP request: the status, and every byte after the headers."""
    reader, writer = await asyncio.open_connection("127.0.0.1", port)
    request = f"{method} {path} HTTP/1.1\r\nHost: localhost\r\nContent-Length: 0\r\n\r\n"
    writer.write(request.encode())
    await writer.drain()
    status = int((await reader.readline()).split()[1])
    await reader.readuntil(b"\r\n\r\n")
    rest = await asyncio.wait_for(reader.read(), 5.0)  # the server closes after answering
    writer.close()
    return status, rest


async def test_probes_answer_get_and_head_only() -> None:
    async with run_server(fast_config()) as server:
        assert await http(server.port, "GET", "/healthz") == (200, b"ok\n")
        assert await http(server.port, "HEAD", "/healthz") == (200, b"")
        # /readyz asks the store before it answers: HEAD waits for that answer too.
        assert await http(server.port, "GET", "/readyz") == (200, b"ready\n")
        assert await http(server.port, "HEAD", "/readyz") == (200, b"")
        for method in ["POST", "PUT", "DELETE"]:
            status, body = await http(server.port, method, "/healthz")
            assert status == 405 and b"only GET and HEAD" in body
        status, _ = await http(server.port, "POST", "/metrics")
        assert status == 405


def test_the_new_limits_are_serve_options() -> None:
    import argparse

    from server.serve import add_arguments, config_from

    parser = argparse.ArgumentParser()
    add_arguments(parser)
    arguments = ["--max-connections", "50", "--allowed-origin", "https://play.example"]
    config = config_from(parser.parse_args(arguments), {"ALLFIVES_RELEASE_SECONDS": "30"})
    assert (config.limits.max_connections, config.network.allowed_origin) == (
        50,
        "https://play.example",
    )
    assert (config.timing.release_seconds, config.timing.hello_seconds) == (30.0, 10.0)


async def test_refused_spectator_chat_does_not_use_up_the_rooms_chat() -> None:
    async with run_server(fast_config(room_chat_rate=0.1, room_chat_burst=2)) as server:
        host, guest = await seat_players(server.url, 2, 2)
        heckler = await Client.open(server.url, "Heckler")
        await heckler.request("spectate", room=host.room)
        for _ in range(5):
            assert (await heckler.error_for("chat", text="boo")).code == "invalid"
        assert isinstance(await host.request("chat", text="hi"), msg.Ack)
        assert isinstance(await guest.request("chat", text="hello"), msg.Ack)


async def test_rooms_made_only_to_finish_are_bounded_by_the_creation_rate() -> None:
    # Finished rooms no longer count as open: creating them is what the hourly rate bounds.
    async with run_server(fast_config(rooms_burst=3, rooms_per_hour=0.01)) as server:
        player = await Client.open(server.url, "Maker")
        for _ in range(3):
            joined = await player.request("create_room", rules={"players": 2, "target": 5})
            assert isinstance(joined, msg.Joined), joined
            assert isinstance(await player.request("add_bot", level="easy"), msg.Ack)
            assert isinstance(await player.request("start"), msg.Ack)
            await play_out(player, random.Random(1))
        assert server.registry.rooms_per_ip.counts == {}  # none of them is open any more
        refused = await player.error_for("create_room", rules={"players": 2})
        assert refused.code == "rate_limited" and "an hour" in refused.message
        assert len(server.rooms) == 3
        # Another address is not held back by this one.
        server.registry.created.spent.clear()
        assert isinstance(await player.request("create_room", rules={"players": 2}), msg.Joined)


def test_a_room_code_is_found_or_refused_in_bounded_time() -> None:
    every = {"".join(c) for c in itertools.product(codes.ALPHABET, repeat=codes.CODE_LENGTH)}
    assert codes.new_code(every) is None
    free = sorted(every)[12345]
    assert codes.new_code(every - {free}) == free


async def test_a_process_holding_max_rooms_refuses_more_as_busy() -> None:
    async with run_server(fast_config(max_rooms=2)) as server:
        for name in ("A", "B"):
            client = await Client.open(server.url, name)
            assert isinstance(await client.request("create_room", rules={"players": 2}), msg.Joined)
        late = await Client.open(server.url, "Late")
        refused = await late.error_for("create_room", rules={"players": 2})
        assert refused.code == "busy" and len(server.rooms) == 2
        assert late.room is None


async def test_sockets_still_in_the_upgrade_count_against_the_limits() -> None:
    async with run_server(fast_config(max_connections_per_ip=4, max_connections=6)) as server:
        # Sockets that never finish (or never start) their HTTP upgrade hold a place each.
        held = [await asyncio.open_connection("127.0.0.1", server.port) for _ in range(4)]
        held[0][1].write(b"GET / HTTP/1.1\r\nHost: x\r\n")  # half a request
        reader, writer = await asyncio.open_connection("127.0.0.1", server.port)
        answer = await asyncio.wait_for(reader.read(), 5.0)  # answered and closed at once
        assert answer.startswith(b"HTTP/1.1 429 ") and b"at most 4 connections" in answer
        writer.close()
        with pytest.raises(InvalidStatus) as refused:
            await connect(server.url)
        assert refused.value.response.status_code == 429
        assert server.gate.open == 4
        # The server as a whole: 503 past max_connections, whoever asks.
        server.gate.per_address.limit = 100
        more = [await asyncio.open_connection("127.0.0.1", server.port) for _ in range(2)]
        reader, writer = await asyncio.open_connection("127.0.0.1", server.port)
        assert (await asyncio.wait_for(reader.read(), 5.0)).startswith(b"HTTP/1.1 503 ")
        writer.close()
        for _, socket_writer in held + more:
            socket_writer.close()
        await until(lambda: server.gate.open == 0)
        assert isinstance(await (await Client.open(server.url, "Late")).request("ping"), msg.Pong)


async def test_look_alike_names_are_one_name_at_a_table() -> None:
    async with run_server(fast_config()) as server:
        ann = await Client.open(server.url, "Ann")
        await ann.request("create_room", rules={"players": 4})
        bob = await Client.open(server.url, "Bob")
        assert isinstance(await bob.request("join", room=ann.room), msg.Joined)
        for look_alike in ["\u0410nn", "B0b", "ＡＮＮ", "b o b"]:  # Cyrillic А; zero; full width
            twin = await Client.open(server.url, "Twin")
            error = await twin.error_for("join", room=ann.room, name=look_alike)
            assert error.code == "invalid" and "at this table" in error.message, look_alike
        assert isinstance(await twin.request("join", room=ann.room, name="Annie"), msg.Joined)
        assert name_key("bot:") == msg.BOT_KEY
        impostor = await Client.open(server.url, hello=False)
        error = await impostor.error_for(
            "hello", version=msg.PROTOCOL_VERSION, name="b\u043et:hard"
        )  # Cyrillic о
        assert error.code == "invalid" and "bot" in error.message
