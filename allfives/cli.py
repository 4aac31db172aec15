"""The `allfives` command: one entry point, one subcommand per tool.

Each subcommand lives in its own module with `add_arguments(parser)` and `run(args) -> int`;
only the chosen one is imported, so `allfives replay` never loads the server.
"""

from __future__ import annotations

import argparse
import contextlib
import importlib
import logging
import os
import signal
import sys
import threading
import time
import warnings
from collections.abc import Callable
from typing import TYPE_CHECKING, NoReturn

if TYPE_CHECKING:
    from sys import UnraisableHookArgs

# Nothing of the project is imported here: only the chosen command is loaded, and Ctrl-C while
# it loads ends the process at once (`allfives.start`).


def N_(message: str) -> str:
    """A constant marked for the catalog, translated where it is shown (`clients.cli.i18n.N_`)."""
    return message


#: name -> (module, one-line help). Add a subcommand by adding a line here.
COMMANDS: dict[str, tuple[str, str]] = {
    "replay": ("allfives.replay", N_("check a game record and print it with computed fields")),
    "analyze": ("allfives.analyze", N_("the hard bot reviews every decision of a game record")),
    "arena": ("allfives.arena", N_("play bots against each other and compare them")),
    "serve": (
        "server.serve",
        N_("run the game server (WebSocket, loopback unless told otherwise)"),
    ),
    "admin": (
        "server.admin",
        N_("the operator's hand on names: show one, release one, or move one to a new device"),
    ),
    "play": ("clients.cli.play", N_("play against bots in this terminal, nothing to set up")),
    "host": ("clients.cli.host", N_("run a server here, open a room and print how friends join")),
    "join": ("clients.cli.join", N_("sit at a room on a server (or come back to your seat)")),
    "key": (
        "clients.cli.key",
        N_("a recovery code that gives your name back on a new device, or --restore one"),
    ),
    "rooms": ("clients.cli.rooms", N_("list a server's public rooms waiting for players")),
    "watch": ("clients.cli.watch", N_("watch a room's match without a seat")),
    "ladder": (
        "clients.cli.ladder",
        N_("a server's ladders: every player's rating, the bots' too"),
    ),
    "history": (
        "clients.cli.history",
        N_("a player's finished games on a server (yours by default)"),
    ),
    "tournament": (
        "clients.cli.tournament",
        N_("tournaments: create, join (and play each round), start, show"),
    ),
    "show": (
        "clients.cli.show",
        N_("replay a finished game of a server, stepped with the arrow keys"),
    ),
}


class OneLineParser(argparse.ArgumentParser):
    """A parser whose complaints are one line (and a pointer to --help), never the usage block."""

    def error(self, message: str) -> NoReturn:
        """Print the problem on one line and exit with status 2."""
        from clients.cli.i18n import _

        said = _("{problem} (see {command} --help)").format(problem=message, command=self.prog)
        self.exit(2, f"{self.prog}: {said}\n")


def chosen_language(argv: list[str]) -> str | None:
    """The value of `--lang` (or `--lang=X`) anywhere on the command line, if given."""
    for index, arg in enumerate(argv):
        if arg == "--lang" and index + 1 < len(argv):
            return argv[index + 1]
        if arg.startswith("--lang="):
            return arg.partition("=")[2]
    return None


def chosen_command(argv: list[str]) -> str | None:
    """The subcommand's word on the command line (the first word not an option or a --lang)."""
    given = [a for i, a in enumerate(argv) if not (i and argv[i - 1] == "--lang")]
    return next((a for a in given if not a.startswith("-")), None)


def add_lang_argument(parser: argparse.ArgumentParser) -> None:
    """--lang, taken before or after the subcommand."""
    from clients.cli.i18n import _

    parser.add_argument(
        "--lang",
        metavar="LANG",
        default=argparse.SUPPRESS,
        help=_("the language of the table: en, cs, sr-Latn or et (default: from LANG)"),
    )


def nested_parsers(parser: argparse.ArgumentParser) -> list[argparse.ArgumentParser]:
    """The parsers of a subcommand's own actions (`allfives tournament create`), if it has any."""
    return [
        nested
        for action in parser._actions
        if isinstance(action, argparse._SubParsersAction)
        for nested in action.choices.values()
    ]


