"""A hostile server cannot drive the player's terminal: every string it sends reaches the screen
with its control characters, bidi overrides and zero-width characters made visible."""

from __future__ import annotations

import asyncio
import io
import unicodedata
from collections.abc import AsyncIterator

import pytest
from client_helpers import TIMEOUT
from hypothesis import given
from hypothesis import strategies as st
from protocol_helpers import BOT_LOOK_ALIKES, LOOK_ALIKES
from rich.console import Console
from table_helpers import make_view
from waiting import until
from websockets.asyncio.server import ServerConnection, serve

from clients.cli.app import App
from clients.cli.connection import Connection, Fatal
from clients.cli.rooms import print_rooms
from clients.cli.safe import visible
from clients.cli.state import TableState
from protocol import messages as msg
from protocol.names import INVISIBLE, LOOSE_MARK, name_problem
from protocol.patch import to_builtins
from protocol.rules import RoomRules
from protocol.views import ChatLine, SeatInfo

#: Clear the screen, set the window title, then a name; a colour left open; bidi and zero-width.
EVIL_NAME = "\x1b[2J\x1b]0;TITLE\x1b\\Eve"
EVIL_CHAT = "hi\x1b[41m\x07\u202eevil\u200b"
EVIL_CODE = "AB\x1b[5mC"
EVIL_ERROR = "no\x1b]8;;http://x\x1b\\link\x9b31m\u2066"
#: What none of the screen's bytes may hold: the hostile sequences and characters themselves.
FORBIDDEN = ["\x1b]", "\x1b[2J\x1b]", "\x1b[41m", "\x1b[5m", "\x07", "\u202e", "\u200b", "\x9b"]
FORBIDDEN += ["\u2066"]


def hostile_view() -> msg.Snapshot:
    seats = [
        SeatInfo(seat=0, name="Ann", kind="human"),
        SeatInfo(seat=1, name=EVIL_NAME, kind="human"),
    ]
    view = make_view(seats=seats, you=0, turn=1)
    view.code = EVIL_CODE
    view.chat = [ChatLine(seat=1, name=EVIL_NAME, text=EVIL_CHAT)]
    return msg.Snapshot(seq=1, state=view)


@pytest.fixture
async def hostile_url() -> AsyncIterator[str]:
    """A server that greets, seats the client in a hostile room, chats and errs with escapes."""

    async def handler(socket: ServerConnection) -> None:
        await socket.recv()
        frames: list[msg.ServerMessage] = [
            msg.Welcome(version=msg.PROTOCOL_VERSION, server="evil\x1b[2J", id=1),
            msg.Joined(room=EVIL_CODE, seat=0, seat_token="t", id=2),
            hostile_view(),
            msg.Patch(
                seq=2,
                ops=[
                    {
                        "op": "add",
                        "path": "/chat/-",
                        "value": to_builtins(ChatLine(seat=1, name=EVIL_NAME, text=EVIL_CHAT)),
                    }
                ],
            ),
            # A code this client does not know: its message is shown, the fallback for it.
            msg.Error(id=None, command="play", code="no_such_code", message=EVIL_ERROR),
        ]
        for frame in frames:
            await socket.send(msg.encode(frame).decode())
        await socket.wait_closed()

    async with serve(handler, "127.0.0.1", 0) as server:
        port = server.sockets[0].getsockname()[1]
        yield f"ws://127.0.0.1:{port}/"


async def test_names_chat_room_codes_and_errors_from_a_hostile_server_cannot_drive_the_terminal(
    hostile_url: str,
) -> None:
    connection = Connection(hostile_url, "Ann", TableState())
    running = asyncio.create_task(connection.run([msg.Join(room="ABCD")]))
    await until(lambda: connection.state.notice is not None, TIMEOUT)
    screen = io.StringIO()
    app = App(connection, join_url="ws://example", output=screen)
    app.console = Console(file=screen, force_terminal=True, color_system="truecolor", width=100)
    app.paint()
    painted = screen.getvalue()
    for sequence in FORBIDDEN:
        assert sequence not in painted, repr(sequence)
    # What was sent is still there to read, made visible.
    assert "␛[2J␛]0;TITLE␛\\Eve" in painted
    assert "hi␛[41m" in painted and "evil�" in painted
    assert "AB␛[5mC" in painted
    assert "no␛]8;;http://x␛\\link�31m�" in painted
    await connection.close()
    await asyncio.wait_for(running, TIMEOUT)


