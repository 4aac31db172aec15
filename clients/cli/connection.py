"""One player's connection to a server: greeting, the first commands, and coming back after drops.

`Connection.run(first)` connects, says hello and sends `first` (create a room, join one, seat
bots...), then feeds every server message to the `TableState` and calls `on_change`. When the
connection drops it tries again with growing pauses (0.5 s up to 10 s) and resumes the seat with
its token and the last `seq` it holds, so the server sends only what was missed. A first
connection that fails is not retried: the address is probably wrong, and the player is told so.
"""

from __future__ import annotations

import asyncio
import contextlib
import itertools
import socket
import ssl
from collections.abc import Callable, Sequence
from urllib.parse import urlsplit

from websockets.asyncio.client import ClientConnection, connect
from websockets.exceptions import ConnectionClosed, InvalidHandshake, InvalidMessage, InvalidURI

from clients.cli import local, words
from clients.cli.i18n import _
from clients.cli.keys import KeyStore
from clients.cli.seats import SeatStore
from clients.cli.state import TableState
from protocol import errors
from protocol import messages as msg
from protocol.errors import ProtocolError

FIRST_PAUSE = 0.5
#: Close codes after which coming back is pointless (protocol/README.md, Reconnecting).
CLOSE_SEAT_TAKEN_OVER = 4000
CLOSE_ROOM_CLOSED = 4001
CLOSE_REMOVED = 4002
LONGEST_PAUSE = 10.0
#: Letters of a room's code without its invite.
CODE_LETTERS = 4
#: After this long without getting through again, the client stops trying (and says how to
#: come back later).
GIVE_UP_SECONDS = 300.0
OPEN_TIMEOUT = 10.0
#: getaddrinfo's answers for a name nobody knows (others: the lookup itself failed).
UNKNOWN_NAME = frozenset(
    code for code in (socket.EAI_NONAME, getattr(socket, "EAI_NODATA", None)) if code is not None
)

#: What to do once connected, given the public rooms when a `ListRooms` was sent first.
Chooser = Callable[[list[msg.RoomSummary]], Sequence[msg.ClientMessage]]


class Fatal(Exception):
    """The connection cannot go on (unreachable server, unknown room, refused seat)."""


