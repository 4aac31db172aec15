"""`RedisLedger`: players, ratings and finished matches in Redis, beside the rooms.

It talks through the `RedisStore`'s connection (every call bounded, `StoreUnavailable` on a
failure) and changes things only with the Lua scripts of `server.storage.archive_scripts`, so
any number of server processes may claim names, spend link codes and archive games at once:
a name goes to one key, a code is spent once, and a game's ratings are written only if every
rating it was computed from is still the one read (else `Conflict`: read and rate again).

Archived games expire `retention` seconds after they finished (`--archive-days`, 365 days by
default); a player's index drops entries past it as it is written and read. Players, keys and
ratings do not expire. See docs/persistence.md.
"""

from __future__ import annotations

import secrets
from collections.abc import Callable, Sequence
from typing import Any

import asyncio_redis
import msgspec

from protocol.api import RatingPoint
from protocol.ratings import LADDERS, LadderName
from server.storage.archive import (
    MAX_HISTORY_POINTS,
    MAX_KEYS,
    MAX_LINKS,
    Archived,
    ClaimBudget,
    Committed,
    Conflict,
    Exists,
    KeptPoint,
    Ledger,
    Limited,
    Player,
    RatingWrite,
    StoredRating,
    members_of,
    refolded,
)
from server.storage.archive_scripts import (
    ADD_LINK,
    ARCHIVE,
    CLAIM_WITHIN,
    GAMES_OF,
    LADDER,
    REFOLD,
    RELEASE,
    SET_RECOVERY,
    USE_LINK,
    USE_RECOVERY,
)
from server.storage.redis_link import run_script
from server.storage.redis_store import RedisStore

#: What `released_name` puts between a released name and its id's end (the script builds it).
RELEASED_SEPARATOR = "#"
DAY = 24 * 60 * 60
DEFAULT_RETENTION = 365 * DAY

_archived_encoder = msgspec.json.Encoder()
_archived_decoder = msgspec.json.Decoder(Archived)
_rating_decoder = msgspec.json.Decoder(StoredRating)
_point_decoder = msgspec.json.Decoder(KeptPoint)


