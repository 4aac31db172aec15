"""The `allfives` command's first step: Ctrl-C from here on never shows a traceback.

The command enters here (pyproject's `[project.scripts]`), with nothing loaded but what Python
itself needs, so Ctrl-C while the rest loads (a second or two on a slow machine) is caught from
the very start: `stopped_while_loading` until `allfives.cli.main` takes over with its own guard,
which says it in the player's language.
"""

from __future__ import annotations

import os
import signal
import sys


def stopped_while_loading(signum: int, frame: object) -> None:
    """Ctrl-C before `allfives.cli.main` runs: one line, status 130. Nothing is open yet and the
    terminal is as it was, so the process ends here; in English, as no catalog is loaded yet
    (that lasts a few milliseconds)."""
    given = [a for i, a in enumerate(sys.argv[1:]) if not (i and sys.argv[i] == "--lang")]
    command = next((a for a in given if not a.startswith("-")), "")
    prog = f"allfives {command}" if command.isalpha() else "allfives"
    os.write(2, f"\r{prog}: stopped (Ctrl-C)\n".encode())  # i18n: before any catalog
    os._exit(130)


def main() -> int:
    """Guard against Ctrl-C, then load and run the command."""
    if signal.getsignal(signal.SIGINT) is not signal.SIG_IGN:  # (a background job ignores it)
        signal.signal(signal.SIGINT, stopped_while_loading)
    from allfives.cli import main as run

    return run()
