"""Whatever ends a session ends the process at once, every time, with its one line and status:
a refused port, a port that accepts and closes, a server that refuses the room, Ctrl-C while
connecting, the room closed under a seated player. Each run is a real `allfives` process in a
pseudo-terminal that answers nothing (as a bare pseudo-terminal or a screen reader's console).
Ctrl-C at each moment of the first second: test_client_ctrl_c_moments.py."""

from __future__ import annotations

import os
import socket
import threading
import time
from collections.abc import Iterator
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

import pexpect  # type: ignore[import-untyped]
import pytest
from command_helpers import (
    AT_ONCE,
    ENTRY_POINTS,
    PROMPT_SECONDS,
    STUCK_SECONDS,
    Ending,
    finish,
    run_to_end,
    spawn,
    written_lines,
)
from server_helpers import ServerThread

from clients.cli.connection import reason

pytestmark = pytest.mark.terminal

#: The terminal's cursor-position request: nobody answers it here.
CURSOR_REQUEST = "\x1b[6n"


@pytest.fixture(scope="module")
def closing_port() -> Iterator[int]:
    """A port that accepts every connection and closes it at once."""
    listener = socket.create_server(("127.0.0.1", 0))
    listener.settimeout(0.2)
    done = threading.Event()

    def serve() -> None:
        while not done.is_set():
            try:
                connection, _address = listener.accept()
            except TimeoutError:
                continue
            connection.close()

    thread = threading.Thread(target=serve, daemon=True)
    thread.start()
    yield listener.getsockname()[1]
    done.set()
    thread.join(timeout=5)
    listener.close()


class SilentServer:
    """A port that accepts every connection and never says a word; counts the connections."""

    def __init__(self) -> None:
        self.listener = socket.create_server(("127.0.0.1", 0))
        self.listener.settimeout(0.2)
        self.port: int = self.listener.getsockname()[1]
        self.held: list[socket.socket] = []
        self.arrived = threading.Condition()
        self.done = threading.Event()
        self.thread = threading.Thread(target=self._serve, daemon=True)
        self.thread.start()

    def _serve(self) -> None:
        while not self.done.is_set():
            try:
                connection, _address = self.listener.accept()
            except TimeoutError:
                continue
            with self.arrived:
                self.held.append(connection)
                self.arrived.notify_all()

    def wait_for(self, count: int) -> None:
        with self.arrived:
            assert self.arrived.wait_for(lambda: len(self.held) >= count, timeout=60)

    def close(self) -> None:
        self.done.set()
        self.thread.join(timeout=5)
        for connection in self.held:
            connection.close()
        self.listener.close()


def refused_port() -> int:
    """A port nothing listens on (it was free a moment ago)."""
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return int(probe.getsockname()[1])


def test_every_failed_start_ends_at_once_with_its_line(closing_port: int, tmp_path: Path) -> None:
    """27 runs, three at a time: join, watch and rooms against a refused port, a port that
    accepts and closes, and a real server that has no such room; each ends with status 1 and
    its line within seconds of showing itself, and never leaves the terminal's cursor-position
    request waiting (prompt_toolkit held every ending a second for its answer)."""
    with ServerThread() as server:
        addresses = {
            "connection refused": f"ws://127.0.0.1:{refused_port()}",
            "no WebSocket answer": f"ws://127.0.0.1:{closing_port}",
            "no room 'ZZZZ'": f"ws://127.0.0.1:{server.server.port}",
        }
        runs = [
            (words, args)
            for _round in range(3)
            for words, url in addresses.items()
            for args in (["join", url, "ZZZZ"], ["watch", url, "ZZZZ"], ["rooms", url])
        ]
        # `rooms` lists rooms, so a server with rooms answers it: only its failures count.
        runs = [(w, a) for w, a in runs if not (a[0] == "rooms" and w.startswith("no room"))]
        runs += [("", ["rooms", addresses["no room 'ZZZZ'"]])] * 3
        assert len(runs) >= 20
        with ThreadPoolExecutor(AT_ONCE) as pool:
            endings = list(pool.map(lambda run: run_to_end(run[1], tmp_path), runs))
    for (words, args), ending in zip(runs, endings, strict=True):
        said = f"{args}: {ending}"
        assert ending.seconds < PROMPT_SECONDS, said
        assert "Traceback" not in ending.output, said
        assert CURSOR_REQUEST not in ending.output, said
        if words:
            assert ending.status == 1, said
            assert f"allfives {args[0]}: " in ending.output or "allfives: " in ending.output, said
            assert words in " ".join(ending.output.split()), said
        else:
            assert ending.status == 0 and "No public room is waiting" in ending.output, said


