"""The asyncio WebSocket server: connections, limits, rooms, bots, the turn clock, HTTP probes.

Embedding (the terminal client and the tests do this)::

    from server.app import Config, run_server

    async with run_server(Config(host="127.0.0.1", port=0, bot_delay=0)) as server:
        url = server.url          # "ws://127.0.0.1:<ephemeral port>/"
        ...                       # connect clients; server.rooms, server.metrics are live

Leaving the block closes every connection with 1001 (going away) and stops the bot pool.
`Config.store` takes any `server.store.Store`; give two servers the same `MemoryStore` one after
the other and the second resumes the first one's rooms (its players marked away, as a change).

Each command in a room runs under that room's lock: `Room.handle` applies it, the store saves the
room, and only then are patches (`server.feed`) and replies sent. Bot moves and the turn clock
go through the same path (`_drive`, `_arm_timer`).

Frames are written at once; a connection's send queue is its write buffer, bounded at
`send_buffer` bytes: a client that does not read is closed (1008) instead of slowing its room.
Frames above `max_size` bytes close the connection (1009); frames above the protocol's 4 KiB
message limit get `too_large`. A token bucket (`rate` per second, `burst`) answers floods with
`rate_limited` and closes the connection after `flood_limit` refusals in a row. Addresses are
limited to `max_connections_per_ip` connections (HTTP 429 beyond) and `max_rooms_per_ip` open
rooms (`trust_proxy`: the address a reverse proxy names). Compression is off by default: frames
are small, and it costs memory per connection. `GET /healthz` and `GET /metrics` are served on
the same port.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import secrets
import ssl
import time
from collections.abc import AsyncIterator
from dataclasses import dataclass
from http import HTTPStatus
from typing import Any

from websockets.asyncio.server import Server as WebSocketServer
from websockets.asyncio.server import ServerConnection, broadcast, serve
from websockets.datastructures import Headers
from websockets.exceptions import ConnectionClosed
from websockets.http11 import Request, Response

from protocol import errors
from protocol import messages as msg
from protocol.records import encode_record
from server import convert
from server.bots import BotRunner
from server.feed import SPECTATORS, Feed, Receiver
from server.limits import PerAddress, TokenBucket
from server.metrics import Metrics
from server.room import Caller, Room, RoomError
from server.store import MemoryStore, Store, StoreUnavailable

log = logging.getLogger("allfives.server")

SERVER_NAME = "allfives 0.1.0"
#: Room codes: 4 letters with no vowels (no words) and none that look like digits (I, L, O).
CODE_ALPHABET = "BCDFGHJKMNPQRSTVWXZ"
CODE_LENGTH = 4
CLOSE_GOING_AWAY = 1001
CLOSE_POLICY = 1008


@dataclass
class Config:
    """Everything the server can be told; every field has a default fit for a friends' game."""

    host: str = "127.0.0.1"
    port: int = 8765
    certfile: str | None = None
    keyfile: str | None = None
    max_size: int = 8192
    rate: float = float(msg.RATE_PER_SECOND)
    burst: int = msg.RATE_BURST
    flood_limit: int = 50
    max_connections_per_ip: int = 32
    max_rooms_per_ip: int = 8
    send_buffer: int = 256 * 1024
    bot_delay: float = 0.6
    away_seconds: float = 60.0
    empty_room_seconds: float = 600.0
    sweep_seconds: float = 10.0
    hard_budget_ms: float | None = 200.0
    bot_workers: int = 1
    bot_processes: bool = True
    keep_patches: int = 32
    compression: bool = False
    trust_proxy: bool = False
    store: Store | None = None


