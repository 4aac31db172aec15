"""What the server can be told (`Config`, in groups by concern), and the clock its parts read.

`Config` holds one group per concern: `network` (where and how it listens), `limits` (what one
client, one address or the whole process may ask for), `storage` (where rooms, players and the
archive are kept), `bots` (the bots', hints' and reviews' workers and pace) and `timing` (how long
seats, turns and rooms wait). Every setting has one name, unique across the groups: the name of
its `allfives serve` option (`--max-rooms-per-ip` is `limits.max_rooms_per_ip`) and of its
environment variable (`ALLFIVES_MAX_ROOMS_PER_IP`). `Config.of(port=0, bot_delay=0)` builds a
config from such names, each put in its group. Each setting is declared once, with its help and
its parser (`server.settings.setting`): `allfives serve`'s options, their environment variables
and docs/reference/config.md are made from these declarations.
"""

from __future__ import annotations

import dataclasses
import ipaddress
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from protocol import messages as msg
from server.settings import (
    ProxyNetworks,
    Setting,
    milliseconds_or_off,
    port_number,
    positive,
    proxies,
    redis_url_or_off,
    seconds,
    seconds_or_off,
    setting,
    settings_of,
    text,
    text_or_off,
    yes_or_no,
)
from server.storage.archive import Ledger
from server.storage.store import DEFAULT_RECORD_TTL, Store

#: A clock: seconds since the epoch (`time.time`), passed to the parts that read the time.
Clock = Callable[[], float]


@dataclass(frozen=True)
class Network:
    """Where the server listens, and how it speaks to sockets and proxies."""

    host: str = setting("127.0.0.1", "address to listen on (127.0.0.1: this machine only)", text)
    port: int = setting(8765, "port to listen on (0 picks a free one)", port_number)
    certfile: str | None = setting(None, "TLS certificate (PEM) to serve wss://", text_or_off)
    keyfile: str | None = setting(None, "TLS private key (PEM) for --certfile", text_or_off)
    send_buffer: int = setting(
        256 * 1024,
        "bytes waiting to be sent to one connection before it is closed as too slow (1008)",
        positive(int),
    )
    compression: bool = setting(False, "permessage-deflate on connections", yes_or_no)
    ping_interval: float | None = setting(
        20.0,
        "seconds of silence before a connection is pinged; dropped (1011) after as long again "
        "without an answer (off: never pinged)",
        seconds_or_off,
    )
    trust_proxy: bool | ProxyNetworks = setting(
        False,
        "take client addresses from X-Real-IP / X-Forwarded-For on sockets from these proxy "
        "addresses or networks (comma-separated), or from any socket (yes: only when nothing "
        "but your proxy can reach the server)",
        proxies,
    )
    allowed_origin: str | None = setting(
        None,
        "browser pages allowed to connect (their Origin, comma-separated); off: any",
        text_or_off,
    )
    open_metrics: bool = setting(
        False,
        "serve /metrics to anyone (no: only to this machine (loopback) and the trusted proxies' "
        "own addresses; others get 404)",
        yes_or_no,
    )

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


