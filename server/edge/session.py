"""A client's session: its frames read, rate-limited, decoded, and answered.

Each message type is served by one entry of a table (`_SERVES`). A room command goes to
`server.edge.room_commands`, which runs it on the room's one path (`LiveRoom.run`):
`server.rooms.commands` applies it, the store saves the room, and only then are patches
(`server.rooms.feed`) and replies sent. Resyncs, records and reconnections are room commands
too, so a snapshot's seq is always that of its document.
"""

from __future__ import annotations

import asyncio
import logging
import sys
import time
from collections.abc import Awaitable, Callable, Coroutine, Generator
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from websockets.http11 import Request

from bridge import convert
from engine import Move
from protocol import errors
from protocol import messages as msg
from protocol.tournaments import TOURNAMENT_MESSAGES
from server.config import Clock, Limits, Network, Timing
from server.desk.desk import Desk
from server.edge.archived import ArchivedGames
from server.edge.connection import CLOSE_POLICY, Connection
from server.edge.door import Door
from server.edge.http import client_address, peer_of
from server.edge.limits import LookupBudget, RoomChat
from server.edge.room_commands import MOVES, RoomCommands
from server.metrics import Metrics
from server.play.finder import Finder
from server.play.hints import HintDesk
from server.play.listing import Listing
from server.play.live import LiveRoom
from server.play.players import Players
from server.play.registry import Registry
from server.rooms import codes
from server.rooms.chat import CHAT_IDS_KEPT
from server.rooms.room import RoomError
from server.rooms.room_state import (
    HintAsked,
)
from server.storage.store import StoreUnavailable

if TYPE_CHECKING:
    from server.edge.wire import Wire


@dataclass
class Lanes:
    """What bounds a session's requests beyond its own rate: failed lookups per address, the
    hint lane, each room's chat, the room list, and the archived games (the API's budget)."""

    lookups: LookupBudget
    hints: HintDesk
    chat: RoomChat
    listing: Listing
    players: Players
    desk: Desk
    archived: ArchivedGames


log = logging.getLogger("allfives.server")

SERVER_NAME = "allfives 0.1.0"