class Connection:
    """One client: its socket, rate bucket, name, and the room and seat it is in.

    Frames are written at once, never awaited: the connection's send queue is its transport's
    write buffer, bounded at `Config.send_buffer` bytes. A client that lets it fill (it does not
    read) is dropped, so it never holds up its room.
    """

    def __init__(self, server: Server, socket: ServerConnection, address: str) -> None:
        self.server = server
        self.socket = socket
        self.transport = socket.transport
        self.address = address
        self.limit = server.config.send_buffer
        self.bucket = TokenBucket(server.config.rate, server.config.burst, time.monotonic())
        self.name = ""
        self.greeted = False
        self.room: LiveRoom | None = None
        self.seat: int | None = None
        self.spectating = False
        self.closing = False
        self.closer: asyncio.Task[None] | None = None

    @property
    def receiver(self) -> Receiver:
        """Whose document this connection follows: its seat, or the spectators'."""
        return self.seat if self.seat is not None else SPECTATORS

    def send(self, frame: bytes) -> None:
        """Write a frame now; a client with `send_buffer` bytes unread is dropped instead."""
        if self.closing:
            return
        if self.transport.get_write_buffer_size() > self.limit:
            self.server.metrics.slow_clients_dropped += 1
            log.info("dropped %s: it does not read what it is sent", self.address)
            self.close(CLOSE_POLICY, "not reading: too much waiting to be sent")
            # Its buffer is not drained by waiting for a close handshake it will not read.
            asyncio.get_running_loop().call_later(1.0, self.transport.abort)
            return
        broadcast((self.socket,), frame, text=True)
        self.server.metrics.frames_sent += 1

    def send_message(self, message: msg.ServerMessage) -> None:
        """Send a message."""
        self.send(msg.encode(message))

    def close(self, code: int, reason: str) -> None:
        """Close the connection after what was already sent."""
        if self.closing:
            return
        self.closing = True
        self.closer = asyncio.get_running_loop().create_task(self.socket.close(code, reason))


class LiveRoom:
    """A room in memory: its state machine, its feed, its lock and who is connected to it."""

    def __init__(self, room: Room, keep: int) -> None:
        self.room = room
        self.feed = Feed(keep)
        self.lock = asyncio.Lock()
        self.members: dict[Receiver, set[Connection]] = {}
        self.saved: bytes = b""
        self.phase = room.phase
        self.driver: asyncio.Task[None] | None = None
        self.timer: asyncio.TimerHandle | None = None
        self.timer_deadline: float | None = None

    def connections(self) -> list[Connection]:
        """Every connection in the room."""
        return [c for group in self.members.values() for c in group]

    def add(self, connection: Connection) -> None:
        """Count a connection as following its receiver's document."""
        self.members.setdefault(connection.receiver, set()).add(connection)

    def discard(self, connection: Connection) -> None:
        """Stop sending to a connection."""
        group = self.members.get(connection.receiver)
        if group is not None:
            group.discard(connection)
            if not group:
                del self.members[connection.receiver]

    def broadcast(self, frames: dict[Receiver, bytes]) -> None:
        """Send each receiver's frame to its connections."""
        members = self.members
        for receiver, frame in frames.items():
            for connection in members.get(receiver, ()):
                connection.send(frame)


