"""`allfives serve` as a process: its bot workers die with it, and a busy port is one clear line."""

from __future__ import annotations

import asyncio
import signal
import socket
import sys
import time
from pathlib import Path

import pytest
from server_helpers import Client, next_mover, play_out_one

from protocol import messages as msg

ROOT = Path(__file__).resolve().parents[1]
LISTENING = "allfives server listening on "


def children_of(pid: int) -> set[int]:
    """Every live descendant of process `pid` (read from /proc; zombies count as gone)."""
    parents: dict[int, int] = {}
    for entry in Path("/proc").iterdir():
        if not entry.name.isdigit():
            continue
        try:
            fields = (entry / "stat").read_bytes().rsplit(b")", 1)[1].split()
        except OSError:
            continue
        if fields[0] != b"Z":
            parents[int(entry.name)] = int(fields[1])
    found: set[int] = set()
    frontier = {pid}
    while frontier:
        frontier = {child for child, parent in parents.items() if parent in frontier} - found
        found |= frontier
    return found


def running(pid: int) -> bool:
    """Whether process `pid` runs (a zombie does not)."""
    try:
        fields = Path(f"/proc/{pid}/stat").read_bytes().rsplit(b")", 1)[1].split()
    except OSError:
        return False
    return fields[0] != b"Z"


@pytest.mark.skipif(not sys.platform.startswith("linux"), reason="reads /proc")
async def test_bot_workers_exit_when_the_server_is_killed(tmp_path: Path) -> None:
    command = [sys.executable, "-m", "allfives.cli", "serve", "--port", "0", "--bot-delay", "0"]
    # Output to files, not pipes: workers that outlive the server would hold a pipe open.
    out, log = tmp_path / "serve.out", tmp_path / "serve.log"
    with out.open("ab") as stdout, log.open("ab") as stderr:
        server = await asyncio.create_subprocess_exec(
            *command, cwd=ROOT, stdout=stdout, stderr=stderr
        )
    try:
        deadline = time.monotonic() + 30
        while not out.read_text().endswith("\n"):
            assert server.returncode is None, log.read_text()
            assert time.monotonic() < deadline, log.read_text()
            await asyncio.sleep(0.05)
        line = out.read_text()
        assert line.startswith(LISTENING), log.read_text()
        ann = await Client.open(line.removeprefix(LISTENING).strip(), "Ann")
        assert isinstance(await ann.request("create_room", rules={"players": 2}), msg.Joined)
        assert isinstance(await ann.request("add_bot", level="hard"), msg.Ack)
        assert isinstance(await ann.request("start"), msg.Ack)
        # The hint's and the hard bot's searches start the worker processes: a hint answered
        # and a move played, then Ann's turn again (the bot has answered), until they are there.
        deadline = time.monotonic() + 30
        taken: dict[str, tuple[int, int]] = {}
        while len(children_of(server.pid)) < 2:
            assert time.monotonic() < deadline, "no bot worker processes started"
            assert await next_mover([ann], taken, timeout=30) is ann
            assert isinstance(await ann.request("hint"), msg.HintReply)
            await play_out_one(ann)
        workers = children_of(server.pid)
        await ann.close()
    finally:
        server.send_signal(signal.SIGKILL)
        await server.wait()
    # Every one of them (the workers, the forkserver, the resource tracker) ends, and none
    # complains on its way out.
    deadline = time.monotonic() + 5
    while left := {pid for pid in workers if running(pid)}:
        assert time.monotonic() < deadline, f"processes {sorted(left)} outlived the server"
        await asyncio.sleep(0.02)
    assert "leaked" not in log.read_text() and "Traceback" not in log.read_text(), log.read_text()


async def test_a_port_in_use_is_one_clear_line_and_status_1(tmp_path: Path) -> None:
    with socket.socket() as taken:
        taken.bind(("127.0.0.1", 0))
        taken.listen()
        port = taken.getsockname()[1]
        command = [sys.executable, "-m", "allfives.cli", "serve", "--port", str(port)]
        server = await asyncio.create_subprocess_exec(
            *command, cwd=ROOT, stdout=asyncio.subprocess.PIPE, stderr=asyncio.subprocess.PIPE
        )
        stdout, stderr = await asyncio.wait_for(server.communicate(), 30)
    assert server.returncode == 1
    lines = stderr.decode().strip().splitlines()
    assert len(lines) == 1, stderr.decode()
    assert f"127.0.0.1:{port}" in lines[0] and "in use" in lines[0]
    assert "Traceback" not in stderr.decode() and stdout == b""
