"""The asyncio WebSocket server, wired from its parts; `run_server` for embedding::

    async with run_server(Config.of(host="127.0.0.1", port=0, bot_delay=0)) as server:
        url = server.url          # "ws://127.0.0.1:<ephemeral port>/"; server.rooms is live

Leaving the block closes every connection with 1001 (going away) and stops the bot pool. Two
servers given the same `MemoryStore` one after the other: the second resumes the first's rooms.

This module only wires: it builds every part once, each given what it uses through its
constructor, picks the committer the store calls for (`committer_for`; the cluster package is
loaded only for Redis), and starts and stops them in order. The packages and what flows through
them for one move: docs/architecture.md; the limits `Config` sets: docs/security.md.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import secrets
import socket
from collections.abc import AsyncIterator
from typing import TYPE_CHECKING

from protocol import names
from server.config import Config
from server.desk.desk import WATCH_SECONDS, Desk
from server.desk.lease import Lease
from server.edge.api import Api
from server.edge.archived import ArchivedGames
from server.edge.connection import Connection
from server.edge.door import Door
from server.edge.gate import Gate
from server.edge.http import HttpSide, tls_context
from server.edge.http_guard import guarded
from server.edge.limits import LookupBudget, RoomChat
from server.edge.listen import Listener as WebSocketServer
from server.edge.listen import listen
from server.edge.metrics_page import MetricsPage
from server.edge.probes import Probes, StoreWatch
from server.edge.refusals import Refusals
from server.edge.review_api import ReviewAnswers
from server.edge.room_commands import RoomCommands
from server.edge.session import SERVER_NAME, Lanes, Sessions
from server.edge.web import WebFiles
from server.metrics import COLLECTOR, Metrics
from server.play.bots import BotRunner, Lane
from server.play.committer import Committer, Hooks, LocalCommitter, MemoryCommitter
from server.play.driver import Driver
from server.play.finder import Finder
from server.play.finish import Finisher, RecordSaver
from server.play.hints import HintDesk
from server.play.hooks import PlayHooks, Tasks
from server.play.listing import Listing
from server.play.players import Players
from server.play.refold import Refold
from server.play.registry import Registry
from server.play.reviews import ReviewDesk, ReviewShelf
from server.play.tables import TableRooms
from server.storage.ledgers import ledger_for
from server.storage.store import MemoryStore, Store, StoreUnavailable

if TYPE_CHECKING:
    from server.cluster.membership import Cluster

log = logging.getLogger("allfives.server")

#: Tournaments are looked over for tables without rooms once every this many room sweeps.
ROUNDS_SWEEPS = 6
#: A process's lease on opening a tournament's tables lasts this many of its room leases.
LEASES = 10


class Server:
    """The running server; see the module docstring. Build it with `run_server`."""

    def __init__(self, config: Config) -> None:
        self.config = config
        self.store = store = config.store if config.store is not None else MemoryStore()
        self.metrics = metrics = Metrics()
        self.tasks = tasks = Tasks()
        self.bots = bots = BotRunner(
            config.bots.bot_workers,
            config.bots.hard_budget_ms,
            config.bots.bot_processes,
            config.bots.hint_workers,
            config.limits.max_hints_waiting,
        )
        self.gate = Gate(config.network, config.limits, metrics)
        self.door = door = Door(self.gate)
        self.store_watch = StoreWatch(store)
        shelf = ReviewShelf(store)
        self.reviews = ReviewDesk(
            Lane("reviews", config.bots.review_workers, config.bots.bot_processes),
            config.bots.review_budget_ms,
            config.limits.max_reviews_waiting,
            config.storage.reviews_kept,
            load=shelf.load,
            on_reviewed=shelf.keep,
        )
        self.registry = registry = Registry(
            config.limits, config.timing, config.storage.keep_patches
        )
        self.hooks = hooks = PlayHooks(tasks, registry, metrics, RecordSaver(store, tasks.spawn))
        self.committer, finder = committer_for(config, store, registry, hooks)
        self.listing = listing = Listing(
            self.committer.public_rooms,
            config.limits.list_seconds,
            config.limits.list_burst,
            config.limits.lists_per_second,
        )
        self.driver = Driver(config.bots, config.clock, registry, bots, metrics, self.committer)
        self.ledger = ledger = ledger_for(
            config.ledger,
            store,
            config.storage.data,
            config.storage.archive_days,
            config.storage.max_games,
        )
        self.finisher = Finisher(ledger, registry, self.committer, config.clock, tasks.spawn)
        hooks.connect(self.driver, self.finisher, listing)
        self.tables = hooks.tables = TableRooms(
            config.clock, registry, self.committer, finder, metrics
        )
        self.api = Api(
            ledger, store.tournaments, config.limits.api_burst, config.limits.api_per_second
        )
        self.refold = Refold(ledger, tasks.spawn)
        lookups = LookupBudget(config.limits.lookup_burst, config.limits.lookups_per_minute)
        lanes = Lanes(
            lookups=lookups,
            hints=HintDesk(bots),
            chat=RoomChat(config.limits.room_chat_burst, config.limits.room_chat_rate),
            listing=listing,
            players=Players(ledger, config.clock, config.limits),
            desk=Desk(
                store,
                lookups,
                config.limits,
                self.tables,
                tasks.spawn,
                self._lease(config),
                config.clock,
            ),
            archived=ArchivedGames(self.api, self.reviews, tasks.spawn),
        )
        self.desk = lanes.desk
        self.tables.listener = self.desk.rounds.table_finished
        rooms = RoomCommands(config.clock, registry, self.committer, metrics)
        self.sessions = Sessions(
            config.network,
            config.limits,
            config.timing,
            config.clock,
            door,
            registry,
            finder,
            rooms,
            metrics,
            lanes,
        )
        refusals = Refusals()
        page = MetricsPage(
            metrics, registry, door, self.committer, refusals, self.finisher, self.api
        )
        probes = Probes(door, self.store_watch, self.committer.problems)
        review = ReviewAnswers(self.reviews, self.api).answer
        self.http = HttpSide(
            config.network,
            config.limits.max_connections_per_ip,
            door,
            WebFiles(),
            probes,
            metrics,
            page.text,
            self.api,
            review,
            refusals,
        )
        self.websocket_server: WebSocketServer | None = None
        #: What tests and embedders read: the rooms held here by code, and the event that,
        #: cleared, makes every bot wait (`allfives play`); and `connections`, below.
        self.rooms = registry.rooms
        self.bots_may_play = self.driver.bots_may_play

    def _lease(self, config: Config) -> Lease | None:
        """With several processes, this one's side of the tournaments' leases (which process
        opens a round's tables); alone, none is needed."""
        if not self.committer.shared:
            return None
        seconds = LEASES * config.storage.cluster_lease
        return Lease(holder=secrets.token_hex(8), seconds=seconds, clock=config.clock)

    # -- what tests and embedders read, beside the parts -------------------------------------

    @property
    def connections(self) -> list[Connection]:
        """The WebSocket connections open now."""
        return self.door.connections

    @property
    def cluster(self) -> Cluster | None:
        """With several processes: this one's place among them (`server.cluster.membership`)."""
        return getattr(self.committer, "joined", None)

    @property
    def port(self) -> int:
        """The port listened on (the real one when the config asked for port 0)."""
        assert self.websocket_server is not None
        port: int = next(iter(self.websocket_server.sockets)).getsockname()[1]
        return port

    @property
    def url(self) -> str:
        """The address clients connect to."""
        scheme = "wss" if self.config.network.certfile else "ws"
        host = (
            self.config.network.host
            if ":" not in self.config.network.host
            else f"[{self.config.network.host}]"
        )
        return f"{scheme}://{host}:{self.port}/"

    # -- start and stop --------------------------------------------------------------------

    async def start(self) -> None:
        """Load saved rooms (with Redis: join the other processes) and start listening."""
        names.warm()  # the look-alike table, built before the first client's name needs it
        COLLECTOR.install()
        await self.committer.load_rooms()
        await self.store_watch.ping()
        self.tasks.spawn(self.store_watch.run())
        self.door.starting = self.committer.shared
        self.websocket_server = await listen(
            self.config.network,
            self.config.limits.max_size,
            self.gate,
            self.sessions,
            guarded(self.http.process_request),
            self.http.process_response,
            ssl=tls_context(self.config.network.certfile, self.config.network.keyfile),
            server_header=SERVER_NAME,
        )
        self.door.listening = self.websocket_server.is_serving
        try:
            await self.committer.join(f"{socket.gethostname()}:{self.port}")
        except BaseException:
            await self._stop_listening()
            raise
        await self.refold.run()  # still starting (newcomers get 503): names under today's fold
        await self._resume_tournaments()
        self.door.starting = False
        log.info("listening on %s", self.url)

    async def _resume_tournaments(self) -> None:
        """The tournaments being played go on: each one's tables reconciled with its rooms,
        and now and then those with tables left without rooms looked over."""
        every = self.config.timing.sweep_seconds * ROUNDS_SWEEPS
        self.tasks.spawn(self.desk.rounds.run(every))
        if self.committer.shared:  # changes made by the other processes
            self.tasks.spawn(self.desk.watch(WATCH_SECONDS))
        try:
            codes = await self.store.tournaments.codes()
        except StoreUnavailable as error:
            log.warning("tournaments not resumed: the store did not answer (%s)", error)
            return
        await self.desk.rounds.resume(codes)

    async def stop(self) -> None:
        """Close every connection with 1001, stop the clock and the bots, close the store."""
        self.door.closing = self.driver.closing = True
        # Still listening, newcomers refused with 503 for `drain_seconds` (see Config), while
        # matches finished just now are archived.
        await asyncio.gather(
            asyncio.sleep(max(0.0, self.config.timing.drain_seconds)), self.finisher.drain()
        )
        self.tasks.cancel()
        self.registry.stop_clocks()
        await self._stop_listening()
        self.gate.keepalive.stop()
        await self.committer.close()
        self.bots.close()
        self.reviews.close()
        await self.store.close()
        if self.config.ledger is None:
            await self.ledger.close()
        log.info("stopped")

    async def _stop_listening(self) -> None:
        if self.websocket_server is not None:
            self.websocket_server.close()
            await self.websocket_server.wait_closed()

    async def close_for_good(self, reason: str) -> None:
        """Close every connection with 4001 and `reason`, telling clients not to come back."""
        await self.door.close_for_good(reason)


def committer_for(
    config: Config, store: Store, registry: Registry, hooks: Hooks
) -> tuple[Committer, Finder]:
    """The committer the store calls for, and the finder of the rooms clients name: with Redis,
    one of several processes (the cluster package is loaded only then), whose finder loads
    rooms other processes hold; a store holding live rooms, or one saving bytes, alone."""
    if store.shared:
        from server.cluster.shared import SharedCommitter, shared_parts
        from server.storage.redis_store import RedisStore

        assert isinstance(store, RedisStore)
        parts = shared_parts(registry, hooks)
        shared = SharedCommitter(
            config.timing,
            config.clock,
            store,
            registry,
            hooks,
            parts,
            config.storage.cluster_lease,
        )
        return shared, parts.finder
    alone = MemoryCommitter if store.holds_live_rooms else LocalCommitter
    return alone(config.timing, config.clock, store, registry, hooks), Finder(registry)


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
