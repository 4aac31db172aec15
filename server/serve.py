"""`allfives serve`: run the game server until SIGTERM or Ctrl-C.

Every option can also come from an environment variable `ALLFIVES_<OPTION>` (for example
`ALLFIVES_PORT=9000`, `ALLFIVES_MAX_ROOMS_PER_IP=4`); a command-line option wins over the
environment. It listens on loopback unless told otherwise (`--host 0.0.0.0`) and logs to stderr.
"""

from __future__ import annotations

import argparse
import asyncio
import errno
import ipaddress
import logging
import os
import resource
import signal
import sys
from collections.abc import Callable
from pathlib import Path
from typing import Any

from server.app import Config, Server
from server.collector import Collector
from server.config import ProxyNetworks
from server.edge.address import reachable_url
from server.storage.sqlite_store import SqliteStore
from server.storage.store import DEFAULT_RECORD_TTL, StoreUnavailable


class CannotListen(Exception):
    """The server could not listen on its address (the port is in use, or not allowed)."""


def yes_or_no(text: str) -> bool:
    """Read yes/no, true/false, on/off or 1/0."""
    words = {"yes": True, "true": True, "on": True, "1": True}
    words |= {"no": False, "false": False, "off": False, "0": False}
    if text.strip().lower() not in words:
        raise ValueError(f"expected yes or no, not {text!r}")
    return words[text.strip().lower()]


def proxies(text: str) -> bool | ProxyNetworks:
    """yes/no, or the proxies' addresses or networks, comma-separated (127.0.0.2,10.0.0.0/8)."""
    try:
        return yes_or_no(text)
    except ValueError:
        pass
    try:
        return tuple(ipaddress.ip_network(part.strip()) for part in text.split(","))
    except ValueError:
        raise BadValue(
            f"expected yes, no or the proxies' addresses (127.0.0.2,10.0.0.0/8), not {text!r}"
        ) from None


class BadValue(argparse.ArgumentTypeError, ValueError):
    """A value an option cannot take (argparse shows its message; config_from reports it too)."""


def port_number(text: str) -> int:
    """A TCP port: 0 (any free one) to 65535."""
    try:
        value = int(text)
    except ValueError:
        value = -1
    if not 0 <= value <= 65535:
        raise BadValue(f"{text!r} is not a port: 0 to 65535")
    return value


def seconds_or_off(text: str) -> float:
    """A number of seconds, 0 or more (0: off)."""
    try:
        value = float(text)
    except ValueError:
        raise BadValue(f"{text!r} is not a number") from None
    if not value >= 0:
        raise BadValue(f"{text!r} is below zero")
    return value


def positive(kind: Callable[[str], Any]) -> Callable[[str], Any]:
    """A number of `kind` above zero."""

    def read(text: str) -> Any:
        try:
            value = kind(text)
        except ValueError:
            raise BadValue(f"{text!r} is not a number") from None
        if not value > 0:
            raise BadValue(f"{text!r} is not above zero")
        return value

    read.__name__ = kind.__name__
    return read