@dataclass(frozen=True)
class Limits:
    """What one connection, one address or the whole process may ask for (docs/security.md)."""

    max_size: int = setting(
        8192, "largest frame in bytes; bigger ones close the connection", positive(int)
    )
    rate: float = setting(
        float(msg.RATE_PER_SECOND),
        "messages a second one connection may send on average",
        positive(float),
    )
    burst: int = setting(msg.RATE_BURST, "messages one connection may send at once", positive(int))
    flood_limit: int = setting(
        50, "refused messages in a row that close a connection", positive(int)
    )
    max_connections_per_ip: int = setting(32, "connections per client address", positive(int))
    max_connections: int = setting(
        2000, "open connections in all; more get HTTP 503", positive(int)
    )
    max_rooms_per_ip: int = setting(8, "open rooms per client address", positive(int))
    rooms_burst: int = setting(16, "rooms one client address may create at once", positive(int))
    rooms_per_hour: float = setting(
        30.0,
        "rooms one client address may create an hour, after --rooms-burst at once",
        positive(float),
    )
    max_rooms: int = setting(
        10000, "rooms this process holds in all, finished included; more get busy", positive(int)
    )
    max_tournaments_per_ip: int = setting(
        4,
        "tournaments one client address may make a day (one count in the store for all processes)",
        positive(int),
    )
    max_tournaments: int = setting(1000, "tournaments stored in all; more get busy", positive(int))
    lookup_burst: int = setting(
        20, "failed room lookups one address may make at once", positive(int)
    )
    lookups_per_minute: float = setting(
        10.0, "failed room lookups one address may make a minute, after the burst", positive(float)
    )
    new_players_burst: int = setting(
        10, "new players (hellos with a key never seen) one address may make at once", positive(int)
    )
    new_players_per_hour: float = setting(
        20.0, "new players one address may make an hour, after the burst", positive(float)
    )
    links_burst: int = setting(
        5, "link and recovery codes one address may ask for at once", positive(int)
    )
    links_per_hour: float = setting(
        10.0, "link and recovery codes one address may ask for an hour", positive(float)
    )
    bad_links_burst: int = setting(
        20, "wrong link codes one address may give at once", positive(int)
    )
    bad_links_per_hour: float = setting(
        20.0, "wrong link codes one address may give an hour, after the burst", positive(float)
    )
    api_burst: int = setting(30, "HTTP API requests one address may make at once", positive(int))
    api_per_second: float = setting(
        5.0,
        "HTTP API requests one address may make a second, after --api-burst",
        positive(float),
    )
    room_chat_rate: float = setting(
        2.0, "chat lines a second in one room, from everyone together", positive(float)
    )
    room_chat_burst: int = setting(10, "chat lines one room takes at once", positive(int))
    max_hints_waiting: int = setting(
        8, "hints being worked out or waiting at once; more get busy", positive(int)
    )
    max_reviews_waiting: int = setting(
        4, "games reviewed or waiting at once; more get HTTP 503 busy", positive(int)
    )
    list_seconds: float = setting(
        1.0, "seconds the public room list is kept before it is built again", positive(float)
    )
    list_burst: int = setting(10, "room lists one address may ask for at once", positive(int))
    lists_per_second: float = setting(
        1.0, "room lists one address may ask for a second, after the burst", positive(float)
    )


@dataclass(frozen=True)
class Storage:
    """Where rooms, players, ratings and the match archive are kept, and for how long."""

    redis_url: str | None = setting(
        None,
        "keep rooms, players and the archive in Redis at redis://host:port/db (off: embedded)",
        redis_url_or_off,
        option="--redis",
    )
    data: str | None = setting(
        None,
        "directory for the rooms, players, ratings and the match archive without Redis "
        "(off: memory)",
        text_or_off,
    )
    record_ttl: int = setting(
        DEFAULT_RECORD_TTL,
        "seconds a finished match's record is kept with --redis or --data",
        positive(int),
    )
    archive_days: float = setting(365.0, "days Redis keeps an archived match", positive(float))
    max_games: int = setting(20_000, "matches the archive keeps without Redis", positive(int))
    keep_patches: int = setting(
        32, "changes a room keeps for returning players (more missed: a snapshot)", positive(int)
    )
    reviews_kept: int = setting(256, "reviews of games kept in memory", positive(int))
    cluster_lease: float = setting(
        3.0,
        "with several processes on one Redis: seconds a process's lease lasts unless renewed",
        positive(float),
    )


@dataclass(frozen=True)
class Bots:
    """The bots' pace and the worker processes of bots, hints and reviews."""

    bot_delay: float = setting(0.6, "seconds between bot moves", seconds)
    hard_budget_ms: float | None = setting(
        200.0, "the hard bot's search per decision in ms (off: no bound)", milliseconds_or_off
    )
    bot_workers: int = setting(1, "processes for the hard bot of rooms' bots", positive(int))
    bot_processes: bool = setting(
        True, "run bots, hints and reviews in worker processes (no: in the server's)", yes_or_no
    )
    hint_workers: int = setting(1, "processes for hints (apart from rooms' bots)", positive(int))
    review_workers: int = setting(
        1,
        "processes for the hard bot's reviews of games (apart from bots and hints)",
        positive(int),
    )
    review_budget_ms: float = setting(
        50.0, "the review's search per decision, in ms of the hard bot's pace", positive(float)
    )


