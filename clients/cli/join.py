"""`allfives join URL [ROOM]`: sit at a room on a server (or come back to the seat you had).

A seat you held at that server and room is resumed with its saved token, so after a crash
`allfives join` puts you back where you were. Without ROOM you join the first public room
waiting for players, or open a new one if none is waiting.
"""

from __future__ import annotations

import argparse
import sys
from collections.abc import Callable, Sequence

from clients.cli import local, plain, words
from clients.cli.connection import Connection
from clients.cli.i18n import _
from clients.cli.keys import KeyStore, link_code, new_key
from clients.cli.mode import Mode
from clients.cli.seats import SeatStore, normalize_url
from clients.cli.state import TableState
from protocol import messages as msg
from protocol.rules import RoomRules


def add_arguments(parser: argparse.ArgumentParser) -> None:
    """Options of `allfives join`."""
    parser.add_argument(
        "url", type=local.server_url, help=_("the server, e.g. ws://192.168.1.20:8765")
    )
    parser.add_argument(
        "room", nargs="?", default=None, help=_("the room code (default: any waiting room)")
    )
    local.add_name_argument(
        parser,
        _(
            "your name at the table (default: the player this device plays as on that server, "
            "else your login)"
        ),
    )
    parser.add_argument(
        "--seat",
        type=int,
        choices=(1, 2, 3, 4),
        default=None,
        help=_(
            "the seat to take in ROOM, numbered as the table shows them from 1 (the host sits "
            "in 1; with four players the host's partner sits in 3; default: the first free one)"
        ),
    )
    local.add_quiet_argument(parser)
    plain.add_argument(parser)
    parser.add_argument(
        "--players",
        type=int,
        choices=(2, 3, 4),
        default=2,
        help=_("players in the room opened when none is waiting (default 2)"),
    )
    parser.add_argument(
        "--link",
        metavar="CODE",
        type=link_argument,
        help=_("link this device to your player: the one-time code /link shows on the other one"),
    )
    parser.add_argument(
        "--private",
        action="store_true",
        help=_("a room opened when none is waiting is not listed (friends join with its code)"),
    )
    local.add_rated_argument(parser)


def link_argument(text: str) -> str:
    """--link's code, checked before anything else (argparse says what is wrong)."""
    code = link_code(text)
    if code is None:
        raise argparse.ArgumentTypeError(_("takes the 8-letter code /link shows (ABCD-EFGH)"))
    return code


def run(args: argparse.Namespace) -> int:
    """Play until you quit; returns the exit status."""
    if args.seat is not None and args.room is None:
        said = _("--seat needs the room's code: {command}").format(
            command=f"{local.command()} join URL ROOM --seat N"  # i18n: a command
        )
        print(f"allfives join: {said}", file=sys.stderr)  # i18n: a command
        return 2
    local.keep_logs_off_screen()
    return local.interruptible(join(args), "allfives join")


def choose_room(
    players: int, private: bool = False, rated: bool | None = None
) -> Callable[[list[msg.RoomSummary]], Sequence[msg.ClientMessage]]:
    """Pick the first waiting room with a free seat, or open a new one (unlisted if `private`,
    rated as `rated` asks: None, the server's default)."""

    def choose(rooms: list[msg.RoomSummary]) -> Sequence[msg.ClientMessage]:
        if not private:
            for room in rooms:
                if room.free_seats:
                    return [msg.Join(room=room.code)]
        rules = RoomRules(players=players, public=not private, rated=rated)
        return [msg.CreateRoom(rules=rules)]

    return choose


def plan(
    url: str,
    room: str | None,
    name: str | None,
    players: int = 2,
    seats: SeatStore | None = None,
    private: bool = False,
    keys: KeyStore | None = None,
    rated: bool | None = None,
    seat: int | None = None,
) -> tuple[Connection, list[msg.ClientMessage], bool]:
    """The connection, its first messages, and whether it starts by resuming a saved seat.

    A saved seat is taken back only under its own name: `name` None means the name it was
    saved with; another name joins afresh (and says so), never taking over the seat. `seat`
    asks for that seat of `room` (the server refuses a taken one, in words).
    """
    url = normalize_url(url)
    seats = seats if seats is not None else SeatStore()
    state = TableState()
    # Each name's seat is its own (two players on one machine); another name's is left alone.
    saved = seats.find(url, room, name)
    aside = None
    other = seats.find(url, room) if saved is None and name is not None else None
    if other is not None and other.name and other.name != name:
        aside = _(
            "seat {seat} of room {code}, held as {who}, was left alone: "
            "leave out --name to take it back"
        ).format(seat=words.seat_number(other.seat), code=other.room, who=other.name)
        state.say(_("Not taking back {what}").format(what=aside))
    keys = keys if keys is not None else KeyStore(seats.path.with_name("keys.json"))
    if name is None and saved is not None and saved.name:
        name = saved.name
    elif name is None:
        # The player this device plays as on that server (the last one used, or restored by
        # `allfives key --restore`), else the login name as a new player.
        kept = keys.existing(url)
        name = kept[0] if kept is not None else local.default_name()
    if saved is not None:
        room = saved.room  # the whole code, where the one typed was the short one shown
        state.room, state.seat, state.token = saved.room, saved.seat, saved.token
        if saved.numbering is not None:
            state.restore_numbering(saved.numbering)
    connection = Connection(url, name, state, seats=seats, key=keys.key_for(url, name))
    connection.keys = keys
    connection.aside = aside
    if room:
        first: list[msg.ClientMessage] = [msg.Join(room=room.strip().upper(), seat=seat)]
    else:
        first = [msg.ListRooms()]
        connection.chooser = choose_room(players, private, rated)
    return connection, first, saved is not None


async def join(args: argparse.Namespace) -> int:
    """Connect, resume or take a seat, and play."""
    connection, first, resume = plan(
        args.url,
        args.room,
        args.name,
        args.players,
        private=args.private,
        rated=args.rated,
        seat=words.seat_index(args.seat) if args.seat is not None else None,
    )
    if args.link is not None:
        # A key of this device's own joins the code's player (kept under its name on welcome).
        connection.link = args.link
        connection.key = new_key()
    app = plain.table(args)(
        connection, Mode.JOIN, join_url=connection.url.rstrip("/"), quiet=args.quiet
    )
    return await app.run(first, resume=resume)
