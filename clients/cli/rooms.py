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

from clients.cli import local
from clients.cli.connection import reason
from clients.cli.safe import visible
from clients.cli.seats import normalize_url
from protocol import messages as msg
from protocol.errors import ProtocolError

TIMEOUT = 10.0


def add_arguments(parser: argparse.ArgumentParser) -> None:
    """Options of `allfives rooms`."""
    parser.add_argument(
        "url", type=local.server_url, help="the server, e.g. ws://192.168.1.20:8765"
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
        print(
            visible(f"allfives rooms: cannot list the rooms of {url}: {reason(error, url)}"),
            file=sys.stderr,
        )
        return 1
    print_rooms(url, rooms, Console())
    return 0


async def list_rooms(url: str) -> list[msg.RoomSummary]:
    """Ask the server for its public waiting rooms."""
    async with connect(url, open_timeout=TIMEOUT) as socket:
        hello = msg.Hello(id=1, version=msg.PROTOCOL_VERSION, name="lister")
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
        console.print(Text(f"No public room is waiting for players at {shown}."), highlight=False)
        console.print(Text(f"Open one with: {local.command()} join {shown}"), highlight=False)
        return
    table = Table(title=Text(f"Rooms waiting for players at {shown}"), title_justify="left")
    table.add_column("room", style="bold", no_wrap=True)
    table.add_column("players", no_wrap=True)
    table.add_column("first to", justify="right", no_wrap=True)
    table.add_column("seats")
    for room in rooms:
        rules = room.rules
        kind = f"{rules.players}" + (" (teams)" if rules.partnership else "")
        seats = ", ".join(name if name is not None else "free" for name in room.seats)
        table.add_row(visible(room.code), kind, str(rules.target_score), visible(seats))
    console.print(table)
    console.print(
        Text(f"Join one with: {local.command()} join {shown} {visible(rooms[0].code)}"),
        highlight=False,
    )