class Server:
    """The running server; see the module docstring. Build it with `run_server`."""

    def __init__(self, config: Config) -> None:
        self.config = config
        self.store: Store = config.store if config.store is not None else MemoryStore()
        self.rooms: dict[str, LiveRoom] = {}
        self.connections: set[Connection] = set()
        self.metrics = Metrics()
        self.bots = BotRunner(config.bot_workers, config.hard_budget_ms, config.bot_processes)
        self.connections_per_ip = PerAddress(config.max_connections_per_ip)
        self.rooms_per_ip = PerAddress(config.max_rooms_per_ip)
        self.websocket_server: WebSocketServer | None = None
        self.closing = False
        self._tasks: set[asyncio.Task[Any]] = set()

    # -- addresses -------------------------------------------------------------------------

    @property
    def port(self) -> int:
        """The port listened on (the real one when the config asked for port 0)."""
        assert self.websocket_server is not None
        port: int = next(iter(self.websocket_server.sockets)).getsockname()[1]
        return port

    @property
    def url(self) -> str:
        """The address clients connect to."""
        scheme = "wss" if self.config.certfile else "ws"
        host = self.config.host if ":" not in self.config.host else f"[{self.config.host}]"
        return f"{scheme}://{host}:{self.port}/"

    # -- start and stop --------------------------------------------------------------------

    async def start(self) -> None:
        """Load saved rooms and start listening."""
        await self._resume_rooms()
        context = None
        if self.config.certfile:
            context = ssl.SSLContext(ssl.PROTOCOL_TLS_SERVER)
            context.load_cert_chain(self.config.certfile, self.config.keyfile)
        self.websocket_server = await serve(
            self._serve,
            self.config.host,
            self.config.port,
            process_request=self._process_request,
            max_size=self.config.max_size,
            ssl=context,
            server_header=SERVER_NAME,
            compression="deflate" if self.config.compression else None,
        )
        self._spawn(self._sweep())
        log.info("listening on %s", self.url)

    async def stop(self) -> None:
        """Close every connection with 1001, stop the clock and the bots, close the store."""
        self.closing = True
        for task in list(self._tasks):
            task.cancel()
        for live in self.rooms.values():
            if live.timer is not None:
                live.timer.cancel()
            if live.driver is not None:
                live.driver.cancel()
        if self.websocket_server is not None:
            self.websocket_server.close()
            await self.websocket_server.wait_closed()
        self.bots.close()
        await self.store.close()
        log.info("stopped")

    def _spawn(self, coroutine: Any) -> asyncio.Task[Any]:
        task = asyncio.get_running_loop().create_task(coroutine)
        self._tasks.add(task)
        task.add_done_callback(self._tasks.discard)
        return task

    async def _resume_rooms(self) -> None:
        now = time.time()
        for code in await self.store.room_codes():
            stored = await self.store.load_room(code)
            if stored is None:
                continue
            room = Room.from_bytes(stored.state)
            room.away_seconds = self.config.away_seconds
            state = stored.state
            if room.all_away(now):
                # Whoever was connected is gone: that is a change, stored under a new seq.
                state = room.to_bytes()
                await self.store.save_room(code, room.seq, state)
            live = LiveRoom(room, self.config.keep_patches)
            live.saved = state
            self.rooms[code] = live
            self.rooms_per_ip.add(room.state.owner)
            self._kick(live)
        if self.rooms:
            log.info("resumed %d rooms", len(self.rooms))

    # -- HTTP ------------------------------------------------------------------------------

    def _process_request(self, socket: ServerConnection, request: Request) -> Response | None:
        path = request.path.split("?", 1)[0]
        if path == "/healthz":
            return _text_response(HTTPStatus.OK, "ok\n")
        if path == "/metrics":
            playing = sum(1 for live in self.rooms.values() if live.room.phase == "playing")
            page = self.metrics.text(len(self.rooms), len(self.connections), playing)
            return _text_response(HTTPStatus.OK, page, "text/plain; version=0.0.4")
        if self.closing:
            return _text_response(HTTPStatus.SERVICE_UNAVAILABLE, "the server is stopping\n")
        if self.connections_per_ip.full(self._client_address(socket, request)):
            self.metrics.errors["too_many_connections"] += 1
            return _text_response(
                HTTPStatus.TOO_MANY_REQUESTS,
                f"at most {self.config.max_connections_per_ip} connections per address\n",
            )
        return None

    def _client_address(self, socket: ServerConnection, request: Request | None) -> str:
        """The client's address: the socket's peer, or behind a trusted proxy the one it names."""
        if self.config.trust_proxy and request is not None:
            named = request.headers.get("X-Real-IP") or request.headers.get("X-Forwarded-For")
            if named:
                return named.rsplit(",", 1)[-1].strip()
        return _address(socket)

    # -- connections -----------------------------------------------------------------------

    async def _serve(self, socket: ServerConnection) -> None:
        address = self._client_address(socket, socket.request)
        if self.connections_per_ip.full(address):
            await socket.close(CLOSE_POLICY, "too many connections from your address")
            return
        connection = Connection(self, socket, address)
        self.connections.add(connection)
        self.connections_per_ip.add(address)
        try:
            async for frame in socket:
                if not connection.closing:  # still read while closing, to see the close frame
                    await self._on_frame(connection, frame)
        except ConnectionClosed:
            pass
        finally:
            if connection.closer is not None:
                await connection.closer
            connection.closing = True
            self.connections.discard(connection)
            self.connections_per_ip.remove(address)
            await self._leave_room(connection, disconnected=True)

    async def _on_frame(self, connection: Connection, frame: str | bytes) -> None:
        if not connection.bucket.allow(time.monotonic()):
            if connection.bucket.refused_in_a_row > self.config.flood_limit:
                connection.close(CLOSE_POLICY, "flooding: too many messages")
            elif (
                connection.bucket.refused_in_a_row == 1
                or connection.bucket.refused_in_a_row % 10 == 0
            ):
                self._error(
                    connection,
                    None,
                    None,
                    errors.RATE_LIMITED,
                    f"too many messages: at most {self.config.rate:g} a second "
                    f"(bursts of {self.config.burst}); this one was dropped",
                )
            else:
                self.metrics.errors[errors.RATE_LIMITED] += 1
            return
        try:
            message = msg.decode_client(frame)
        except errors.ProtocolError as problem:
            self._error(connection, problem.id, problem.command, problem.code, problem.message)
            return
        try:
            await self._dispatch(connection, message)
        except RoomError as error:
            self._error(connection, message.id, _tag(message), error.code, error.message)
        except StoreUnavailable:
            self._error(
                connection,
                message.id,
                _tag(message),
                errors.UNAVAILABLE,
                "the game store cannot be reached: nothing was changed, try again soon",
            )
        except Exception:
            log.exception("a %s command failed", _tag(message))
            self._error(
                connection,
                message.id,
                _tag(message),
                errors.UNAVAILABLE,
                "the server failed to do that (the failure is logged); try again",
            )

    def _error(
        self, connection: Connection, id: int | None, command: str | None, code: str, text: str
    ) -> None:
        self.metrics.errors[code] += 1
        connection.send_message(msg.Error(id=id, command=command, code=code, message=text))

    # -- commands --------------------------------------------------------------------------

    async def _dispatch(self, connection: Connection, message: msg.ClientMessage) -> None:
        if isinstance(message, msg.Ping):
            connection.send_message(msg.Pong(id=message.id))
            return
        if isinstance(message, msg.Hello):
            await self._hello(connection, message)
            return
        if not connection.greeted:
            raise RoomError(errors.INVALID, 'say "hello" first, with the protocol version')
        if isinstance(message, msg.ListRooms):
            connection.send_message(msg.Rooms(rooms=self._public_rooms(), id=message.id))
        elif isinstance(message, msg.CreateRoom):
            await self._create(connection, message)
        elif isinstance(message, msg.Join | msg.Spectate):
            live = self._find(message.room)
            if connection.room is not None and connection.room is not live:
                await self._leave_room(connection, disconnected=False)
            await self._command(live, connection, message)
        elif isinstance(message, msg.Resync):
            live = self._current(connection)
            connection.send(live.feed.snapshot(live.room, connection.receiver, message.id))
        elif isinstance(message, msg.GetRecord):
            self._send_record(self._current(connection), connection, message)
        elif isinstance(message, msg.Hint):
            view = (await self._command(self._current(connection), connection, message)).hint
            assert view is not None
            move = await self.bots.choose("hard", view)
            connection.send_message(msg.HintReply(move=convert.move_spec(move), id=message.id))
        else:
            await self._command(self._current(connection), connection, message)

    async def _hello(self, connection: Connection, hello: msg.Hello) -> None:
        if connection.greeted:
            raise RoomError(errors.INVALID, "hello was already said on this connection")
        if hello.version != msg.PROTOCOL_VERSION:
            raise RoomError(
                errors.BAD_VERSION,
                f"this server speaks protocol version {msg.PROTOCOL_VERSION}, not {hello.version}",
            )
        connection.greeted = True
        connection.name = hello.name
        connection.send_message(
            msg.Welcome(version=msg.PROTOCOL_VERSION, server=SERVER_NAME, id=hello.id)
        )
        if hello.token is None and hello.room is None:
            return
        if hello.token is None or hello.room is None:
            raise RoomError(errors.INVALID, "to resume a seat, give both room and token")
        await self._resume(connection, self._find(hello.room), hello)

    async def _resume(self, connection: Connection, live: LiveRoom, hello: msg.Hello) -> None:
        """Give a returning player their seat back and what they missed."""
        async with live.lock:
            assert hello.token is not None
            seat = live.room.seat_of_token(hello.token)
            if seat is None:
                raise RoomError(
                    errors.BAD_TOKEN, f"that token holds no seat in room {live.room.code}"
                )
            for old in list(live.members.get(seat, ())):
                live.discard(old)
                old.room, old.seat = None, None
                old.close(4000, "this seat was resumed by another connection")
            seq = live.room.seq
            live.room.connect(seat, time.time())
            if live.room.seq != seq:
                await self._commit(live, [], rollback=False)
            connection.room, connection.seat, connection.spectating = live, seat, False
            live.add(connection)
            connection.send_message(
                msg.Joined(room=live.room.code, seat=seat, seat_token=hello.token, id=hello.id)
            )
            for frame in live.feed.catch_up(live.room, seat, hello.last_seq):
                connection.send(frame)

    async def _create(self, connection: Connection, message: msg.CreateRoom) -> None:
        if self.rooms_per_ip.full(connection.address):
            raise RoomError(
                errors.RATE_LIMITED,
                f"an address may hold at most {self.config.max_rooms_per_ip} open rooms",
            )
        room = Room.create(self._new_code(), message.rules, connection.address, time.time())
        room.away_seconds = self.config.away_seconds
        live = LiveRoom(room, self.config.keep_patches)
        if connection.room is not None:
            await self._leave_room(connection, disconnected=False)
        self.rooms[room.code] = live
        self.rooms_per_ip.add(connection.address)
        join = msg.Join(id=message.id, room=room.code, seat=message.seat)
        try:
            await self._command(live, connection, join)
        except (RoomError, StoreUnavailable):
            self._forget(live)
            raise
        log.info("room %s created by %s", room.code, connection.address)

    async def _command(
        self, live: LiveRoom, connection: Connection, message: msg.ClientMessage
    ) -> Any:
        """Apply one room command under the room's lock: apply, store, then send."""
        async with live.lock:
            if live.room.code not in self.rooms:
                raise RoomError(errors.NO_SUCH_ROOM, f"room {live.room.code} has closed")
            here = connection.room is live
            caller = Caller(
                name=connection.name,
                seat=connection.seat if here else None,
                spectating=connection.spectating if here else False,
            )
            outcome = live.room.handle(caller, message, time.time())
            if outcome.changed:
                await self._commit(live, outcome.events)
                if isinstance(message, msg.Play | msg.Pass):
                    self.metrics.moves += 1
                elif isinstance(message, msg.Start):
                    self.metrics.matches_started += 1
            if outcome.left:
                live.discard(connection)
                connection.room, connection.seat, connection.spectating = None, None, False
            if outcome.spectating is not None:
                live.discard(connection)
                connection.room, connection.seat = live, outcome.seat
                connection.spectating = outcome.spectating
                live.add(connection)
            for reply in outcome.replies:
                connection.send_message(reply)
            if outcome.spectating is not None:
                connection.send(live.feed.snapshot(live.room, connection.receiver))
            return outcome

    async def _commit(self, live: LiveRoom, events: list[Any], rollback: bool = True) -> None:
        """Store the room's new state, then send every receiver its patch."""
        room = live.room
        state = room.to_bytes()
        try:
            await self.store.save_room(room.code, room.seq, state)
        except StoreUnavailable:
            if rollback:
                self._restore(live)
                raise
            log.warning("room %s: change %d not stored", room.code, room.seq)
        # What clients are sent next is the state to go back to if a later command fails.
        live.saved = state
        live.broadcast(live.feed.publish(room, events))
        if room.phase == "finished" and live.phase != "finished":
            self.metrics.matches_finished += 1
            self._spawn(self._save_record(room))
        live.phase = room.phase
        self._kick(live)

    def _restore(self, live: LiveRoom) -> None:
        """Put a room back as it was last published (a command that could not be stored)."""
        room = Room.from_bytes(live.saved)
        room.away_seconds = self.config.away_seconds
        live.room = room

    async def _save_record(self, room: Room) -> None:
        from server.records import record_of

        match, names = room.finished_match()
        data = encode_record(record_of(match, names))
        try:
            await self.store.save_record(f"{room.code}/{room.state.matches}", data)
        except StoreUnavailable:
            log.warning("room %s: record of match %d not stored", room.code, room.state.matches)

    def _send_record(self, live: LiveRoom, connection: Connection, message: msg.GetRecord) -> None:
        from server.records import record_of

        match, names = live.room.finished_match()
        connection.send_message(msg.RecordReply(record=record_of(match, names), id=message.id))

    async def _leave_room(self, connection: Connection, disconnected: bool) -> None:
        """Take a connection out of its room: its seat stays (away) when it only dropped."""
        live = connection.room
        if live is None:
            return
        async with live.lock:
            if connection.room is not live:
                return
            live.discard(connection)
            room = live.room
            seq = room.seq
            now = time.time()
            if connection.seat is not None:
                if disconnected:
                    room.disconnect(connection.seat, now)
                else:
                    room.leave(connection.seat, now)
            elif connection.spectating:
                room.watch(-1, now)
            connection.room, connection.seat, connection.spectating = None, None, False
            if room.seq != seq and room.code in self.rooms:
                await self._commit(live, [], rollback=False)

    # -- bots and the clock ----------------------------------------------------------------

    def _kick(self, live: LiveRoom) -> None:
        """Make sure a bot move that is due gets made, and the turn clock is set."""
        if self.closing or live.room.code not in self.rooms:
            return
        if live.driver is not None and not live.driver.done():
            return
        if live.room.bot_level_due(time.time()) is None:
            self._arm_timer(live)
        else:
            live.driver = asyncio.get_running_loop().create_task(self._drive(live))

    async def _drive(self, live: LiveRoom) -> None:
        """Play bot moves (and moves for players out of time) while they are due."""
        try:
            await self._drive_bots(live)
        except asyncio.CancelledError:
            raise
        except Exception:
            log.exception("room %s: the bot driver failed; it tries again", live.room.code)
            asyncio.get_running_loop().call_later(1.0, self._kick, live)

    async def _drive_bots(self, live: LiveRoom) -> None:
        while not self.closing and live.room.code in self.rooms:
            turn = live.room.bot_turn(time.time())
            if turn is None:
                self._arm_timer(live)
                return
            if self.config.bot_delay:
                await asyncio.sleep(self.config.bot_delay)
            move = await self.bots.choose(turn.level, turn.view)
            async with live.lock:
                try:
                    events = live.room.bot_play(turn, move, time.time())
                except RoomError as error:
                    log.error("room %s: a bot's move was refused: %s", live.room.code, error)
                    return
                if events is None:
                    continue
                try:
                    await self._commit(live, events)
                except StoreUnavailable:
                    log.warning("room %s: store unavailable, bot waits", live.room.code)
                    await asyncio.sleep(1.0)
                    continue
                self.metrics.moves += 1

    def _arm_timer(self, live: LiveRoom) -> None:
        deadline = live.room.deadline
        if deadline == live.timer_deadline:
            return
        if live.timer is not None:
            live.timer.cancel()
            live.timer = None
        live.timer_deadline = deadline
        if deadline is not None:
            delay = max(0.0, deadline - time.time()) + 0.01
            live.timer = asyncio.get_running_loop().call_later(delay, self._on_timer, live)

    def _on_timer(self, live: LiveRoom) -> None:
        live.timer, live.timer_deadline = None, None
        self._kick(live)

    # -- rooms -----------------------------------------------------------------------------

    def _find(self, code: str) -> LiveRoom:
        live = self.rooms.get(code.strip().upper())
        if live is None:
            raise RoomError(errors.NO_SUCH_ROOM, f"there is no room {code.strip().upper()!r}")
        return live

    def _current(self, connection: Connection) -> LiveRoom:
        if connection.room is None:
            raise RoomError(errors.NOT_IN_ROOM, "you are not in a room: join or create one first")
        return connection.room

    def _public_rooms(self) -> list[msg.RoomSummary]:
        return [
            live.room.summary()
            for live in self.rooms.values()
            if live.room.rules.public and live.room.phase == "waiting" and live.room.free_seats()
        ]

    def _new_code(self) -> str:
        while True:
            code = "".join(secrets.choice(CODE_ALPHABET) for _ in range(CODE_LENGTH))
            if code not in self.rooms:
                return code

    def _forget(self, live: LiveRoom) -> None:
        code = live.room.code
        if self.rooms.pop(code, None) is not None:
            self.rooms_per_ip.remove(live.room.state.owner)
        if live.timer is not None:
            live.timer.cancel()
        if live.driver is not None:
            live.driver.cancel()

    async def _sweep(self) -> None:
        """Close rooms nobody has been connected to for `empty_room_seconds`."""
        while True:
            await asyncio.sleep(self.config.sweep_seconds)
            now = time.time()
            for live in list(self.rooms.values()):
                since = live.room.state.empty_since
                if since is not None and now - since >= self.config.empty_room_seconds:
                    async with live.lock:
                        if live.room.is_empty():
                            self._forget(live)
                            with contextlib.suppress(StoreUnavailable):
                                await self.store.delete_room(live.room.code)
                            log.info("room %s expired", live.room.code)


@contextlib.asynccontextmanager
async def run_server(config: Config | None = None) -> AsyncIterator[Server]:
    """Run a server for the duration of an `async with` block (see the module docstring)."""
    server = Server(config or Config())
    await server.start()
    try:
        yield server
    finally:
        await server.stop()


def _address(socket: ServerConnection) -> str:
    remote = socket.remote_address
    return str(remote[0]) if remote else "unknown"


def _tag(message: msg.ClientMessage) -> str:
    return str(message.__struct_config__.tag)


def _text_response(status: HTTPStatus, text: str, kind: str = "text/plain") -> Response:
    body = text.encode()
    headers = Headers(
        [("Content-Type", f"{kind}; charset=utf-8"), ("Content-Length", str(len(body)))]
    )
    return Response(status.value, status.phrase, headers, body)


__all__ = ["Config", "Server", "run_server"]
