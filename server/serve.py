"""`allfives serve`: run the game server until SIGTERM or Ctrl-C.

Every option can also come from an environment variable `ALLFIVES_<OPTION>` (for example
`ALLFIVES_PORT=9000`, `ALLFIVES_MAX_ROOMS_PER_IP=4`); a command-line option wins over the
environment. It listens on loopback unless told otherwise (`--host 0.0.0.0`) and logs to stderr.
"""

from __future__ import annotations

import argparse
import asyncio
import errno
import logging
import os
import resource
import signal
import sys
from pathlib import Path

from server.app import Config, Server
from server.collector import Collector
from server.config import SETTINGS
from server.edge.address import reachable_url
from server.settings import BadValue
from server.storage.store import StoreUnavailable
from server.storage.stores import open_store


class CannotListen(Exception):
    """The server could not listen on its address (the port is in use, or not allowed)."""


LOG_LEVELS = ("DEBUG", "INFO", "WARNING", "ERROR", "CRITICAL")


def add_arguments(parser: argparse.ArgumentParser) -> None:
    """The options of `allfives serve`: one for each setting of `Config`, and the log level."""
    for item in SETTINGS:
        parser.add_argument(
            item.option,
            dest=item.name,
            type=item.parse,
            default=None,
            metavar=item.metavar,
            help=f"{item.help} [${item.variable}, default {item.shown_default}]",
        )
    parser.add_argument(
        "--log-level",
        type=str.upper,
        choices=LOG_LEVELS,
        default=os.environ.get("ALLFIVES_LOG_LEVEL", "INFO").upper(),
        help="how much the server logs to stderr [$ALLFIVES_LOG_LEVEL, default INFO]",
    )


def config_from(args: argparse.Namespace, environ: dict[str, str] | None = None) -> Config:
    """The server's settings from options, then environment variables, then defaults
    (ValueError for a value a setting cannot take, or settings that contradict each other)."""
    environ = dict(os.environ) if environ is None else environ
    config = Config()
    for item in SETTINGS:
        value = getattr(args, item.name, None)
        if value is None and environ.get(item.variable, "") != "":
            try:
                value = item.parse(environ[item.variable])
            except ValueError as error:
                raise BadValue(f"${item.variable}: {error}") from None
        if value is not None:
            config.set(item.name, value)
    problems = config.problems()
    if problems:
        raise BadValue("; ".join(problems))
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
    try:
        config.store = open_store(config.storage)
    except StoreUnavailable as error:
        logging.getLogger("allfives.server").error("cannot open the saved rooms: %s", error)
        return 1
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
        config.set("max_connections", max(1, room))


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
