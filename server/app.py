"""The asyncio WebSocket server, wired from its parts; `run_server` for embedding.

Embedding (the terminal client and the tests do this)::

    from server.app import Config, run_server

    async with run_server(Config(host="127.0.0.1", port=0, bot_delay=0)) as server:
        url = server.url          # "ws://127.0.0.1:<ephemeral port>/"
        ...                       # connect clients; server.rooms, server.metrics are live

Leaving the block closes every connection with 1001 (going away) and stops the bot pool.
`Config.store` takes any `server.storage.store.Store`; give two servers the same `MemoryStore`
one after the other and the second resumes the first one's rooms (its players marked away, as a
change).

This module is the wiring: it builds every part once, picks the committer the store calls for
(`committer_for`: memory, a store of bytes, or several processes on Redis, whose package is
loaded only then), and hands each part the narrow objects it uses. The packages (`rooms`,
`storage`, `play`, `cluster`, `edge`) and what flows through them for one move are in
docs/architecture.md.

Frames above `max_size` bytes close the connection (1009); frames above the protocol's 4 KiB
message limit get `too_large`. A token bucket (`rate` per second, `burst`) answers each message
of a flood with `rate_limited` and closes the connection after `flood_limit` refusals in a row.
Addresses are limited to `max_connections_per_ip` connections (HTTP 429 beyond) and
`max_rooms_per_ip` open rooms (`trust_proxy`: the address a reverse proxy names), the server to
`max_connections` (HTTP 503). Compression is off by default: frames are small, it costs
memory per connection, and a frame shared by connections without it is built once. Only GET
and HEAD are served, and only `/` upgrades to a WebSocket. The other limits (hello deadline,
failed room lookups, seats of players gone, room chat, hints) are in docs/security.md, their
logic in `server.rooms.limits`, `server.rooms.codes` and `server.play.hints`.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import socket
import ssl
import time
from collections.abc import AsyncIterator, Coroutine
from typing import TYPE_CHECKING, Any

from protocol import names
from protocol.records import encode_record
from server.config import Config
from server.edge.api import Api, ApiRefusal, Asked
from server.edge.connection import CLOSE_ROOM_CLOSED, Connection
from server.edge.door import Door
from server.edge.gate import Gate
from server.edge.http import HttpSide
from server.edge.http_guard import guarded
from server.edge.listen import Listener as WebSocketServer
from server.edge.listen import listen
from server.edge.probes import Probes, StoreWatch
from server.edge.review_api import answer_review
from server.edge.session import SERVER_NAME, Lanes, Sessions
from server.edge.web import WebFiles
from server.metrics import COLLECTOR, Metrics, counters
from server.play.bots import BotRunner, Lane
from server.play.committer import Committer, Hooks, LocalCommitter, MemoryCommitter
from server.play.driver import Driver
from server.play.finish import Finisher
from server.play.hints import HintDesk
from server.play.listing import Listing
from server.play.live import LiveRoom
from server.play.players import Players
from server.play.registry import Registry
from server.play.reviews import ReviewDesk
from server.rooms import results
from server.rooms.limits import LookupBudget, RoomChat
from server.rooms.room import Room
from server.storage.archive import Ledger, key_hash
from server.storage.archive_local import LocalLedger
from server.storage.store import MemoryStore, Store, StoreUnavailable

if TYPE_CHECKING:
    from server.cluster.membership import Cluster

log = logging.getLogger("allfives.server")

#: The first and the longest wait between tries to store a finished match's record.
RECORD_RETRY_FIRST = 1.0
RECORD_RETRY_MAX = 30.0


#: How long a stopping server waits for matches that just finished to be archived.
FINISH_WAIT = 3.0


class Server:
    """The running server; see the module docstring. Build it with `run_server`."""

    def __init__(self, config: Config) -> None:
        self.config = config
        self.store: Store = config.store if config.store is not None else MemoryStore()
        self.door = Door(config)
        self.metrics = Metrics()
        self.bots = BotRunner(config.bot_workers, config.hard_budget_ms, config.bot_processes)
        self.gate = Gate(config, self.metrics)
        self.store_watch = StoreWatch(self.store)
        self.bots.hints.workers = max(1, config.hint_workers)
        self.bots.max_hints_waiting = config.max_hints_waiting
        self.hint_desk = HintDesk(self.bots)
        self.reviews = ReviewDesk(
            Lane("reviews", config.review_workers, config.bot_processes),
            config.review_budget_ms,
            config.max_reviews_waiting,
            config.reviews_kept,
        )
        # A review is kept beside the records too (with their retention), so a restart or
        # another process serves it without working it out again.
        self.reviews.load = self._kept_review
        self.reviews.on_reviewed = self._keep_review
        self.registry = Registry(config)
        self.committer: Committer = committer_for(config, self.store, self.registry, self)
        self.listing = Listing(
            self.committer.public_rooms,
            config.list_seconds,
            config.list_burst,
            config.lists_per_second,
        )
        self.driver = Driver(config, self.registry, self.bots, self.metrics, self.committer.change)
        self.ledger = ledger_for(config, self.store)
        self.finisher = Finisher(
            self.ledger, self.registry, self.committer.change, config.clock, self.spawn
        )
        self.api = Api(self.ledger, config.api_burst, config.api_per_second)
        lanes = Lanes(
            lookups=LookupBudget(config.lookup_burst, config.lookups_per_minute),
            hints=self.hint_desk,
            chat=RoomChat(config.room_chat_burst, config.room_chat_rate),
            listing=self.listing,
            players=Players(self.ledger, config.clock, config),
        )
        self.sessions = Sessions(
            config, self.door, self.registry, self.committer, self.metrics, lanes
        )
        probes = Probes(self.door, self.store_watch, self.committer.problems)
        self.http = HttpSide(
            config, self.door, WebFiles(), probes, self.metrics, self._counters, self.api
        )
        self.http.review = lambda request, game, address: answer_review(
            self.reviews, self.find_game_record, request, game, self._charge(address)
        )
        self.websocket_server: WebSocketServer | None = None
        self._tasks: set[asyncio.Task[Any]] = set()

    # -- what tests and embedders read -------------------------------------------------------

    @property
    def connections(self) -> set[Connection]:
        """The WebSocket connections open now."""
        return self.door.connections

    @property
    def closing(self) -> bool:
        """The server is stopping: no new players."""
        return self.door.closing

    @closing.setter
    def closing(self, closing: bool) -> None:
        self.door.closing = closing

    @property
    def starting(self) -> bool:
        """The server is joining the other processes: no players yet."""
        return self.door.starting

    @starting.setter
    def starting(self, starting: bool) -> None:
        self.door.starting = starting

    @property
    def rooms(self) -> dict[str, LiveRoom]:
        """The rooms held in this process, by code."""
        return self.registry.rooms

    @property
    def conflicts(self) -> int:
        """Changes another process stored first, so this one applied them again."""
        return self.committer.conflicts

    @property
    def cluster(self) -> Cluster | None:
        """With several processes: this one's place among them (`server.cluster.membership`)."""
        from server.cluster.shared import SharedCommitter  # loaded already when it is one

        return self.committer.joined if isinstance(self.committer, SharedCommitter) else None

    @property
    def bots_may_play(self) -> asyncio.Event:
        """Cleared, every bot of this server waits (`allfives play` while a result is read)."""
        return self.driver.bots_may_play

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
        names.warm()  # the look-alike table, built before the first client's name needs it
        COLLECTOR.install()
        await self.committer.load_rooms()
        await self.store_watch.ping()
        self.spawn(self.store_watch.run())
        self.starting = self.committer.shared
        context = None
        if self.config.certfile:
            context = ssl.SSLContext(ssl.PROTOCOL_TLS_SERVER)
            context.load_cert_chain(self.config.certfile, self.config.keyfile)
        self.websocket_server = await listen(
            self.config,
            self.gate,
            self.sessions,
            guarded(self.http.process_request),
            self.http.process_response,
            ssl=context,
            server_header=SERVER_NAME,
        )
        self.door.listening = self.websocket_server.is_serving
        try:
            await self.committer.join(f"{socket.gethostname()}:{self.port}")
        except BaseException:
            self.websocket_server.close()
            await self.websocket_server.wait_closed()
            raise
        # Still starting (newcomers get 503): the names filed again under today's fold first.
        try:
            self._refolded(await self.ledger.refold(names.FOLD_RULE, names.name_key))
        except StoreUnavailable:  # Redis down at start: the server starts, and folds them later
            self.spawn(self._refold_later())
        self.starting = False
        log.info("listening on %s", self.url)

    async def stop(self) -> None:
        """Close every connection with 1001, stop the clock and the bots, close the store."""
        self.closing = self.driver.closing = True
        # Still listening, newcomers refused with 503 for `drain_seconds` (see Config), while
        # matches finished just now are archived.
        await asyncio.gather(
            asyncio.sleep(max(0.0, self.config.drain_seconds)),
            self.finisher.drain(FINISH_WAIT),
        )
        for task in list(self._tasks):
            task.cancel()
        for live in self.registry.rooms.values():
            live.stop_clock()
        if self.websocket_server is not None:
            self.websocket_server.close()
            await self.websocket_server.wait_closed()
        self.gate.keepalive.stop()
        await self.committer.close()
        self.bots.close()
        self.reviews.close()
        await self.store.close()
        if self.config.ledger is None:
            await self.ledger.close()
        log.info("stopped")

    async def close_for_good(self, reason: str) -> None:
        """Close every connection with 4001 and `reason`, telling clients not to come back."""
        for connection in list(self.connections):
            connection.close(CLOSE_ROOM_CLOSED, reason)
        closers = [c.closer for c in self.connections if c.closer is not None]
        if closers:
            await asyncio.wait(closers, timeout=2.0)

    def _counters(self) -> str:
        """The `/metrics` page."""
        rooms = self.registry.rooms
        playing = sum(1 for live in rooms.values() if live.room.phase == "playing")
        page = self.metrics.text(
            len(rooms), len(self.connections), playing, self.committer.adopted()
        )
        page += "\n".join(self.http.refusals.lines()) + "\n"
        return page + counters(
            {
                "allfives_games_archived_total": (
                    "Finished matches archived and rated here.",
                    self.finisher.archived,
                ),
                "allfives_rating_conflicts_total": (
                    "Ratings read again: another match changed them first.",
                    self.finisher.conflicts,
                ),
                "allfives_api_answered_total": ("HTTP API requests answered.", self.api.answered),
                "allfives_api_refused_total": (
                    "HTTP API requests refused (not found, bad, rate-limited, unavailable).",
                    self.api.refused,
                ),
            }
        )

    # -- hooks of the committer (server.committer.Hooks) -------------------------------------

    async def _refold_later(self) -> None:
        """Fold the ledger's names again (`Ledger.refold`) once the store answers."""
        while True:
            await asyncio.sleep(1.0)
            try:
                self._refolded(await self.ledger.refold(names.FOLD_RULE, names.name_key))
                return
            except StoreUnavailable:
                continue

    @staticmethod
    def _refolded(clashes: list[str]) -> None:
        for name in clashes:
            log.warning("name %r now reads as an older player's: found by its keys only", name)

    def spawn(self, coroutine: Coroutine[Any, Any, Any]) -> asyncio.Task[Any]:
        """Run a task that ends with the server."""
        task = asyncio.get_running_loop().create_task(coroutine)
        self._tasks.add(task)
        task.add_done_callback(self._tasks.discard)
        return task

    def kick(self, live: LiveRoom) -> None:
        """Make sure a due bot move gets made and the turn clock is set."""
        self.driver.kick(live)

    def keep(self, live: LiveRoom, kept: bool) -> None:
        """Start or stop running a room's bots and clock here; a room kept here whose finished
        match is not archived yet (its process stopped before) is archived now."""
        self.driver.keep(live, kept)
        if kept:
            self.finisher.finished(live)

    def published(self, live: LiveRoom) -> None:
        """A change reached the room's clients: a finished match's record, counts, the bots."""
        room = live.room
        if room.phase == "finished" and live.published_phase != "finished":
            self.metrics.matches_finished += 1
            self.spawn(self._save_record(room))
        if room.phase == "finished":
            self.finisher.finished(live)
        live.published_phase = room.phase
        self.registry.count(live)
        if self.registry.note_listing(live):
            self.listing.changed()
        self.driver.kick(live)

    async def find_game_record(self, game_id: str, key: str | None) -> bytes | None:
        """An archived game's record (JSON) for the asker of `key`, as the API finds a game:
        None when there is none, or it is a private room's game the asker did not play."""
        asker = None
        if key is not None:
            player = await self.ledger.player_of_key(key_hash(key))
            asker = None if player is None else player.id
        try:
            detail = await self.api.game(Asked([], {}, asker), game_id)
        except ApiRefusal:
            return None
        return encode_record(detail.record)

    def _charge(self, address: str) -> float | None:
        """Charge one API request to an address: None, or the seconds to wait (over budget)."""
        now = time.monotonic()
        if self.api.budget.take(address, now):
            return None
        return max(1.0, self.api.budget.wait(address, now))

    async def _kept_review(self, game_id: str) -> bytes | None:
        return await self.store.load_record(f"review/{game_id}")

    async def _keep_review(self, game_id: str, review: bytes) -> None:
        await self.store.save_record(f"review/{game_id}", review)

    async def _save_record(self, room: Room) -> None:
        data = encode_record(results.finished_record(room))
        match = results.finished_number(room.state)
        delay = RECORD_RETRY_FIRST
        while True:  # kept until the store has it (the task ends with the server)
            try:
                await self.store.save_record(f"{room.code}/{match}", data)
            except StoreUnavailable as error:
                if delay == RECORD_RETRY_FIRST:
                    log.warning(
                        "room %s: record of match %d not stored yet (%s): trying again",
                        room.code,
                        match,
                        error,
                    )
                await asyncio.sleep(delay)
                delay = min(RECORD_RETRY_MAX, delay * 2)
            else:
                return


