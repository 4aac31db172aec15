"""`allfives serve` as a process: its bot workers die with it, and a busy port is one clear line."""

from __future__ import annotations

import asyncio
import contextlib
import resource
import signal
import socket
import sys
from pathlib import Path

import pytest
from waiting import until, until_answered
from websockets.exceptions import InvalidStatus
from ws_client_helpers import Client, next_mover, play_out_one

from protocol import messages as msg

ROOT = Path(__file__).resolve().parents[2]
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


async def started_serve(
    tmp_path: Path, *options: str, files: tuple[int, int] | None = None
) -> tuple[asyncio.subprocess.Process, str, Path]:
    """`allfives serve` in a process of its own (with `files` as its open-file limits): the
    process, its URL, and its log."""
    command = [sys.executable, "-m", "allfives.cli", "serve", "--port", "0", *options]
    # Output to files, not pipes: workers that outlive the server would hold a pipe open.
    out, log = tmp_path / "serve.out", tmp_path / "serve.log"

    def limited() -> None:
        if files is not None:
            resource.setrlimit(resource.RLIMIT_NOFILE, files)

    with out.open("ab") as stdout, log.open("ab") as stderr:
        server = await asyncio.create_subprocess_exec(
            *command, cwd=ROOT, stdout=stdout, stderr=stderr, preexec_fn=limited
        )

    def said() -> str | None:
        text = out.read_text()
        if text.endswith("\n") or server.returncode is not None:
            return text or "(it exited)"
        return None

    try:
        line = await until(said, 60, "the server's first line")
    except AssertionError:
        raise AssertionError(f"the server said nothing:\n{log.read_text()}") from None
    assert server.returncode is None, log.read_text()
    assert line.startswith(LISTENING), log.read_text()
    return server, line.removeprefix(LISTENING).strip(), log


@pytest.mark.skipif(not sys.platform.startswith("linux"), reason="reads /proc")
async def test_bot_workers_exit_when_the_server_is_killed(tmp_path: Path) -> None:
    server, url, log = await started_serve(tmp_path, "--bot-delay", "0")
    try:
        ann = await Client.open(url, "Ann")
        assert isinstance(await ann.request("create_room", rules={"players": 2}), msg.Joined)
        assert isinstance(await ann.request("add_bot", level="hard"), msg.Ack)
        assert isinstance(await ann.request("start"), msg.Ack)
        # The hint's and the hard bot's searches start the worker processes: a hint answered
        # and a move played, then Ann's turn again (the bot has answered), until they are there.
        taken: dict[str, tuple[int, int]] = {}

        async def started() -> bool:
            if len(children_of(server.pid)) >= 2:
                return True
            assert await next_mover([ann], taken, timeout=30) is ann
            assert isinstance(await ann.request("hint"), msg.HintReply)
            await play_out_one(ann)
            return False

        await until(started, 60, "bot worker processes to start")
        workers = children_of(server.pid)
        await ann.close()
    finally:
        server.send_signal(signal.SIGKILL)
        await server.wait()
    # Every one of them (the workers, the forkserver, the resource tracker) ends, and none
    # complains on its way out.
    left = workers

    def all_gone() -> bool:
        nonlocal left
        left = {pid for pid in workers if running(pid)}
        return not left

    try:
        await until(all_gone, 10, "the workers to end")
    except AssertionError:
        raise AssertionError(f"processes {sorted(left)} outlived the server") from None
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


@pytest.mark.skipif(not sys.platform.startswith("linux"), reason="reads /proc")
async def test_serve_raises_its_file_limit_and_answers_503_before_running_out(
    tmp_path: Path,
) -> None:
    server, url, log = await started_serve(
        tmp_path, "--max-connections-per-ip", "1000", files=(100, 160)
    )
    port = int(url.rsplit(":", 1)[1].strip("/"))
    held = []
    try:
        limits = Path(f"/proc/{server.pid}/limits").read_text()
        assert [line.split()[3:5] for line in limits.splitlines() if "open files" in line] == [
            ["160", "160"]
        ]
        assert "--max-connections 2000 is more than this process may open" in log.read_text()
        # Sockets held (each still in its upgrade) until the server says it is full; the first
        # answer is one socket past what the limit leaves for connections, never a hang.
        readers = []
        for _ in range(110):
            reader, writer = await asyncio.open_connection("127.0.0.1", port)
            readers.append(reader)
            held.append(writer)
        answers = [await asyncio.wait_for(reader.read(13), 5.0) for reader in readers[-14:]]
        assert answers == [b"HTTP/1.1 503 "] * 14, answers
        with contextlib.suppress(TimeoutError):
            early = await asyncio.wait_for(readers[160 - 64 - 1].read(13), 0.2)
            raise AssertionError(f"socket {160 - 64} was answered: {early!r}")
        for writer in held:
            writer.close()
        # The server is still up and takes players again (a look is a connection: each 50 ms).
        ann = await until_answered(
            lambda: Client.open(url, "Ann"), (OSError, InvalidStatus), 20, "a player", every=0.05
        )
        assert isinstance(await ann.request("ping"), msg.Pong)
        assert "Traceback" not in log.read_text()
    finally:
        server.send_signal(signal.SIGTERM)
        await server.wait()
