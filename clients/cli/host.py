"""`allfives host`: run a server here, open a room, sit at it, and say how friends join.

The server listens on loopback (this machine only) unless `--lan` or `--public`: then on every
interface, and the join line shows this machine's network address. The room is private (joined
with its code, never listed by `allfives rooms`) unless `--public`. `--redis` keeps rooms in
Redis as `allfives serve --redis` does. Quitting during a match asks first, then closes the room
for everyone with a reason their clients show (they stop trying to reconnect).
"""

from __future__ import annotations

import argparse
import sys

from clients.cli import local, plain
from clients.cli.connection import Connection
from clients.cli.i18n import _
from clients.cli.keys import KeyStore
from clients.cli.mode import Mode
from clients.cli.play import bot_levels
from clients.cli.state import TableState
from protocol import messages as msg
from protocol.rules import RoomRules
from protocol.views import BotLevel

# Loaded with the command, not once it runs: Ctrl-C while modules load ends the process at once
# (`allfives.start`); a KeyboardInterrupt raised inside an import could be lost, or crash.
from server.app import Config, run_server
from server.config import Timing
from server.edge.address import network_address
from server.storage.store import StoreUnavailable

DEFAULT_PORT = 8765
#: The close reason the server sends (the clients word a closed room from the close code).
ROOM_CLOSED = "the host closed the room"  # i18n: not shown


def add_arguments(parser: argparse.ArgumentParser) -> None:
    """Options of `allfives host`."""
    parser.add_argument(
        "--port",
        type=local.port_number,
        default=DEFAULT_PORT,
        help=_("port to listen on (default {port})").format(port=DEFAULT_PORT),
    )
    parser.add_argument(
        "--lan",
        action="store_true",
        help=_("listen on every network interface so friends on your network can join by code"),
    )
    parser.add_argument(
        "--public",
        action="store_true",
        help=_("as --lan, and list the room in `allfives rooms` so anyone may join it"),
    )
    parser.add_argument(
        "--redis", metavar="URL", help=_("keep rooms in Redis at redis://host:port/db (as serve)")
    )
    parser.add_argument(
        "--bots",
        type=bot_levels,
        default=[],
        metavar="LEVEL[,LEVEL...]",
        help=_(
            "seat a bot of each level in the last seats (easy, normal or hard; default: none, "
            "friends take the seats)"
        ),
    )
    local.add_rules_arguments(parser)
    local.add_name_argument(parser)
    local.add_quiet_argument(parser)
    plain.add_argument(parser)


def run(args: argparse.Namespace) -> int:
    """Host until you quit; returns the exit status."""
    try:
        rules = local.rules_from(args, public=args.public)
        if len(args.bots) >= args.players:
            said = _("--bots seats {count} bots: leave a seat for you")
            raise local.UsageError(said.format(count=len(args.bots)))
    except local.UsageError as error:
        return local.usage_error("allfives host", error)
    local.keep_logs_off_screen()
    return local.interruptible(host(args, rules), "allfives host")


def join_url(network: bool, port: int) -> str:
    """The address friends connect to."""
    address = network_address() if network else "127.0.0.1"
    return f"ws://{address}:{port}"


def first_messages(rules: RoomRules, levels: list[BotLevel]) -> list[msg.ClientMessage]:
    """Open the room at seat 0 and seat the bots asked for in the last seats."""
    first = rules.players - len(levels)
    return [
        msg.CreateRoom(rules=rules, seat=0),
        *(msg.AddBot(seat=seat, level=level) for seat, level in enumerate(levels, start=first)),
    ]


def server_config(args: argparse.Namespace) -> Config:
    """The embedded server's settings: where it listens, and Redis if asked for."""
    listen = "0.0.0.0" if args.lan or args.public else "127.0.0.1"
    idle = local.idle_seconds(Timing.idle_seconds)
    config = Config.of(host=listen, port=args.port, bot_delay=local.bot_delay(), idle_seconds=idle)
    if args.redis:
        from server.storage.stores import open_store

        config.set("redis_url", args.redis)
        config.store = open_store(config.storage)
    return config


async def host(args: argparse.Namespace, rules: RoomRules) -> int:
    """Run the server and the table; on leaving, close the room for everyone."""
    network = args.lan or args.public
    config = server_config(args)
    listen = config.network.host
    try:
        async with run_server(config) as server:
            url = join_url(network, server.port)
            here = f"ws://127.0.0.1:{server.port}/"
            # The host is a player like any other: with this device's key, as `join` has it, so
            # a rated room's results are theirs (without one they played as a guest, unrated).
            name = args.name or local.default_name()
            keys = KeyStore()
            connection = Connection(here, name, TableState(), key=keys.key_for(here, name))
            connection.keys = keys
            app = plain.table(args)(connection, Mode.HOST, join_url=url, quiet=args.quiet)
            status = await app.run(first_messages(rules, args.bots))
            await server.close_for_good(ROOM_CLOSED)
            return status
    except StoreUnavailable as error:
        said = _("cannot use Redis at {url}: {reason}").format(url=args.redis, reason=error)
        print(f"allfives host: {said}", file=sys.stderr)
        return 1
    except OSError as error:
        said = _("cannot listen on {address}: {reason}").format(
            address=f"{listen}:{args.port}", reason=local.os_reason(error)
        )
        print(f"allfives host: {said}", file=sys.stderr)
        if args.port:
            said = _("(another program may use that port: choose one with --port)")
            print(f"  {said}", file=sys.stderr)
        return 1
