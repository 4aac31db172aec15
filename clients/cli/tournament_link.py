"""One player's line to a server's tournament desk: hello with the player's key, the first
messages (create, join, start, follow), then every `tournament` message the desk sends.

`TournamentLink.run(first)` connects, greets, sends `first` and reads until closed, keeping the
newest update (by the view's `version`) and calling `on_change`. A refused message is one
sentence in `fatal`, except a join the server refuses because you are in already (or because
the tournament has started), which follows it instead: coming back after a crash. A dropped
connection is tried again with growing pauses, following the tournament again.
"""

from __future__ import annotations

import asyncio
import contextlib
import itertools
from collections.abc import Callable, Sequence

from websockets.asyncio.client import ClientConnection, connect
from websockets.exceptions import ConnectionClosed, InvalidHandshake, InvalidURI

from clients.cli import words
from clients.cli.connection import FIRST_PAUSE, LONGEST_PAUSE, OPEN_TIMEOUT, reason
from clients.cli.i18n import _
from clients.cli.keys import KeyStore
from protocol import errors
from protocol import messages as msg
from protocol.errors import ProtocolError
from protocol.tournaments import (
    CreateTournament,
    FollowTournament,
    JoinTournament,
    StartTournament,
    TournamentUpdate,
)

#: The most a tournament message may be (a view of 64 entrants and their rounds is far less).
MAX_FRAME = 2**22
#: After this long without getting through again, the link gives up.
GIVE_UP_SECONDS = 300.0


def not_found(code: str) -> str:
    """That there is no tournament `code` (as typed) in words: with an invite given, that the
    invite may be the part that is wrong."""
    if "-" in code:
        said = _(
            "there is no tournament {code} on this server, or the invite after its dash is wrong"
        )
    else:
        said = _("there is no tournament {code} on this server (a private one needs CODE-INVITE)")
    return said.format(code=repr(code))


def refusal(error: msg.Error, code: str) -> str:
    """A refused tournament message in words; `code` what the player typed."""
    if error.code == errors.NO_SUCH_ROOM:
        return not_found(code)
    if error.code == errors.NOT_A_PLAYER:
        return _("tournaments are for players: this device has no key the server knows")
    if error.code == errors.NOT_HOST:
        return _("only the tournament's host may start it")
    if error.code == errors.WRONG_PHASE:
        return _("the tournament has started already (or is over)")
    return words.error_words(error.code, error.message, reason=error.reason)