class Sessions:
    """Serves each connection's messages (the WebSocket handler of `Server`)."""

    def __init__(
        self,
        network: Network,
        limits: Limits,
        timing: Timing,
        clock: Clock,
        door: Door,
        registry: Registry,
        finder: Finder,
        rooms: RoomCommands,
        metrics: Metrics,
        lanes: Lanes,
    ) -> None:
        self.network = network
        self.limits = limits
        self.timing = timing
        self.clock = clock
        self.door = door
        self.registry = registry
        self.finder = finder
        self.rooms = rooms
        self.metrics = metrics
        self.lookups = lanes.lookups
        self.hint_desk = lanes.hints
        self.room_chat = lanes.chat
        self.listing = lanes.listing
        self.players = lanes.players
        self.desk = lanes.desk
        self.archived = lanes.archived
        #: Messages being served that had to wait (a store, a lock).
        self.tasks: set[asyncio.Task[Any]] = set()

    def open(self, wire: Wire, request: Request) -> Connection:
        """A WebSocket connection opened (its upgrade `request` is read now, and not kept)."""
        door = self.door
        address = client_address(self.network, wire, request)
        connection = Connection(wire, address, self.network, self.limits, self.metrics)
        if self.network.trusts(peer_of(wire)):  # else server.gate counts the socket's peer
            if door.named.full(address):
                connection.close(CLOSE_POLICY, "too many connections from your address")
                return connection
            door.named.add(address)
            connection.named = True
        connection.deadline = asyncio.get_running_loop().call_later(
            self.timing.hello_seconds,
            _no_hello,
            connection,
            self.timing.hello_seconds,
        )
        return connection

    def message(self, connection: Connection, frame: str | bytes) -> None:
        """A whole message from the connection: served now, or after the one it waits behind."""
        if connection.waiting is not None:
            connection.waiting.append(frame)
        elif not connection.closing:  # still read while closing, to see the close frame
            self._run(connection, self._on_frame(connection, frame))

    def ended(self, connection: Connection) -> None:
        """The connection closed: it leaves its room (after any message still being served)."""
        if connection.waiting is not None:
            connection.waiting.append(None)
        else:
            self._end(connection)

    def _end(self, connection: Connection) -> None:
        connection.closing = True
        if connection.closer is not None and not connection.closer.done():
            connection.closer.set_result(None)
        if connection.deadline is not None:
            connection.deadline.cancel()
            connection.deadline = None
        self.hint_desk.cancel(connection)
        self.desk.forget(connection)
        if connection.named:
            self.door.named.remove(connection.address)
            connection.named = False
        self._run(connection, self.rooms.leave(connection, disconnected=True))

    def _run(self, connection: Connection, work: Coroutine[Any, Any, Any]) -> None:
        """Run a message's work now; if it must wait, in a task, with later messages queued."""
        if sys.version_info >= (3, 12):
            # The work's first step runs at once inside a task of its own (`eager_start`), so
            # what needs the current task (`asyncio.timeout`, and `wait_for` since Python 3.12)
            # finds one; a message served without waiting leaves a finished task behind.
            task = asyncio.Task(work, loop=asyncio.get_running_loop(), eager_start=True)
            if task.done():
                if not task.cancelled() and task.exception() is not None:
                    log.error("serving a connection failed", exc_info=task.exception())
                else:
                    self._served(connection)
                return
            connection.waiting = []
            self.tasks.add(task)
            task.add_done_callback(lambda done: self._resumed(connection, done))
            return
        # Python 3.11 has no eager start: the first step is run by hand up to its first wait
        # (its `wait_for` needs no current task), and the rest goes on in a task (`_Rest`).
        try:
            first = work.send(None)
        except StopIteration:
            self._served(connection)
            return
        except Exception:
            log.exception("serving a connection failed")
            return
        connection.waiting = []
        task = asyncio.get_running_loop().create_task(_rest(work, first))
        self.tasks.add(task)
        task.add_done_callback(lambda done: self._resumed(connection, done))

    def _resumed(self, connection: Connection, done: asyncio.Task[Any]) -> None:
        self.tasks.discard(done)
        if not done.cancelled() and done.exception() is not None:
            log.error("serving a connection failed", exc_info=done.exception())
        waiting, connection.waiting = connection.waiting or [], None
        self._served(connection)
        for index, frame in enumerate(waiting):
            if frame is None:
                self._end(connection)
            elif not connection.closing:
                self._run(connection, self._on_frame(connection, frame))
            if connection.waiting is not None:  # that one waits: the rest wait behind it
                connection.waiting.extend(waiting[index + 1 :])
                return

    @staticmethod
    def _served(connection: Connection) -> None:
        if connection.deadline is not None and connection.greeted:
            connection.deadline.cancel()  # not held for the life of the connection
            connection.deadline = None

    async def _on_frame(self, connection: Connection, frame: str | bytes) -> None:
        if not connection.bucket.allow(time.monotonic()):
            # Every dropped message is answered, naming it where it parsed, until the flood
            # limit: then the connection is closed, saying why.
            if connection.bucket.refused_in_a_row > self.limits.flood_limit:
                connection.close(CLOSE_POLICY, "flooding: too many messages")
                return
            id, command = msg.peek(frame)
            self._error(
                connection,
                id,
                command,
                errors.RATE_LIMITED,
                f"too many messages: at most {self.limits.rate:g} a second "
                f"(bursts of {self.limits.burst}); this one was dropped",
            )
            return
        try:
            message = msg.decode_client(frame)
        except errors.ProtocolError as problem:
            self._error(connection, problem.id, problem.command, problem.code, problem.message)
            return
        try:
            await self._dispatch(connection, message)
        except RoomError as error:
            self._error(
                connection,
                message.id,
                msg.type_of(message),
                error.code,
                error.message,
                error.reason,
            )
        except StoreUnavailable:
            self._error(
                connection,
                message.id,
                msg.type_of(message),
                errors.UNAVAILABLE,
                "the game store cannot be reached: nothing was changed, try again soon",
            )
        except Exception:
            log.exception("a %s command failed", msg.type_of(message))
            self._error(
                connection,
                message.id,
                msg.type_of(message),
                errors.UNAVAILABLE,
                "the server failed to do that (the failure is logged); try again",
            )

    def _error(
        self,
        connection: Connection,
        id: int | None,
        command: str | None,
        code: str,
        text: str,
        reason: str | None = None,
        retry_after: int | None = None,
    ) -> None:
        self.metrics.errors[code] += 1
        connection.send_message(
            msg.Error(
                id=id,
                command=command,
                code=code,
                message=text,
                reason=reason,
                retry_after=retry_after,
            )
        )

    def _dispatch(self, connection: Connection, message: msg.ClientMessage) -> Awaitable[Any]:
        """The work that serves a message (awaited by `_on_frame`, no coroutine of its own)."""
        kind = type(message)
        if kind in MOVES and connection.greeted:  # most messages: straight to the room
            return self.rooms.command(_current(connection), connection, message)
        if not connection.greeted and kind not in _BEFORE_HELLO:
            raise RoomError(errors.INVALID, 'say "hello" first, with the protocol version')
        return _SERVES.get(kind, Sessions._in_room)(self, connection, message)

    async def _in_room(self, connection: Connection, message: msg.ClientMessage) -> None:
        """A command of the room the connection is in."""
        await self.rooms.command(_current(connection), connection, message)

    async def _record(self, connection: Connection, message: msg.GetRecord) -> None:
        """The room's finished match (a room command), or with `game` an archived game's."""
        if message.game is None:
            await self._in_room(connection, message)
            return
        reply = await self.archived.record(connection.address, _asker(connection), message)
        connection.send_message(reply)

    async def _review(self, connection: Connection, message: msg.GetReview) -> None:
        def refuse(id: int | None, code: str, text: str, retry_after: int | None) -> None:
            self._error(connection, id, "review", code, text, retry_after=retry_after)

        asker = _asker(connection)
        await self.archived.review(
            connection, connection.address, asker, message, connection.send_message, refuse
        )

    async def _ping(self, connection: Connection, message: msg.Ping) -> None:
        connection.send_message(msg.Pong(id=message.id))

    async def _list(self, connection: Connection, message: msg.ListRooms) -> None:
        page = await self.listing.page(connection.address, message.offset, message.id)
        connection.send_message(page)

    async def _link_code(self, connection: Connection, message: msg.AskLinkCode) -> None:
        reply = await self.players.link_code(connection.player, connection.address)
        reply.id = message.id
        connection.send_message(reply)

    async def _recovery_code(self, connection: Connection, message: msg.AskRecoveryCode) -> None:
        reply = await self.players.recovery_code(connection.player, connection.address)
        reply.id = message.id
        connection.send_message(reply)
        assert connection.player is not None
        log.info("player %s made a new recovery code", connection.player.id)

    async def _enter(self, connection: Connection, message: msg.Join | msg.Spectate) -> None:
        if isinstance(message, msg.Join) and connection.player is None:
            # A guest's name is checked at each seat: a key may have claimed it since hello.
            await self.players.check_guest_name(message.name or connection.name)
        # The connection leaves the room it is in only once the new one has taken it.
        async with self.lookups.guard(connection.address):
            live = await self.finder.find(message.room)
        await self.rooms.command(live, connection, message)

    async def _hint(self, connection: Connection, message: msg.Hint) -> None:
        self.hint_desk.check(connection)
        outcome = await self.rooms.command(_current(connection), connection, message)
        (view,) = [effect.view for effect in outcome.effects if isinstance(effect, HintAsked)]
        id = message.id

        def answer(move: Move) -> None:
            spec = convert.listed_spec(move, view.legal, view.layout)
            connection.send_message(msg.HintReply(move=spec, id=id))

        def refuse(code: str, text: str) -> None:
            self._error(connection, id, "hint", code, text)

        self.hint_desk.ask(connection, view, answer, refuse)

    async def _chat(self, connection: Connection, message: msg.Chat) -> None:
        live = _current(connection)
        if not connection.name:  # said hello without a name: it watches
            raise RoomError(
                errors.INVALID,
                "name: you said hello without a name: give one to take a seat or chat",
            )
        watcher = connection.seat is None and message.id is not None
        if watcher and message.id in connection.chat_ids:
            connection.send_message(msg.Ack(id=message.id))  # sent again: not reposted
            return
        counted = connection.seat is not None or live.room.rules.spectators_chat
        if counted:
            self.room_chat.check(live.room.code)
        try:
            posted = (await self.rooms.command(live, connection, message)).changed
        except BaseException:
            posted = False
            raise
        finally:
            if counted and not posted:  # a line refused, not stored, or sent again
                self.room_chat.refund(live.room.code, time.monotonic())
        if watcher and message.id is not None:
            connection.chat_ids = (*connection.chat_ids, message.id)[-CHAT_IDS_KEPT:]

    async def _hello(self, connection: Connection, hello: msg.Hello) -> None:
        if connection.greeted:
            raise RoomError(errors.INVALID, "hello was already said on this connection")
        if hello.version != msg.PROTOCOL_VERSION:
            raise RoomError(
                errors.BAD_VERSION,
                f"this server speaks protocol version {msg.PROTOCOL_VERSION}, not {hello.version}",
            )
        # The key is hashed here and goes no further; a refused hello changes nothing.
        player = await self.players.greet(hello, connection.address)
        connection.greeted = True
        connection.player = player
        connection.name = (hello.name or "") if player is None else player.name
        connection.send_message(
            msg.Welcome(
                version=msg.PROTOCOL_VERSION,
                server=SERVER_NAME,
                id=hello.id,
                player=None if player is None else player.name,
            )
        )
        if hello.token is None and hello.room is None:
            return
        if hello.token is None or hello.room is None:
            raise RoomError(errors.INVALID, "to resume a seat, give both room and token")
        async with self.lookups.guard(connection.address) as found:
            try:
                live = await self.finder.find(hello.room)
            except RoomError as error:
                # A room that does not exist answers as one where the token holds no seat.
                if error.code != errors.NO_SUCH_ROOM:
                    raise
                raise RoomError(errors.BAD_TOKEN, codes.no_seat(hello.room)) from None
            await self.rooms.resume(
                connection, live, hello, self.players.check_seat, found, hello.room
            )

    async def _tournament(self, connection: Connection, message: msg.ClientMessage) -> None:
        await self.desk.serve(connection, message)

    async def _create(self, connection: Connection, message: msg.CreateRoom) -> None:
        if connection.player is None:
            await self.players.check_guest_name(connection.name)
        with self.registry.creating(connection.address):
            await self.rooms.open(connection, message)


