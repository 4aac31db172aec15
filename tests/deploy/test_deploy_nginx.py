"""docker-compose.yml's topology run for real (deploy/topology.py, what deploy/local.sh starts):
Debian's nginx in front of two `allfives serve --redis` processes on one redis-server.

Players go through nginx only: the browser's page and the WebSocket, a server killed mid-hand
(SIGKILL) and a server stopping (SIGTERM) while the game goes on through the other, and the
player's address taken from nginx's X-Real-IP but from no one else's.
"""

from __future__ import annotations

import asyncio
import contextlib
import os
import random
import re
import signal
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest
from cluster_helpers import check_record, finished, held, moves_in, open_client, play, reconnect
from redis_server import unavailable
from waiting import until, until_sync
from websockets.asyncio.client import connect
from websockets.exceptions import InvalidStatus
from ws_client_helpers import Client

from deploy import nginx_conf
from deploy.topology import Topology, TopologyError, find_nginx, get
from protocol import messages as msg

#: A small per-address limit, to see which address a server counts a connection under.
PER_ADDRESS = 4
SERVE = [
    "--rate", "1000", "--burst", "1000", "--bot-delay", "0.02", "--away-seconds", "1",
    "--max-connections-per-ip", str(PER_ADDRESS),
    # A stopping server answers 503 this long before it closes: nginx's cue to go elsewhere.
    "--drain-seconds", "1",
]  # fmt: skip


@pytest.fixture
def topology(tmp_path: Path) -> Iterator[Topology]:
    """Redis, two servers and nginx, on free ports under the test's directory."""
    if find_nginx() is None:
        unavailable("no nginx found: install it (apt-get install nginx)")
    running = Topology(tmp_path / "topology", server_options=SERVE)
    try:
        running.start()
    except TopologyError as error:
        unavailable(f"the nginx topology could not be started: {error}")
    try:
        yield running
    finally:
        running.stop()


def test_deploy_nginx_conf_is_the_compose_rendering_and_the_local_one_passes_nginx_t(
    tmp_path: Path,
) -> None:
    assert nginx_conf.COMPOSE_CONF.read_text() == nginx_conf.compose(), (
        "deploy/nginx.conf is not the template's compose rendering: "
        "uv run python -m deploy.nginx_conf compose > deploy/nginx.conf"
    )
    assert "resolve max_fails" in nginx_conf.compose()
    nginx = find_nginx()
    if nginx is None:
        unavailable("no nginx found: install it (apt-get install nginx)")
    conf = tmp_path / "nginx.conf"
    conf.write_text(nginx_conf.local(tmp_path, 8765, [8766, 8767]))
    assert "resolve" not in conf.read_text().replace("resolver", "")
    checked = subprocess.run(
        [nginx, "-t", "-p", str(tmp_path), "-c", str(conf), "-e", str(tmp_path / "error.log")],
        capture_output=True,
        text=True,
    )
    assert checked.returncode == 0, checked.stderr


async def connections(topology: Topology) -> list[int]:
    """Each server's open WebSocket connections, from its own /metrics."""

    def read(port: int) -> int:
        status, text = get(f"http://127.0.0.1:{port}/metrics")
        assert status == 200, text
        (line,) = [row for row in text.splitlines() if row.startswith("allfives_connections ")]
        return int(float(line.split()[1]))

    return [await asyncio.to_thread(read, server.port) for server in topology.servers]


async def open_counted(topology: Topology, name: str) -> tuple[Client, int]:
    """A player through nginx, and the index (0, 1) of the server nginx gave it to."""
    before = await connections(topology)
    client = await open_client(topology.url, name)
    after = await connections(topology)
    (index,) = [i for i, (b, a) in enumerate(zip(before, after, strict=True)) if a == b + 1]
    return client, index


@pytest.mark.redis
async def test_the_browser_page_and_a_game_go_through_nginx(topology: Topology) -> None:
    status, page = await asyncio.to_thread(get, topology.page)
    assert status == 200 and "<html" in page.lower()
    ann = await open_client(topology.url, "Ann")
    joined = await ann.request("create_room", rules={"players": 2, "target": 50})
    assert isinstance(joined, msg.Joined) and joined.room is not None
    bob = await open_client(topology.url, "Bob")
    assert isinstance(await bob.request("join", room=joined.room), msg.Joined)
    assert isinstance(await ann.request("start"), msg.Ack)
    await play([ann, bob], random.Random(1), finished([ann, bob]))
    assert ann.document["game"]["scores"] == bob.document["game"]["scores"]


