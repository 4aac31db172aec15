"""What the server can be told (`Config`, in groups by concern), and the clock its parts read.

`Config` holds one group per concern: `network` (where and how it listens), `limits` (what one
client, one address or the whole process may ask for), `storage` (where rooms, players and the
archive are kept), `bots` (the bots', hints' and reviews' workers and pace) and `timing` (how long
seats, turns and rooms wait). Every setting has one name, unique across the groups: the name of
its `allfives serve` option (`--max-rooms-per-ip` is `limits.max_rooms_per_ip`) and of its
environment variable (`ALLFIVES_MAX_ROOMS_PER_IP`). `Config.of(port=0, bot_delay=0)` builds a
config from such names, each put in its group.
"""

from __future__ import annotations

import dataclasses
import ipaddress
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from protocol import messages as msg
from server.storage.archive import Ledger
from server.storage.store import Store

#: The proxies whose X-Real-IP / X-Forwarded-For is taken: the networks their sockets come from.
ProxyNetworks = tuple[ipaddress.IPv4Network | ipaddress.IPv6Network, ...]

#: A clock: seconds since the epoch (`time.time`), passed to the parts that read the time.
Clock = Callable[[], float]


@dataclass
class Network:
    """Where the server listens, and how it speaks to sockets and proxies."""

    host: str = "127.0.0.1"
    port: int = 8765
    certfile: str | None = None
    keyfile: str | None = None
    #: Bytes a connection's send buffer may hold before the connection is dropped as too slow.
    send_buffer: int = 256 * 1024
    compression: bool = False
    #: Keepalive (`server.edge.keepalive`): a connection silent this long is pinged, and dropped
    #: if it is silent as long again; None: never pinged.
    ping_interval: float | None = 20.0
    #: Whose X-Real-IP / X-Forwarded-For names the client: no one (False), any socket (True:
    #: only when nothing but your proxy can reach the server), or sockets from these networks.
    trust_proxy: bool | ProxyNetworks = False
    #: Browser pages allowed to connect (their Origin, comma-separated); None: any.
    allowed_origin: str | None = None

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


@dataclass
class Limits:
    """What one connection, one address or the whole process may ask for (docs/security.md)."""

    #: The largest frame in bytes; a bigger one closes the connection.
    max_size: int = 8192
    #: Messages a connection may send: `burst` at once, then `rate` a second; `flood_limit`
    #: refusals in a row close it.
    rate: float = float(msg.RATE_PER_SECOND)
    burst: int = msg.RATE_BURST
    flood_limit: int = 50
    max_connections_per_ip: int = 32
    #: Connections in all; more get HTTP 503.
    max_connections: int = 2000
    max_rooms_per_ip: int = 8
    #: Rooms an address may create: `rooms_burst` at once, then `rooms_per_hour` (a finished
    #: room no longer counts as open, so this is what bounds rooms made only to finish).
    rooms_burst: int = 16
    rooms_per_hour: float = 30.0
    #: Rooms one process holds in all (finished ones included); creating more gets `busy`.
    max_rooms: int = 10000
    #: Tournaments an address may make (counted by each process while it runs; `rate_limited`),
    #: and tournaments stored in all (`busy`): `server.desk`.
    max_tournaments_per_ip: int = 4
    max_tournaments: int = 1000
    #: Failed room lookups per address: so many at once, then so many a minute.
    lookup_burst: int = 20
    lookups_per_minute: float = 10.0
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
    #: Chat per room: so many lines at once, then so many a second.
    room_chat_rate: float = 2.0
    room_chat_burst: int = 10
    #: Hints asked and waiting at once; reviews being made or waiting at once (more: busy).
    max_hints_waiting: int = 8
    max_reviews_waiting: int = 4
    #: The public room list: rebuilt at most once a `list_seconds`; each address may ask
    #: `list_burst` times at once, then `lists_per_second`.
    list_seconds: float = 1.0
    list_burst: int = 10
    lists_per_second: float = 1.0