#: What may come before `hello`.
_BEFORE_HELLO = frozenset({msg.Ping, msg.Hello})
#: How each message type is served; any other is a command of the sender's room (`_in_room`).
_SERVES: dict[type[msg.ClientMessage], Callable[[Sessions, Connection, Any], Awaitable[None]]] = {
    msg.Ping: Sessions._ping,
    msg.Hello: Sessions._hello,
    msg.ListRooms: Sessions._list,
    msg.CreateRoom: Sessions._create,
    msg.Join: Sessions._enter,
    msg.Spectate: Sessions._enter,
    msg.Hint: Sessions._hint,
    msg.Chat: Sessions._chat,
    msg.GetRecord: Sessions._record,
    msg.GetReview: Sessions._review,
    msg.AskLinkCode: Sessions._link_code,
    msg.AskRecoveryCode: Sessions._recovery_code,
    **{kind: Sessions._tournament for kind in TOURNAMENT_MESSAGES},
}


class _Rest:
    """The rest of a coroutine that was run to its first wait: awaited in a task, it goes on
    from there (sends, throws and cancellation passed through)."""

    __slots__ = ("first", "work")

    def __init__(self, work: Coroutine[Any, Any, Any], first: Any) -> None:
        self.work = work
        self.first = first

    def __await__(self) -> Generator[Any, Any, Any]:
        work, out = self.work, self.first
        self.first = None
        while True:
            try:
                value = yield out
            except GeneratorExit:
                work.close()
                raise
            except BaseException as error:
                try:
                    out = work.throw(error)
                except StopIteration as stop:
                    return stop.value
            else:
                try:
                    out = work.send(value)
                except StopIteration as stop:
                    return stop.value


async def _rest(work: Coroutine[Any, Any, Any], first: Any) -> Any:
    return await _Rest(work, first)


def _current(connection: Connection) -> LiveRoom:
    if connection.room is None:
        raise RoomError(errors.NOT_IN_ROOM, "you are not in a room: join or create one first")
    return connection.room


def _asker(connection: Connection) -> str | None:
    """The player id of the connection's key (None: a guest), as the HTTP API's asker."""
    return None if connection.player is None else connection.player.id


def _no_hello(connection: Connection, seconds: float) -> None:
    if not connection.greeted:
        connection.close(CLOSE_POLICY, f"no hello within {seconds:g} s")