class RedisLedger(Ledger):
    """The ledger in Redis (module docstring)."""

    def __init__(self, store: RedisStore, retention: int = DEFAULT_RETENTION) -> None:
        if retention <= 0:
            raise ValueError("the archive's retention must be a positive number of seconds")
        self.store = store
        self.retention = retention
        self.prefix = store.prefix

    def _key(self, *parts: str) -> bytes:
        return self.prefix + "".join(parts).encode()

    async def _script(self, what: str, source: str, args: Sequence[str | bytes]) -> Any:
        encoded = [self.prefix, *(a.encode() if isinstance(a, str) else a for a in args)]
        return await self.store.link.call(what, lambda c: run_script(c, source, [], encoded))

    async def _get(self, what: str, key: bytes) -> bytes | None:
        value: bytes | None = await self.store.link.call(what, lambda c: c.get(key))
        return value

    async def _hget(self, what: str, key: bytes, field: str) -> bytes | None:
        value: bytes | None = await self.store.link.call(
            what, lambda c: c.hget(key, field.encode())
        )
        return value

    # -- players -----------------------------------------------------------------------------

    async def player_of_key(self, hashed: str) -> Player | None:
        id = await self._hget("find a key", self._key("pkeys"), hashed)
        return None if id is None else await self.player(id.decode())

    async def player_named(self, fold: str) -> Player | None:
        id = await self._hget("find a name", self._key("pnames"), fold)
        return None if id is None else await self.player(id.decode())

    async def player(self, id: str) -> Player | None:
        name = await self._hget("read a player", self._key("player:", id), "name")
        return None if name is None else Player(id, name.decode())

    async def names(self, ids: list[str]) -> dict[str, str]:
        found: dict[str, str] = {}
        for id in ids:
            player = await self.player(id)
            if player is not None:
                found[id] = player.name
        return found

    async def claim_within(
        self, hashed: str, name: str, fold: str, now: float, budget: ClaimBudget
    ) -> Player | Limited | None:
        id = "p:" + secrets.token_hex(8)
        args = [hashed, fold, name, id, repr(now), budget.address, str(budget.burst)]
        answer = await self._script("claim a name", CLAIM_WITHIN, [*args, repr(budget.per_second)])
        status, id, held = msgspec.json.decode(answer)
        if status == "limited":
            return Limited()
        return None if status == "taken" else Player(id, held)

    async def add_link(self, player: str, code: str, now: float, seconds: int) -> bool:
        args = [player, code, str(seconds), str(MAX_LINKS), repr(now)]
        return bool(await self._script("keep a link code", ADD_LINK, args))

    async def use_link(self, code: str, hashed: str, now: float) -> Player | None:
        answer = await self._script(
            "use a link code", USE_LINK, [code, hashed, repr(now), str(MAX_KEYS)]
        )
        if not answer:
            return None
        id, name = msgspec.json.decode(answer)
        return Player(id, name)

    async def set_recovery(self, player: str, hashed: str, drop_keys: bool = False) -> None:
        args = [player, hashed, "1" if drop_keys else "0"]
        await self._script("keep a recovery code", SET_RECOVERY, args)

    async def use_recovery(self, hashed: str, key: str, now: float) -> Player | None:
        answer = await self._script(
            "use a recovery code", USE_RECOVERY, [hashed, key, repr(now), str(MAX_KEYS)]
        )
        if not answer:
            return None
        id, name = msgspec.json.decode(answer)
        return Player(id, name)

    async def refold(self, rule: str, key_of: Callable[[str], str]) -> list[str]:
        if await self._get("read the fold rule", self._key("foldrule")) == rule.encode():
            return []

        async def names(connection: Any) -> dict[bytes, bytes]:
            reply = await connection.hgetall(self._key("pnames"))
            found: dict[bytes, bytes] = await reply.asdict()
            return found

        owned = await self.store.link.call("read the names", names)
        players: list[tuple[float, str, str, str]] = []
        for held, owner in owned.items():
            player = self._key("player:", owner.decode())
            name = await self._hget("read a player", player, "name")
            created = await self._hget("read a player", player, "created")
            if name is not None:
                when = float(created) if created is not None else 0.0
                players.append((when, owner.decode(), name.decode(), held.decode()))
        players.sort()
        folds, clashes = refolded([(i, n, f) for _, i, n, f in players], key_of)
        args: list[str] = [rule]
        for _, player_id, _, old in players:
            if folds[player_id] != old:
                args += [player_id, old, folds[player_id]]
        await self._script("fold the names again", REFOLD, args)
        return clashes

    async def release(self, fold: str) -> Player | None:
        answer = await self._script("release a name", RELEASE, [fold, RELEASED_SEPARATOR])
        if not answer:
            return None
        id, name = msgspec.json.decode(answer)
        return Player(id, name)

    # -- ratings and games -------------------------------------------------------------------

    async def ratings(
        self, ladder: LadderName, players: list[str]
    ) -> dict[str, tuple[StoredRating, str]]:
        found: dict[str, tuple[StoredRating, str]] = {}
        for player in players:
            held = await self._hget("read a rating", self._key("rating:", ladder), player)
            if held is not None:
                found[player] = (_rating_decoder.decode(held), held.decode())
        return found

    async def commit_game(
        self, archived: Archived, writes: list[RatingWrite], now: float
    ) -> Committed | Conflict | Exists:
        detail = archived.detail
        members = members_of(archived)
        args: list[str | bytes] = [
            detail.id,
            _archived_encoder.encode(archived),
            repr(detail.finished_at),
            str(self.retention),
            "0" if detail.private else "1",
            repr(now),
            str(MAX_HISTORY_POINTS),
            str(len(members)),
        ]
        for player, won in members:
            args += [player, "1" if won else "0"]
        for write in writes:
            rating = write.rating
            args += [
                write.ladder,
                write.player,
                write.expected or "",
                msgspec.json.encode(rating),
                repr(rating.mu - 3 * rating.sigma),
                msgspec.json.encode(KeptPoint(write.point, write.private)),
            ]
        answer: bytes = await self._script(f"archive game {detail.id}", ARCHIVE, args)
        if answer[:1] == b"0":
            return Exists(_archived_decoder.decode(answer[1:]))
        return Committed() if answer == b"1" else Conflict()

    async def game(self, id: str) -> Archived | None:
        data = await self._get("read a game", self._key("game:", id))
        return None if data is None else _archived_decoder.decode(data)

    async def games_of(
        self, player: str, everything: bool, offset: int, limit: int
    ) -> tuple[int, list[Archived]]:
        cutoff = self.store.redis_ms() / 1000 - self.retention
        args = [player, "1" if everything else "0", str(offset), str(limit), repr(cutoff)]
        total, games = msgspec.json.decode(await self._script("list games", GAMES_OF, args))
        return int(total), [_archived_decoder.decode(game) for game in games]

    async def counts(self, player: str, everything: bool) -> tuple[int, int]:
        key = self._key("stats:", player)
        fields = ("games", "wins") if everything else ("public_games", "public_wins")
        games = await self._hget("read counts", key, fields[0])
        wins = await self._hget("read counts", key, fields[1])
        return int(games or 0), int(wins or 0)

    async def history(self, player: str, everything: bool) -> list[RatingPoint]:
        key = self._key("hist:", player)

        async def run(connection: asyncio_redis.Connection) -> list[bytes]:
            reply = await connection.lrange(key, 0, -1)
            items: list[bytes] = await reply.aslist()
            return items

        kept = [_point_decoder.decode(item) for item in await self.store.link.call("history", run)]
        return [k.point for k in kept if everything or not k.private]

    async def standings(self, player: str) -> dict[LadderName, StoredRating]:
        found: dict[LadderName, StoredRating] = {}
        for ladder in LADDERS:
            held = await self._hget("read a rating", self._key("rating:", ladder), player)
            if held is not None:
                found[ladder] = _rating_decoder.decode(held)
        return found

    async def ladder(
        self, ladder: LadderName, limit: int
    ) -> tuple[int, list[tuple[str, StoredRating]]]:
        answer = await self._script("read a ladder", LADDER, [ladder, str(limit)])
        total, rows = msgspec.json.decode(answer)
        return int(total), [(id, _rating_decoder.decode(held)) for id, held in rows if held]


__all__ = ["DEFAULT_RETENTION", "RedisLedger"]
