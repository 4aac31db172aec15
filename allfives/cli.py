"""The `allfives` command: one entry point, one subcommand per tool.

Each subcommand lives in its own module with `add_arguments(parser)` and `run(args) -> int`;
only the chosen one is imported, so `allfives replay` never loads the server.
"""

from __future__ import annotations

import argparse
import importlib
import os
import sys
from typing import NoReturn

#: name -> (module, one-line help). Add a subcommand by adding a line here.
COMMANDS: dict[str, tuple[str, str]] = {
    "replay": ("allfives.replay", "check a game record and print it with computed fields"),
    "analyze": ("allfives.analyze", "the hard bot reviews every decision of a game record"),
    "arena": ("allfives.arena", "play bots against each other and compare them"),
    "serve": ("server.serve", "run the game server (WebSocket, loopback unless told otherwise)"),
    "play": ("clients.cli.play", "play against bots in this terminal, nothing to set up"),
    "host": ("clients.cli.host", "run a server here, open a room and print how friends join"),
    "join": ("clients.cli.join", "sit at a room on a server (or come back to your seat)"),
    "rooms": ("clients.cli.rooms", "list a server's public rooms waiting for players"),
    "watch": ("clients.cli.watch", "watch a room's match without a seat"),
    "ladder": ("clients.cli.ladder", "a server's ladders: every player's rating, the bots' too"),
    "history": ("clients.cli.history", "a player's finished games on a server (yours by default)"),
    "show": ("clients.cli.show", "replay a finished game of a server, stepped with the arrow keys"),
}


class OneLineParser(argparse.ArgumentParser):
    """A parser whose complaints are one line (and a pointer to --help), never the usage block."""

    def error(self, message: str) -> NoReturn:
        """Print the problem on one line and exit with status 2."""
        self.exit(2, f"{self.prog}: {message} (see {self.prog} --help)\n")


def main(argv: list[str] | None = None) -> int:
    """Parse the command line and run the chosen subcommand; returns the exit status."""
    argv = sys.argv[1:] if argv is None else argv
    parser = OneLineParser(prog="allfives", description="All Fives dominoes")
    parser.add_argument("--version", action="version", version="allfives 0.1.0")
    sub = parser.add_subparsers(dest="command", required=True, metavar="COMMAND")
    chosen = next((a for a in argv if not a.startswith("-")), None)
    for name, (module, text) in COMMANDS.items():
        command = sub.add_parser(name, help=text, description=text)
        if name == chosen:
            importlib.import_module(module).add_arguments(command)
    args = parser.parse_args(argv)
    try:
        result: int = importlib.import_module(COMMANDS[args.command][0]).run(args)
    except KeyboardInterrupt:
        return 130
    except Exception as error:
        # The last guard: a failure nobody foresaw is one line, not a traceback on the table
        # (ALLFIVES_DEBUG=1 shows the traceback, for a bug report).
        if os.environ.get("ALLFIVES_DEBUG"):
            raise
        said = "".join(c if c.isprintable() else "?" for c in str(error) or type(error).__name__)
        print(
            f"allfives {args.command}: unexpected failure: {said} "
            "(run with ALLFIVES_DEBUG=1 to see where)",
            file=sys.stderr,
        )
        return 1
    return result


if __name__ == "__main__":
    sys.exit(main())
