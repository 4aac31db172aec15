"""Running the server: probes, metrics, expiry, a barrage of bad frames, and SIGTERM."""

from __future__ import annotations

import asyncio
import gc
import json
import os
import random
import shutil
import signal
import ssl
import subprocess
import sys
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from server_helpers import fast_config, http_get, metrics_of
from waiting import until
from websockets.asyncio.client import connect
from websockets.exceptions import ConnectionClosed
from ws_client_helpers import Client, play_out, seat_players

from protocol import errors
from protocol import messages as msg
from server.app import run_server
from server.edge.address import network_address

ROOT = Path(__file__).resolve().parents[2]


async def test_healthz_and_metrics_are_served_on_the_game_port() -> None:
    async with run_server(fast_config()) as server:
        clients = await seat_players(server.url, 2, 1, "easy", target=50)
        await clients[0].error_for("play", tile="9-9")
        await clients[0].request("start")
        await play_out(clients[0], random.Random(4))
        base = f"http://127.0.0.1:{server.port}"
        status, body = await asyncio.to_thread(http_get, base + "/healthz")
        assert (status, body) == (200, "ok\n")
        lines = await metrics_of(server)
        assert lines["allfives_rooms"] == 1
        assert lines["allfives_connections"] == 1
        assert lines["allfives_matches_started_total"] == 1
        assert lines["allfives_matches_finished_total"] == 1
        assert lines["allfives_moves_total"] > 10
        assert lines['allfives_errors_total{code="invalid"}'] == 1
        assert not any(name.startswith("allfives_changes_adopted") for name in lines), "alone"
        gc.collect()  # one pass of the oldest generation at least, timed
        lines = await metrics_of(server)
        assert lines['allfives_gc_passes_total{generation="2"}'] >= 1
        assert lines['allfives_gc_seconds_total{generation="2"}'] > 0
        assert lines["allfives_gc_longest_seconds"] > 0


class FakeClock:
    """A wall clock the test moves by hand (`Config.clock`)."""

    def __init__(self) -> None:
        self.now = 1_000_000.0

    def __call__(self) -> float:
        return self.now


async def test_an_empty_room_expires_by_the_servers_clock() -> None:
    clock = FakeClock()
    config = fast_config(empty_room_seconds=600.0, sweep_seconds=0.02, clock=clock)
    async with run_server(config) as server:
        host = await Client.open(server.url, "Host")
        await host.request("create_room", rules={"players": 2})
        code = host.room
        assert code is not None

        async def left_empty(name: str) -> str:
            """A room opened after the host's (swept after it), its player gone; its code."""
            client = await Client.open(server.url, name)
            await client.request("create_room", rules={"players": 2})
            room = client.room
            assert room is not None
            await client.close()
            await until(lambda: server.rooms[room].room.state.empty_since is not None)
            return room

        # A sweep at the later time expires the empty room opened after the host's: by then it
        # has looked at the host's room too.
        control = await left_empty("Gone")
        clock.now += 10_000
        await until(lambda: control not in server.rooms)
        assert code in server.rooms, "a room with someone in it stays"
        control = await left_empty("Gone too")
        clock.now += 1
        await host.close()
        await until(lambda: server.rooms[code].room.state.empty_since is not None)
        clock.now += 599
        await until(lambda: control not in server.rooms)  # empty for 600 s
        assert code in server.rooms, "a room empty for 599 s of 600 stays"
        clock.now += 2
        await until(lambda: code not in server.rooms)
        assert await server.store.load_room(code) is None
        late = await Client.open(server.url, "Late")
        assert (await late.error_for("join", room=code)).code == "no_such_room"


FRAMES = st.one_of(
    st.binary(max_size=40),
    st.text(max_size=40),
    st.builds(
        lambda kind, fields: json.dumps({"type": kind, **fields}),
        st.sampled_from([*msg.CLIENT_TYPES, "", "x", "hello"]),
        st.dictionaries(
            st.sampled_from(
                ["id", "room", "seat", "tile", "end", "text", "version", "name", "rules"]
            ),
            st.none()
            | st.booleans()
            | st.integers(-5, 10**12)
            | st.text(max_size=8)
            | st.lists(st.integers(), max_size=3)
            | st.dictionaries(st.text(max_size=3), st.integers(), max_size=2),
            max_size=4,
        ),
    ),
    st.integers(4097, 8000).map(lambda n: '{"type":"chat","text":"' + "x" * n + '"}'),
    st.integers(1, 400).map(lambda n: "[" * n + "]" * n),
)


