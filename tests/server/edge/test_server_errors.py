"""Every refusal a client can meet: a stable code, the command and id it answers, nothing changed."""

from __future__ import annotations

import asyncio
import json
import random
import socket
from collections.abc import AsyncIterator

import pytest
from server_helpers import fast_config
from waiting import until
from websockets.asyncio.client import connect
from websockets.exceptions import ConnectionClosed, InvalidStatus
from ws_client_helpers import Client, assert_error, caught_up, play_out, seat_players, until_holds

from protocol import messages as msg
from server.app import Server, run_server
from server.storage.store import MemoryStore, StoreUnavailable


class FlakyStore(MemoryStore):
    """A memory store that can be switched off, to stand for a store that cannot be reached."""

    holds_live_rooms = False  # saved as bytes through save_room, which can fail

    def __init__(self) -> None:
        super().__init__()
        self.down = False

    async def save_room(self, code: str, seq: int, state: bytes) -> None:
        """Save, unless switched off."""
        if self.down:
            raise StoreUnavailable("switched off by the test")
        await super().save_room(code, seq, state)


@pytest.fixture
async def server() -> AsyncIterator[Server]:
    """A running server with a store the test can switch off."""
    async with run_server(fast_config(store=FlakyStore())) as running:
        yield running


async def test_frames_that_are_not_commands(server: Server) -> None:
    client = await Client.open(server.url)
    await client.send_raw("{not json")
    assert_error(await client.receive(), "bad_json", None, None)
    await client.send_raw(b"\xff\xfe\x00")
    assert_error(await client.receive(), "bad_json", None, None)
    await client.send_raw('{"type": "dance", "id": 7}')
    assert_error(await client.receive(), "unknown_type", None, 7)
    await client.send_raw('{"type": "join", "id": 8}')
    error = assert_error(await client.receive(), "invalid", "join", 8)
    assert "room" in error.message
    await client.send_raw('{"type": "play", "id": 9, "tile": "7-3"}')
    error = assert_error(await client.receive(), "invalid", "play", 9)
    assert 'a tile like "5-3"' in error.message
    await client.send_raw(json.dumps({"type": "chat", "id": 10, "text": "x" * 5000}))
    assert_error(await client.receive(), "too_large", None, None)


async def test_a_frame_above_max_size_closes_the_connection(server: Server) -> None:
    client = await Client.open(server.url)
    await client.send_raw("x" * (server.config.limits.max_size + 1))
    with pytest.raises(ConnectionClosed) as closed:
        await client.receive()
    assert closed.value.rcvd is not None and closed.value.rcvd.code == 1009


async def test_hello_comes_first_and_names_the_version(server: Server) -> None:
    client = await Client.open(server.url, hello=False)
    assert_error(await client.request("list_rooms"), "invalid", "list_rooms", 1)
    error = assert_error(
        await client.request("hello", version=99, name="Ann"), "bad_version", "hello", 2
    )
    assert "version 3" in error.message
    # A client of version 2 (patches alone, no `moved` frames) is told which version this
    # server speaks.
    error = assert_error(
        await client.request("hello", version=2, name="Ann"), "bad_version", "hello", 3
    )
    assert error.message == "this server speaks protocol version 3, not 2"
    assert isinstance(
        await client.request("hello", version=msg.PROTOCOL_VERSION, name="Ann"), msg.Welcome
    )
    assert_error(
        await client.request("hello", version=msg.PROTOCOL_VERSION, name="Ann"),
        "invalid",
        "hello",
        5,
    )


async def test_room_commands_refused_with_their_codes(server: Server) -> None:
    host, guest = await seat_players(server.url, 2, 2)
    outsider = await Client.open(server.url, "Out")
    assert (await outsider.error_for("start")).code == "not_in_room"
    assert (await outsider.error_for("record")).code == "not_in_room"
    assert (await outsider.error_for("join", room="QQQQ")).code == "no_such_room"
    full = await outsider.error_for("join", room=host.room)
    assert (full.code, full.command, full.id) == ("room_full", "join", 5)
    assert (await guest.error_for("start")).code == "not_host"
    assert (await guest.error_for("add_bot")).code == "not_host"
    assert (await host.error_for("play", tile="5-3")).code == "wrong_phase"
    assert (await host.error_for("record")).code == "wrong_phase"
    assert (await host.error_for("add_bot", seat=1)).code == "room_full"
    assert (await host.error_for("remove_bot", seat=1)).code == "invalid"
    assert (await host.error_for("join", room=host.room, seat=1)).code == "invalid"
    seq = host.state.seq
    await host.request("start")
    await caught_up(server, host, guest)
    mover, waiter = (host, guest) if host.my_turn() else (guest, host)
    tile = waiter.document["game"]["hand"][0]
    error = await waiter.error_for("play", tile=tile)
    assert (error.code, error.command) == ("not_your_turn", "play")
    held = mover.document["game"]["hand"]
    not_held = next(t for t in waiter.document["game"]["hand"] if t not in held)
    error = await mover.error_for("play", tile=not_held)
    assert error.code == "illegal_move" and "does not hold" in error.message
    error = await mover.error_for("pass")
    assert error.code == "illegal_move" and "must play" in error.message
    assert (await outsider.error_for("join", room=host.room)).code == "wrong_phase"
    assert (await host.error_for("rematch")).code == "wrong_phase"
    assert (await waiter.error_for("hint")).code == "not_your_turn"
    assert host.state.seq is not None and seq is not None and host.state.seq == seq + 1
    await asyncio.gather(play_out(host, random.Random(1)), play_out(guest, random.Random(2)))