class TournamentLink:
    """See the module docstring."""

    def __init__(self, url: str, name: str, key: str, keys: KeyStore | None = None) -> None:
        self.url = url
        self.name = name
        self.key = key
        self.keys = keys
        self.on_change: Callable[[], None] = lambda: None
        #: The newest update; `code` what finds the tournament (CODE-INVITE when private).
        self.update: TournamentUpdate | None = None
        self.code: str | None = None
        #: Why the link cannot go on, in words.
        self.fatal: str | None = None
        self.closing = False
        self.socket: ClientConnection | None = None
        self.ids = itertools.count(1)
        self.sent: dict[int, msg.ClientMessage] = {}
        #: What the first message asked, answered by the desk (a start's answer ends `start`).
        self.answered = asyncio.Event()
        self._first: Sequence[msg.ClientMessage] = ()
        #: Enter the tournament once it is made (its host plays in it too).
        self.join_after_create = False
        #: The player's name as the server knows it (the welcome's).
        self.player: str | None = None
        #: A refusal of a message typed on the tournament's screen (`/start`), in words: said,
        #: and the screen goes on.
        self.notice: str | None = None
        #: The messages sent from here on are typed ones: their refusals are notices.
        self.typed = False

    async def send(self, message: msg.ClientMessage) -> bool:
        """Send with a fresh id; False when not connected."""
        socket = self.socket
        if socket is None:
            return False
        message.id = next(self.ids)
        self.sent[message.id] = message
        try:
            await socket.send(msg.encode(message).decode())
        except ConnectionClosed:
            return False
        return True

    async def run(self, first: Sequence[msg.ClientMessage]) -> None:
        """Connect, greet, send `first`, read until closed or fatal (then `fatal` says why)."""
        self._first = first
        attempt, lost_since, connected = 0, 0.0, False
        loop = asyncio.get_running_loop()
        while not self.closing and self.fatal is None:
            try:
                async with connect(
                    self.url, open_timeout=OPEN_TIMEOUT, max_size=MAX_FRAME, ping_interval=15
                ) as socket:
                    self.socket, attempt, connected = socket, 0, True
                    await self.send(
                        msg.Hello(version=msg.PROTOCOL_VERSION, name=self.name, key=self.key)
                    )
                    async for frame in socket:
                        await self._on_frame(frame)
                        if self.fatal is not None:
                            break
            except (OSError, TimeoutError, InvalidHandshake, InvalidURI, ValueError) as error:
                if not connected:
                    said = _("cannot reach {url}: {reason}")
                    self.fatal = said.format(url=self.url, reason=reason(error, self.url))
            except ConnectionClosed:
                pass
            finally:
                self.socket = None
            if self.closing or self.fatal is not None:
                break
            now = loop.time()
            lost_since = now if attempt == 0 else lost_since
            if now - lost_since > GIVE_UP_SECONDS:
                self.fatal = _("{url} has not answered for {minutes} min").format(
                    url=self.url, minutes=f"{GIVE_UP_SECONDS / 60:g}"
                )
                break
            await asyncio.sleep(min(LONGEST_PAUSE, FIRST_PAUSE * 2**attempt))
            attempt += 1
            if self.code is not None:  # follow it again: its changes meanwhile come at once
                self._first = [FollowTournament(tournament=self.code)]
        self.on_change()

    async def close(self) -> None:
        """Stop reading and close the connection."""
        self.closing = True
        socket = self.socket
        if socket is not None:
            with contextlib.suppress(Exception):
                await asyncio.wait_for(socket.close(), 2.0)

    async def _on_frame(self, frame: str | bytes) -> None:
        try:
            message = msg.decode_server(frame)
        except ProtocolError:
            return  # something this client cannot read changes nothing it shows
        answered = getattr(message, "id", None)
        asked = self.sent.pop(answered, None) if isinstance(answered, int) else None
        if isinstance(message, msg.Welcome):
            self.player = message.player
            if message.player is not None and self.keys is not None:
                self.keys.remember(self.url, message.player, self.key)
            first, self._first = self._first, ()
            for each in first:
                await self.send(each)
        elif isinstance(message, msg.Error) and asked is not None:
            await self._refused(message, asked)
        elif isinstance(message, TournamentUpdate):
            self._take(message)
            if isinstance(asked, CreateTournament) and self.join_after_create:
                await self.send(JoinTournament(tournament=message.tournament))
            elif asked is not None:
                self.answered.set()
        self.on_change()

    def _take(self, update: TournamentUpdate) -> None:
        """Keep the newest view (a follower keeps the highest version it was sent)."""
        held = self.update
        if held is None or update.state.version >= held.state.version:
            self.update = update
        self.code = self.code or update.tournament
        if "-" in update.tournament:  # the invite, once given, is what finds it
            self.code = update.tournament

    async def _refused(self, error: msg.Error, asked: msg.ClientMessage) -> None:
        code = getattr(asked, "tournament", "") or ""
        if isinstance(asked, msg.Hello):
            why = words.error_words(error.code, error.message, reason=error.reason)
            self.fatal = _("the server refused the greeting: {reason}").format(reason=why)
            return
        coming_back = error.reason == errors.ALREADY_HERE or error.code == errors.WRONG_PHASE
        if isinstance(asked, JoinTournament) and coming_back:
            await self.send(FollowTournament(tournament=code))
            return
        if isinstance(asked, StartTournament):
            said = _("could not start the tournament: {reason}").format(reason=refusal(error, code))
            if self.typed:
                self.notice = said
            else:
                self.fatal = said
        elif isinstance(asked, JoinTournament):
            self.fatal = _("could not enter the tournament: {reason}").format(
                reason=refusal(error, code)
            )
        elif isinstance(asked, FollowTournament):
            self.fatal = _("could not follow the tournament: {reason}").format(
                reason=refusal(error, code)
            )
        else:
            self.fatal = _("could not make the tournament: {reason}").format(
                reason=refusal(error, code)
            )