@pytest.mark.parametrize("command", ["join", "watch", "rooms"])
def test_ctrl_c_while_connecting_ends_alike_every_time(command: str, tmp_path: Path) -> None:
    """Ctrl-C while the server has not answered, as the table first shows and once the server
    has the connection, every time: the same one line and status 130, at once (the table's own
    Ctrl-C left with status 0 and no word; one typed as the prompt took the terminal, too)."""
    server = SilentServer()
    url = f"ws://127.0.0.1:{server.port}"
    args = [command, url] + (["ZZZZ"] if command != "rooms" else [])

    def interrupted(connected: bool) -> Ending:
        child = spawn(args, tmp_path)
        if command == "rooms":  # it shows nothing while it connects: the server sees it
            with server.arrived:
                count = len(server.held)
            server.wait_for(count + 1)
        else:
            child.expect("Connecting" if connected else r"\S")
        started = time.monotonic()
        child.sendintr()
        return finish(child, started)

    try:
        with ThreadPoolExecutor(AT_ONCE) as pool:
            endings = list(pool.map(interrupted, [False, True, False, True]))
    finally:
        server.close()
    for ending in endings:
        said = str(ending)
        assert ending.status == 130, said
        assert ending.seconds < PROMPT_SECONDS, said
        assert "Traceback" not in ending.output, said
        assert f"allfives {command}: stopped (Ctrl-C)" in ending.output, said


#: A `sitecustomize` that starts, as Python starts, a thread that never ends and is no daemon:
#: Python's own ending would wait for it for ever, as for a connection's thread the Ctrl-C cut
#: short.
NEVER_ENDING_THREAD = """
import threading
threading.Thread(target=threading.Event().wait, name="never-ending").start()
"""


def with_site(home: Path, sitecustomize: str) -> dict[str, str]:
    """The environment that has Python run `sitecustomize` as it starts."""
    site = home / "site"
    site.mkdir(exist_ok=True)
    (site / "sitecustomize.py").write_text(sitecustomize)
    return {"PYTHONPATH": os.pathsep.join(filter(None, [str(site), os.environ.get("PYTHONPATH")]))}


#: As Python 3.11's `Thread.join` fails when Ctrl-C lands in it just as the thread ends
#: (asyncio.run joins one as it closes): "release unlocked lock", raised over the Ctrl-C. One
#: Ctrl-C in thousands met it in `allfives play`, which said "unexpected failure" and then waited
#: for ever on a thread the Ctrl-C had cut short.
UNWINDING_FAILS = """
import asyncio.runners, sys
_close = asyncio.runners.Runner.close
def close(self):
    _close(self)
    if isinstance(sys.exc_info()[1], KeyboardInterrupt):
        raise RuntimeError("release unlocked lock")
asyncio.runners.Runner.close = close
"""


def join_a_silent_server(
    entry: str, home: Path, sitecustomize: str, shown: str, ctrl_c: bool
) -> Ending:
    """`allfives join` (by `entry`) to a server that never answers, Python running
    `sitecustomize` as it starts: once it shows `shown`, Ctrl-C if `ctrl_c`, then its ending
    (timed from there). A run still going `STUCK_SECONDS` later fails the test."""
    server = SilentServer()
    url = f"ws://127.0.0.1:{server.port}"
    child = spawn(["join", url, "ZZZZ"], home, entry, with_site(home, sitecustomize))
    child.timeout = STUCK_SECONDS
    try:
        child.expect(shown)
        started = time.monotonic()
        if ctrl_c:
            child.sendintr()
        try:
            return finish(child, started, child.before + child.after)
        except pexpect.TIMEOUT:
            pytest.fail(f"{entry}: still running {STUCK_SECONDS} s later: {child.before}")
    finally:
        child.close(force=True)
        server.close()


