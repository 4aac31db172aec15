"""What the server can be told (`Config`), and the clock its parts read."""

from __future__ import annotations

import ipaddress
import time
from collections.abc import Callable
from dataclasses import dataclass, field

from protocol import messages as msg
from server.storage.archive import Ledger
from server.storage.store import Store

#: The proxies whose X-Real-IP / X-Forwarded-For is taken: the networks their sockets come from.
ProxyNetworks = tuple[ipaddress.IPv4Network | ipaddress.IPv6Network, ...]

#: A clock: seconds since the epoch (`time.time`), passed to the parts that read the time.
Clock = Callable[[], float]


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
    #: Rooms an address may create: `rooms_burst` at once, then `rooms_per_hour` (a finished
    #: room no longer counts as open, so this is what bounds rooms made only to finish).
    rooms_burst: int = 16
    rooms_per_hour: float = 30.0
    #: Rooms one process holds in all (finished ones included); creating more gets `busy`.
    max_rooms: int = 10000
    send_buffer: int = 256 * 1024
    bot_delay: float = 0.6
    away_seconds: float = 60.0
    #: In a room without a turn clock, how long a connected player's turn waits before the
    #: stand-in takes the seat (`server.rooms.clock`); 0: for ever.
    idle_seconds: float = 300.0
    empty_room_seconds: float = 600.0
    #: On SIGTERM, how long the server keeps listening before it closes its connections: its
    #: upgrades and /readyz answer 503 ("stopping") meanwhile, so a proxy or orchestrator has
    #: time to send newcomers elsewhere while the players here play on.
    drain_seconds: float = 0.0
    sweep_seconds: float = 10.0
    hard_budget_ms: float | None = 200.0
    bot_workers: int = 1
    bot_processes: bool = True
    keep_patches: int = 32
    compression: bool = False
    #: Keepalive (`server.edge.keepalive`): a connection silent this long is pinged, and dropped
    #: if it is silent as long again; None: never pinged.
    ping_interval: float | None = 20.0
    #: Whose X-Real-IP / X-Forwarded-For names the client: no one (False), any socket (True:
    #: only when nothing but your proxy can reach the server), or sockets from these networks.
    trust_proxy: bool | ProxyNetworks = False
    store: Store | None = None
    #: Players, ratings and the match archive (`server.storage.archive`); None: the store's
    #: (Redis beside the rooms, else SQLite in memory, or in a file under `data`).
    ledger: Ledger | None = None
    #: A directory for the embedded ledger's file (`allfives serve --data DIR`, which also
    #: keeps the rooms there: `server.storage.sqlite_store`, given as `store`).
    data: str | None = None
    #: How long Redis keeps an archived match; games the embedded archive keeps at the most.
    archive_days: float = 365.0
    max_games: int = 20_000
    #: Per address: new players (hellos with a key never seen), link codes asked, wrong link
    #: codes given: so many at once, then so many an hour (`server.play.players`).
    new_players_burst: int = 10
    new_players_per_hour: float = 20.0
    links_burst: int = 5
    links_per_hour: float = 10.0
    bad_links_burst: int = 20
    bad_links_per_hour: float = 20.0
    #: The HTTP API per address: `api_burst` requests at once, then `api_per_second`.
    api_burst: int = 30
    api_per_second: float = 5.0
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
    #: The hard bot's reviews of finished games (`server.play.reviews`): their own workers, the
    #: search per decision, how many games may be reviewed or wait at once, how many are kept.
    review_workers: int = 1
    review_budget_ms: float = 50.0
    max_reviews_waiting: int = 4
    reviews_kept: int = 256
    allowed_origin: str | None = None
    #: The public room list: rebuilt at most once a `list_seconds`; each address may ask
    #: `list_burst` times at once, then `lists_per_second`.
    list_seconds: float = 1.0
    list_burst: int = 10
    lists_per_second: float = 1.0
    #: The wall clock rooms are stamped with (seats away, deadlines, expiry).
    clock: Clock = field(default=time.time, repr=False)

    def trusts(self, peer: str) -> bool:
        """Whether a socket from `peer` is a trusted proxy's, whose headers name the client."""
        if isinstance(self.trust_proxy, bool):
            return self.trust_proxy
        try:
            address = ipaddress.ip_address(peer)
        except ValueError:
            return False
        if isinstance(address, ipaddress.IPv6Address) and address.ipv4_mapped is not None:
            address = address.ipv4_mapped
        return any(address in network for network in self.trust_proxy)
