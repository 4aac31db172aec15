"""The terminal client in a real terminal: `Terminal`, a tmux server of a test's own whose windows
run commands (`allfives` with `QUICK_ENV`), typed into and read back screen by screen;
`NEEDS_TMUX` skips such tests where tmux is missing. Used by the terminal client's tests that
drive a terminal (tests/clients/cli/, marked `terminal`).
"""

from __future__ import annotations

import os
import re
import shlex
import shutil
import subprocess
import sys
import uuid
from collections.abc import Sequence
from pathlib import Path

import pytest
from client_helpers import ROOT, TIMEOUT
from waiting import until_sync

#: Tests that drive the terminal in tmux: skipped where tmux is missing, but not in CI, where
#: `.ci/run` installs it (a missing tmux fails them there).
NEEDS_TMUX = pytest.mark.skipif(
    shutil.which("tmux") is None and os.environ.get("CI") != "true",
    reason="tmux is not installed",
)


#: The environment of `allfives` in a test's terminal: bots that play at once, this checkout's
#: code.
QUICK_ENV = {"ALLFIVES_BOT_DELAY": "0.05", "TERM": "xterm-256color", "PYTHONPATH": str(ROOT)}


class Terminal:
    """A tmux server of our own (its own socket) with windows of one size running commands."""

    def __init__(self, width: int = 80, height: int = 24) -> None:
        self.socket = f"allfives-test-{uuid.uuid4().hex[:10]}"
        self.started = False
        self.width, self.height = width, height

    def tmux(self, *args: str) -> str:
        done = subprocess.run(
            ["tmux", "-L", self.socket, "-f", "/dev/null", *args],
            capture_output=True,
            text=True,
            check=True,
        )
        return done.stdout

    def start(self, command: list[str], env: dict[str, str], window: str = "t") -> None:
        """Run a command in a new window (the first one creates the tmux server)."""
        assigned = [f"{key}={value}" for key, value in env.items()]
        line = f"cd {shlex.quote(str(ROOT))} && env {shlex.join(assigned + command)}"
        line += "; echo EXITED $?; sleep 600"
        if not self.started:
            size = ["-x", str(self.width), "-y", str(self.height)]
            self.tmux("new-session", "-d", "-s", "e2e", "-n", window, *size, line)
            self.started = True
        else:
            self.tmux("new-window", "-d", "-t", "e2e", "-n", window, line)

    def start_allfives(self, args: Sequence[str], config: Path, window: str = "t") -> None:
        """`allfives ARGS` in a new window (`QUICK_ENV`), its settings under `config`."""
        env = {**QUICK_ENV, "XDG_CONFIG_HOME": str(config)}
        self.start([sys.executable, "-m", "allfives.cli", *args], env, window)

    def screen(self, window: str = "t") -> list[str]:
        """What the window shows, once two looks in a row agree (never a half-drawn table)."""
        target = f"e2e:{window}"
        seen: list[str | None] = [None]

        def settled() -> tuple[str] | None:
            again = self.tmux("capture-pane", "-p", "-t", target)
            if again == seen[0]:
                return (again,)
            seen[0] = again
            return None

        (shown,) = until_sync(settled, TIMEOUT, "the screen to stay the same", every=0.03)
        return shown.splitlines()

    def type(self, text: str, window: str = "t") -> None:
        """Type `text` and press Enter."""
        self.tmux("send-keys", "-t", f"e2e:{window}", "-l", text)
        self.tmux("send-keys", "-t", f"e2e:{window}", "Enter")

    def keys(self, *keys: str, window: str = "t") -> None:
        """Press keys by tmux's names (C-l, C-u, Enter...); `-l TEXT` types TEXT as it is."""
        self.tmux("send-keys", "-t", f"e2e:{window}", *keys)

    def scribble(self, text: str, window: str = "t") -> None:
        """Write to the window's terminal from outside the program (as another program might)."""
        tty = self.tmux("display-message", "-p", "-t", f"e2e:{window}", "#{pane_tty}").strip()
        with open(tty, "w") as device:
            device.write(text)

    def scrolled(self, window: str = "t") -> int:
        """Rows that have scrolled off the top of the window since it opened (tmux's history):
        a table redrawn in place never adds any."""
        return int(self.tmux("display-message", "-p", "-t", f"e2e:{window}", "#{history_size}"))

    def wait_for(self, pattern: str, timeout: float = 20.0, window: str = "t") -> list[str]:
        """The screen, once `pattern` is on it (else an AssertionError showing the screen)."""
        rows: list[str] = []

        def shown() -> list[str] | None:
            rows[:] = self.screen(window)
            return rows if re.search(pattern, "\n".join(rows)) else None

        try:
            return until_sync(shown, timeout, f"{pattern!r} on the screen")
        except AssertionError:
            raise AssertionError(f"no {pattern!r} on the screen:\n" + "\n".join(rows)) from None

    def changed(
        self, before: list[str] | None, timeout: float = 20.0, window: str = "t"
    ) -> list[str]:
        """The screen, once it is not `before` (else an AssertionError showing the screen)."""
        rows: list[str] = []

        def other() -> list[str] | None:
            rows[:] = self.screen(window)
            return rows if rows != before else None

        try:
            return until_sync(other, max(timeout, 0.0), "the screen to change")
        except AssertionError:
            raise AssertionError("the screen stayed:\n" + "\n".join(rows)) from None

    def close(self) -> None:
        subprocess.run(["tmux", "-L", self.socket, "kill-server"], capture_output=True)