@dataclass(frozen=True)
class Timing:
    """How long seats, turns, connections and rooms wait."""

    away_seconds: float = setting(60.0, "how long an away player's turn waits for them", seconds)
    idle_seconds: float = setting(
        300.0,
        "without a turn clock, how long a connected player's turn waits before a stand-in "
        "takes the seat (0: for ever)",
        seconds,
    )
    empty_room_seconds: float = setting(600.0, "how long an empty room is kept", seconds)
    release_seconds: float = setting(
        60.0, "how long a waiting room keeps the seat of a player who is gone", positive(float)
    )
    hello_seconds: float = setting(
        10.0, "how long a new connection may wait to say hello", positive(float)
    )
    drain_seconds: float = setting(
        0.0, "on SIGTERM, seconds of answering 503 to newcomers before closing", seconds
    )
    sweep_seconds: float = setting(
        10.0, "how often rooms are swept (expired, saved, released)", positive(float)
    )


#: The groups of a `Config`, by attribute.
GROUPS: dict[str, type[Any]] = {
    "network": Network,
    "limits": Limits,
    "storage": Storage,
    "bots": Bots,
    "timing": Timing,
}


#: Every setting, in the order of its group and declaration.
SETTINGS: tuple[Setting, ...] = tuple(settings_of(GROUPS))


def _group_of() -> dict[str, str]:
    """Each setting's group; a name in two groups is a mistake caught at import."""
    where: dict[str, str] = {}
    for item in SETTINGS:
        if item.name in where:
            raise TypeError(f"setting {item.name} is in {where[item.name]} and {item.group}")
        where[item.name] = item.group
    return where


#: setting -> the group that holds it (`max_size` -> "limits").
GROUP_OF: dict[str, str] = _group_of()

#: What the wiring gives the server beside its settings: live parts, not settings.
PARTS = ("store", "ledger", "clock")


@dataclass
class Config:
    """Everything the server can be told: its settings in frozen groups, each fit for a
    friends' game by default, and the live parts that wiring (or a test) hands it."""

    network: Network = field(default_factory=Network)
    limits: Limits = field(default_factory=Limits)
    storage: Storage = field(default_factory=Storage)
    bots: Bots = field(default_factory=Bots)
    timing: Timing = field(default_factory=Timing)
    #: Where rooms are kept; None: built from `storage` (`server.storage.stores.open_store`).
    store: Store | None = field(default=None, repr=False)
    #: Players, ratings and the match archive (`server.storage.archive`); None: the store's
    #: (Redis beside the rooms, else SQLite in memory, or in a file under `storage.data`).
    ledger: Ledger | None = field(default=None, repr=False)
    #: The wall clock rooms are stamped with (seats away, deadlines, expiry).
    clock: Clock = field(default=time.time, repr=False)

    @classmethod
    def of(cls, **settings: Any) -> Config:
        """A config with these settings and parts, each by its name (`port=0`, `store=...`),
        the rest defaults."""
        config = cls()
        for name, value in settings.items():
            config.set(name, value)
        return config

    def set(self, name: str, value: Any) -> None:
        """Set one setting or part by its name (TypeError for a name there is not)."""
        if name in PARTS:
            setattr(self, name, value)
            return
        if name not in GROUP_OF:
            raise TypeError(f"no setting {name!r}")
        group = GROUP_OF[name]
        setattr(self, group, dataclasses.replace(getattr(self, group), **{name: value}))

    def get(self, name: str) -> Any:
        """One setting by its name."""
        if name not in GROUP_OF:
            raise TypeError(f"no setting {name!r}")
        return getattr(getattr(self, GROUP_OF[name]), name)

    def settings(self) -> dict[str, Any]:
        """Every setting and part by its name, as `Config.of` takes them."""
        return {name: self.get(name) for name in GROUP_OF} | {
            name: getattr(self, name) for name in PARTS
        }

    def problems(self) -> list[str]:
        """Settings that contradict each other, each as one line naming the options."""
        found: list[str] = []
        network, limits, storage = self.network, self.limits, self.storage
        if bool(network.certfile) != bool(network.keyfile):
            found.append("--certfile and --keyfile go together")
        if storage.redis_url and storage.data:
            found.append(
                "--redis and --data are two places to keep the same rooms: give one of them"
            )
        if limits.max_connections_per_ip > limits.max_connections:
            found.append(
                f"--max-connections-per-ip {limits.max_connections_per_ip} is more than "
                f"--max-connections {limits.max_connections}"
            )
        if limits.max_rooms_per_ip > limits.max_rooms:
            found.append(
                f"--max-rooms-per-ip {limits.max_rooms_per_ip} is more than "
                f"--max-rooms {limits.max_rooms}"
            )
        return found
