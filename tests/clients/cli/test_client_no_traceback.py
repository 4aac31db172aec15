"""Every subcommand, given bad arguments in a real terminal (a pseudo-terminal), says what is
wrong in one line and exits with a non-zero status: never a traceback, never a retry loop."""

from __future__ import annotations

import os
import socket
import sys
from pathlib import Path

import pexpect  # type: ignore[import-untyped]
import pytest
from command_helpers import written_lines

pytestmark = pytest.mark.terminal

ROOT = Path(__file__).resolve().parents[3]
RUN_SECONDS = 60


def free_port() -> int:
    """A port nothing listens on (it was free a moment ago)."""
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return int(probe.getsockname()[1])


def run_in_terminal(args: list[str], tmp_path: Path) -> tuple[int, str]:
    """Run `allfives ARGS` in an 80x24 pseudo-terminal; its exit status and what it printed."""
    env = {
        **os.environ,
        "XDG_CONFIG_HOME": str(tmp_path),
        "ALLFIVES_BOT_DELAY": "0",
        "COLUMNS": "80",
        "LINES": "24",
    }
    env.pop("ALLFIVES_DEBUG", None)
    child = pexpect.spawn(
        sys.executable,
        ["-m", "allfives.cli", *args],
        cwd=str(ROOT),
        env=env,
        dimensions=(24, 80),
        encoding="utf-8",
        codec_errors="replace",
        timeout=RUN_SECONDS,
    )
    child.expect(pexpect.EOF)
    output = child.before or ""
    child.close()
    status = child.exitstatus if child.exitstatus is not None else 128 + (child.signalstatus or 0)
    return status, output


NOWHERE = f"ws://127.0.0.1:{free_port()}"
BAD_ADDRESSES = [
    "ws://127.0.0.1:99999",
    "ws://127.0.0.1:notaport",
    "ws://[::1",
    "ws://",
    "ftp://127.0.0.1:8765",
    "http://127.0.0.1:8765",
]

#: (arguments, exit status, words the one line must hold).
CASES: list[tuple[list[str], int, str]] = [
    *[(["join", url, "ZZZZ"], 2, "allfives join: argument url") for url in BAD_ADDRESSES],
    *[(["watch", url, "ABCD"], 2, "allfives watch: argument url") for url in BAD_ADDRESSES],
    *[(["rooms", url], 2, "allfives rooms: argument url") for url in BAD_ADDRESSES],
    (["join", NOWHERE, "ZZZZ"], 1, "connection refused"),
    (["join", NOWHERE], 1, "connection refused"),
    (["watch", NOWHERE, "ABCD"], 1, "connection refused"),
    (["rooms", NOWHERE], 1, "connection refused"),
    (["watch", "ws://127.0.0.1:8765"], 2, "required: room"),
    (["join", "ws://127.0.0.1:8765", "ABCD", "--name", ""], 2, "--name"),
    (["join", "ws://127.0.0.1:8765", "--players", "9"], 2, "--players"),
    (["play", "--players", "5"], 2, "--players"),
    (["play", "--bots", "genius"], 2, "'genius' is not a bot level"),
    (["play", "--target", "7"], 2, "'7' is not a positive multiple of 5"),
    (["play", "--reserve", "9"], 2, "--reserve"),
    (["play", "--teams", "--players", "3"], 2, "--teams needs 4 players"),
    (["host", "--port", "99999"], 2, "'99999' is not a port"),
    (["host", "--bots", "hard,hard", "--players", "2"], 2, "leave a seat for you"),
    (["host", "--players", "3", "--bots", "nobody"], 2, "not a bot level"),
    (["serve", "--port", "-3"], 2, "not a port"),
    (["serve", "--log-level", "loud"], 2, "--log-level"),
    (["serve", "--rate", "0"], 2, "not above zero"),
    (["replay"], 2, "required"),
    (["replay", "/no/such/record.json"], 2, "cannot read"),
    (["replay", "/"], 2, "cannot read"),
    (["analyze", "/no/such/record.json"], 2, "cannot read"),
    (["arena", "--players", "7"], 2, "--players"),
    (["arena", "--reserve", "9"], 2, "--reserve"),
    (["nonsense"], 2, "invalid choice"),
    ([], 2, "required"),
]


@pytest.mark.parametrize(
    ("args", "status", "said"),
    CASES,
    ids=[" ".join(c[0]).replace(NOWHERE, "ws://NOWHERE") for c in CASES],
)
def test_bad_arguments_in_a_terminal_are_one_line_never_a_traceback(
    args: list[str], status: int, said: str, tmp_path: Path
) -> None:
    code, output = run_in_terminal(args, tmp_path)
    assert "Traceback" not in output, output
    assert code == status, output
    # What is left once the terminal's own codes (the table's frame, if it was drawn) are gone.
    rows = written_lines(output)
    if code == 1:  # the table had started: its last frame stays above the one line saying why
        rows = [row for row in rows if row.startswith("allfives")]
    assert len(rows) == 1, rows
    assert said in rows[0], output