@dataclass
class Storage:
    """Where rooms, players, ratings and the match archive are kept, and for how long."""

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
    #: The patches a room keeps, so a client that missed a few catches up without a snapshot.
    keep_patches: int = 32
    #: The hard bot's reviews of finished games kept in memory.
    reviews_kept: int = 256
    #: With several processes on one Redis: how long a dead process's rooms wait for another.
    cluster_lease: float = 3.0


@dataclass
class Bots:
    """The bots' pace and the worker processes of bots, hints and reviews."""

    #: Seconds between bot moves.
    bot_delay: float = 0.6
    #: The hard bot's search per decision (ms), and its worker processes (in processes or not).
    hard_budget_ms: float | None = 200.0
    bot_workers: int = 1
    bot_processes: bool = True
    hint_workers: int = 1
    #: The hard bot's reviews of finished games (`server.play.reviews`): their own workers and
    #: the search per decision.
    review_workers: int = 1
    review_budget_ms: float = 50.0


@dataclass
class Timing:
    """How long seats, turns, connections and rooms wait."""

    #: How long an away player's turn waits for them.
    away_seconds: float = 60.0
    #: In a room without a turn clock, how long a connected player's turn waits before the
    #: stand-in takes the seat (`server.rooms.clock`); 0: for ever.
    idle_seconds: float = 300.0
    empty_room_seconds: float = 600.0
    #: How long a waiting room keeps the seat of a player who is gone.
    release_seconds: float = 60.0
    #: How long a new connection may wait to say hello.
    hello_seconds: float = 10.0
    #: On SIGTERM, how long the server keeps listening before it closes its connections: its
    #: upgrades and /readyz answer 503 ("stopping") meanwhile, so a proxy or orchestrator has
    #: time to send newcomers elsewhere while the players here play on.
    drain_seconds: float = 0.0
    #: How often rooms are swept (expired, saved, released).
    sweep_seconds: float = 10.0


#: The groups of a `Config`, by attribute.
GROUPS: dict[str, type[Any]] = {
    "network": Network,
    "limits": Limits,
    "storage": Storage,
    "bots": Bots,
    "timing": Timing,
}


def _group_of() -> dict[str, str]:
    """Each setting's group; a name in two groups is a mistake caught at import."""
    where: dict[str, str] = {}
    for group, kind in GROUPS.items():
        for item in dataclasses.fields(kind):
            if item.name in where:
                raise TypeError(f"setting {item.name} is in {where[item.name]} and {group}")
            where[item.name] = group
    return where


#: setting -> the group that holds it (`max_size` -> "limits").
GROUP_OF: dict[str, str] = _group_of()


@dataclass
class Config:
    """Everything the server can be told; every setting has a default fit for a friends' game."""

    network: Network = field(default_factory=Network)
    limits: Limits = field(default_factory=Limits)
    storage: Storage = field(default_factory=Storage)
    bots: Bots = field(default_factory=Bots)
    timing: Timing = field(default_factory=Timing)
    #: The wall clock rooms are stamped with (seats away, deadlines, expiry).
    clock: Clock = field(default=time.time, repr=False)

    @classmethod
    def of(cls, clock: Clock = time.time, **settings: Any) -> Config:
        """A config with these settings, each by its name (`port=0`), the rest defaults."""
        config = cls(clock=clock)
        for name, value in settings.items():
            config.set(name, value)
        return config

    def set(self, name: str, value: Any) -> None:
        """Set one setting by its name (TypeError for a name no group has)."""
        if name not in GROUP_OF:
            raise TypeError(f"no setting {name!r}")
        setattr(getattr(self, GROUP_OF[name]), name, value)

    def get(self, name: str) -> Any:
        """One setting by its name."""
        if name not in GROUP_OF:
            raise TypeError(f"no setting {name!r}")
        return getattr(getattr(self, GROUP_OF[name]), name)

    def settings(self) -> dict[str, Any]:
        """Every setting by its name, as `Config.of` takes them."""
        return {name: self.get(name) for name in GROUP_OF}
