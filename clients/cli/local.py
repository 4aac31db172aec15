"""What the subcommands share: player names, room rules from options, the embedded server's
settings, this machine's network address, and logging kept off the screen."""

from __future__ import annotations

import argparse
import asyncio
import errno
import getpass
import logging
import os
import sys
from collections.abc import Coroutine
from pathlib import Path
from typing import Any
from urllib.parse import urlsplit

from clients.cli import words
from clients.cli.i18n import _
from protocol.messages import MAX_NAME_LENGTH, validate_name
from protocol.rules import DEFAULT_TARGETS, HAND_SIZES, MAX_ROOM_TARGET, RoomRules

DEFAULT_BOT_DELAY = 0.8
MAX_PORT = 65535
MIN_TURN_SECONDS, MAX_TURN_SECONDS = 5, 3600


def os_reason(error: OSError) -> str:
    """Why the system refused (a port taken, not allowed, no such address), in words."""
    if error.errno == errno.EADDRINUSE:
        return _("the port is in use by another program")
    if error.errno == errno.EACCES:
        return _("not allowed (ports below 1024 need more rights)")
    if error.errno == errno.EADDRNOTAVAIL:
        return _("this machine has no such address")
    return error.strerror or str(error)


def no_terminal(command: str) -> bool:
    """True (and the reason said, on one line) when this is not run in a terminal."""
    if sys.stdin.isatty() and sys.stdout.isatty():
        return False
    said = _("needs a terminal (its input or output is not one)")
    print(f"{command}: {said}", file=sys.stderr)
    return True


def interruptible(main: Coroutine[Any, Any, int], command: str = "allfives") -> int:
    """Run the table in this terminal: one line and a non-zero status when there is no terminal
    or the options do not go together (Ctrl-C outside the prompt reaches `allfives.cli.main`,
    which says so in one line: status 130)."""
    if no_terminal(command):
        main.close()
        return 2
    try:
        return asyncio.run(main)
    except UsageError as error:
        return usage_error(command, error)


def command() -> str:
    """How allfives is run here: `uv run allfives` from a source checkout, else `allfives`."""
    prefix = Path(sys.prefix)
    if prefix.name == ".venv" and (prefix.parent / "pyproject.toml").is_file():
        return "uv run allfives"
    return "allfives"


def default_name() -> str:
    """The login name, capitalised, as the player's name (or "Player")."""
    try:
        login = getpass.getuser()
    except (KeyError, OSError):
        login = ""
    try:
        return validate_name(login.capitalize()[:MAX_NAME_LENGTH])
    except ValueError:
        return _("Player")


def player_name(text: str) -> str:
    """argparse type for --name: a valid player name."""
    try:
        return validate_name(text)
    except ValueError:
        raise argparse.ArgumentTypeError(words.name_problem(text)) from None


def target_score(text: str) -> int:
    """argparse type for --target: a positive multiple of five, as high as a room takes."""
    try:
        value = int(text)
    except ValueError:
        value = -1
    if value <= 0 or value % 5:
        said = _("{typed} is not a positive multiple of 5")
        raise argparse.ArgumentTypeError(said.format(typed=repr(text)))
    if value > MAX_ROOM_TARGET:
        said = _("{value} is above the highest target, {highest}")
        raise argparse.ArgumentTypeError(said.format(value=value, highest=MAX_ROOM_TARGET))
    return value


def usage_error(command: str, error: Exception) -> int:
    """Print a usage problem as one line; returns the exit status for it (2)."""
    print(f"{command}: {error}", file=sys.stderr)
    return 2


def add_quiet_argument(parser: argparse.ArgumentParser) -> None:
    """--quiet."""
    parser.add_argument(
        "--quiet", action="store_true", help=_("no bell when it is your turn or a hand ends")
    )