#: option -> (type, the setting it sets in `Config` (in its group), help).
OPTIONS: dict[str, tuple[Callable[[str], Any], str, str]] = {
    "host": (str, "host", "address to listen on (default 127.0.0.1: this machine only)"),
    "port": (port_number, "port", "port to listen on (default 8765; 0 picks a free one)"),
    "certfile": (str, "certfile", "TLS certificate (PEM) to serve wss://"),
    "keyfile": (str, "keyfile", "TLS private key (PEM) for --certfile"),
    "max-size": (
        positive(int),
        "max_size",
        "largest frame in bytes; bigger ones close the connection",
    ),
    "rate": (positive(float), "rate", "messages a second one connection may send on average"),
    "burst": (positive(int), "burst", "messages one connection may send at once"),
    "max-connections-per-ip": (
        positive(int),
        "max_connections_per_ip",
        "connections per client address",
    ),
    "max-rooms-per-ip": (positive(int), "max_rooms_per_ip", "open rooms per client address"),
    "rooms-per-hour": (
        positive(float),
        "rooms_per_hour",
        "rooms one client address may create an hour, after --rooms-burst at once",
    ),
    "rooms-burst": (positive(int), "rooms_burst", "rooms one client address may create at once"),
    "max-rooms": (positive(int), "max_rooms", "rooms this process holds in all, finished included"),
    "data": (
        str,
        "data",
        "directory for the rooms, players, ratings and the match archive without Redis "
        "(default: memory)",
    ),
    "archive-days": (positive(float), "archive_days", "days Redis keeps an archived match"),
    "max-games": (positive(int), "max_games", "matches the archive keeps without Redis"),
    "api-burst": (positive(int), "api_burst", "HTTP API requests one address may make at once"),
    "api-per-second": (
        positive(float),
        "api_per_second",
        "HTTP API requests one address may make a second, after --api-burst",
    ),
    "bot-delay": (float, "bot_delay", "seconds between bot moves"),
    "away-seconds": (float, "away_seconds", "how long an away player's turn waits for them"),
    "idle-seconds": (
        seconds_or_off,
        "idle_seconds",
        "without a turn clock, how long a connected player's turn waits before a stand-in "
        "takes the seat (0: for ever)",
    ),
    "empty-room-seconds": (float, "empty_room_seconds", "how long an empty room is kept"),
    "drain-seconds": (
        float,
        "drain_seconds",
        "on SIGTERM, seconds of answering 503 to newcomers before closing (default 0)",
    ),
    "bot-workers": (positive(int), "bot_workers", "processes for the hard bot of rooms' bots"),
    "hint-workers": (positive(int), "hint_workers", "processes for hints (apart from rooms' bots)"),
    "review-workers": (
        positive(int),
        "review_workers",
        "processes for the hard bot's reviews of games (apart from bots and hints)",
    ),
    "review-budget-ms": (
        positive(float),
        "review_budget_ms",
        "the review's search per decision, in ms of the hard bot's pace",
    ),
    "max-reviews-waiting": (
        positive(int),
        "max_reviews_waiting",
        "games reviewed or waiting at once; more get HTTP 503 busy",
    ),
    "max-connections": (
        positive(int),
        "max_connections",
        "open connections in all; more get HTTP 503",
    ),
    "hello-seconds": (
        positive(float),
        "hello_seconds",
        "how long a new connection may wait to say hello",
    ),
    "release-seconds": (
        positive(float),
        "release_seconds",
        "how long a waiting room keeps the seat of a player who is gone",
    ),
    "allowed-origin": (
        str,
        "allowed_origin",
        "browser pages allowed to connect (their Origin, comma-separated); unset: any",
    ),
    "trust-proxy": (
        proxies,
        "trust_proxy",
        "take client addresses from X-Real-IP / X-Forwarded-For on sockets from these proxy "
        "addresses or networks (comma-separated), or from any socket (yes: only when nothing "
        "but your proxy can reach the server)",
    ),
}


LOG_LEVELS = ("DEBUG", "INFO", "WARNING", "ERROR", "CRITICAL")


def add_arguments(parser: argparse.ArgumentParser) -> None:
    """The options of `allfives serve`."""
    defaults = Config()
    for option, (kind, name, text) in OPTIONS.items():
        variable = env_name(option)
        default = defaults.get(name)
        parser.add_argument(
            f"--{option}",
            type=kind,
            default=None,
            metavar="yes|no" if kind is yes_or_no else None,
            help=f"{text} [${variable}, default {_shown(default)}]",
        )
    parser.add_argument(
        "--redis",
        metavar="URL",
        help="keep rooms in Redis at redis://host:port/db instead of memory [$ALLFIVES_REDIS_URL]",
    )
    parser.add_argument(
        "--record-ttl",
        type=int,
        metavar="SECONDS",
        help="with --redis or --data, how long finished-match records are kept "
        "[$ALLFIVES_RECORD_TTL, default 30 days]",
    )
    parser.add_argument(
        "--log-level",
        type=str.upper,
        choices=LOG_LEVELS,
        default=os.environ.get("ALLFIVES_LOG_LEVEL", "INFO").upper(),
        help="how much the server logs to stderr [$ALLFIVES_LOG_LEVEL, default INFO]",
    )


def _shown(default: object) -> str:
    """A default as the option is written: yes/no for a yes-or-no option."""
    if default is None:
        return "none"
    return ("yes" if default else "no") if isinstance(default, bool) else str(default)


def env_name(option: str) -> str:
    """The environment variable of an option: --max-size -> ALLFIVES_MAX_SIZE."""
    return "ALLFIVES_" + option.upper().replace("-", "_")


def config_from(args: argparse.Namespace, environ: dict[str, str] | None = None) -> Config:
    """The server's config from options, then environment variables, then defaults."""
    environ = dict(os.environ) if environ is None else environ
    config = Config()
    for option, (kind, name, _) in OPTIONS.items():
        value = getattr(args, name, None)
        if value is None and env_name(option) in environ:
            value = kind(environ[env_name(option)])
        if value is not None:
            config.set(name, value)
    url = getattr(args, "redis", None) or environ.get("ALLFIVES_REDIS_URL")
    ttl = int(getattr(args, "record_ttl", None) or environ.get("ALLFIVES_RECORD_TTL") or 0)
    if url:
        from server.storage.redis_store import RedisStore

        config.storage.store = RedisStore(url, record_ttl=ttl or DEFAULT_RECORD_TTL)
    elif config.storage.data is not None:
        # Without Redis, --data keeps the rooms beside the ledger; it locks the directory
        # (DataInUse when another process holds it).
        config.storage.store = SqliteStore(
            config.storage.data, record_ttl=ttl or DEFAULT_RECORD_TTL
        )
    return config