@pytest.mark.parametrize("unwinding", ["unwinds", "fails unwinding"])
@pytest.mark.parametrize("entry", list(ENTRY_POINTS))
def test_ctrl_c_ends_every_entry_point_at_once_whatever_thread_still_runs(
    entry: str, unwinding: str, tmp_path: Path
) -> None:
    """The installed command and `python -m allfives.cli` alike: Ctrl-C while connecting ends
    the process with its line and status 130 at once, though a thread that never ends still
    runs (Python's own ending joined it: the line came and the process waited); and so it does
    where what the Ctrl-C cuts short fails as it unwinds, with another error than the
    KeyboardInterrupt (`UNWINDING_FAILS`)."""
    site = NEVER_ENDING_THREAD + (UNWINDING_FAILS if unwinding == "fails unwinding" else "")
    ending = join_a_silent_server(entry, tmp_path, site, "Connecting", ctrl_c=True)
    assert ending.status == 130, ending
    assert ending.seconds < PROMPT_SECONDS, ending
    assert "Traceback" not in ending.output, ending
    assert "unexpected failure" not in ending.output, ending
    assert written_lines(ending.output)[-1:] == ["allfives join: stopped (Ctrl-C)"], ending


#: A failure nobody foresaw, as the command runs.
UNFORESEEN = """
import asyncio.runners
def run(self, coro, **_kwargs):
    coro.close()
    raise RuntimeError("a failure nobody foresaw")
asyncio.runners.Runner.run = run
"""


@pytest.mark.parametrize("entry", list(ENTRY_POINTS))
def test_an_unforeseen_failure_ends_at_once_with_its_line(entry: str, tmp_path: Path) -> None:
    """A command that fails in a way nobody foresaw writes its one line and ends with status 1
    at once, though what the failure left running (a thread that never ends) still runs."""
    site = NEVER_ENDING_THREAD + UNFORESEEN
    ending = join_a_silent_server(entry, tmp_path, site, r"\S", ctrl_c=False)
    assert ending.status == 1, ending
    assert ending.seconds < PROMPT_SECONDS, ending
    assert written_lines(ending.output) == [
        "allfives join: unexpected failure: a failure nobody foresaw"
        " (run with ALLFIVES_DEBUG=1 to see where)"
    ], ending


def test_a_room_closed_under_the_player_ends_at_once(tmp_path: Path) -> None:
    """A seated player whose server closes the room (the host's server stops) is told so and
    the process ends with status 1."""
    with ServerThread() as server:
        child = spawn(["join", f"ws://127.0.0.1:{server.server.port}"], tmp_path)
        child.expect("join ws://")  # the room is open: its join line is on the table
        started = time.monotonic()
        server.call(server.server.close_for_good("the host closed the room"))
        ending = finish(child, started)
    assert ending.status == 1, ending
    assert ending.seconds < PROMPT_SECONDS, ending
    assert "the host closed the room" in ending.output, ending


def test_an_unknown_host_is_said_in_words(tmp_path: Path) -> None:
    """`join notaurl` (and watch, rooms): the system's `[Errno -2] Name or service not known`
    is said in words, with the host's name."""
    runs = [["join", "notaurl", "ZZZZ"], ["watch", "notaurl", "ZZZZ"], ["rooms", "notaurl"]]
    with ThreadPoolExecutor(AT_ONCE) as pool:
        endings = list(pool.map(lambda args: run_to_end(args, tmp_path), runs))
    for args, ending in zip(runs, endings, strict=True):
        said = f"{args}: {ending}"
        assert ending.status == 1 and "Errno" not in ending.output, said
        line = " ".join(written_lines(ending.output)[-1:])
        assert line.startswith("allfives"), said
        assert (
            "there is no host called notaurl (check the address)" in line
            or "the name notaurl could not be looked up (is the network up?)" in line
        ), said


@pytest.mark.parametrize(
    ("code", "words"),
    [
        (socket.EAI_NONAME, "there is no host called example.invalid (check the address)"),
        (socket.EAI_AGAIN, "the name example.invalid could not be looked up (is the network up?)"),
    ],
)
def test_a_failed_name_lookup_is_worded(code: int, words: str) -> None:
    error = socket.gaierror(code, "the system's words")
    assert reason(error, "ws://example.invalid:8765/") == words