def add_name_argument(parser: argparse.ArgumentParser, help: str | None = None) -> None:
    """--name (`help`: its words, when not those of a seat)."""
    parser.add_argument(
        "--name",
        type=player_name,
        default=None,
        help=help or _("your name at the table (default: your login)"),
    )


def server_url(text: str) -> str:
    """argparse type for a server address: ws:// or wss://, a host, and a port if any that is a
    number from 1 to 65535 (http:// and https:// are refused with the address to use instead).

    Every address that cannot be connected to as written is refused here, in one line."""
    stripped = text.strip()
    scheme, found, rest = stripped.partition("://")
    if found and scheme.lower() in ("http", "https"):
        websocket = "ws" if scheme.lower() == "http" else "wss"
        said = _("{typed} is a web address: the game server speaks {address}")
        raise argparse.ArgumentTypeError(
            said.format(typed=repr(stripped), address=f"{websocket}://{rest}")
        )
    if found and scheme.lower() not in ("ws", "wss"):
        said = _("{typed}: write ws://HOST:PORT or wss://HOST:PORT")
        raise argparse.ArgumentTypeError(said.format(typed=repr(stripped)))
    written = stripped if found else f"ws://{stripped}"
    try:
        parts = urlsplit(written)
        port = parts.port
    except ValueError as error:
        said = _("{typed} is not an address: {reason}")
        raise argparse.ArgumentTypeError(
            said.format(typed=repr(stripped), reason=_why(error))
        ) from None
    host = parts.hostname or ""
    if not host or any(char.isspace() or not char.isprintable() for char in host):
        said = _("{typed} names no host: write ws://HOST:PORT")
        raise argparse.ArgumentTypeError(said.format(typed=repr(stripped)))
    if port == 0:
        said = _("{typed} is not an address: {reason}")
        raise argparse.ArgumentTypeError(
            said.format(typed=repr(stripped), reason=_("port 0 is no port"))
        )
    return stripped


def _why(error: ValueError) -> str:
    """urllib's complaint about an address, in the words of the rest of the command."""
    text = str(error)
    if "out of range" in text:  # i18n: not shown (urllib's words)
        return _("the port is above {highest}").format(highest=MAX_PORT)
    if "cast to integer" in text:  # i18n: not shown (urllib's words)
        return _("the port is not a number")
    if "IPv6" in text:
        return _("the brackets of its IPv6 address do not match (ws://[::1]:8765)")
    return text


def port_number(text: str) -> int:
    """argparse type for --port: 0 (any free port) to 65535."""
    try:
        value = int(text)
    except ValueError:
        value = -1
    if not 0 <= value <= MAX_PORT:
        said = _("{typed} is not a port: 0 to {highest}")
        raise argparse.ArgumentTypeError(said.format(typed=repr(text), highest=MAX_PORT))
    return value


def turn_seconds(text: str) -> int:
    """argparse type for --turn-seconds: 5 to 3600."""
    try:
        value = int(text)
    except ValueError:
        value = -1
    if not MIN_TURN_SECONDS <= value <= MAX_TURN_SECONDS:
        said = _("{typed} is not a number of seconds from {lowest} to {highest}")
        raise argparse.ArgumentTypeError(
            said.format(typed=repr(text), lowest=MIN_TURN_SECONDS, highest=MAX_TURN_SECONDS)
        )
    return value


