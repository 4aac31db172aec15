"""`allfives watch URL ROOM`: watch a room's match without a seat (anyone may watch).

Watching needs no name: without `--name`, it watches as the player whose key was used last on
that server (`clients.cli.keys`), so a private room's chat knows who speaks, and with no key kept
it says hello with no name at all, so a name somebody owns never stands in the way."""

from __future__ import annotations

import argparse

from clients.cli import local, plain
from clients.cli.connection import Connection
from clients.cli.i18n import _
from clients.cli.keys import KeyStore
from clients.cli.mode import Mode
from clients.cli.seats import normalize_url
from clients.cli.state import TableState
from protocol import messages as msg


def add_arguments(parser: argparse.ArgumentParser) -> None:
    """Options of `allfives watch`."""
    parser.add_argument(
        "url", type=local.server_url, help=_("the server, e.g. ws://192.168.1.20:8765")
    )
    parser.add_argument("room", help=_("the room code"))
    local.add_name_argument(
        parser,
        _(
            "your name in the room's chat (default: the player this device keeps a key for on "
            "that server; with none, you watch without a name and cannot chat)"
        ),
    )
    plain.add_argument(parser)


def run(args: argparse.Namespace) -> int:
    """Watch until you quit; returns the exit status."""
    local.keep_logs_off_screen()
    return local.interruptible(watch(args), "allfives watch")


def plan(
    url: str, room: str, name: str | None, keys: KeyStore | None = None
) -> tuple[Connection, list[msg.ClientMessage]]:
    """The connection and its first message: spectate the room, as `name` (that player, if
    this device keeps its key for the server; a guest otherwise), else as the player whose key
    is kept for the server, else with no name."""
    url = normalize_url(url)
    keys = keys if keys is not None else KeyStore()
    if name is None:
        kept = keys.existing(url)
        name, key = kept if kept is not None else ("", None)
    else:
        key = keys.kept(url, name)
    connection = Connection(url, name, TableState(), key=key)
    return connection, [msg.Spectate(room=room.strip().upper())]


async def watch(args: argparse.Namespace) -> int:
    """Connect, watch, and leave when told."""
    connection, first = plan(args.url, args.room, args.name)
    return await plain.table(args)(connection, Mode.JOIN, quiet=True).run(first)