def test_a_barrage_of_bad_frames_leaves_the_server_and_other_rooms_playing() -> None:
    async def scenario() -> None:
        async with run_server(
            fast_config(max_connections_per_ip=1000, max_rooms_per_ip=1000)
        ) as server:
            players = await seat_players(server.url, 2, 2, target=100)
            await players[0].request("start")

            @settings(
                max_examples=60,
                deadline=None,
                suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow],
            )
            @given(st.lists(FRAMES, min_size=1, max_size=6), st.booleans())
            def barrage(frames: list[str | bytes], greet: bool) -> None:
                future = asyncio.run_coroutine_threadsafe(
                    send_barrage(server.url, frames, greet), loop
                )
                future.result(30)

            loop = asyncio.get_running_loop()
            await asyncio.to_thread(barrage)
            assert sum(server.metrics.errors.values()) > 60
            await asyncio.gather(*(play_out(p, random.Random(i)) for i, p in enumerate(players)))
            assert players[0].document["phase"] == "finished"
            fresh = await seat_players(server.url, 3, 1, "normal", target=50)
            await fresh[0].request("start")
            await play_out(fresh[0], random.Random(9))

    asyncio.run(scenario())


async def send_barrage(url: str, frames: list[str | bytes], greet: bool) -> None:
    """Send frames; each is answered by a server message or closes the connection for size."""
    client = await Client.open(url, "Noise", hello=greet)
    try:
        for frame in frames:
            await client.send_raw(frame)
        pong = await client.request("ping")
        assert isinstance(pong, msg.Pong)
        for text in client.frames:
            message = msg.decode_server(text)
            if isinstance(message, msg.Error):
                assert message.code in errors.ERROR_CODES and message.message
    except ConnectionClosed as closed:
        assert closed.rcvd is not None and closed.rcvd.code == 1009
    finally:
        await client.close()


def test_sigterm_closes_connections_with_1001_and_exits_cleanly() -> None:
    env = {**os.environ, "ALLFIVES_PORT": "0", "ALLFIVES_BOT_DELAY": "0"}
    process = subprocess.Popen(
        [sys.executable, "-m", "allfives.cli", "serve", "--host", "127.0.0.1"],
        cwd=ROOT,
        env=env,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )
    try:
        assert process.stdout is not None
        line = process.stdout.readline()
        assert "listening on ws://127.0.0.1:" in line, line
        url = line.split()[-1]

        async def connect_then_terminate() -> int:
            async with connect(url) as socket:
                await socket.send(
                    json.dumps({"type": "hello", "version": msg.PROTOCOL_VERSION, "name": "Ann"})
                )
                await socket.recv()
                process.send_signal(signal.SIGTERM)
                try:
                    await asyncio.wait_for(socket.recv(), 10)
                except ConnectionClosed as closed:
                    assert closed.rcvd is not None
                    return closed.rcvd.code
            return -1

        assert asyncio.run(connect_then_terminate()) == 1001
        assert process.wait(10) == 0
        assert process.stderr is not None
        assert "stopped" in process.stderr.read()
    finally:
        if process.poll() is None:
            process.kill()
            process.wait()


async def test_with_a_certificate_the_server_speaks_wss(tmp_path: Path) -> None:
    if shutil.which("openssl") is None:
        pytest.skip("openssl is needed to make a test certificate")
    cert, key = tmp_path / "cert.pem", tmp_path / "key.pem"
    subprocess.run(
        ["openssl", "req", "-x509", "-newkey", "rsa:2048", "-nodes", "-days", "1",
         "-subj", "/CN=localhost", "-addext", "subjectAltName=DNS:localhost,IP:127.0.0.1",
         "-keyout", str(key), "-out", str(cert)],
        check=True, capture_output=True,
    )  # fmt: skip
    config = fast_config(certfile=str(cert), keyfile=str(key))
    async with run_server(config) as server:
        assert server.url.startswith("wss://127.0.0.1:")
        trust = ssl.create_default_context(cafile=str(cert))
        async with connect(server.url, ssl=trust) as socket:
            await socket.send(
                json.dumps(
                    {"type": "hello", "version": msg.PROTOCOL_VERSION, "name": "Ann", "id": 1}
                )
            )
            assert msg.decode_server(await socket.recv()) == msg.Welcome(
                version=msg.PROTOCOL_VERSION, server="allfives 0.1.0", id=1
            )


@pytest.mark.parametrize("host", ["0.0.0.0", "127.0.0.1"])
def test_the_join_lines_name_an_address_others_can_reach(host: str) -> None:
    """`serve --host 0.0.0.0` listens on every address; its join lines name this machine's
    network address (ws://0.0.0.0:PORT is nowhere to connect to), on the port it listens on."""
    env = {**os.environ, "ALLFIVES_PORT": "0", "ALLFIVES_LOG_LEVEL": "warning"}
    process = subprocess.Popen(
        [sys.executable, "-m", "allfives.cli", "serve", "--host", host],
        cwd=ROOT,
        env=env,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )
    try:
        assert process.stdout is not None and process.stderr is not None
        listening = process.stdout.readline()
        port = listening.rstrip().rstrip("/").rsplit(":", 1)[1]
        lines = [process.stderr.readline() for _ in range(2)]
    finally:
        process.send_signal(signal.SIGTERM)
        process.wait(timeout=30)
    address = network_address() if host == "0.0.0.0" else host
    assert f"listening on ws://{host}:{port}/" in listening, listening
    assert lines[0].split() == ["play", "in", "a", "browser:", f"http://{address}:{port}/"], lines
    assert lines[1].split()[-1] == f"ws://{address}:{port}", lines