def run(args: argparse.Namespace) -> int:
    """Run the server until SIGTERM or SIGINT; returns the exit status."""
    if args.log_level not in LOG_LEVELS:  # from $ALLFIVES_LOG_LEVEL, which argparse does not check
        levels = ", ".join(LOG_LEVELS)
        print(f"allfives serve: $ALLFIVES_LOG_LEVEL is not {levels}", file=sys.stderr)
        return 2
    logging.basicConfig(
        level=args.log_level, format="%(asctime)s %(levelname)s %(name)s: %(message)s"
    )
    try:
        config = config_from(args)
    except ValueError as error:
        logging.getLogger("allfives.server").error("bad setting: %s", error)
        return 2
    except StoreUnavailable as error:
        logging.getLogger("allfives.server").error("cannot open the saved rooms: %s", error)
        return 1
    if bool(config.network.certfile) != bool(config.network.keyfile):
        logging.getLogger("allfives.server").error("--certfile and --keyfile go together")
        return 2
    fit_to_file_limit(config)
    try:
        asyncio.run(serve_until_stopped(config))
    except StoreUnavailable as error:
        logging.getLogger("allfives.server").error("cannot load the saved rooms: %s", error)
        return 1
    except CannotListen as error:
        logging.getLogger("allfives.server").error("%s", error)
        return 1
    return 0


async def serve_until_stopped(config: Config) -> None:
    """Serve until SIGTERM or SIGINT, then close every connection with 1001 and return."""
    stop = asyncio.Event()
    loop = asyncio.get_running_loop()
    for signum in (signal.SIGTERM, signal.SIGINT):
        loop.add_signal_handler(signum, stop.set)
    server = Server(config)
    try:
        await server.start()
    except OSError as error:
        # Most often the port is taken: one line, no traceback.
        reason = "the address is already in use" if error.errno == errno.EADDRINUSE else error
        raise CannotListen(
            f"cannot listen on {config.network.host}:{config.network.port}: {reason}"
        ) from None
    print(f"allfives server listening on {server.url}", flush=True)
    print(how_to_join(reachable_url(server.url, config.network.host)), file=sys.stderr, flush=True)
    collector = Collector()
    try:
        collector.start()
        await stop.wait()
    finally:
        collector.stop()
        await server.stop()


#: File descriptors kept free of connections: Redis, the bot workers' pipes, files, the log.
SPARE_FILES = 64


def fit_to_file_limit(config: Config) -> None:
    """Raise this process's open-file limit to its hard limit, and keep `max_connections` under
    it, so that the server answers 503 ("the server is full") before it runs out of sockets
    rather than failing to accept them."""
    log = logging.getLogger("allfives.server")
    soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
    if hard == resource.RLIM_INFINITY or hard > soft:
        wanted = hard if hard != resource.RLIM_INFINITY else max(soft, 1 << 20)
        try:
            resource.setrlimit(resource.RLIMIT_NOFILE, (wanted, hard))
            soft = wanted
        except (ValueError, OSError) as error:
            log.warning("the open-file limit stays at %d: %s", soft, error)
    room = soft - SPARE_FILES
    if config.limits.max_connections > room:
        log.warning(
            "--max-connections %d is more than this process may open (%d files): %d instead",
            config.limits.max_connections,
            soft,
            max(1, room),
        )
        config.limits.max_connections = max(1, room)


def how_to_join(url: str) -> str:
    """What `serve` says under its listening line (on stderr: stdout keeps the one line that
    scripts read the URL from): the browser link, and the command a terminal joins with."""
    page = "http" + url.removeprefix("ws")  # wss:// -> https://: the browser table, same port
    command = f"{allfives_command()} join {url.rstrip('/')}"
    return f"  play in a browser:  {page}\n  or in a terminal:   {command}"


def allfives_command() -> str:
    """How allfives is run here, so that the printed line can be pasted: `uv run allfives`
    from a source checkout (its .venv beside pyproject.toml; not on PATH), else `allfives`
    (the clients' `local.command()` says the same; the server imports no client)."""
    prefix = Path(sys.prefix)
    if prefix.name == ".venv" and (prefix.parent / "pyproject.toml").is_file():
        return "uv run allfives"
    return "allfives"