def test_a_hostile_room_list_is_printed_with_its_escapes_made_visible() -> None:
    rooms = [
        msg.RoomSummary(
            code=EVIL_CODE, rules=RoomRules(players=2), seats=[EVIL_NAME, None], free_seats=[1]
        )
    ]
    screen = io.StringIO()
    console = Console(file=screen, force_terminal=True, color_system="truecolor", width=160)
    print_rooms("ws://host:1/", rooms, console)
    printed = screen.getvalue()
    for sequence in FORBIDDEN:
        assert sequence not in printed, repr(sequence)
    assert "␛[2J␛]0;TITLE␛\\Eve" in printed and "AB␛[5mC" in printed


@given(st.text())
def test_visible_text_keeps_its_length_and_holds_no_control_or_format_character(text: str) -> None:
    shown = visible(text)
    assert len(shown) == len(text)
    assert all(char.isprintable() or unicodedata.category(char) == "Zs" for char in shown)
    assert not any("\u200b" <= char <= "\u200f" or "\u202a" <= char <= "\u202e" for char in shown)


def test_each_look_alike_shows_its_invisible_character() -> None:
    # What a name may not hold (protocol.names) is shown, so a look-alike never reads as its
    # owner's name: each of the 27 differs from the owner's on screen where it is refused.
    for name in LOOK_ALIKES + BOT_LOOK_ALIKES:
        if name_problem(name) in (INVISIBLE, LOOSE_MARK):
            assert "\ufffd" in visible(name), ascii(name)
    assert visible("Zedjbz\u3164") == "Zedjbz\ufffd" and visible("\u2800bot") == "\ufffdbot"
    # A mark with no letter under it, or a third on one letter, shows; accents as written stay.
    assert visible("\u0301Ann") == "\ufffdAnn" and visible("a \u0301") == "a \ufffd"
    assert visible("z\u0301\u0301\u0301") == "z\u0301\u0301\ufffd"
    assert visible("Nguye\u0302\u0303n") == "Nguye\u0302\u0303n"


def test_plain_text_and_unicode_letters_are_left_as_they_are() -> None:
    for text in ("Ann", "Zoë", "李雷", "5-3 east (10) ★", "Ünal ⚀"):
        assert visible(text) == text


@pytest.fixture
async def closing_url() -> AsyncIterator[str]:
    """A server that greets, then closes "for good" with a hostile reason."""

    async def handler(socket: ServerConnection) -> None:
        await socket.recv()
        await socket.close(4001, EVIL_ERROR)

    async with serve(handler, "127.0.0.1", 0) as server:
        port = server.sockets[0].getsockname()[1]
        yield f"ws://127.0.0.1:{port}/"


async def test_a_hostile_close_reason_is_not_shown_and_not_retried(
    closing_url: str,
) -> None:
    connection = Connection(closing_url, "Ann", TableState())
    with pytest.raises(Fatal) as ended:
        await asyncio.wait_for(connection.run([msg.Join(room="ABCD")]), TIMEOUT)
    screen = io.StringIO()
    app = App(connection, output=screen)
    app.console = Console(file=screen, force_terminal=True, color_system="truecolor", width=100)
    app.say_fatal(ended.value)
    printed = screen.getvalue()
    for sequence in FORBIDDEN:
        assert sequence not in printed, repr(sequence)
    # The client words a "room closed" itself: the server's reason is not on screen at all.
    assert "allfives: the host closed the room" in printed
    assert "link" not in printed