class Connection:
    """See the module docstring."""

    def __init__(
        self,
        url: str,
        name: str,
        state: TableState,
        on_change: Callable[[], None] = lambda: None,
        seats: SeatStore | None = None,
        key: str | None = None,
    ) -> None:
        self.url = url
        self.name = name
        #: The player's key on this server (`clients.cli.keys`), sent with every hello.
        self.key = key
        #: A one-time link code for the next hello: it joins this key to the code's player.
        self.link: str | None = None
        #: Where the key is kept: under the player's name the server says (`welcome`).
        self.keys: KeyStore | None = None
        self.state = state
        state.server_url = state.server_url or url
        self.on_change = on_change
        self.seats = seats
        self.socket: ClientConnection | None = None
        self.closing = False
        self.fatal: str | None = None
        #: A word added to a fatal error (e.g. that a saved seat was left alone).
        self.aside: str | None = None
        self.connected_once = False
        self.ids = itertools.count(1)
        #: Hello, Join and CreateRoom sent, by id: their errors are handled apart.
        self.sent: dict[int, msg.ClientMessage] = {}
        self.chooser: Chooser | None = None
        self.ready = asyncio.Event()
        self._first: Sequence[msg.ClientMessage] = ()
        #: Seconds of failed reconnecting before giving up.
        self.give_up_after = GIVE_UP_SECONDS
        self._resuming = False
        #: The command that takes this seat back, when not the room's own `join` (a
        #: tournament's table is taken back by following the tournament again).
        self.back_with: str | None = None

    # -- sending ---------------------------------------------------------------------------

    async def send(self, message: msg.ClientMessage) -> bool:
        """Send a message with a fresh id; False (and a notice) when not connected."""
        socket = self.socket
        if socket is None:
            self.state.say(_("Not connected: the message was not sent (reconnecting…)"), "error")
            self.on_change()
            return False
        message.id = next(self.ids)
        if isinstance(message, msg.Hello | msg.Join | msg.CreateRoom | msg.Spectate):
            self.sent[message.id] = message
        try:
            await socket.send(msg.encode(message).decode())
        except ConnectionClosed:
            self.state.say(_("Not connected: the message was not sent (reconnecting…)"), "error")
            self.on_change()
            return False
        return True

    # -- the loop --------------------------------------------------------------------------

    async def run(self, first: Sequence[msg.ClientMessage] = (), resume: bool = False) -> None:
        """Connect, send `first` (or resume the seat in `state`), and read until closed."""
        self._first = first
        self._resuming = resume
        attempt = 0
        lost_since = 0.0
        while not self.closing:
            try:
                async with connect(
                    self.url, open_timeout=OPEN_TIMEOUT, max_size=2**22, ping_interval=15
                ) as socket:
                    self.socket = socket
                    self.state.online = True
                    attempt = 0
                    await self._greet()
                    if self.connected_once:
                        self.state.say(_("Connected again: resuming your seat…"))
                        self.on_change()
                    self.connected_once = True
                    try:
                        async for frame in socket:
                            await self._on_frame(frame)
                            if self.fatal is not None:
                                break
                    finally:
                        self._check_close(socket.close_code, socket.close_reason)
            except (OSError, TimeoutError, InvalidHandshake, InvalidURI, ValueError) as error:
                if not self.connected_once:
                    said = _("cannot reach {url}: {reason}")
                    raise Fatal(said.format(url=self.url, reason=reason(error, self.url))) from None
            except ConnectionClosed:
                pass
            finally:
                self.socket = None
                self.state.online = False
            if not self.closing and self.fatal is None and not self._held():
                self.fatal = _("{url} closed the connection before giving a seat").format(
                    url=self.url
                )
            if self.fatal is not None:
                raise Fatal(self.fatal + (f"; {self.aside}" if self.aside else ""))
            if self.closing:
                break
            now = asyncio.get_running_loop().time()
            lost_since = now if attempt == 0 else lost_since
            if now - lost_since > self.give_up_after:
                said = _("{url} has not answered for {minutes} min: come back later with {command}")
                raise Fatal(
                    said.format(
                        url=self.url,
                        minutes=f"{self.give_up_after / 60:g}",
                        command=self.come_back(),
                    )
                )
            pause = min(LONGEST_PAUSE, FIRST_PAUSE * 2**attempt)
            attempt += 1
            said = _("Connection lost: trying again in {seconds} s (attempt {attempt})")
            self.state.say(said.format(seconds=f"{pause:g}", attempt=attempt), "error")
            self.on_change()
            await asyncio.sleep(pause)
            self._resuming = self.state.token is not None and self.state.room is not None

    def come_back(self) -> str:
        """The command that takes this seat back later: `allfives join URL CODE`, or
        `back_with` when it is set."""
        if self.back_with is not None:
            return self.back_with
        room = self.state.room or ""
        return f"{local.command()} join {self.url.rstrip('/')} {room}".rstrip()  # i18n: a command

    def _held(self) -> bool:
        """Whether this connection was given a seat (or a room to watch): only then is coming
        back after a drop worth trying."""
        return self.state.room is not None and self.connected_once

    def _check_close(self, code: int | None, why: str | None) -> None:
        """A close that means "do not come back" makes the connection fatal, with the reason."""
        if self.closing or self.fatal is not None:
            return
        if code == CLOSE_SEAT_TAKEN_OVER:
            self.fatal = _("this seat was taken over in another window (or on another machine)")
        elif code == CLOSE_ROOM_CLOSED:
            self.fatal = _("the host closed the room")
        elif code == CLOSE_REMOVED:
            self.fatal = _("the host removed you from the room")
            self._forget_seat()

    async def close(self) -> None:
        """Leave: say so to the server (the seat of a match in progress stays yours), then close."""
        self.closing = True
        socket = self.socket
        if socket is not None:
            with contextlib.suppress(ConnectionClosed):
                view = self.state.view
                if view is not None and view.phase != "playing":
                    await socket.send(msg.encode(msg.Leave()).decode())
                    self._forget_seat()
            with contextlib.suppress(Exception):
                await asyncio.wait_for(socket.close(), 2.0)

    # -- greeting --------------------------------------------------------------------------

    async def _greet(self) -> None:
        state = self.state
        if self._resuming and state.token is not None and state.room is not None:
            hello = msg.Hello(
                version=msg.PROTOCOL_VERSION,
                name=self.name or None,
                token=state.token,
                room=state.room,
                last_seq=state.resume_seq(),
                key=self.key,
            )
            await self.send(hello)
            return
        link, self.link = self.link, None
        await self.send(
            msg.Hello(version=msg.PROTOCOL_VERSION, name=self.name or None, key=self.key, link=link)
        )
        await self._send_first()

    async def _send_first(self) -> None:
        for message in self._first:
            await self.send(message)
        self._first = ()

    # -- receiving -------------------------------------------------------------------------

    async def _on_frame(self, frame: str | bytes) -> None:
        try:
            message = msg.decode_server(frame)
        except ProtocolError:
            self.state.say(_("The server sent something unreadable"), "error")
            self.on_change()
            return
        answered = getattr(message, "id", None)
        asked = None
        if isinstance(answered, int):
            # A hello is answered by welcome, then by joined or an error with the same id.
            keep = isinstance(message, msg.Welcome)
            asked = self.sent.get(answered) if keep else self.sent.pop(answered, None)
        if isinstance(message, msg.Error) and isinstance(asked, msg.Hello):
            await self._refused_hello(message)
            return
        if (
            isinstance(message, msg.Error)
            and isinstance(asked, msg.Join | msg.CreateRoom | msg.Spectate)
            and self.state.view is None
        ):
            doing = {
                msg.Join: _("could not join the room: {reason}"),
                msg.CreateRoom: _("could not open the room: {reason}"),
                msg.Spectate: _("could not watch the room: {reason}"),
            }[type(asked)]
            code = getattr(asked, "room", "") or ""
            said = words.error_words(message.code, message.message, code, message.reason)
            self.fatal = doing.format(reason=said)
            if (
                message.code == errors.NO_SUCH_ROOM
                and "-" not in code
                and len(code) <= CODE_LETTERS
            ):
                self.fatal += " " + _(
                    "(a private room is reached only with its invite as well: the whole "
                    "CODE-INVITE its players see, or its browser link)"
                )
            return
        if isinstance(message, msg.Rooms) and self.chooser is not None:
            chooser, self.chooser = self.chooser, None
            for reply in chooser(message.rooms):
                await self.send(reply)
            return
        replies = self.state.receive(message)
        for reply in replies:
            await self.send(reply)
        welcomed = isinstance(message, msg.Welcome) and message.player is not None
        if welcomed and self.keys is not None and self.key is not None:
            assert isinstance(message, msg.Welcome) and message.player is not None
            self.keys.remember(self.url, message.player, self.key)
        self._keep_numbering()
        if isinstance(message, msg.Joined):
            self._joined(message, resumed=isinstance(asked, msg.Hello))
        if isinstance(message, msg.Snapshot | msg.Change) and self.state.view is not None:
            self.ready.set()
        self.on_change()

    def _joined(self, joined: msg.Joined, resumed: bool) -> None:
        state = self.state
        if resumed:
            self._resuming = False
            self._first = ()
            said = _("Back in your seat (seat {seat} of room {code})")
            seat = words.seat_number(joined.seat) if joined.seat is not None else "?"
            state.say(said.format(seat=seat, code=joined.room))
        if self.seats is not None and joined.seat is not None and joined.seat_token:
            self.seats.save(self.url, joined.room, joined.seat, joined.seat_token, self.name)

    async def _refused_hello(self, error: msg.Error) -> None:
        """The server would not give the seat back: drop the token, then join afresh or give up."""
        state = self.state
        room = state.room
        self._forget_seat()
        state.token, state.seat, state.room = None, None, None
        self._resuming = False
        if error.code in (errors.BAD_TOKEN, errors.NO_SUCH_ROOM) and self._first:
            said = _("Could not resume the saved seat in room {code} ({reason})")
            why = words.error_words(error.code, error.message, reason=error.reason)
            state.say(said.format(code=room, reason=why))
            await self._send_first()
            self.on_change()
            return
        self.fatal = _("the server refused to resume the seat: {reason}").format(
            reason=words.error_words(error.code, error.message, reason=error.reason)
        )

    def _keep_numbering(self) -> None:
        """Save the hand's tile numbers with the seat when they change (a restart keeps them)."""
        state = self.state
        if (
            state.numbering_changed
            and self.seats is not None
            and state.room
            and state.seat is not None
        ):
            self.seats.save_numbering(self.url, state.room, state.numbering(), self.name)

    def _forget_seat(self) -> None:
        if self.seats is not None and self.state.room is not None:
            self.seats.forget(self.url, self.state.room, self.name)


def reason(error: BaseException, url: str = "") -> str:
    """Why a connection to `url` failed, in words."""
    secure = url.lower().startswith("wss:")
    if isinstance(error, ssl.SSLError) or (secure and isinstance(error, ConnectionResetError)):
        return _("the TLS handshake failed (a plain server? try ws:// instead of wss://)")
    if isinstance(error, ConnectionResetError):
        return _("the connection was reset by the server")
    if isinstance(error, InvalidMessage):
        return _("no WebSocket answer (a TLS server? try wss://; or not an allfives server)")
    if isinstance(error, socket.gaierror):
        host = urlsplit(url).hostname or url
        if error.errno in UNKNOWN_NAME:
            return _("there is no host called {host} (check the address)").format(host=host)
        return _("the name {host} could not be looked up (is the network up?)").format(host=host)
    refused = "Connect call failed"  # i18n: not shown (the error's own words)
    if isinstance(error, ConnectionRefusedError) or refused in str(error):
        return _("connection refused (is a server running there?)")
    if isinstance(error, TimeoutError):
        return _("no answer (timed out)")
    text = str(error) or type(error).__name__
    return text[0].lower() + text[1:] if text else text
