"""`RedisStore`: rooms and records in Redis through asyncio_redis, for `allfives serve --redis`.

Keys (every key starts with `prefix`, "allfives:" by default):

- `allfives:room:<CODE>`: a hash with `seq` and `state` (the room's bytes); `server.cluster.membership` adds
  `version` and its other fields. It expires `room_ttl` seconds after its last save.
- `allfives:rooms`: the set of room codes (`server.cluster.membership` prunes codes whose room expired).
- `allfives:record:<CODE>/<N>`: a finished match's `allfives-record/1` JSON, kept `record_ttl`
  seconds.

Every call goes through one connection, `link` (`server.storage.redis_link`: each call bounded by
`timeout` seconds by its watchdog, a stall, a lost connection or an error reply raising
`StoreUnavailable`, a lost connection re-opened in the background); the ledger
(`server.storage.archive_redis`) and the cluster (`server.cluster`) call through it too.
`redis_ms` is Redis's clock, for the deadlines of `server.cluster.membership`'s saves.

With `--redis` the server saves rooms through `server.cluster.membership` (a compare-and-set on the room's
version); `save_room` here is a plain write, for tools and tests. See docs/persistence.md.
"""

from __future__ import annotations

import logging
from typing import NamedTuple

import asyncio_redis

from server.storage.redis_link import DEFAULT_TIMEOUT, RedisLink, parse_url, run_script
from server.storage.store import (
    DEFAULT_RECORD_TTL,
    DEFAULT_ROOM_TTL,
    NO_VERSION,
    Store,
    StoredRoom,
    StoreUnavailable,
)
from server.storage.tournaments_redis import RedisTournaments

log = logging.getLogger("allfives.store")


class HeldRoom(NamedTuple):
    """A room as Redis holds it: seq, version (server.cluster), state as last written whole,
    and the moves logged since (`StoredRoom`)."""

    seq: int
    version: str
    state: bytes
    moves: tuple[bytes, ...] = ()


#: KEYS: room, room set. ARGV: seq, state, ttl, code. A plain write of a room (`save_room`).
WRITE_ROOM = """
redis.call('HSET', KEYS[1], 'seq', ARGV[1], 'state', ARGV[2], 'base', ARGV[1])
redis.call('EXPIRE', KEYS[1], ARGV[3])
redis.call('SADD', KEYS[2], ARGV[4])
return 1
"""


class RedisStore(Store):
    """Rooms and records in Redis; see the module docstring for keys, guard and failures."""

    shared = True

    def __init__(
        self,
        url: str,
        *,
        record_ttl: int = DEFAULT_RECORD_TTL,
        room_ttl: int = DEFAULT_ROOM_TTL,
        timeout: float = DEFAULT_TIMEOUT,
        prefix: str = "allfives:",
    ) -> None:
        if record_ttl <= 0 or room_ttl <= 0:
            raise ValueError("record and room lifetimes must be a positive number of seconds")
        #: The connection all of it goes through (`server.storage.redis_link`).
        self.link = RedisLink(parse_url(url), timeout)
        self.address = self.link.address
        self.record_ttl = record_ttl
        self.room_ttl = room_ttl
        self.timeout = timeout
        self.prefix = prefix.encode()
        self.tournaments = RedisTournaments(self.link.call, run_script, self.prefix)

    # -- keys ------------------------------------------------------------------------------

    def room_key(self, code: str) -> bytes:
        """The key of a room's hash."""
        return self.prefix + b"room:" + code.encode()

    @property
    def rooms_key(self) -> bytes:
        """The key of the set of room codes."""
        return self.prefix + b"rooms"

    def record_key(self, key: str) -> bytes:
        """The key of a kept record."""
        return self.prefix + b"record:" + key.encode()

    # -- the Store interface ---------------------------------------------------------------

    async def save_room(self, code: str, seq: int, state: bytes) -> None:
        """Write a room at `seq`, unconditionally (the server saves through `server.cluster.membership`)."""

        keys = [self.room_key(code), self.rooms_key]
        args = [str(seq).encode(), state, str(self.room_ttl).encode(), code.encode()]
        await self.link.call(f"save room {code}", lambda c: run_script(c, WRITE_ROOM, keys, args))

    async def load_room(self, code: str) -> StoredRoom | None:
        """The saved state of a room, or None (its code is then dropped from the set)."""

        stored = await self.read_room(code)
        if stored is None:
            await self.link.call(
                f"forget room {code}", lambda c: c.srem(self.rooms_key, [code.encode()])
            )
            return None
        return StoredRoom(stored.seq, stored.state, stored.moves)

    async def read_room(self, code: str) -> HeldRoom | None:
        """A room's hash in one read: its seq, version, state and the moves logged since (for
        `server.rooms.notes.with_moves`); None when Redis holds no room."""

        async def run(connection: asyncio_redis.Connection) -> dict[bytes, bytes]:
            reply = await connection.hgetall(self.room_key(code))
            fields: dict[bytes, bytes] = await reply.asdict()
            return fields

        fields = await self.link.call(f"load room {code}", run)
        seq, state = fields.get(b"seq"), fields.get(b"state")
        if seq is None or state is None:
            return None
        top = int(seq)
        base = int(fields.get(b"base", seq))
        moves = tuple(fields.get(b"m:%d" % logged, b"") for logged in range(base + 1, top + 1))
        if not all(moves):
            log.error(
                "room %s as Redis holds it does not read back: a logged move is missing", code
            )
            raise StoreUnavailable(
                f"room {code} as stored does not read back: a logged move is missing"
            )
        version = fields.get(b"version")
        return HeldRoom(top, version.decode() if version else NO_VERSION, state, moves)

    async def delete_room(self, code: str) -> None:
        """Forget a room."""

        async def run(connection: asyncio_redis.Connection) -> None:
            await connection.delete([self.room_key(code)])
            await connection.srem(self.rooms_key, [code.encode()])

        await self.link.call(f"delete room {code}", run)

    async def room_codes(self) -> list[str]:
        """The codes of every saved room."""

        async def run(connection: asyncio_redis.Connection) -> set[bytes]:
            members: set[bytes] = await (await connection.smembers(self.rooms_key)).asset()
            return members

        return sorted(code.decode() for code in await self.link.call("list rooms", run))

    async def save_record(self, key: str, record: bytes) -> None:
        """Keep a finished match's record for `record_ttl` seconds."""
        await self.link.call(
            f"save record {key}",
            lambda c: c.set(self.record_key(key), record, expire=self.record_ttl),
        )

    async def load_record(self, key: str) -> bytes | None:
        """A kept record, or None."""
        record: bytes | None = await self.link.call(
            f"load record {key}", lambda c: c.get(self.record_key(key))
        )
        return record

    async def close(self) -> None:
        """Close the connection and stop reconnecting."""
        await self.link.close()

    # -- connection ------------------------------------------------------------------------

    @property
    def connected(self) -> bool:
        """Whether a connection to Redis is open right now."""
        return self.link.connected

    def redis_ms(self) -> int:
        """Redis's clock now, in milliseconds (`RedisLink.redis_ms`)."""
        return self.link.redis_ms()

    async def ping(self) -> None:
        """Check that Redis answers (StoreUnavailable if not)."""
        await self.link.call("ping", lambda c: c.ping())


__all__ = ["HeldRoom", "RedisStore"]
