"""`allfives admin`: the operator's hand on the names, against the store a server uses.

The same ledger the server keeps players in (`--data DIR`'s SQLite file, or Redis with
`--redis URL`), opened directly, so it works with the server running or stopped:

- `allfives admin --data DIR show NAME`: who owns a name (its player id and how many keys);
- `allfives admin --data DIR release NAME`: free a name: its player keeps its games and ratings
  under its id, renamed "NAME#abcd" (the end of its id), and loses its keys, link codes and
  recovery code; anyone may claim the name next;
- `allfives admin --data DIR recover NAME [--drop-keys]`: move a name to a new device: a new
  recovery code for its player is printed, once, for the operator to hand to the owner (who
  types it where a link code goes); any older code stops working; `--drop-keys` drops the
  player's keys as well (a device that should no longer be the player).

Each change is logged (the `allfives.admin` logger, on stderr: the name, the player id, never a
code). A connection already greeted keeps the player it greeted as until it reconnects.
"""

from __future__ import annotations

import argparse
import asyncio
import logging
import os
import sys
from pathlib import Path

from protocol import codes
from protocol.names import name_key
from server.play.players import new_recovery_code
from server.storage.archive import Ledger, key_hash, released_name
from server.storage.archive_local import FILE_NAME, LocalLedger
from server.storage.store import StoreUnavailable

log = logging.getLogger("allfives.admin")


def add_arguments(parser: argparse.ArgumentParser) -> None:
    """The options of `allfives admin`."""
    parser.add_argument(
        "--data", metavar="DIR", help="the server's --data directory [$ALLFIVES_DATA]"
    )
    parser.add_argument(
        "--redis",
        metavar="URL",
        help="the server's Redis, redis://host:port/db [$ALLFIVES_REDIS_URL]",
    )
    actions = parser.add_subparsers(dest="action", required=True, metavar="ACTION")
    show = actions.add_parser("show", help="who owns a name")
    show.add_argument("name")
    release = actions.add_parser("release", help="free a name for anyone to claim")
    release.add_argument("name")
    recover = actions.add_parser("recover", help="print a new recovery code for a name's player")
    recover.add_argument("name")
    recover.add_argument(
        "--drop-keys", action="store_true", help="drop the player's keys too (its devices)"
    )


def run(args: argparse.Namespace) -> int:
    """Do the action; returns the exit status (1: nobody owns the name, or the store cannot be
    reached or read; 2: no store named, or a --data directory holding no ledger)."""
    logging.basicConfig(
        level=logging.INFO, format="%(asctime)s %(levelname)s %(name)s: %(message)s"
    )
    redis = args.redis or os.environ.get("ALLFIVES_REDIS_URL")
    data = args.data or os.environ.get("ALLFIVES_DATA")
    if not redis and not data:
        print("allfives admin: name the server's store: --data DIR or --redis URL", file=sys.stderr)
        return 2
    if not redis and not (Path(str(data)) / FILE_NAME).is_file():
        # A wrong directory would otherwise be made into an empty ledger.
        print(f"allfives admin: no ledger in {data} (no {FILE_NAME}): is it the server's --data?")
        return 2
    try:
        return asyncio.run(_run(args, redis, data))
    except StoreUnavailable as error:
        print(f"allfives admin: cannot use the ledger: {error}", file=sys.stderr)
        return 1


async def _run(args: argparse.Namespace, redis: str | None, data: str | None) -> int:
    ledger: Ledger
    if redis:
        from server.storage.archive_redis import RedisLedger
        from server.storage.redis_store import RedisStore

        store = RedisStore(redis)
        ledger = RedisLedger(store)
    else:
        ledger = LocalLedger(data)
    try:
        return await act(ledger, args.action, args.name, getattr(args, "drop_keys", False))
    finally:
        await ledger.close()
        if redis:
            await store.close()


async def act(ledger: Ledger, action: str, name: str, drop_keys: bool = False) -> int:
    """One action on `ledger` (module docstring), its answer printed; the exit status."""
    fold = name_key(name)
    player = await ledger.player_named(fold)
    if player is None:
        print(f"nobody owns the name {name!r}")
        return 1
    if action == "show":
        print(f"{player.name!r} is player {player.id}")
        return 0
    if action == "release":
        await ledger.release(fold)
        renamed = released_name(player.name, player.id)
        log.warning("released the name %r: player %s is now %r", player.name, player.id, renamed)
        print(f"the name {player.name!r} is free; its player {player.id} is now {renamed!r}")
        return 0
    code = new_recovery_code()
    await ledger.set_recovery(player.id, key_hash(code), drop_keys=drop_keys)
    dropped = " and dropped its keys" if drop_keys else ""
    log.warning("new recovery code for %r (player %s)%s", player.name, player.id, dropped)
    print(f"recovery code for {player.name!r}: {codes.shown_recovery_code(code)}")
    print("give it to the owner only: it restores the name on any device, and is shown once")
    return 0