async def refused(url: str, source: str, headers: dict[str, str] | None = None) -> int | None:
    """Open a connection from `source`: None if it says hello, else the HTTP status refused."""
    try:
        socket = await connect(url, local_addr=(source, 0), additional_headers=headers)
    except InvalidStatus as error:
        return error.response.status_code
    client = Client(socket, "probe")
    assert isinstance(
        await client.request("hello", version=msg.PROTOCOL_VERSION, name="P"), msg.Welcome
    )
    return None


@pytest.mark.redis
async def test_x_real_ip_counts_only_when_nginx_sends_it(topology: Topology) -> None:
    server = topology.servers[0]
    # Straight to a server: the socket's own address is counted, whatever it claims.
    held_open = [await connect(server.url, local_addr=("127.0.0.5", 0)) for _ in range(PER_ADDRESS)]
    forged = {"X-Real-IP": "203.0.113.7", "X-Forwarded-For": "203.0.113.7"}
    assert await refused(server.url, "127.0.0.5", forged) == 429
    # Through nginx the address nginx names (the player's, 127.0.0.5) is counted, not nginx's:
    # that address is turned away once both servers hold PER_ADDRESS of its, another is not.
    through: list[Client] = []
    status = None
    while status is None:
        assert len(through) < 2 * PER_ADDRESS + 1, "the per-address limit never came"
        try:
            socket = await connect(
                topology.url, local_addr=("127.0.0.6", 0), additional_headers=forged
            )
        except InvalidStatus as error:
            status = error.response.status_code
        else:
            through.append(Client(socket, "Ann"))
    assert status == 429 and PER_ADDRESS <= len(through) <= 2 * PER_ADDRESS
    assert await refused(topology.url, "127.0.0.7", forged) is None
    for socket in held_open:
        await socket.close()
    for client in through:
        await client.socket.close()


async def started_through_nginx(topology: Topology) -> tuple[Client, Client, int, int, str]:
    """Ann hosts a 3-seat room (an easy bot in it) and Bob joins, both through nginx: the two,
    the servers nginx gave them to (Ann's keeps the room) and the room's code."""
    ann, ann_on = await open_counted(topology, "Ann")
    joined = await ann.request("create_room", rules={"players": 3, "target": 50})
    assert isinstance(joined, msg.Joined) and joined.room is not None
    await ann.until(lambda m: isinstance(m, msg.Snapshot))
    bob, bob_on = await open_counted(topology, "Bob")
    assert isinstance(await bob.request("join", room=joined.room), msg.Joined)
    await bob.until(lambda m: isinstance(m, msg.Snapshot))
    assert isinstance(await ann.request("add_bot", level="easy"), msg.Ack)
    assert isinstance(await ann.request("start"), msg.Ack)
    return ann, bob, ann_on, bob_on, joined.room


async def back_through_nginx(topology: Topology, client: Client) -> Client:
    """The player's connection was cut with its server: it comes back through nginx."""
    await asyncio.wait_for(client.socket.wait_closed(), 10)
    return await reconnect(client, topology.url)


@pytest.mark.redis
async def test_a_server_killed_mid_hand_its_room_goes_on_through_nginx(topology: Topology) -> None:
    ann, bob, keeper, bob_on, _ = await started_through_nginx(topology)
    rng = random.Random(2)
    await play([ann, bob], rng, lambda: len(moves_in(held(bob).events)) >= 4)
    topology.servers[keeper].end(signal.SIGKILL)
    ann = await back_through_nginx(topology, ann)
    if bob_on == keeper:
        bob = await back_through_nginx(topology, bob)
    await play([ann, bob], rng, finished([ann, bob]), timeout=90)
    record = await bob.request("record")
    assert isinstance(record, msg.RecordReply)
    check_record(record.record, bob.document, held(bob).events, every=False)
    assert (await connections_left(topology, keeper)) >= 2


async def connections_left(topology: Topology, gone: int) -> int:
    """The connections of the server still running (the other is `gone`)."""
    server = topology.servers[1 - gone]
    status, text = await asyncio.to_thread(get, f"http://127.0.0.1:{server.port}/metrics")
    assert status == 200
    (line,) = [row for row in text.splitlines() if row.startswith("allfives_connections ")]
    return int(float(line.split()[1]))


