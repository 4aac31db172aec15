"""`allfives play`: a game against bots on this machine, with nothing to set up.

A server runs inside the process on loopback (a free port); you take seat 0, bots take the
others, and the first hand is dealt at once.
"""

from __future__ import annotations

import argparse

from clients.cli import local
from clients.cli.app import App
from clients.cli.connection import Connection
from clients.cli.state import TableState
from protocol import messages as msg
from protocol.views import BotLevel


def add_arguments(parser: argparse.ArgumentParser) -> None:
    """Options of `allfives play`."""
    local.add_rules_arguments(parser)
    parser.add_argument(
        "--bots",
        choices=("easy", "normal", "hard"),
        default="normal",
        help="how well the bots play (default normal)",
    )
    local.add_name_argument(parser)


def run(args: argparse.Namespace) -> int:
    """Play until the match is over and you quit; returns the exit status."""
    local.keep_logs_off_screen()
    return local.interruptible(play(args))


def first_messages(args: argparse.Namespace) -> list[msg.ClientMessage]:
    """Open the room at seat 0, seat the bots, deal."""
    level: BotLevel = args.bots
    rules = local.rules_from(args, public=False)
    return [
        msg.CreateRoom(rules=rules, seat=0),
        *(msg.AddBot(level=level) for _ in range(args.players - 1)),
        msg.Start(),
    ]


async def play(args: argparse.Namespace) -> int:
    """Run the embedded server and the table."""
    from server.app import Config, run_server

    config = Config(host="127.0.0.1", port=0, bot_delay=local.bot_delay())
    async with run_server(config) as server:
        name = args.name or local.default_name()
        connection = Connection(server.url, name, TableState())
        return await App(connection, remote=False).run(first_messages(args))
