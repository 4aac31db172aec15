"""The `allfives` command as a test runs it: in the test's own process with no terminal
(`run_allfives`), or in a pseudo-terminal of its own (`spawn_plain`), whose output is read as a
screen reader would be given it (`written_lines`); the installed command in a pseudo-terminal
that answers nothing, run to its end (`spawn`, `finish`, `run_to_end`: its status, output and
time); and a player's key kept in the config folder the command reads (`keep_player_key`). Used by the terminal client's tests (tests/clients/cli/)
and tests/tournament_helpers.py.
"""

from __future__ import annotations

import contextlib
import io
import os
import re
import subprocess
import sys
import time
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pexpect  # type: ignore[import-untyped]
from client_helpers import ROOT, TIMEOUT


def run_allfives(
    *args: str, config: Path | None = None, columns: int = 80
) -> subprocess.CompletedProcess[str]:
    """`allfives ARGS` run in this process, as a program with no terminal attached would run
    (stdin empty, output captured, `COLUMNS` wide, its config under `config` if given): its
    status, stdout and stderr. For what a command says; a test of the process itself (a
    pseudo-terminal, a signal, its start) starts one. The language a `--lang` chose is
    English again afterwards."""
    from allfives import cli
    from clients.cli import i18n

    out, err = io.StringIO(), io.StringIO()
    changed = {"COLUMNS": str(columns)}
    if config is not None:
        changed["XDG_CONFIG_HOME"] = str(config)
    before = {name: os.environ.get(name) for name in changed}
    os.environ.update(changed)
    stdin, sys.stdin = sys.stdin, io.StringIO()
    try:
        with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
            try:
                status = cli.main(list(args))
            except SystemExit as leaving:
                code = leaving.code
                status = code if isinstance(code, int) else 0 if code is None else 1
                if isinstance(code, str):
                    print(code, file=err)
    finally:
        sys.stdin = stdin
        for name, value in before.items():
            if value is None:
                os.environ.pop(name, None)
            else:
                os.environ[name] = value
        i18n.set_language("en")
    return subprocess.CompletedProcess(["allfives", *args], status, out.getvalue(), err.getvalue())


#: Box drawing and block elements (U+2500 to U+259F): what a drawn table is made of.
BOX_DRAWING = re.compile("[\u2500-\u259f]")


def spawn_plain(
    args: Sequence[str], env: dict[str, str], width: int = 80, height: int = 24
) -> tuple[Any, io.StringIO]:
    """`allfives ARGS` in a pseudo-terminal of its own (pexpect), and everything it writes
    there, as a screen reader would be given it."""
    child = pexpect.spawn(
        sys.executable,
        ["-m", "allfives.cli", *args],
        cwd=str(ROOT),
        env={**os.environ, "PYTHONPATH": str(ROOT), **env},
        dimensions=(height, width),
        encoding="utf-8",
        codec_errors="replace",
        timeout=TIMEOUT,
    )
    written = io.StringIO()
    child.logfile_read = written
    return child, written


#: A CSI sequence (its parameters and final letter) or a two-byte escape.
TERMINAL_CODE = re.compile(r"\x1b\[([0-?]*)[ -/]*([@-~])|\x1b.")


def written_lines(output: str) -> list[str]:
    """The non-blank lines a reader finds in what a program wrote to a terminal, each line
    as the cursor left it: `\\r` and cursor moves left or right write over what was there,
    erasing to the end of the line or screen removes it, other codes show nothing."""
    lines: list[str] = []
    row: list[str] = []
    column = 0
    position = 0
    for code in TERMINAL_CODE.finditer(output + "\x1b[0m"):
        for char in output[position : code.start()]:
            if char == "\n":
                lines.append("".join(row))
                row, column = [], 0
            elif char == "\r":
                column = 0
            elif char.isprintable():
                row[column : column + 1] = [char]
                column += 1
        position = code.end()
        final, parameters = code.group(2), code.group(1) or ""
        count = int(parameters) if parameters.isdigit() else 1
        if final == "D":
            column = max(0, column - count)
        elif final == "C":
            row.extend(" " * max(0, column + count - len(row)))
            column += count
        elif final in ("K", "J") and parameters in ("", "0"):
            del row[column:]
    lines.append("".join(row))
    return [line.rstrip() for line in lines if line.strip()]


def keep_player_key(config: Path, url: str, name: str, key: str | None = None) -> None:
    """A key for `name` on the server at `url` (a fresh one unless given), kept as the terminal
    client keeps it under the config folder `config` (`clients.cli.keys`): that player is the
    one this device plays as."""
    import base64
    import json
    import secrets

    key = key or base64.urlsafe_b64encode(secrets.token_bytes(32)).rstrip(b"=").decode()
    folder = config / "allfives"
    folder.mkdir(parents=True, exist_ok=True)
    (folder / "keys.json").write_text(json.dumps({url: {"keys": {name: key}, "last": name}}))


#: How long after it first shows something a run may take to end.
PROMPT_SECONDS = 3.0
#: A run that has neither ended nor asked this long after its Ctrl-C waits for ever.
STUCK_SECONDS = 15.0
#: Runs at a time: enough to keep the test short, few enough for a two-core machine.
AT_ONCE = 3


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
