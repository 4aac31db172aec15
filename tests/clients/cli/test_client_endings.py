"""Whatever ends a session ends the process at once, every time, with its one line and status:
a refused port, a port that accepts and closes, a server that refuses the room, Ctrl-C while
connecting, the room closed under a seated player. Each run is a real `allfives` process in a
pseudo-terminal that answers nothing (as a bare pseudo-terminal or a screen reader's console)."""

from __future__ import annotations

import os
import re
import socket
import subprocess
import sys
import threading
import time
from collections.abc import Iterator
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass
from pathlib import Path

import pexpect  # type: ignore[import-untyped]
import pytest
from command_helpers import written_lines
from server_helpers import ServerThread

from clients.cli.connection import reason

pytestmark = pytest.mark.terminal

ROOT = Path(__file__).resolve().parents[3]
#: How long after it first shows something a run may take to end.
PROMPT_SECONDS = 3.0
#: A run that has neither ended nor asked this long after its Ctrl-C waits for ever.
STUCK_SECONDS = 15.0
#: Runs at a time: enough to keep the test short, few enough for a two-core machine.
AT_ONCE = 3
#: The terminal's cursor-position request: nobody answers it here.
CURSOR_REQUEST = "\x1b[6n"


@dataclass
class Ending:
    status: int
    output: str
    #: Seconds from its first output to its end (loading the modules is not counted).
    seconds: float


#: The ways to run the program: the command as installed, and its module.
ENTRY_POINTS = {
    "allfives": [str(Path(sys.executable).parent / "allfives")],
    "python -m allfives.cli": [sys.executable, "-m", "allfives.cli"],
}


def spawn(
    args: list[str], home: Path, entry: str = "allfives", env: dict[str, str] | None = None
) -> pexpect.spawn:
    """`allfives ARGS` (the installed command, as a player runs it, unless `entry` names
    another of `ENTRY_POINTS`) in an 80x24 pseudo-terminal of its own (Ctrl-C reaches it as a
    signal)."""
    env = {**os.environ, "XDG_CONFIG_HOME": str(home), "TERM": "xterm-256color", **(env or {})}
    env.pop("ALLFIVES_DEBUG", None)
    program, *first = ENTRY_POINTS[entry]
    return pexpect.spawn(
        program,
        [*first, *args],
        cwd=str(ROOT),
        env=env,
        dimensions=(24, 80),
        encoding="utf-8",
        codec_errors="replace",
        timeout=60,
    )


def finish(child: pexpect.spawn, started: float, shown: str = "") -> Ending:
    """Read until the process ends; its status, what it wrote after `shown`, and how long it
    took."""
    child.expect(pexpect.EOF)
    ended = time.monotonic()
    output = shown + (child.before or "")
    return Ending(status_of(child), output, ended - started)


def status_of(child: pexpect.spawn) -> int:
    """The exit status of a process whose output has ended (128 + N when killed by signal N)."""
    child.wait()  # (closing at once would signal a process still on its way out)
    child.close()
    return child.exitstatus if child.exitstatus is not None else 128 + (child.signalstatus or 0)


def run_to_end(args: list[str], home: Path) -> Ending:
    child = spawn(args, home)
    child.expect(r"\S")  # the first thing it shows: the modules are loaded
    return finish(child, time.monotonic(), child.before + child.after)


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


#: Moments (seconds after start) for Ctrl-C while the modules load and the table comes up.
EARLY_MOMENTS = (0.1, 0.2, 0.3, 0.4, 0.5, 0.6)


#: The files a KeyboardInterrupt may come from while Python still starts `allfives`: its
#: `site`, the generated script, and `allfives.start` loading.
STARTING = (
    str(Path(sys.executable).parent / "allfives"),  # the script, as `spawn` runs it
    *(str(ROOT / "allfives" / name) for name in ("start.py", "__init__.py")),
)


def site_frame(path: str) -> bool:
    """Whether a traceback's frame is Python's own `site`."""
    return path == "<frozen site>" or path.endswith("/site.py")


def starting_frame(path: str) -> bool:
    """Whether a traceback's frame is one of Python starting `allfives` (`STARTING`, or
    Python's own `site.py`)."""
    return path in STARTING or site_frame(path)


def project_frame(path: str) -> bool:
    """Whether a traceback's frame is the project's own code (not its virtual environment's,
    not the start `STARTING` names)."""
    inside = path.startswith(f"{ROOT}/") and not path.startswith(f"{ROOT / '.venv'}/")
    return inside and path not in STARTING


