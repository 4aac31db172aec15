"""What the subcommands share: player names, room rules from options, the embedded server's
settings, this machine's network address, and logging kept off the screen."""

from __future__ import annotations

import argparse
import asyncio
import getpass
import logging
import os
import socket
from collections.abc import Coroutine
from typing import Any

from protocol.messages import MAX_NAME_LENGTH, validate_name
from protocol.rules import DEFAULT_TARGETS, RoomRules

DEFAULT_BOT_DELAY = 0.8
#: A documentation-only address (RFC 5737): connecting a UDP socket to it sends nothing.
UNROUTED_ADDRESS = ("192.0.2.1", 9)


def interruptible(main: Coroutine[Any, Any, int]) -> int:
    """Run the client; Ctrl-C outside the prompt ends it quietly with status 130."""
    try:
        return asyncio.run(main)
    except KeyboardInterrupt:
        return 130


def default_name() -> str:
    """The login name, capitalised, as the player's name (or "Player")."""
    try:
        login = getpass.getuser()
    except (KeyError, OSError):
        login = ""
    try:
        return validate_name(login.capitalize()[:MAX_NAME_LENGTH])
    except ValueError:
        return "Player"


def player_name(text: str) -> str:
    """argparse type for --name: a valid player name."""
    try:
        return validate_name(text)
    except ValueError as error:
        raise argparse.ArgumentTypeError(str(error)) from None


def target_score(text: str) -> int:
    """argparse type for --target: a positive multiple of five."""
    try:
        value = int(text)
    except ValueError:
        value = -1
    if value <= 0 or value % 5:
        raise argparse.ArgumentTypeError(f"{text!r} is not a positive multiple of 5")
    return value


def add_name_argument(parser: argparse.ArgumentParser) -> None:
    """--name."""
    parser.add_argument(
        "--name",
        type=player_name,
        default=None,
        help="your name at the table (default: your login)",
    )


def add_rules_arguments(parser: argparse.ArgumentParser) -> None:
    """--players, --teams/--no-teams, --target."""
    parser.add_argument(
        "--players", type=int, choices=(2, 3, 4), default=2, help="players at the table (default 2)"
    )
    parser.add_argument(
        "--teams",
        action=argparse.BooleanOptionalAction,
        default=True,
        help="with 4 players, play as two teams, seats 0+2 against 1+3 (default: teams)",
    )
    targets = ", ".join(f"{score} with {count}" for count, score in DEFAULT_TARGETS.items())
    parser.add_argument(
        "--target", type=target_score, default=None, help=f"score that wins (default {targets})"
    )


def rules_from(args: argparse.Namespace, public: bool = True) -> RoomRules:
    """The room rules the options ask for."""
    return RoomRules(players=args.players, teams=args.teams, target=args.target, public=public)


def bot_delay() -> float:
    """Seconds between bot moves in an embedded server (ALLFIVES_BOT_DELAY overrides)."""
    try:
        return max(0.0, float(os.environ["ALLFIVES_BOT_DELAY"]))
    except (KeyError, ValueError):
        return DEFAULT_BOT_DELAY


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


def network_address() -> str:
    """This machine's address on its network, as friends would reach it (loopback if unknown)."""
    with socket.socket(socket.AF_INET, socket.SOCK_DGRAM) as probe:
        try:
            probe.connect(UNROUTED_ADDRESS)
            address = str(probe.getsockname()[0])
        except OSError:
            address = ""
    if address and not address.startswith(("127.", "0.")):
        return address
    try:
        return socket.gethostbyname(socket.gethostname())
    except OSError:
        return "127.0.0.1"