@pytest.mark.redis
async def test_a_stopping_servers_players_and_newcomers_go_to_the_other(topology: Topology) -> None:
    ann, bob, keeper, bob_on, _ = await started_through_nginx(topology)
    rng = random.Random(3)
    await play([ann, bob], rng, lambda: len(moves_in(held(bob).events)) >= 3)
    stopping = topology.servers[keeper].process
    assert stopping is not None
    refusals: list[str] = []
    welcomed = 0

    async def newcomers() -> None:
        """Players arriving through nginx all the while the server stops: none turned away."""
        nonlocal welcomed
        while stopping.poll() is None or welcomed < 5:
            try:
                client = await open_client(topology.url, f"New{welcomed}")
            except (InvalidStatus, OSError, AssertionError) as error:
                refusals.append(repr(error))
            else:
                welcomed += 1
                await client.socket.close()

    arriving = asyncio.get_running_loop().create_task(newcomers())
    stopping.send_signal(signal.SIGTERM)
    direct = f"http://127.0.0.1:{topology.servers[keeper].port}/readyz"

    async def draining() -> bool:
        """The stopping server still answers, and says it is not ready (nginx's cue)."""
        status, body = await asyncio.to_thread(get, direct)
        return status == 503 and "stopping" in body

    await until(draining, 5, "the stopping server's /readyz to answer 503", every=0.05)
    ann = await back_through_nginx(topology, ann)
    if bob_on == keeper:
        bob = await back_through_nginx(topology, bob)
    await asyncio.wait_for(asyncio.to_thread(stopping.wait), 15)
    await asyncio.wait_for(arriving, 15)
    assert not refusals, refusals
    # nginx tried the stopping server, was answered 503, and gave the player to the other one.
    log = (topology.conf.parent / "access.log").read_text()
    steered = [line for line in log.splitlines() if "answered=503, 101" in line]
    assert steered, log[-2000:]
    seen = len(moves_in(held(bob).events))
    await play(
        [ann, bob],
        rng,
        lambda: len(moves_in(held(bob).events)) >= seen + 3 or finished([ann, bob])(),
    )
    status, ready = await asyncio.to_thread(get, f"{topology.page}readyz")
    assert status == 200, ready


@pytest.mark.redis
def test_a_topology_killed_with_sigkill_leaves_nothing_running(tmp_path: Path) -> None:
    """What deploy/local.sh execs, killed as a supervisor would (kill -9 of its PID): its
    servers, Redis and nginx (its workers too) end with it."""
    if find_nginx() is None:
        unavailable("no nginx found: install it (apt-get install nginx)")
    topology = subprocess.Popen(
        [sys.executable, "-m", "deploy.topology", "--port", "0"],
        cwd=Path(__file__).resolve().parents[2],
        stdin=subprocess.DEVNULL,
        stdout=subprocess.PIPE,
        stderr=subprocess.STDOUT,
        text=True,
        env={**os.environ, "TMPDIR": str(tmp_path)},
    )
    assert topology.stdout is not None
    lines: list[str] = []
    try:
        while not any(line.startswith("servers ") for line in lines):
            line = topology.stdout.readline()
            assert line, f"the topology ended before it started: {''.join(lines)}"
            lines.append(line)
        (servers,) = [line for line in lines if line.startswith("servers ")]
        pids = [int(pid) for pid in re.findall(r"\(pid (\d+)\)", servers)]
        assert len(pids) == 2
        # Every process of the topology: each child leads a session of its own, with its
        # own children in it (nginx's workers, a server's bot workers).
        direct = subprocess.run(["pgrep", "-P", str(topology.pid)], capture_output=True, text=True)
        leaders = [int(pid) for pid in direct.stdout.split()]
        assert set(pids) <= set(leaders)
        children = [
            int(pid)
            for leader in leaders
            for pid in subprocess.run(
                ["pgrep", "-s", str(leader)], capture_output=True, text=True
            ).stdout.split()
        ]
        assert len(children) > len(leaders)  # nginx's workers are among them
        os.kill(topology.pid, signal.SIGKILL)
        topology.wait(10)

        def gone(pid: int) -> bool:
            try:
                os.kill(pid, 0)
            except ProcessLookupError:
                return True
            with contextlib.suppress(FileNotFoundError):  # a zombie of an ended parent
                return Path(f"/proc/{pid}/stat").read_text().split()[2] == "Z"
            return True

        until_sync(
            lambda: all(gone(pid) for pid in children), what="the topology's children ending"
        )
    finally:
        if topology.poll() is None:
            topology.kill()
