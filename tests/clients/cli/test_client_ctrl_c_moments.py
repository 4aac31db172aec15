"""Ctrl-C at any moment of `allfives`' first second, spread over it: while Python starts, while
the modules load, while the embedded server starts and the table comes up. Each ends the program
with one line and status 130, or (the table up) asks, and a second Ctrl-C ends the match; only
Python's own KeyboardInterrupt before any code of allfives ran is excused. Each run is a real
`allfives` process in a pseudo-terminal (tests/command_helpers.py `spawn`)."""

from __future__ import annotations

import re
import subprocess
import sys
import time
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

import pexpect  # type: ignore[import-untyped]
import pytest
from client_helpers import ROOT
from command_helpers import AT_ONCE, STUCK_SECONDS, Ending, finish, spawn, status_of, written_lines
from server_helpers import ServerThread

pytestmark = pytest.mark.terminal


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