def main(argv: list[str] | None = None) -> int:
    """Parse the command line and run the chosen subcommand; returns the exit status.

    Ctrl-C while the command loads ends the process at once (`allfives.start`); once it runs
    (connecting, outside any prompt that asks) it stops the program with one line and status
    130, never a traceback."""
    argv = sys.argv[1:] if argv is None else argv
    try:
        return run(argv)
    except KeyboardInterrupt:
        return stopped(argv)


def interrupted(signum: int, frame: object) -> None:
    """Ctrl-C: KeyboardInterrupt where the program is. Not `signal.default_int_handler` itself,
    which `asyncio.run` replaces with a handler that only cancels its main task: a Ctrl-C
    while connecting, whose cancellation something on the way took for its own, was lost (the
    program went on to the table and never ended).

    The program ends from here (at the table Ctrl-C is a key its prompt asks about, not this
    signal): what the Ctrl-C cut short may fail again as the event loop winds down (websockets'
    `connection_lost` for a connection whose `connection_made` it interrupted) or complain as it
    is collected (a coroutine never awaited), and asyncio and Python would print that, with a
    traceback, over the one line that says the program stopped. Neither is told any more."""
    logging.getLogger("asyncio").disabled = True
    warnings.simplefilter("ignore")
    raise KeyboardInterrupt


def guard_ctrl_c() -> None:
    """From here on (the command runs, everything it needs loaded) Ctrl-C is KeyboardInterrupt,
    unless it is ignored (a background job) or this is not the main thread (a test)."""
    global _passed_on
    main_thread = threading.current_thread() is threading.main_thread()
    if main_thread and signal.getsignal(signal.SIGINT) is not signal.SIG_IGN:
        signal.signal(signal.SIGINT, interrupted)
        if sys.unraisablehook is not _interrupt_again:
            _passed_on = sys.unraisablehook
            sys.unraisablehook = _interrupt_again


#: The hook `_interrupt_again` hands every other unraisable exception to.
_passed_on: Callable[[UnraisableHookArgs], object] = sys.__unraisablehook__


def _interrupt_again(unraisable: UnraisableHookArgs) -> None:
    """A KeyboardInterrupt that Python could not raise: Ctrl-C comes again (`_ctrl_c_again`).

    Ctrl-C's KeyboardInterrupt is raised wherever the program is, and where it is may be a
    weakref callback, a `__del__` or a garbage collector's finalizer (the import system and
    asyncio have some): Python reports an exception there as "Exception ignored" and goes on,
    so the Ctrl-C was lost and the program went on to the table and waited for ever."""
    if issubclass(unraisable.exc_type, KeyboardInterrupt):
        with contextlib.suppress(RuntimeError):  # (no new thread: the interpreter is ending)
            threading.Thread(target=_ctrl_c_again, name="ctrl-c-again", daemon=True).start()
        return
    _passed_on(unraisable)


#: How long after it was lost a Ctrl-C comes again: the place that lost it is left by then.
AGAIN_SECONDS = 0.02


def _ctrl_c_again() -> None:
    """SIGINT to the main thread, as the terminal sends it: it wakes a program waiting for
    input or the network, and reaches whatever takes Ctrl-C by then (the table asks)."""
    time.sleep(AGAIN_SECONDS)
    main = threading.main_thread().ident
    if main is not None:
        signal.pthread_kill(main, signal.SIGINT)


def stopped(argv: list[str]) -> int:
    """Ctrl-C: one line (over the terminal's `^C`), status 130; a second Ctrl-C is ignored."""
    if threading.current_thread() is threading.main_thread():
        signal.signal(signal.SIGINT, signal.SIG_IGN)
        # What the Ctrl-C cut short is finalized as the process ends, after its event loop
        # closed (a connection half made calls the loop to close its socket): Python would print
        # that as "Exception ignored in: <coroutine ...>" with a traceback under our one line.
        sys.unraisablehook = _ignore
    print(f"\r{stopped_line(argv)}", file=sys.stderr)
    return 130