def ledger_for(config: Config, store: Store) -> Ledger:
    """Where players, ratings and games are kept: as told, else beside the rooms in Redis,
    else SQLite (in memory, or in a file under `config.data`)."""
    if config.ledger is not None:
        return config.ledger
    if store.shared:
        from server.storage.archive_redis import RedisLedger
        from server.storage.redis_store import RedisStore

        assert isinstance(store, RedisStore)
        return RedisLedger(store, int(config.archive_days * 24 * 3600))
    return LocalLedger(config.data, config.max_games)


def committer_for(config: Config, store: Store, registry: Registry, hooks: Hooks) -> Committer:
    """The committer the store calls for: with Redis, one of several processes (the cluster
    package is loaded only then); a store holding live rooms, or one saving bytes, alone."""
    if store.shared:
        from server.cluster.shared import SharedCommitter
        from server.storage.redis_store import RedisStore

        assert isinstance(store, RedisStore)
        return SharedCommitter(config, store, registry, hooks)
    if store.holds_live_rooms:
        return MemoryCommitter(config, store, registry, hooks)
    return LocalCommitter(config, store, registry, hooks)


@contextlib.asynccontextmanager
async def run_server(config: Config | None = None) -> AsyncIterator[Server]:
    """Run a server for the duration of an `async with` block (see the module docstring)."""
    server = Server(config or Config())
    await server.start()
    try:
        yield server
    finally:
        await server.stop()


__all__ = ["Config", "Server", "run_server"]