def before_python_ran_allfives(output: str) -> bool:
    """Python's own KeyboardInterrupt while it still started (its `site`, the generated
    `allfives` script, `allfives.start` loading: a busy machine): no code of allfives had run
    yet, nothing of it could guard (`allfives.start.main` guards before anything else). Under
    `site` (a `.pth` line it runs) any frame but the project's is Python starting; elsewhere any
    other frame (a library's, the standard library's), or an exception Python could only
    ignore, is not excused."""
    if "KeyboardInterrupt" not in output or "Exception ignored" in output:
        return False
    frames = re.findall(r'File "([^"]+)"', output)
    if any(site_frame(frame) for frame in frames):
        # Python's `site` still setting up (imported by Python's import machinery, whose frozen
        # frames come first; "Fatal Python error: init_import_site"): the `.pth` lines it runs
        # and what they import (setuptools' `_distutils_hack`) are Python starting, unless the
        # project's code ran.
        return not any(project_frame(frame) for frame in frames)
    return all(starting_frame(frame) for frame in frames)


def test_only_python_starting_allfives_is_excused() -> None:
    """A KeyboardInterrupt whose frames are all Python starting `allfives` is excused; one
    with a frame of a library or of the standard library, or one Python ignored, is not."""

    def traceback(*paths: str, ignored: bool = False) -> str:
        head = "Exception ignored in: <module>\n" if ignored else ""
        frames = "".join(f'  File "{path}", line 1, in <module>\n' for path in paths)
        return f"{head}Traceback (most recent call last):\n{frames}KeyboardInterrupt\n"

    script, start, package = STARTING
    assert before_python_ran_allfives(traceback("<frozen site>", script, start, package))
    assert before_python_ran_allfives(traceback("/usr/lib/python3.11/site.py", script))
    assert not before_python_ran_allfives(
        traceback(script, start, "/usr/lib/python3.11/asyncio/__init__.py")
    )
    assert not before_python_ran_allfives(
        traceback(script, str(ROOT / ".venv/lib/msgspec/__init__.py"))
    )
    assert not before_python_ran_allfives(traceback(script, str(ROOT / "clients/cli/app.py")))
    assert not before_python_ran_allfives(traceback(script, start, ignored=True))
    assert not before_python_ran_allfives("Traceback (most recent call last):\nValueError\n")
    # Ctrl-C while `site` runs a `.pth` line: Python still starting, whatever it imports.
    pth_line = ("<frozen site>", "<string>", "<frozen importlib._bootstrap_external>")
    assert before_python_ran_allfives(traceback(*pth_line))
    assert not before_python_ran_allfives(traceback(*pth_line, str(ROOT / "clients/cli/app.py")))
    # Ctrl-C as Python's import machinery loads `site` itself (and `site` the modules it needs):
    # Python ends with "Fatal Python error: init_import_site", before any code of allfives.
    importing_site = (
        "<frozen importlib._bootstrap>",
        "<frozen site>",
        "<frozen importlib._bootstrap>",
        "<frozen os>",
        "<frozen abc>",
    )
    assert before_python_ran_allfives(traceback(*importing_site))
    assert not before_python_ran_allfives(traceback(*importing_site, str(ROOT / "engine/match.py")))


def interrupted_at(args: list[str], home: Path, moment: float, seconds: float = 60) -> Ending:
    """`allfives ARGS` given Ctrl-C `moment` seconds after it starts, and Ctrl-C again if the
    table asks (yes, end the match). A run still going `seconds` after it is killed: status -1
    and what it showed (its `seconds` is how long it was waited for)."""
    child = spawn(args, home)
    child.timeout = seconds
    time.sleep(moment)  # the moment is what is tested
    child.sendintr()
    try:
        if child.expect([pexpect.EOF, "Quitting ends this match"]) == 1:
            shown = child.before + child.after
            child.sendintr()  # at the question: yes
            return finish(child, time.monotonic(), shown)
        return Ending(status_of(child), child.before or "", 0)
    except pexpect.TIMEOUT:
        waited = child.before or ""
        child.close(force=True)
        return Ending(-1, waited, seconds)