async def test_a_bad_token_is_refused(server: Server) -> None:
    host, _ = await seat_players(server.url, 2, 2)
    client = await Client.open(server.url, hello=False)
    await client.send(
        "hello", version=msg.PROTOCOL_VERSION, name="X", token="not-a-token", room=host.room
    )
    await client.until(lambda m: isinstance(m, msg.Welcome))
    assert_error(await client.receive(), "bad_token", "hello", 1)


async def started(server: Server) -> tuple[FlakyStore, Client, Client]:
    """The server's switchable store, and two players whose match has started (both caught up)."""
    store = server.store
    assert isinstance(store, FlakyStore)
    host, guest = await seat_players(server.url, 2, 2)
    await host.request("start")
    await caught_up(server, host, guest)
    return store, host, guest


async def test_while_the_store_is_down_changes_are_refused_and_nothing_is_lost(
    server: Server,
) -> None:
    store, host, guest = await started(server)
    mover = host if host.my_turn() else guest
    before = json.dumps(mover.document, sort_keys=True)
    store.down = True
    choice = mover.document["game"]["legal"][0]
    error = await mover.error_for("play", tile=choice["tile"], end=choice.get("end"))
    assert (error.code, error.command) == ("unavailable", "play")
    assert (await host.error_for("chat", text="hello?")).code == "unavailable"
    fresh = await mover.request("resync")
    assert isinstance(fresh, msg.Snapshot)
    assert json.dumps(mover.document, sort_keys=True) == before
    store.down = False
    assert isinstance(
        await mover.request("play", tile=choice["tile"], end=choice.get("end")), msg.Ack
    )


async def test_a_change_kept_while_the_store_is_down_is_what_a_refused_one_goes_back_to(
    server: Server,
) -> None:
    store, host, guest = await started(server)
    store.down = True
    await guest.close()  # a disconnect is kept in memory though it cannot be stored
    await until_holds(host, lambda doc: not doc["seats"][1]["connected"])
    kept = json.dumps(host.document, sort_keys=True)
    if host.my_turn():
        choice = host.document["game"]["legal"][0]
        error = await host.error_for("play", tile=choice["tile"], end=choice.get("end"))
    else:
        error = await host.error_for("chat", text="hello?")
    assert error.code == "unavailable" and "store" in error.message, error
    fresh = await host.request("resync")
    assert isinstance(fresh, msg.Snapshot)
    assert json.dumps(host.document, sort_keys=True) == kept, "not back to the kept change"
    store.down = False
    assert isinstance(await host.request("chat", text="back"), msg.Ack)


async def test_a_flood_is_rate_limited_then_disconnected() -> None:
    async with run_server(fast_config(rate=5.0, burst=5, flood_limit=30)) as server:
        flooder = await Client.open(server.url, "Flood")
        calm = await Client.open(server.url, "Calm")
        for _ in range(60):
            await flooder.send("ping")
        codes = []
        with pytest.raises(ConnectionClosed) as closed:
            while True:
                message = await flooder.receive(5.0)
                codes.append(getattr(message, "code", type(message).__name__))
        assert closed.value.rcvd is not None and closed.value.rcvd.code == 1008
        assert "rate_limited" in codes and codes.count("Pong") <= 6
        assert isinstance(await calm.request("ping"), msg.Pong)


async def test_an_address_is_limited_in_connections_and_rooms() -> None:
    config = fast_config(max_connections_per_ip=2, max_rooms_per_ip=1)
    async with run_server(config) as server:
        first = await Client.open(server.url, "A")
        second = await Client.open(server.url, "B")
        with pytest.raises(InvalidStatus) as refused:
            await connect(server.url)
        assert refused.value.response.status_code == 429
        assert isinstance(await first.request("create_room", rules={"players": 2}), msg.Joined)
        error = await second.error_for("create_room", rules={"players": 2})
        assert error.code == "rate_limited" and "at most 1 open rooms" in error.message
        await first.close()
        await until(lambda: len(server.connections) == 1)  # the server saw it close
        third = await Client.open(server.url, "C")
        assert isinstance(await third.request("ping"), msg.Pong)


