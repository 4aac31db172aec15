"""Tournaments in Redis: a hash `PREFIX tournament:CODE` (`version`, `state`) and the set
`PREFIX tournaments` of their codes. A save is one Lua script that checks the stored version
and writes (`server.storage.tournaments`), so of two processes saving the same version of a
tournament exactly one is stored. Kept without an expiry: a tournament goes when it is deleted."""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from typing import Any

import asyncio_redis

from server.storage.tournaments import (
    StoredTournament,
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

        await self._call(f"delete tournament {code}", run)