def add_rules_arguments(parser: argparse.ArgumentParser) -> None:
    """--players, --teams/--no-teams, --target, --hand-size, --end-scoring, --reserve,
    --turn-seconds, --rated/--no-rated."""
    add_table_arguments(
        parser,
        players_help=_("players at the table (default 2)"),
        teams_help=_("with 4 players, play as two teams, seats 1+3 against 2+4 (default: teams)"),
    )
    targets = ", ".join(
        _("{score} with {count}").format(score=score, count=count)
        for count, score in DEFAULT_TARGETS.items()
    )
    parser.add_argument(
        "--target",
        type=target_score,
        default=None,
        help=_("score that wins (default {targets})").format(targets=targets),
    )
    parser.add_argument(
        "--hand-size",
        choices=tuple(HAND_SIZES),
        default="standard",
        help=_(
            "tiles dealt: standard (9/7/5 for 2/3/4 players), five, seven-five (default standard)"
        ),
    )
    parser.add_argument(
        "--end-scoring",
        choices=("opponents", "penalty"),
        default="opponents",
        help=_("who scores the pips left when a hand ends (default opponents)"),
    )
    parser.add_argument(
        "--reserve",
        type=int,
        choices=range(0, 8),
        metavar="0-7",
        default=0,
        help=_("boneyard tiles never drawn (default 0)"),
    )
    add_turn_seconds_argument(parser)
    add_rated_argument(parser)


def add_table_arguments(
    parser: argparse.ArgumentParser, *, players_help: str, teams_help: str
) -> None:
    """--players (2, 3 or 4, default 2) and --teams/--no-teams (unset: teams with 4 players),
    each with the help its command gives it."""
    parser.add_argument("--players", type=int, choices=(2, 3, 4), default=2, help=players_help)
    parser.add_argument(
        "--teams", action=argparse.BooleanOptionalAction, default=None, help=teams_help
    )


def add_turn_seconds_argument(parser: argparse.ArgumentParser) -> None:
    """--turn-seconds: how long a turn waits before a bot plays it (default: no clock)."""
    parser.add_argument(
        "--turn-seconds",
        type=turn_seconds,
        default=None,
        help=_("seconds a player has for a turn before a bot plays it (default: no clock)"),
    )


def add_rated_argument(parser: argparse.ArgumentParser) -> None:
    """--rated/--no-rated: whether the room's matches move ratings (default: the server's)."""
    parser.add_argument(
        "--rated",
        action=argparse.BooleanOptionalAction,
        default=None,
        help=_(
            "the room's results count on the public ladder (default: rated when the room is "
            "listed, unrated when it is private; a rated private room's games are public)"
        ),
    )


def rules_from(args: argparse.Namespace, public: bool = True) -> RoomRules:
    """The room rules the options ask for; a combination that makes no sense is a UsageError."""
    if args.teams and args.players != 4:
        raise UsageError(_("--teams needs 4 players, not {count}").format(count=args.players))
    return RoomRules(
        players=args.players,
        teams=args.teams is not False,
        target=args.target,
        hand_size=args.hand_size,
        end_scoring=args.end_scoring,
        reserve=args.reserve,
        turn_seconds=args.turn_seconds,
        public=public,
        rated=args.rated,
    )


class UsageError(Exception):
    """Options that do not go together: one line for the player, exit status 2."""


def bot_delay() -> float:
    """Seconds between bot moves in an embedded server (ALLFIVES_BOT_DELAY overrides)."""
    try:
        return max(0.0, float(os.environ["ALLFIVES_BOT_DELAY"]))
    except (KeyError, ValueError):
        return DEFAULT_BOT_DELAY


def idle_seconds(default: float) -> float:
    """How long a connected player's turn waits before a stand-in takes the seat, in an
    embedded server (`default` unless ALLFIVES_IDLE_SECONDS says; 0: for ever)."""
    try:
        return max(0.0, float(os.environ["ALLFIVES_IDLE_SECONDS"]))
    except (KeyError, ValueError):
        return default


def keep_logs_off_screen() -> None:
    """Send log records to ALLFIVES_LOG (a file) if set, else nowhere: never over the table."""
    root = logging.getLogger()
    path = os.environ.get("ALLFIVES_LOG")
    if path:
        handler: logging.Handler = logging.FileHandler(path)
        handler.setFormatter(logging.Formatter("%(asctime)s %(name)s %(levelname)s %(message)s"))
        root.setLevel(logging.INFO)
    else:
        handler = logging.NullHandler()
    root.addHandler(handler)