def stopped_line(argv: list[str]) -> str:
    """`allfives COMMAND: stopped (Ctrl-C)`, in the player's language."""
    from clients.cli.i18n import _

    command = chosen_command(argv)
    prog = f"allfives {command}" if command in COMMANDS else "allfives"
    return f"{prog}: " + _("stopped (Ctrl-C)")


def _ignore(unraisable: object) -> None:
    """An unraisable exception while a stopped program ends: nothing to tell (`stopped`)."""


#: Set once a command failed in a way nobody foresaw (its line written, status 1): what it left
#: running (a pool's worker, a thread it never joined) may never end, so the entry points end the
#: process at once (`allfives.start.end_at_once`), as after Ctrl-C.
failed_unforeseen = False


def ctrl_c_within(error: BaseException) -> bool:
    """Whether a KeyboardInterrupt is in `error`'s chain: what failed was Ctrl-C's unwinding,
    not the command. Python 3.11's `Thread.join` raises "release unlocked lock" when Ctrl-C
    lands in it as the thread ends (asyncio.run joins one as it closes), and the program said
    "unexpected failure" instead of that it stopped."""
    seen: set[int] = set()
    cause: BaseException | None = error
    while cause is not None and id(cause) not in seen:
        if isinstance(cause, KeyboardInterrupt):
            return True
        seen.add(id(cause))
        cause = cause.__cause__ or cause.__context__
    return False


def run(argv: list[str]) -> int:
    """`main` without its guard against Ctrl-C."""
    from allfives import start
    from clients.cli import i18n
    from clients.cli.argparse_words import word_placeholders
    from clients.cli.i18n import _

    asked = chosen_language(argv)
    i18n.set_language(i18n.language_from(asked))
    i18n.words_for_argparse()
    start.say_when_stopped(stopped_line(argv))  # Ctrl-C while the command loads says it so
    if asked and i18n.known_language(asked) is None:
        said = _(
            "there is no {language} here: the table speaks en, cs, sr-Latn or et; English it is"
        )
        print(f"allfives: {said.format(language=repr(asked))}", file=sys.stderr)
    parser = OneLineParser(prog="allfives", description=_("All Fives dominoes"))
    parser.add_argument("--version", action="version", version="allfives 0.1.0")
    add_lang_argument(parser)
    sub = parser.add_subparsers(dest="command", required=True, metavar="COMMAND")
    chosen = chosen_command(argv)
    for name, (module, text) in COMMANDS.items():
        command = sub.add_parser(name, help=_(text), description=_(text))
        add_lang_argument(command)
        if name == chosen:
            chosen_module = importlib.import_module(module)
            chosen_module.add_arguments(command)
            # A command may read its line first (`allfives show URL -Ab3…`: an id, not an option).
            argv = getattr(chosen_module, "given", list)(argv)
            for action in nested_parsers(command):  # `tournament create`: --lang there too
                add_lang_argument(action)
    for each in (parser, *sub.choices.values()):
        word_placeholders(each)
    args = parser.parse_args(argv)
    command_run = importlib.import_module(COMMANDS[args.command][0]).run
    guard_ctrl_c()
    try:
        result: int = command_run(args)
    except Exception as error:
        if ctrl_c_within(error):
            raise KeyboardInterrupt from error  # (`main` says it stopped: one line, status 130)
        # The last guard: a failure nobody foresaw is one line, not a traceback on the table
        # (ALLFIVES_DEBUG=1 shows the traceback, for a bug report).
        if os.environ.get("ALLFIVES_DEBUG"):
            raise
        global failed_unforeseen
        failed_unforeseen = True
        said = "".join(c if c.isprintable() else "?" for c in str(error) or type(error).__name__)
        print(
            f"allfives {args.command}: "
            + _("unexpected failure: {problem} (run with ALLFIVES_DEBUG=1 to see where)").format(
                problem=said
            ),
            file=sys.stderr,
        )
        return 1
    return result


if __name__ == "__main__":  # `python -m allfives.cli`: ends as the `allfives` command does
    from allfives.start import STOPPED, end_at_once

    status = main()
    if status == STOPPED or failed_unforeseen:
        end_at_once(status)
    sys.exit(status)
