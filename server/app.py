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
go through the same path (`_drive`, `_arm_timer`). Resyncs and reconnections are answered under
the lock too, so a snapshot's seq is always that of its document.

Several processes: with a `RedisStore`, the server joins the other processes on that Redis
(`server.cluster`). Rooms are loaded on demand; a save is a compare-and-set on the room's
version, and when another process changed the room first, the server catches up (from the
notices every save publishes, or from Redis) and applies the command again (`_change`). Notices
of other processes' changes are adopted in seq order and sent on as patches. Only the room's
keeper runs its bots and turn clock. `_renew_lease` keeps this process's lease; `_tend` takes the
rooms of dead processes, follows Redis, fixes presence and expires empty rooms. See
docs/persistence.md, "Several server processes".

Frames are written at once; a connection's send queue is its write buffer, bounded at
`send_buffer` bytes: a client that does not read is closed (1008) instead of slowing its room.
Frames above `max_size` bytes close the connection (1009); frames above the protocol's 4 KiB
message limit get `too_large`. A token bucket (`rate` per second, `burst`) answers each message
of a flood with `rate_limited` and closes the connection after `flood_limit` refusals in a row.
Addresses are limited to `max_connections_per_ip` connections (HTTP 429 beyond) and
`max_rooms_per_ip` open rooms (`trust_proxy`: the address a reverse proxy names), the server to
`max_connections` (HTTP 503). Compression is off by default: frames are small, and it costs
memory per connection. `GET /healthz`, `GET /readyz` and `GET /metrics` are served on the same port
(`server.probes`: `/healthz` liveness, `/readyz` readiness); only GET
and HEAD are served, and only `/` upgrades to a WebSocket. The other limits (hello deadline,
failed room lookups, seats of players gone, room chat, hints) are in docs/security.md, their
logic in `server.limits`, `server.codes` and `server.hints`.
"""

from __future__ import annotations

import asyncio
import contextlib
import ipaddress
import logging
import socket
import ssl
import sys
import time
from collections.abc import AsyncIterator, Awaitable, Callable
from dataclasses import dataclass
from http import HTTPStatus
from typing import TYPE_CHECKING, Any, TypeVar

import msgspec
from websockets.asyncio.server import Server as WebSocketServer
from websockets.asyncio.server import ServerConnection, broadcast, serve
from websockets.datastructures import Headers
from websockets.exceptions import ConnectionClosed
from websockets.http11 import Request, Response

from engine import Move
from protocol import errors
from protocol import messages as msg
from protocol.records import encode_record
from server import codes, convert, probes
from server.bots import BotRunner
from server.feed import SPECTATORS, Feed, Frames, Receiver
from server.hints import HintDesk
from server.http_guard import guarded
from server.limits import (
    LookupBudget,
    PerAddress,
    RoomChat,
    TokenBucket,
    allowed_origins,
    server_full,
)
from server.metrics import Metrics
from server.room import BotTurn, Caller, Room, RoomError
from server.store import (
    NO_VERSION,
    MemoryStore,
    RoomChanged,
    SaveInDoubt,
    Store,
    StoreUnavailable,
)
from server.web import WebFiles

if TYPE_CHECKING:
    from server.cluster import Cluster, Notice

log = logging.getLogger("allfives.server")
T = TypeVar("T")

SERVER_NAME = "allfives 0.1.0"
CLOSE_GOING_AWAY = 1001
CLOSE_POLICY = 1008
CLOSE_SEAT_RESUMED = 4000
#: The server closes for good (the host of `allfives host` left): clients stop retrying.
CLOSE_ROOM_CLOSED = 4001
#: The host removed this player from a waiting room: the client does not come back.
CLOSE_REMOVED = 4002
#: The one path that upgrades to a WebSocket.
WEBSOCKET_PATH = "/"
#: How long a change is tried again while other processes keep changing the room first.
CHANGE_SECONDS = 3.0
#: The first and the longest wait between tries to store a finished match's record.
RECORD_RETRY_FIRST = 1.0
RECORD_RETRY_MAX = 30.0
#: How long a missing notice is waited for before the room is read from Redis.
GAP_WAIT = 0.5
_encode = msgspec.json.Encoder().encode


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
    #: With several processes on one Redis: how long a dead process's rooms wait for another.
    cluster_lease: float = 3.0
    #: Hardening (docs/security.md): connections in all, the hello deadline, failed room lookups
    #: per address, waiting seats of players gone, chat per room, hints, allowed origins.
    max_connections: int = 2000
    hello_seconds: float = 10.0
    lookup_burst: int = 20
    lookups_per_minute: float = 10.0
    release_seconds: float = 60.0
    room_chat_rate: float = 2.0
    room_chat_burst: int = 10
    hint_workers: int = 1
    max_hints_waiting: int = 8
    allowed_origin: str | None = None


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
        if self.writable():
            broadcast((self.socket,), frame, text=True)
            self.server.metrics.frames_sent += 1

    def writable(self) -> bool:
        """Whether frames may be written now; a client with `send_buffer` bytes unread is dropped."""
        if self.closing:
            return False
        if self.transport.get_write_buffer_size() > self.limit:
            self.server.metrics.slow_clients_dropped += 1
            log.info("dropped %s: it does not read what it is sent", self.address)
            self.close(CLOSE_POLICY, "not reading: too much waiting to be sent")
            # Its buffer is not drained by waiting for a close handshake it will not read.
            asyncio.get_running_loop().call_later(1.0, self.transport.abort)
            return False
        return True

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
    """A room in memory: its state machine, its feed, its lock and who is connected to it.

    Outside a change (under `lock`) `room` is exactly the stored state `saved`, at `saved_seq`
    and (several processes) `version`. `kept`: this process runs the room's bots and clock.
    """

    def __init__(self, room: Room, keep: int, version: str = NO_VERSION) -> None:
        self.room = room
        self.feed = Feed(keep)
        self.feed.seq = room.seq
        self.lock = asyncio.Lock()
        self.members: dict[Receiver, set[Connection]] = {}
        self.saved: bytes = b""
        self.saved_seq = room.seq
        self.version = version
        self.kept = True
        self.owned = False
        self.counted = False
        self.touched = 0.0
        self.inbox: dict[int, Notice] = {}
        #: Versions of saves that got no answer (answered `unavailable`), to fence off before
        #: the room changes again (`Server._settle`); with the state of a save that undid one.
        self.doubts: dict[str, bytes | None] = {}
        self.arrived: asyncio.Event | None = None
        self.follower: asyncio.Task[None] | None = None
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

    def broadcast(self, frames: Frames) -> int:
        """Send a change's frames: the shared one in one write to all, each seat's own to it.

        Returns how many frames were sent.
        """
        shared: list[ServerConnection] = []
        sent = 0
        own = frames.own
        for receiver, group in self.members.items():
            if receiver in frames.fresh:
                continue
            frame = own.get(receiver) if receiver is not None else None
            for connection in group:
                if not connection.writable():
                    continue
                if frame is None:
                    shared.append(connection.socket)
                else:
                    broadcast((connection.socket,), frame, text=True)
                    sent += 1
        if shared:
            broadcast(shared, frames.shared, text=True)
        return sent + len(shared)


class Server:
    """The running server; see the module docstring. Build it with `run_server`."""

    def __init__(self, config: Config) -> None:
        self.config = config
        self.store: Store = config.store if config.store is not None else MemoryStore()
        self.rooms: dict[str, LiveRoom] = {}
        self.connections: set[Connection] = set()
        #: Cleared, every bot of this server waits (`allfives play` while a result is read).
        self.bots_may_play = asyncio.Event()
        self.bots_may_play.set()
        self.metrics = Metrics()
        self.web = WebFiles()
        self.bots = BotRunner(config.bot_workers, config.hard_budget_ms, config.bot_processes)
        self.connections_per_ip = PerAddress(config.max_connections_per_ip)
        self.rooms_per_ip = PerAddress(config.max_rooms_per_ip)
        self.lookups = LookupBudget(config.lookup_burst, config.lookups_per_minute)
        self.room_chat = RoomChat(config.room_chat_burst, config.room_chat_rate)
        self.bots.hints.workers = max(1, config.hint_workers)
        self.bots.max_hints_waiting = config.max_hints_waiting
        self.hint_desk = HintDesk(self.bots)
        self.websocket_server: WebSocketServer | None = None
        self.closing = False
        self.starting = False
        self.cluster: Cluster | None = None
        #: This process's id in room presence (several processes), "" alone.
        self.via = ""
        #: Changes another process stored first, so this one applied them again.
        self.conflicts = 0
        self._loading: dict[str, asyncio.Task[LiveRoom]] = {}
        #: Where the pruning of expired codes from `allfives:rooms` goes on (a SSCAN cursor).
        self._pruning = "0"
        self._early: dict[str, list[Notice]] = {}
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
        """Load saved rooms (with Redis: join the other processes) and start listening."""
        shared = self._shared_store()
        if not shared:
            await self._resume_rooms()
        self.starting = shared
        context = None
        if self.config.certfile:
            context = ssl.SSLContext(ssl.PROTOCOL_TLS_SERVER)
            context.load_cert_chain(self.config.certfile, self.config.keyfile)
        self.websocket_server = await serve(
            self._serve,
            self.config.host,
            self.config.port,
            process_request=guarded(self._process_request),
            max_size=self.config.max_size,
            ssl=context,
            server_header=SERVER_NAME,
            compression="deflate" if self.config.compression else None,
            origins=allowed_origins(self.config.allowed_origin),
        )
        if shared:
            try:
                await self._join_cluster()
            except BaseException:
                self.websocket_server.close()
                await self.websocket_server.wait_closed()
                raise
            self.starting = False
            self._spawn(self._renew_lease())
            self._spawn(self._tend())
        else:
            self._spawn(self._sweep())
        log.info("listening on %s", self.url)

    def _shared_store(self) -> bool:
        """Whether the store is Redis, shared with other processes (checked without importing it)."""
        redis_store = sys.modules.get("server.redis_store")
        return redis_store is not None and isinstance(self.store, redis_store.RedisStore)

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
        if self.cluster is not None:
            await self.cluster.close()
        self.bots.close()
        await self.store.close()
        log.info("stopped")

    async def close_for_good(self, reason: str) -> None:
        """Close every connection with 4001 and `reason`, telling clients not to come back."""
        for connection in list(self.connections):
            connection.close(CLOSE_ROOM_CLOSED, reason)
        closers = [c.closer for c in self.connections if c.closer is not None]
        if closers:
            await asyncio.wait(closers, timeout=2.0)

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
            live.owned = True
            self.rooms[code] = live
            self._count(live)
            self._kick(live)
        if self.rooms:
            log.info("resumed %d rooms", len(self.rooms))

    # -- HTTP ------------------------------------------------------------------------------

    def _process_request(
        self, socket: ServerConnection, request: Request
    ) -> Response | Awaitable[Response] | None:
        page = self.web.response(request)  # the browser table (server.web)
        if page is not None:
            return page
        path = request.path.split("?", 1)[0]
        if path in probes.PATHS:
            return probes.answer(self, path)
        if path == "/metrics":
            playing = sum(1 for live in self.rooms.values() if live.room.phase == "playing")
            counters = self.metrics.text(len(self.rooms), len(self.connections), playing)
            return _text_response(HTTPStatus.OK, counters, "text/plain; version=0.0.4")
        if self.closing:
            return _text_response(HTTPStatus.SERVICE_UNAVAILABLE, "the server is stopping\n")
        if self.starting:
            return _text_response(HTTPStatus.SERVICE_UNAVAILABLE, "the server is starting\n")
        if path != WEBSOCKET_PATH:
            return _text_response(
                HTTPStatus.NOT_FOUND, f"nothing here: connect to {WEBSOCKET_PATH}\n"
            )
        full = server_full(len(self.connections), self.config.max_connections)
        if full is not None:
            self.metrics.errors["server_full"] += 1
            return _text_response(HTTPStatus.SERVICE_UNAVAILABLE, full)
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
            for header in ("X-Real-IP", "X-Forwarded-For"):
                named = request.headers.get(header, "").rsplit(",", 1)[-1].strip()
                with contextlib.suppress(ValueError):
                    return str(ipaddress.ip_address(named))  # anything else is ignored
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
        deadline = asyncio.get_running_loop().call_later(
            self.config.hello_seconds, _no_hello, connection, self.config.hello_seconds
        )
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
            deadline.cancel()
            self.hint_desk.cancel(connection)
            self.connections.discard(connection)
            self.connections_per_ip.remove(address)
            await self._leave_room(connection, disconnected=True)

    async def _on_frame(self, connection: Connection, frame: str | bytes) -> None:
        if not connection.bucket.allow(time.monotonic()):
            # Every dropped message is answered, naming it where it parsed, until the flood
            # limit: then the connection is closed, saying why.
            if connection.bucket.refused_in_a_row > self.config.flood_limit:
                connection.close(CLOSE_POLICY, "flooding: too many messages")
                return
            id, command = msg.peek(frame)
            self._error(
                connection,
                id,
                command,
                errors.RATE_LIMITED,
                f"too many messages: at most {self.config.rate:g} a second "
                f"(bursts of {self.config.burst}); this one was dropped",
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
            connection.send_message(msg.Rooms(rooms=await self._public_rooms(), id=message.id))
        elif isinstance(message, msg.CreateRoom):
            await self._create(connection, message)
        elif isinstance(message, msg.Join | msg.Spectate):
            async with self.lookups.guard(connection.address):
                live = await self._find(message.room)
                if connection.room is not None and connection.room is not live:
                    await self._leave_room(connection, disconnected=False)
                await self._command(live, connection, message)
        elif isinstance(message, msg.Resync):
            live = self._current(connection)
            async with live.lock:
                connection.send(live.feed.snapshot(live.room, connection.receiver, message.id))
        elif isinstance(message, msg.GetRecord):
            live = self._current(connection)
            async with live.lock:
                self._send_record(live, connection, message)
        elif isinstance(message, msg.Hint):
            self.hint_desk.check(connection)
            view = (await self._command(self._current(connection), connection, message)).hint
            assert view is not None
            id = message.id

            def answer(move: Move) -> None:
                spec = convert.listed_spec(move, view.legal)
                connection.send_message(msg.HintReply(move=spec, id=id))

            def refuse(code: str, text: str) -> None:
                self._error(connection, id, "hint", code, text)

            self.hint_desk.ask(connection, view, answer, refuse)
        elif isinstance(message, msg.Chat):
            live = self._current(connection)
            if connection.seat is not None or live.room.rules.spectators_chat:
                self.room_chat.check(live.room.code)  # lines the room refuses do not count
            await self._command(live, connection, message)
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
        async with self.lookups.guard(connection.address):
            try:
                live = await self._find(hello.room)
            except RoomError as error:
                # A room that does not exist answers as one where the token holds no seat.
                if error.code != errors.NO_SUCH_ROOM:
                    raise
                raise RoomError(errors.BAD_TOKEN, _no_seat(codes.normalise(hello.room))) from None
            await self._resume(connection, live, hello)

    async def _resume(self, connection: Connection, live: LiveRoom, hello: msg.Hello) -> None:
        """Give a returning player their seat back and what they missed."""
        async with live.lock:
            assert hello.token is not None and hello.room is not None
            seat = live.room.seat_of_token(hello.token)
            if seat is None and self.cluster is not None and await self._behind(live):
                seat = live.room.seat_of_token(hello.token)
            if seat is None:
                raise RoomError(errors.BAD_TOKEN, _no_seat(codes.normalise(hello.room)))
            for old in list(live.members.get(seat, ())):
                live.discard(old)
                old.room, old.seat = None, None
                old.close(CLOSE_SEAT_RESUMED, "this seat was resumed by another connection")

            def back(room: Room) -> tuple[None, list[Any]]:
                room.connect(seat, time.time(), self.via)
                return None, []

            try:
                await self._change(live, back, rollback=False)
            except StoreUnavailable as error:
                # Several processes: the seat is served anyway; `_tend` stores it later.
                log.warning(
                    "room %s: seat %d is back, not stored yet: %s", live.room.code, seat, error
                )
            connection.room, connection.seat, connection.spectating = live, seat, False
            live.add(connection)
            connection.send_message(
                msg.Joined(room=live.room.join_code, seat=seat, seat_token=hello.token, id=hello.id)
            )
            for frame in live.feed.catch_up(live.room, seat, hello.last_seq):
                connection.send(frame)

    async def _create(self, connection: Connection, message: msg.CreateRoom) -> None:
        if self.rooms_per_ip.full(connection.address):
            raise RoomError(
                errors.RATE_LIMITED,
                f"an address may hold at most {self.config.max_rooms_per_ip} open rooms",
            )
        code = self._new_code() if self.cluster is None else await self._new_shared_code()
        invite = None if message.rules.public else codes.new_invite()
        room = Room.create(code, message.rules, connection.address, time.time(), invite)
        room.away_seconds = self.config.away_seconds
        live = LiveRoom(room, self.config.keep_patches)
        live.saved = room.to_bytes()
        live.owned = True
        if connection.room is not None:
            await self._leave_room(connection, disconnected=False)
        self.rooms[room.code] = live
        self._count(live)
        join = msg.Join(id=message.id, room=room.code, seat=message.seat)
        try:
            await self._command(live, connection, join)
        except (RoomError, StoreUnavailable):
            self._forget(live)
            if self.cluster is not None and live.doubts:
                self._spawn(self._abandon(room.code, list(live.doubts)))
            elif self.cluster is not None and live.saved_seq == 0:
                with contextlib.suppress(StoreUnavailable):
                    await self.cluster.release(room.code)
            raise
        log.info("room %s created by %s", room.code, connection.address)

    async def _command(
        self, live: LiveRoom, connection: Connection, message: msg.ClientMessage
    ) -> Any:
        """Apply one room command under the room's lock: apply, store, then send."""
        async with live.lock:
            self._require_open(live)
            here = connection.room is live
            caller = Caller(
                name=connection.name,
                seat=connection.seat if here else None,
                spectating=connection.spectating if here else False,
                via=self.via,
            )

            def handle(room: Room) -> tuple[Any, list[Any]]:
                outcome = room.handle(caller, message, time.time())
                return outcome, outcome.events

            outcome = await self._change(live, handle)
            if outcome.changed:
                if isinstance(message, msg.Play | msg.Pass):
                    self.metrics.moves += 1
                elif isinstance(message, msg.Start):
                    self.metrics.matches_started += 1
            if outcome.left:
                live.discard(connection)
                connection.room, connection.seat, connection.spectating = None, None, False
            if outcome.removed is not None:
                for removed in list(live.members.get(outcome.removed, ())):
                    live.discard(removed)
                    removed.room, removed.seat = None, None
                    removed.close(CLOSE_REMOVED, "the host removed you from the room")
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

    async def _change(
        self,
        live: LiveRoom,
        apply: Callable[[Room], tuple[T, list[Any]]],
        rollback: bool = True,
    ) -> T:
        """Under the room's lock: apply a change (result and events), store it, send it.

        With several processes, a change another process stored first (`RoomChanged`) makes
        this one catch up with the room and apply it again, so each room's changes are applied
        in one order, each once; RoomError if it no longer applies. A refusal is checked against
        the version Redis holds first, so a copy behind Redis never refuses what it would allow.
        """
        await self._settle(live)
        loop = asyncio.get_running_loop()
        deadline = loop.time() + CHANGE_SECONDS
        checked = self.cluster is None
        turn = False  # this process was given the room's next turn, and has not used it
        try:
            while True:
                seq = live.room.seq
                try:
                    result, events = apply(live.room)
                except RoomError:
                    if checked or not await self._behind(live):
                        raise
                    checked = True
                    continue
                if live.room.seq == seq:
                    return result
                try:
                    await self._commit(live, events, rollback)
                except RoomChanged as changed:
                    self.conflicts += 1
                    if loop.time() > deadline:
                        raise StoreUnavailable(f"room {live.room.code} kept changing") from None
                    if changed.stored == RoomChanged.BUSY:
                        # Another process has the next turn: its notice comes first.
                        await self._next_notice(live, GAP_WAIT)
                        if live.inbox:
                            await self._catch_up(live, max(live.inbox))
                    else:
                        turn = True
                        await self._catch_up(live, changed.stored)
                    self._require_open(live)
                    continue
                turn = False
                return result
        finally:
            if turn and self.cluster is not None:
                # Refused after all, or no change left to make: let the others go first.
                self._spawn(self._yield_turn(live.room.code))

    async def _settle(self, live: LiveRoom) -> None:
        """Under the lock: fence off the room's unanswered saves before it changes again.

        Their senders were answered `unavailable`, which means unchanged: once fenced, such a
        save can never be stored; one stored already (Redis applied it, the answer was lost) is
        undone by a change that puts the room back as its clients last saw it.
        """
        if not live.doubts or self.cluster is None:
            return
        code = live.room.code
        found = await self.cluster.fence(code, list(live.doubts))
        doubts, live.doubts = live.doubts, {}
        if found.stored is None:
            return
        if found.version != found.stored:
            # Another process changed the room after it: it stands (docs/persistence.md).
            log.error("room %s: change %d was answered unavailable but stored", code, found.seq)
            return
        undone = doubts[found.stored]
        if undone is not None:
            self._adopt_state(live, found.seq, found.version, undone)
            return
        room = Room.from_bytes(live.saved)
        room.state.seq = found.seq + 1
        state = room.to_bytes()
        try:
            version = await self.cluster.save(
                code, room.seq, state, b"[]", _listing(room), found.version
            )
        except SaveInDoubt as error:
            live.doubts = {found.stored: None, error.version: state}
            raise
        except RoomChanged:
            log.error("room %s: change %d was answered unavailable but stored", code, found.seq)
            return
        except StoreUnavailable:
            live.doubts = {found.stored: None}
            raise
        log.warning("room %s: change %d, answered unavailable, was stored: undone", code, found.seq)
        self._adopt_state(live, room.seq, version, state)

    async def _abandon(self, code: str, versions: list[str]) -> None:
        """A new room whose first save got no answer: fence it off, delete it if it was stored."""
        assert self.cluster is not None
        while True:
            try:
                found = await self.cluster.fence(code, versions)
                if found.stored is not None and found.version == found.stored:
                    await self.cluster.delete(code, found.version)
                await self.cluster.release(code)
                return
            except StoreUnavailable:
                await asyncio.sleep(self.cluster.lease / 3)

    async def _yield_turn(self, code: str) -> None:
        assert self.cluster is not None
        with contextlib.suppress(StoreUnavailable):
            await self.cluster.yield_turn(code)

    async def _behind(self, live: LiveRoom) -> bool:
        """Under the lock: whether Redis holds another version of the room (then caught up)."""
        assert self.cluster is not None
        try:
            stored = await self.cluster.head(live.room.code)
        except StoreUnavailable:
            return False
        if stored is None or stored[1] == live.version:
            return False
        await self._catch_up(live, stored[0])
        self._require_open(live)
        return True

    async def _next_notice(self, live: LiveRoom, timeout: float) -> None:
        """Wait until a notice newer than the room held has arrived (at most `timeout` s)."""
        if any(seq > live.saved_seq for seq in live.inbox):
            return
        if live.arrived is None:
            live.arrived = asyncio.Event()
        live.arrived.clear()
        with contextlib.suppress(TimeoutError):
            await asyncio.wait_for(live.arrived.wait(), timeout)

    async def _commit(self, live: LiveRoom, events: list[Any], rollback: bool = True) -> None:
        """Store the room's new state, then send every receiver its patch."""
        room = live.room
        state = room.to_bytes()
        published: list[Any] | msgspec.Raw = events
        if self.cluster is None:
            try:
                await self.store.save_room(room.code, room.seq, state)
            except StoreUnavailable:
                if rollback:
                    self._restore(live)
                    raise
                log.warning("room %s: change %d not stored", room.code, room.seq)
        else:
            encoded = _encode(events)
            try:
                live.version = await self.cluster.save(
                    room.code, room.seq, state, encoded, _listing(room), live.version
                )
            except StoreUnavailable as error:
                # Shared rooms never hold a change Redis does not (RoomChanged included).
                self._restore(live)
                if isinstance(error, SaveInDoubt):
                    live.doubts[error.version] = None
                raise
            published = msgspec.Raw(encoded)
        # What clients are sent next is the state to go back to if a later command fails.
        live.saved = state
        live.saved_seq = room.seq
        self.metrics.frames_sent += live.broadcast(live.feed.publish(room, published))
        if room.phase == "finished" and live.phase != "finished":
            self.metrics.matches_finished += 1
            self._spawn(self._save_record(room))
        live.phase = room.phase
        self._count(live)
        self._kick(live)

    def _count(self, live: LiveRoom) -> None:
        """A room this process opened counts against its owner's address until it finishes."""
        counts = (
            live.owned and live.room.phase != "finished" and self.rooms.get(live.room.code) is live
        )
        if counts and not live.counted:
            self.rooms_per_ip.add(live.room.state.owner)
        elif live.counted and not counts:
            self.rooms_per_ip.remove(live.room.state.owner)
        live.counted = counts

    def _restore(self, live: LiveRoom) -> None:
        """Put a room back as it was last published (a command that could not be stored)."""
        room = Room.from_bytes(live.saved)
        room.away_seconds = self.config.away_seconds
        live.room = room

    async def _save_record(self, room: Room) -> None:
        from server.records import record_of

        match, names = room.finished_match()
        data = encode_record(record_of(match, names))
        delay = RECORD_RETRY_FIRST
        while True:  # kept until the store has it (the task ends with the server)
            try:
                await self.store.save_record(f"{room.code}/{room.state.matches}", data)
            except StoreUnavailable as error:
                if delay == RECORD_RETRY_FIRST:
                    log.warning(
                        "room %s: record of match %d not stored yet (%s): trying again",
                        room.code,
                        room.state.matches,
                        error,
                    )
                await asyncio.sleep(delay)
                delay = min(RECORD_RETRY_MAX, delay * 2)
            else:
                return

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
            seat, spectating = connection.seat, connection.spectating
            connection.room, connection.seat, connection.spectating = None, None, False
            if self.rooms.get(live.room.code) is not live:
                return

            def gone(room: Room) -> tuple[None, list[Any]]:
                now = time.time()
                if seat is not None:
                    if disconnected:
                        room.disconnect(seat, now, self.via)
                    else:
                        room.leave(seat, now)
                elif spectating:
                    room.watch(-1, now, self.via)
                return None, []

            try:
                await self._change(live, gone, rollback=False)
            except StoreUnavailable as error:
                # Several processes: `_tend` stores it once Redis answers.
                log.warning("room %s: a departure not stored yet: %s", live.room.code, error)

    # -- bots and the clock ----------------------------------------------------------------

    def _kick(self, live: LiveRoom) -> None:
        """Make sure a bot move that is due gets made, and the turn clock is set (by the keeper)."""
        if self.closing or not live.kept or self.rooms.get(live.room.code) is not live:
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
        while not self.closing and live.kept and self.rooms.get(live.room.code) is live:
            turn = live.room.bot_turn(time.time())
            if turn is None:
                self._arm_timer(live)
                return
            if self.config.bot_delay:
                await asyncio.sleep(self.config.bot_delay)
            await self.bots_may_play.wait()
            move = await self.bots.choose(turn.level, turn.view)
            async with live.lock:
                if not live.kept or self.rooms.get(live.room.code) is not live:
                    return
                try:
                    events = await self._change(live, _bot_move(turn, move))
                except RoomError as error:
                    log.error("room %s: a bot's move was refused: %s", live.room.code, error)
                    return
                except StoreUnavailable:
                    log.warning("room %s: store unavailable, bot waits", live.room.code)
                    events = None
                    stalled = True
                else:
                    stalled = False
            if stalled:
                await asyncio.sleep(1.0)
                continue
            if events is not None:
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

    # -- several processes (server.cluster) ------------------------------------------------

    async def _join_cluster(self) -> None:
        """Take a lease, subscribe to room notices, and keep the rooms nobody keeps."""
        from server.cluster import Cluster
        from server.redis_store import RedisStore

        assert isinstance(self.store, RedisStore)
        name = f"{socket.gethostname()}:{self.port}"
        cluster = Cluster(self.store, name, self.config.cluster_lease)
        cluster.on_notice = self._on_notice
        self.cluster, self.via = cluster, cluster.id
        await cluster.beat()
        await cluster.subscribe()
        found = await cluster.claim(await self.store.room_codes(), held=False)
        for code, status in found.items():
            if status.kept:
                with contextlib.suppress(RoomError):
                    self._keep(await self._room(code), True)
        await self._check_presence()
        kept = sum(1 for live in self.rooms.values() if live.kept)
        log.info("process %s keeps %d rooms", cluster.id, kept)

    async def _new_shared_code(self) -> str:
        """A room code no process uses, taken in Redis."""
        assert self.cluster is not None
        for _ in range(32):
            code = self._new_code()
            if await self.cluster.create(code):
                return code
        raise StoreUnavailable("no free room code found")

    async def _load(self, code: str) -> LiveRoom:
        """Read a room from Redis into memory (notices arriving meanwhile are kept)."""
        assert self.cluster is not None
        self._early[code] = []
        try:
            await self.cluster.follow(code)
            stored = await self.cluster.load(code)
        finally:
            early = self._early.pop(code, [])
        if stored is None:
            raise RoomError(errors.NO_SUCH_ROOM, codes.missing(code))
        live = self._live(stored.state, stored.version)
        live.kept = False
        self.rooms[code] = live
        for notice in early:
            self._receive(live, notice)
        return live

    def _live(self, state: bytes, version: str) -> LiveRoom:
        room = Room.from_bytes(state)
        room.away_seconds = self.config.away_seconds
        live = LiveRoom(room, self.config.keep_patches, version)
        live.saved = state
        return live

    def _keep(self, live: LiveRoom, kept: bool) -> None:
        """Start or stop running a room's bots and clock (its driver stops by itself)."""
        if live.kept == kept:
            return
        live.kept = kept
        if kept:
            log.info("room %s: kept by this process now", live.room.code)
            self._kick(live)
        elif live.timer is not None:
            live.timer.cancel()
            live.timer, live.timer_deadline = None, None

    def _on_notice(self, data: bytes) -> None:
        """A notice of another process's change, from this process's channel."""
        from server.cluster import read_notice

        notice = read_notice(data)
        if notice is None:
            return
        live = self.rooms.get(notice.code)
        if live is not None:
            self._receive(live, notice)
        elif (early := self._early.get(notice.code)) is not None:
            early.append(notice)

    def _receive(self, live: LiveRoom, notice: Notice) -> None:
        from server.cluster import GONE

        if notice.seq == GONE:
            self._spawn(self._gone(live))
            return
        if notice.seq <= live.saved_seq:
            return
        live.inbox[notice.seq] = notice
        if live.arrived is not None:
            live.arrived.set()
        if live.follower is None or live.follower.done():
            live.follower = self._spawn(self._follow(live))

    async def _follow(self, live: LiveRoom) -> None:
        async with live.lock:
            for seq in [seq for seq in live.inbox if seq <= live.saved_seq]:
                del live.inbox[seq]  # taken meanwhile, by a command that caught up
            if self.rooms.get(live.room.code) is live and live.inbox:
                await self._catch_up(live, max(live.inbox))

    async def _catch_up(self, live: LiveRoom, target: int) -> None:
        """Under the lock: adopt the notices up to seq `target` (and on) in order.

        A notice missing for GAP_WAIT seconds, one from another chain of versions, or a target
        not above what is held, and the room is read from Redis instead (`_refresh`).
        """
        with contextlib.suppress(StoreUnavailable):
            await self._settle(live)
        if live.doubts:
            return  # caught up once the unanswered saves are settled
        loop = asyncio.get_running_loop()
        deadline = loop.time() + GAP_WAIT
        if target <= live.saved_seq:
            await self._refresh(live)
        while True:
            notice = live.inbox.pop(live.saved_seq + 1, None)
            if notice is not None and notice.parent == live.version:
                self._adopt(live, notice)
                continue
            if notice is not None or (live.saved_seq < target and loop.time() >= deadline):
                await self._refresh(live)
                break
            if live.saved_seq >= target:
                break
            if live.arrived is None:
                live.arrived = asyncio.Event()
            live.arrived.clear()
            with contextlib.suppress(TimeoutError):
                await asyncio.wait_for(live.arrived.wait(), deadline - loop.time())
        for seq in [seq for seq in live.inbox if seq <= live.saved_seq]:
            del live.inbox[seq]

    async def _refresh(self, live: LiveRoom) -> None:
        """Under the lock: hold what Redis holds (as snapshots); write back what Redis lost."""
        assert self.cluster is not None
        code = live.room.code
        stored = await self.cluster.load(code)
        if stored is None and not live.connections() and not live.kept:
            self._forget(live)
            return
        if stored is None or stored.seq < live.saved_seq:
            if await self.cluster.restore(code, live.saved_seq, live.saved, live.version):
                log.warning("room %s: Redis had lost change %d: written back", code, live.saved_seq)
                # Another process may hold a newer copy: it writes it back at its next beat.
                await asyncio.sleep(self.cluster.lease / 2)
            stored = await self.cluster.load(code)
            if stored is None:
                return
        if stored.version != live.version and stored.seq >= live.saved_seq:
            self._adopt_state(live, stored.seq, stored.version, stored.state)

    def _adopt(self, live: LiveRoom, notice: Notice) -> None:
        """Take the next change another process stored, and send it on as patches."""
        links = dict(live.room.state.links)
        room = Room.from_bytes(notice.state)
        room.away_seconds = self.config.away_seconds
        live.room, live.saved, live.saved_seq, live.version = (
            room,
            notice.state,
            notice.seq,
            notice.version,
        )
        self.metrics.frames_sent += live.broadcast(
            live.feed.publish(room, msgspec.Raw(notice.events))
        )
        self._adopted(live, links)

    def _adopt_state(self, live: LiveRoom, seq: int, version: str, state: bytes) -> None:
        """Take the room as Redis holds it, after a gap: every connection here gets a snapshot."""
        links = dict(live.room.state.links)
        room = Room.from_bytes(state)
        room.away_seconds = self.config.away_seconds
        live.room, live.saved, live.saved_seq, live.version = room, state, seq, version
        live.inbox = {s: n for s, n in live.inbox.items() if s > seq}
        live.feed.reset(seq)
        for connection in live.connections():
            connection.send(live.feed.snapshot(room, connection.receiver))
        self._adopted(live, links)

    def _adopted(self, live: LiveRoom, links: dict[int, str]) -> None:
        """After taking another process's change: seats resumed elsewhere, the bots and clock."""
        now = live.room.state.links
        for seat, group in list(live.members.items()):
            if seat is None:
                continue
            holder = now.get(seat)
            if holder and holder not in (links.get(seat), self.via):
                for connection in list(group):
                    live.discard(connection)
                    connection.room, connection.seat = None, None
                    connection.close(CLOSE_SEAT_RESUMED, "this seat was resumed on another server")
        live.phase = live.room.phase
        self._kick(live)

    async def _gone(self, live: LiveRoom) -> None:
        """A room another process expired: forget it here too."""
        async with live.lock:
            if self.rooms.get(live.room.code) is not live:
                return
            self._forget(live)
            for connection in live.connections():
                live.discard(connection)
                connection.room, connection.seat, connection.spectating = None, None, False

    async def _renew_lease(self) -> None:
        """Every third of the lease, whatever else is slow: renew it."""
        assert self.cluster is not None
        while True:
            await asyncio.sleep(self.cluster.lease / 3)
            try:
                await self.cluster.beat()
            except StoreUnavailable as error:
                log.warning("lease not renewed: %s", error)

    async def _tend(self) -> None:
        """Every third of the lease: `_tend_once`, logging what fails."""
        assert self.cluster is not None
        while True:
            await asyncio.sleep(self.cluster.lease / 3)
            try:
                await self._tend_once()
            except StoreUnavailable as error:
                log.warning("cluster upkeep: %s", error)
            except Exception:
                log.exception("cluster upkeep failed")

    async def _tend_once(self) -> None:
        """Take orphaned rooms, follow Redis, settle unanswered saves, fix presence, expire rooms."""
        cluster = self.cluster
        assert cluster is not None
        await cluster.keep_subscribed()
        for code in await cluster.orphans():
            with contextlib.suppress(RoomError):
                self._keep(await self._room(code), True)
        found = await cluster.claim(list(self.rooms))
        for code, status in found.items():
            live = self.rooms.get(code)
            if live is None:
                continue
            if status.seq >= 0:  # else Redis lost the room: `_follow_redis` writes it back
                self._keep(live, status.kept)
            if status.version != live.version and not live.lock.locked():
                self._spawn(self._follow_redis(live))
        for live in [live for live in self.rooms.values() if live.doubts]:
            async with live.lock:
                await self._settle(live)
        await self._check_presence()
        await self._release_away()
        await self._let_go()
        await self._expire_empty()
        self._pruning = await cluster.prune(self._pruning)

    async def _follow_redis(self, live: LiveRoom) -> None:
        """Catch up with Redis, whose version of the room differed from this copy's a moment ago.

        Read again under the lock: the copy may have caught up meanwhile, or a notice be on its way.
        """
        assert self.cluster is not None
        async with live.lock:
            if self.rooms.get(live.room.code) is not live:
                return
            stored = await self.cluster.head(live.room.code)
            if stored is None or stored[1] != live.version:
                await self._catch_up(live, -1 if stored is None else stored[0])

    async def _check_presence(self) -> None:
        """Kept rooms: mark away the players of dead processes; all rooms: this one's own."""
        assert self.cluster is not None
        kept = [live for live in self.rooms.values() if live.kept]
        ids = {via for live in kept for via in live.room.state.links.values()}
        ids.update(via for live in kept for via in live.room.state.watchers)
        dead = ids - await self.cluster.alive(ids)

        def drop(room: Room) -> tuple[None, list[Any]]:
            room.drop_links(dead, time.time())
            return None, []

        for live in kept:
            async with live.lock:
                if self.rooms.get(live.room.code) is live:
                    await self._change(live, drop)
        for live in list(self.rooms.values()):
            async with live.lock:
                for _ in range(8):
                    fix = self._presence_fix(live)
                    if fix is None or self.rooms.get(live.room.code) is not live:
                        break
                    await self._change(live, fix)

    def _presence_fix(self, live: LiveRoom) -> Callable[[Room], tuple[None, list[Any]]] | None:
        """One change that makes the room show this process's connections as they are."""
        state = live.room.state
        via = self.via
        for seat in live.members:
            if seat is None or seat >= len(state.seats):
                continue
            held = state.seats[seat]
            if held is not None and held.kind == "human" and state.links.get(seat) != via:
                return _presence(Room.connect, seat, via)
        for seat, holder in state.links.items():
            if holder == via and seat not in live.members:
                return _presence(Room.disconnect, seat, via)
        delta = len(live.members.get(SPECTATORS, ())) - state.watchers.get(via, 0)
        if delta:
            return _presence(Room.watch, delta, via)
        return None

    async def _let_go(self) -> None:
        """Forget rooms this process neither keeps nor serves anyone in."""
        assert self.cluster is not None
        quiet = time.monotonic() - self.config.cluster_lease
        for live in list(self.rooms.values()):
            if live.kept or live.members or live.doubts or live.lock.locked():
                continue
            if live.touched > quiet:
                continue
            self._forget(live)
            with contextlib.suppress(StoreUnavailable):
                await self.cluster.unfollow(live.room.code)

    async def _expire_empty(self) -> None:
        """Delete the kept rooms nobody has been connected to for `empty_room_seconds`."""
        assert self.cluster is not None
        now = time.time()
        for live in [live for live in self.rooms.values() if live.kept]:
            since = live.room.state.empty_since
            if since is None or now - since < self.config.empty_room_seconds or live.members:
                continue
            async with live.lock:
                room = live.room
                if (
                    self.rooms.get(room.code) is live
                    and room.is_empty()
                    and await self.cluster.delete(room.code, live.version)
                ):
                    self._forget(live)
                    log.info("room %s expired", room.code)

    # -- rooms -----------------------------------------------------------------------------

    async def _room(self, code: str) -> LiveRoom:
        """The room with this code: in memory, or (several processes) loaded from Redis."""
        code = codes.normalise(code)
        live = self.rooms.get(code)
        if live is None:
            if self.cluster is None or not codes.well_formed(code):
                raise RoomError(errors.NO_SUCH_ROOM, codes.missing(code))
            loading = self._loading.get(code)
            if loading is None:
                loading = asyncio.get_running_loop().create_task(self._load(code))
                self._loading[code] = loading
                loading.add_done_callback(lambda _: self._loading.pop(code, None))
            live = await asyncio.shield(loading)
        live.touched = time.monotonic()
        return live

    async def _find(self, text: str) -> LiveRoom:
        """The room a client names: a public room's code, or a private one's code and invite."""
        code, invite = codes.split(text)
        try:
            live = await self._room(code)
        except RoomError as error:
            raise RoomError(error.code, codes.missing(text)) from None
        if not live.room.opens(invite):
            raise RoomError(errors.NO_SUCH_ROOM, codes.missing(text))
        return live

    def _require_open(self, live: LiveRoom) -> None:
        if self.rooms.get(live.room.code) is not live:
            raise RoomError(errors.NO_SUCH_ROOM, f"room {live.room.code} has closed")

    def _current(self, connection: Connection) -> LiveRoom:
        if connection.room is None:
            raise RoomError(errors.NOT_IN_ROOM, "you are not in a room: join or create one first")
        return connection.room

    async def _public_rooms(self) -> list[msg.RoomSummary]:
        if self.cluster is not None:
            try:
                listed = await self.cluster.public_rooms()
            except StoreUnavailable:
                pass  # then the rooms this process holds
            else:
                return [msgspec.convert(summary, msg.RoomSummary) for summary in listed]
        return [
            live.room.summary()
            for live in self.rooms.values()
            if live.room.rules.public and live.room.phase == "waiting" and live.room.free_seats()
        ]

    def _new_code(self) -> str:
        return codes.new_code(self.rooms)

    def _forget(self, live: LiveRoom) -> None:
        code = live.room.code
        if self.rooms.get(code) is live:
            del self.rooms[code]
            self._count(live)
        if live.timer is not None:
            live.timer.cancel()
        if live.driver is not None:
            live.driver.cancel()

    async def _release_away(self) -> None:
        """Players gone `release_seconds` from the rooms kept here: seats of waiting rooms freed,
        hosts passed on."""
        after = self.config.release_seconds
        for live in [live for live in self.rooms.values() if live.kept]:

            def release(room: Room) -> tuple[None, list[Any]]:
                room.release_away(time.time(), after)
                return None, []

            async with live.lock:
                if self.rooms.get(live.room.code) is live:
                    with contextlib.suppress(StoreUnavailable):
                        await self._change(live, release)

    async def _sweep(self) -> None:
        """Close rooms nobody has been connected to for `empty_room_seconds`."""
        while True:
            await asyncio.sleep(self.config.sweep_seconds)
            await self._release_away()
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


def _bot_move(turn: BotTurn, move: Move) -> Callable[[Room], tuple[list[Any] | None, list[Any]]]:
    """A change that plays a bot's move if its turn is still current (events, or None)."""

    def play(room: Room) -> tuple[list[Any] | None, list[Any]]:
        events = room.bot_play(turn, move, time.time())
        return events, events or []

    return play


def _presence(
    method: Callable[[Room, int, float, str], None], number: int, via: str
) -> Callable[[Room], tuple[None, list[Any]]]:
    """A presence change: `method(room, seat or delta, now, via)`."""

    def change(room: Room) -> tuple[None, list[Any]]:
        method(room, number, time.time(), via)
        return None, []

    return change


def _listing(room: Room) -> bytes:
    """A room's entry in the shared list of public rooms ("" when it is not listed)."""
    if room.rules.public and room.phase == "waiting" and room.free_seats():
        return _encode(room.summary())
    return b""


def _no_seat(code: str) -> str:
    return f"that token holds no seat in room {code!r} (or there is no such room)"


def _no_hello(connection: Connection, seconds: float) -> None:
    if not connection.greeted:
        connection.close(CLOSE_POLICY, f"no hello within {seconds:g} s")


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
