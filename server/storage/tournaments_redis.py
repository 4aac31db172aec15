"""Tournaments in Redis: a hash `PREFIX tournament:CODE` (`version`, `state`), the set
`PREFIX tournaments` of their codes, the sorted set `PREFIX tournaments:public` of the public
ones (scored by the time they were made) and, per address, the count `PREFIX tournaments:made:
ADDRESS` of those it made in its day (expiring with the day). A save is one Lua script that
checks the stored version and writes, and a creation one that checks the bounds and writes
(`server.storage.tournaments`), so of two processes doing either at once exactly one passes
where only one may. Kept without an expiry: a tournament goes when it is deleted."""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from typing import Any

import asyncio_redis

from server.storage.tournaments import (
    MAKER_WINDOW,
    Bounds,
    StoredTournament,
    TooManyTournaments,
    TournamentChanged,
    TournamentStore,
    check_version,
)

#: Runs one operation on the store's connection: (what, operation) -> its result.
Call = Callable[[str, Callable[[asyncio_redis.Connection], Awaitable[Any]]], Awaitable[Any]]
#: Runs a Lua script on a connection (`server.storage.redis_store.run_script`).
Script = Callable[[asyncio_redis.Connection, str, list[bytes], list[bytes]], Awaitable[Any]]

#: KEYS: the tournament, the set of codes. ARGV: version, state, code. Returns -1 when written,
#: else the version stored (0 for none).
SAVE_TOURNAMENT = """
local stored = tonumber(redis.call('HGET', KEYS[1], 'version') or '0')
if stored ~= tonumber(ARGV[1]) - 1 then return stored end
redis.call('HSET', KEYS[1], 'version', ARGV[1], 'state', ARGV[2])
redis.call('SADD', KEYS[2], ARGV[3])
return -1
"""


#: KEYS: the tournament, the set of codes, the public ones, the maker's count. ARGV: state,
#: code, public (1 or 0), per maker, most, the maker's window in seconds, now. Returns 0 when
#: made, -1 when the code is taken, -2 when the store is full, -3 when the maker made enough.
CREATE_TOURNAMENT = """
if redis.call('EXISTS', KEYS[1]) == 1 then return -1 end
if redis.call('SCARD', KEYS[2]) >= tonumber(ARGV[5]) then return -2 end
local made = tonumber(redis.call('GET', KEYS[4]) or '0')
if made >= tonumber(ARGV[4]) then return -3 end
if redis.call('INCR', KEYS[4]) == 1 then redis.call('EXPIRE', KEYS[4], ARGV[6]) end
redis.call('HSET', KEYS[1], 'version', '1', 'state', ARGV[1])
redis.call('SADD', KEYS[2], ARGV[2])
if ARGV[3] == '1' then redis.call('ZADD', KEYS[3], ARGV[7], ARGV[2]) end
return 0
"""

#: Redis's answer when a creation is refused by a bound.
REFUSED = {-2: "store", -3: "maker"}


class RedisTournaments(TournamentStore):
    """Tournaments in the Redis of a `RedisStore` (`call`: its calls, `script`: its scripts,
    `prefix`: its keys')."""

    def __init__(self, call: Call, script: Script, prefix: bytes) -> None:
        self._call = call
        self._script = script
        self.prefix = prefix

    def key(self, code: str) -> bytes:
        """The key of a tournament's hash."""
        return self.prefix + b"tournament:" + code.encode()

    @property
    def codes_key(self) -> bytes:
        """The key of the set of tournament codes."""
        return self.prefix + b"tournaments"

    @property
    def public_key(self) -> bytes:
        """The key of the sorted set of public tournaments (scored by when they were made)."""
        return self.prefix + b"tournaments:public"

    def made_key(self, maker: str) -> bytes:
        """The key of what an address made in its day."""
        return self.prefix + b"tournaments:made:" + maker.encode()

    async def create(self, code: str, state: bytes, public: bool, bounds: Bounds) -> None:
        keys = [self.key(code), self.codes_key, self.public_key, self.made_key(bounds.maker)]
        args = [
            state, code.encode(), b"1" if public else b"0", str(bounds.per_maker).encode(),
            str(bounds.most).encode(), str(int(MAKER_WINDOW)).encode(), repr(bounds.now).encode(),
        ]  # fmt: skip
        answer = int(
            await self._call(
                f"create tournament {code}",
                lambda c: self._script(c, CREATE_TOURNAMENT, keys, args),
            )
        )
        if answer == -1:
            raise TournamentChanged(code, 1, 1)
        if answer in REFUSED:
            raise TooManyTournaments(REFUSED[answer])

    async def public_page(self, offset: int, limit: int) -> tuple[int, list[str]]:
        async def run(connection: asyncio_redis.Connection) -> tuple[int, list[bytes]]:
            count = int(await connection.zcard(self.public_key))
            page = await connection.zrevrange(self.public_key, offset, offset + limit - 1)
            codes: dict[bytes, float] = await page.asdict()  # in the page's order
            return count, list(codes)

        count, codes = await self._call("list public tournaments", run)
        return count, [code.decode() for code in codes]

    async def save(self, code: str, version: int, state: bytes) -> None:
        check_version(version)
        keys = [self.key(code), self.codes_key]
        args = [str(version).encode(), state, code.encode()]
        stored = await self._call(
            f"save tournament {code}", lambda c: self._script(c, SAVE_TOURNAMENT, keys, args)
        )
        if int(stored) != -1:
            raise TournamentChanged(code, version, int(stored))

    async def load(self, code: str) -> StoredTournament | None:
        async def run(connection: asyncio_redis.Connection) -> dict[bytes, bytes]:
            fields: dict[bytes, bytes] = await (await connection.hgetall(self.key(code))).asdict()
            return fields

        fields = await self._call(f"load tournament {code}", run)
        version, state = fields.get(b"version"), fields.get(b"state")
        if version is None or state is None:
            return None
        return StoredTournament(int(version), state)

    async def codes(self) -> list[str]:
        async def run(connection: asyncio_redis.Connection) -> set[bytes]:
            members: set[bytes] = await (await connection.smembers(self.codes_key)).asset()
            return members

        return sorted(code.decode() for code in await self._call("list tournaments", run))

    async def delete(self, code: str) -> None:
        async def run(connection: asyncio_redis.Connection) -> None:
            await connection.delete([self.key(code)])
            await connection.srem(self.codes_key, [code.encode()])
            await connection.zrem(self.public_key, [code.encode()])

        await self._call(f"delete tournament {code}", run)
