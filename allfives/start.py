"""The `allfives` command's first step: Ctrl-C from here on never shows a traceback.

The command enters here (pyproject's `[project.scripts]`), with nothing loaded but what Python
itself needs, so Ctrl-C while the rest loads (a second or two on a slow machine) is caught from
the very start: `stopped_while_loading` ends the process at once, with one line, until
`allfives.cli.run` hands over to the chosen command (`allfives.cli.guard_ctrl_c`).

Loading is never interrupted by an exception: a KeyboardInterrupt raised inside an import was
lost when it landed in the import system's own clean-up (Python reports it as "Exception
ignored" and goes on: the program went on to the table and waited for ever), and one raised
while a compiled extension initialised (msgspec's) crashed the interpreter (status 139).
"""

# No `from __future__ import annotations`: `__future__` is a module of its own to load, and a
# Ctrl-C while it loaded, before `main` guards, showed a traceback (the one annotation that needs
# it is written as a string).
import os
import sys

TYPE_CHECKING = False  # (`typing` is not loaded for it: it would load `enum`, `re`...)
if TYPE_CHECKING:
    from typing import NoReturn

#: The signal module built into Python (loaded as it starts): `signal` would load `enum` first,
#: tens of milliseconds during which Ctrl-C showed a traceback.
_signal = __import__("_signal")

#: The status of a program stopped by Ctrl-C (128 + SIGINT, as a shell reports it).
STOPPED = 130

#: What Ctrl-C writes while the command loads: English until the player's language is known.
_line = ""


def stopped_while_loading(signum: int, frame: object) -> None:
    """Ctrl-C before the command runs: one line, status 130. Nothing is open yet and the
    terminal is as it was, so the process ends here; in English until `say_when_stopped` gives
    the line in the player's language."""
    line = _line
    if not line:
        given = [a for i, a in enumerate(sys.argv[1:]) if not (i and sys.argv[i] == "--lang")]
        command = next((a for a in given if not a.startswith("-")), "")
        prog = f"allfives {command}" if command.isalpha() else "allfives"
        line = f"{prog}: stopped (Ctrl-C)"  # i18n: before any catalog
    os.write(2, f"\r{line}\n".encode())
    end_at_once(STOPPED)


def end_at_once(status: int) -> "NoReturn":
    """End the process now with `status`, what it wrote flushed: the one way a program stopped
    by Ctrl-C (or failed in a way nobody foresaw) ends, whatever entry point ran it. Python's
    own ending joins every thread still running, and one the Ctrl-C or the failure cut short (a
    connection's, a store's, a pool's) could keep the process waiting for ever after its line."""
    for stream in (sys.stdout, sys.stderr):
        try:
            stream.flush()
        except (AttributeError, OSError, RuntimeError, ValueError):
            continue  # (no such stream, a closed one, or a flush the Ctrl-C interrupted)
    os._exit(status)


def say_when_stopped(line: str) -> None:
    """The line Ctrl-C writes from now on while the command still loads (translated)."""
    global _line
    _line = line


def main() -> int:
    """Guard against Ctrl-C, then load and run the command."""
    if _signal.getsignal(_signal.SIGINT) != _signal.SIG_IGN:  # (a background job ignores it)
        _signal.signal(_signal.SIGINT, stopped_while_loading)
    from allfives import cli

    status = cli.main()
    if status == STOPPED or cli.failed_unforeseen:
        end_at_once(status)
    return status