@pytest.mark.parametrize("command", ["play", "rooms"])
def test_ctrl_c_in_the_first_moments_is_one_line(command: str, tmp_path: Path) -> None:
    """Ctrl-C from 0.1 to 0.6 s after start (the modules still loading) stops the program with
    one line and status 130, never a traceback; a table already up asks instead, as Ctrl-C at
    the table does (then a second Ctrl-C ends the match)."""
    with ServerThread() as server:
        args = ["play", "--name", "Pat"] if command == "play" else ["rooms", server.base]
        args[-1] = args[-1].replace("http://", "ws://")
        with ThreadPoolExecutor(AT_ONCE) as pool:
            endings = list(pool.map(lambda m: interrupted_at(args, tmp_path, m), EARLY_MOMENTS))
    for moment, ending in zip(EARLY_MOMENTS, endings, strict=True):
        said = f"Ctrl-C at {moment} s: {ending}"
        if before_python_ran_allfives(ending.output):
            continue
        assert "Traceback" not in ending.output and "KeyboardInterrupt" not in ending.output, said
        finished = "No public room is waiting" in ending.output  # `rooms` was done already
        if "Quitting ends this match" not in ending.output and not finished:
            lines = written_lines(ending.output)
            # On a busy machine Ctrl-C may come before Python has started at all (nothing of
            # allfives runs yet): the system ends it and the terminal shows its ^C alone. (A
            # ^C alone with status 139 was the interpreter crashing as msgspec loaded.)
            assert ending.status == 130, said
            if lines != ["^C"]:
                # (the table may have come up, connecting, before it: Ctrl-C there stops too)
                assert lines[-1:] == [f"allfives {command}: stopped (Ctrl-C)"], said
                assert all("allfives" not in line for line in lines[:-1]), said


#: 72 moments from 0.05 to 1 s after `allfives play` starts: the modules loading, the embedded
#: server starting, the table coming up (about 0.7 s here on a loaded two-core machine).
SPREAD_MOMENTS = tuple(round(0.05 + 0.95 * index / 71, 3) for index in range(72))


def test_ctrl_c_at_any_moment_of_play_s_first_second_ends_or_asks(tmp_path: Path) -> None:
    """72 Ctrl-Cs spread over the first second of `allfives play`, three at a time: each ends
    the program with one line and status 130, or (the table up) asks, and a second Ctrl-C ends
    the match. A KeyboardInterrupt raised inside an import was lost (the table came up and
    waited for ever), and one raised while msgspec's compiled module loaded crashed the
    interpreter (status 139): one Ctrl-C in 40 to 70 here, and this test failed 5 times in 6."""
    args = ["play", "--name", "Pat"]
    with ThreadPoolExecutor(AT_ONCE) as pool:
        endings = list(
            pool.map(lambda m: interrupted_at(args, tmp_path, m, STUCK_SECONDS), SPREAD_MOMENTS)
        )
    for moment, ending in zip(SPREAD_MOMENTS, endings, strict=True):
        said = f"Ctrl-C at {moment} s: {ending}"
        assert ending.status != -1, f"still running {STUCK_SECONDS} s after it: {said}"
        if before_python_ran_allfives(ending.output):
            continue  # Python's own KeyboardInterrupt, before the first line of allfives
        assert "Traceback" not in ending.output and "Exception ignored" not in ending.output, said
        if "Quitting ends this match" in ending.output:
            assert ending.status == 0, said
            continue
        assert ending.status == 130, said
        # ^C alone: the system ended Python before it had set up its own signal handling. The
        # table may have come up, connecting, before the line.
        lines = written_lines(ending.output)
        assert lines == ["^C"] or lines[-1:] == ["allfives play: stopped (Ctrl-C)"], said
        assert all("allfives" not in line for line in lines[:-1]), said


#: A program guarded as `allfives` guards its commands, given Ctrl-C as a finalizer runs (Python
#: reports an exception raised there as "Exception ignored" and goes on), then waiting as the
#: table waits for the player.
LOST_IN_A_FINALIZER = """
import asyncio, signal
from allfives import cli

cli.guard_ctrl_c()

class Finalized:
    def __del__(self):
        signal.raise_signal(signal.SIGINT)

async def waiting():
    Finalized()
    await asyncio.sleep(30)

try:
    asyncio.run(waiting())
    print("went on")
except KeyboardInterrupt:
    print("stopped")
"""


def test_a_ctrl_c_that_lands_in_a_finalizer_still_stops_the_program() -> None:
    """Ctrl-C whose KeyboardInterrupt is raised in a `__del__` (or a weakref callback: the
    import system's clean-up of its locks) comes again at once, and stops the program waiting
    in its event loop, with nothing said about the one Python could not raise."""
    started = time.monotonic()
    done = subprocess.run(
        [sys.executable, "-c", LOST_IN_A_FINALIZER],
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert done.stdout.split() == ["stopped"], done
    assert "Exception ignored" not in done.stderr and "Traceback" not in done.stderr, done
    assert time.monotonic() - started < 15, done


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
