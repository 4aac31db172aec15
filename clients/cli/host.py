"""`allfives host`: run a server here, open a room, sit at it, and say how friends join.

Without --public the server listens on loopback (this machine only); with it, on every
interface, and the join line shows this machine's network address.
"""

from __future__ import annotations

import argparse
import sys

from clients.cli import local
from clients.cli.app import App
from clients.cli.connection import Connection
from clients.cli.state import TableState
from protocol import messages as msg

DEFAULT_PORT = 8765


def add_arguments(parser: argparse.ArgumentParser) -> None:
    """Options of `allfives host`."""
    parser.add_argument(
        "--port", type=int, default=DEFAULT_PORT, help=f"port to listen on (default {DEFAULT_PORT})"
    )
    parser.add_argument(
        "--public",
        action="store_true",
        help="listen on every network interface so friends on your network can join",
    )
    local.add_rules_arguments(parser)
    local.add_name_argument(parser)


def run(args: argparse.Namespace) -> int:
    """Host until you quit; returns the exit status."""
    local.keep_logs_off_screen()
    return local.interruptible(host(args))


def join_url(public: bool, port: int) -> str:
    """The address friends connect to."""
    address = local.network_address() if public else "127.0.0.1"
    return f"ws://{address}:{port}"


async def host(args: argparse.Namespace) -> int:
    """Run the server and the table."""
    from server.app import Config, run_server

    listen = "0.0.0.0" if args.public else "127.0.0.1"
    config = Config(host=listen, port=args.port, bot_delay=local.bot_delay())
    try:
        async with run_server(config) as server:
            url = join_url(args.public, server.port)
            connection = Connection(
                f"ws://127.0.0.1:{server.port}/", args.name or local.default_name(), TableState()
            )
            first = [msg.CreateRoom(rules=local.rules_from(args), seat=0)]
            return await App(connection, join_url=url, remote=False).run(first)
    except OSError as error:
        print(
            f"allfives host: cannot listen on {listen}:{args.port}: {error.strerror or error}",
            file=sys.stderr,
        )
        if args.port:
            print("  (another program may use that port: choose one with --port)", file=sys.stderr)
        return 1