async def test_a_client_that_does_not_read_is_dropped_and_its_room_plays_on() -> None:
    config = fast_config(send_buffer=16 * 1024)
    async with run_server(config) as server:
        host, other = await seat_players(server.url, 2, 2)
        for index in range(50):
            await host.request("chat", text=f"{index:03d} " + "talk " * 38)
            await caught_up(server, other)  # the other player reads as it comes
        raw = socket.socket()
        raw.setsockopt(socket.SOL_SOCKET, socket.SO_RCVBUF, 2048)
        raw.connect(("127.0.0.1", server.port))
        sleeper = await connect(server.url, sock=raw, max_queue=1)
        await sleeper.send(
            json.dumps({"type": "hello", "version": msg.PROTOCOL_VERSION, "name": "Zzz"})
        )
        await sleeper.send(json.dumps({"type": "spectate", "room": host.room}))
        for _ in range(400):
            await sleeper.send(json.dumps({"type": "resync"}))
        loop = asyncio.get_running_loop()

        async def dropped() -> bool:
            """Whether the sleeper is gone; meanwhile the room answers each ping at once."""
            if server.metrics.slow_clients_dropped:
                return True
            started = loop.time()
            assert isinstance(await other.request("ping"), msg.Pong)
            assert loop.time() - started < 0.5, "a slow reader slowed the room down"
            return False

        await until(dropped, 20, "the slow reader to be dropped")
        assert server.metrics.slow_clients_dropped == 1
        assert isinstance(await host.request("chat", text="still here"), msg.Ack)
        sleeper.transport.abort()


async def test_behind_a_trusted_proxy_limits_count_the_address_it_names() -> None:
    config = fast_config(max_connections_per_ip=1, trust_proxy=True)
    async with run_server(config) as server:
        ann = await connect(server.url, additional_headers={"X-Real-IP": "203.0.113.5"})
        bob = await connect(server.url, additional_headers={"X-Real-IP": "203.0.113.6"})
        with pytest.raises(InvalidStatus) as refused:
            await connect(server.url, additional_headers={"X-Real-IP": "203.0.113.5"})
        assert refused.value.response.status_code == 429
        await ann.close()
        await bob.close()
    async with run_server(fast_config(max_connections_per_ip=1)) as server:
        first = await connect(server.url, additional_headers={"X-Real-IP": "203.0.113.5"})
        with pytest.raises(InvalidStatus):
            await connect(server.url, additional_headers={"X-Real-IP": "203.0.113.6"})
        await first.close()


def test_serve_options_come_from_the_command_line_or_the_environment() -> None:
    import argparse

    from server.serve import add_arguments, config_from

    parser = argparse.ArgumentParser()
    add_arguments(parser)
    environment = {
        "ALLFIVES_MAX_ROOMS_PER_IP": "3",
        "ALLFIVES_TRUST_PROXY": "yes",
        "ALLFIVES_PORT": "9",
    }
    config = config_from(parser.parse_args(["--port", "9100"]), environment)
    assert (config.network.port, config.limits.max_rooms_per_ip, config.network.trust_proxy) == (
        9100,
        3,
        True,
    )
    assert config.network.host == "127.0.0.1"
    with pytest.raises(ValueError, match="yes, no or the proxies' addresses"):
        config_from(parser.parse_args([]), {"ALLFIVES_TRUST_PROXY": "maybe"})
    only = config_from(parser.parse_args(["--trust-proxy", "127.0.0.2, 10.1.0.0/16"]), {})
    assert [only.network.trusts(peer) for peer in ("127.0.0.2", "10.1.2.3", "127.0.0.1")] == [
        True,
        True,
        False,
    ]


async def test_a_chat_line_the_store_refused_does_not_spend_the_rooms_chat_rate() -> None:
    config = fast_config(store=FlakyStore(), room_chat_burst=3, room_chat_rate=0.001)
    async with run_server(config) as server:
        store, host, _ = await started(server)
        store.down = True
        for line in range(6):
            assert (await host.error_for("chat", text=f"lost {line}")).code == "unavailable"
        store.down = False
        answers = [await host.request("chat", text=f"line {n}") for n in range(4)]
        assert [type(a).__name__ for a in answers[:3]] == ["Ack"] * 3
        assert_error(answers[3], "rate_limited", "chat", answers[3].id)  # type: ignore[union-attr]
