"""`allfives rooms URL`: the public rooms of a server that are waiting for players."""

from __future__ import annotations

import argparse
import asyncio
import sys

from rich.console import Console
from rich.table import Table
from rich.text import Text
from websockets.asyncio.client import connect
from websockets.exceptions import ConnectionClosed, InvalidHandshake, InvalidURI

from clients.cli import local, words
from clients.cli.connection import reason
from clients.cli.i18n import _
from clients.cli.safe import visible
from clients.cli.seats import normalize_url
from protocol import messages as msg
from protocol.errors import ProtocolError

TIMEOUT = 10.0


def add_arguments(parser: argparse.ArgumentParser) -> None:
    """Options of `allfives rooms`."""
    parser.add_argument(
        "url", type=local.server_url, help=_("the server, e.g. ws://192.168.1.20:8765")
    )


def run(args: argparse.Namespace) -> int:
    """Print the waiting rooms; returns the exit status."""
    url = normalize_url(args.url)
    try:
        rooms = asyncio.run(list_rooms(url))
    except (
        OSError,
        TimeoutError,
        InvalidHandshake,
        InvalidURI,
        ConnectionClosed,
        ProtocolError,
    ) as error:
        if isinstance(error, ProtocolError):
            why = words.error_words(error.code, error.message)
        else:
            why = reason(error, url)
        said = _("cannot list the rooms of {url}: {reason}").format(url=url, reason=why)
        print(visible(f"allfives rooms: {said}"), file=sys.stderr)
        return 1
    print_rooms(url, rooms, Console())
    return 0


async def list_rooms(url: str) -> list[msg.RoomSummary]:
    """Ask the server for its public waiting rooms."""
    async with connect(url, open_timeout=TIMEOUT) as socket:
        hello = msg.Hello(id=1, version=msg.PROTOCOL_VERSION)
        await socket.send(msg.encode(hello).decode())
        await socket.send(msg.encode(msg.ListRooms(id=2)).decode())
        while True:
            reply = msg.decode_server(await asyncio.wait_for(socket.recv(), TIMEOUT))
            if isinstance(reply, msg.Error):
                raise ProtocolError(reply.code, reply.message)
            if isinstance(reply, msg.Rooms):
                return reply.rooms


def print_rooms(url: str, rooms: list[msg.RoomSummary], console: Console) -> None:
    """The rooms as a table, and the command that joins one."""
    shown = visible(url.rstrip("/"))
    if not rooms:
        said = _("No public room is waiting for players at {url}.").format(url=shown)
        console.print(Text(said), highlight=False)
        command = f"{local.command()} join {shown}"  # i18n: a command
        said = _("Open one with: {command}").format(command=command)
        console.print(Text(said), highlight=False)
        return
    title = _("Rooms waiting for players at {url}").format(url=shown)
    table = Table(title=Text(title), title_justify="left")
    table.add_column(_("room"), style="bold", no_wrap=True)
    table.add_column(_("players"), no_wrap=True)
    table.add_column(_("first to"), justify="right", no_wrap=True)
    table.add_column(_("seats"))
    for room in rooms:
        rules = room.rules
        kind = f"{rules.players}" + (" " + _("(teams)") if rules.partnership else "")
        if not rules.is_rated:  # a listed room is rated unless its host said otherwise
            kind += ", " + _("unrated")
        seats = ", ".join(name if name is not None else _("free") for name in room.seats)
        table.add_row(visible(room.code), kind, str(rules.target_score), visible(seats))
    console.print(table)
    console.print(
        Text(
            _("Join one with: {command}").format(
                command=f"{local.command()} join {shown} {visible(rooms[0].code)}"  # i18n: a command
            )
        ),
        highlight=False,
    )
