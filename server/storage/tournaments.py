"""Where tournaments are kept: `TournamentStore`, one small async interface beside the rooms'
`Store`, and `MemoryTournaments`, its in-memory form (SQLite: `tournaments_sqlite`, Redis:
`tournaments_redis`). Each `Store` carries one as `store.tournaments`.

A tournament is kept whole, as bytes (`server.tournaments.stored`), with its `version`: 1 when
it is made, one more per change. A save names the version it writes and is stored only over the
version before it (none stored for version 1): a process that changed a tournament from an old
copy lost a race, and its save is refused with `TournamentChanged` rather than merged (not a
`StoreUnavailable`: the store answered). It then loads the tournament again and applies its
command to that (the commands are pure: `server.tournaments.state`). A save that failed raises
`server.storage.store.StoreUnavailable` and stored nothing, unless it is `in_doubt` (Redis:
sent, not answered); loading again tells which.

A tournament is made by `create`, which stores its version 1 only within two bounds, both
checked in the same step as the write so that processes creating at once on one store never
pass them: the tournaments stored in all (`Bounds.most`) and those made by one address in a
day (`Bounds.per_maker`, one count kept in the store for every process on it). A public
tournament is noted at its creation in an index of the public ones, newest first, from which
`public_page` reads one page of codes without reading the tournaments themselves.

The server stores a tournament before it shows anything of it (docs/tournaments.md).
"""

from __future__ import annotations

import abc
from dataclasses import dataclass

import msgspec

#: How long an address's count of tournaments made runs before it starts again from none.
MAKER_WINDOW = 86_400.0


class StoredTournament(msgspec.Struct, frozen=True):
    """A tournament as saved: its version and its state bytes."""

    version: int
    state: bytes


class TournamentChanged(Exception):
    """A save refused: the stored version (`stored`, 0 for none) is not the one before it."""

    def __init__(self, code: str, version: int, stored: int) -> None:
        super().__init__(
            f"tournament {code}: version {version} refused, version {stored} is stored"
        )
        self.code = code
        self.version = version
        self.stored = stored


class TooManyTournaments(Exception):
    """A creation refused by a bound: `store` (the store holds `Bounds.most`) or `maker` (the
    address made `Bounds.per_maker` in its day). Nothing was stored."""

    def __init__(self, bound: str) -> None:
        super().__init__(f"too many tournaments: {bound}")
        self.bound = bound


@dataclass(frozen=True)
class Bounds:
    """What a creation is checked against (`create`): at most `most` stored in all, and at
    most `per_maker` made by one address (`maker`, its budget key) in `MAKER_WINDOW` seconds
    from its first, as of `now` (wall-clock seconds)."""

    maker: str
    per_maker: int
    most: int
    now: float


def check_version(version: int) -> None:
    """A version a save may name (ValueError otherwise: a bug in the caller)."""
    if version < 1:
        raise ValueError(f"a tournament's versions start at 1, not {version}")


class TournamentStore(abc.ABC):
    """Saved tournaments, by code."""

    @abc.abstractmethod
    async def save(self, code: str, version: int, state: bytes) -> None:
        """Store `state` as `version`, over version - 1 only (TournamentChanged otherwise)."""

    @abc.abstractmethod
    async def create(self, code: str, state: bytes, public: bool, bounds: Bounds) -> None:
        """Store `state` as version 1 of a new tournament, listed among the public ones if
        `public`: TournamentChanged if the code is taken, TooManyTournaments past `bounds`."""

    @abc.abstractmethod
    async def public_page(self, offset: int, limit: int) -> tuple[int, list[str]]:
        """How many public tournaments are stored, and the codes of `limit` of them from
        `offset`, newest first."""

    @abc.abstractmethod
    async def load(self, code: str) -> StoredTournament | None:
        """The stored tournament, or None."""

    @abc.abstractmethod
    async def codes(self) -> list[str]:
        """The codes of every stored tournament, in order."""

    @abc.abstractmethod
    async def delete(self, code: str) -> None:
        """Forget a tournament."""


class MemoryTournaments(TournamentStore):
    """Tournaments in this process's memory (`MemoryStore`): gone when it exits."""

    def __init__(self) -> None:
        self.kept: dict[str, StoredTournament] = {}
        #: The public tournaments' codes, oldest first.
        self.public: list[str] = []
        #: Per maker: when its day began and how many it made since.
        self.made: dict[str, tuple[float, int]] = {}

    async def save(self, code: str, version: int, state: bytes) -> None:
        check_version(version)
        stored = self.kept.get(code)
        stored_version = 0 if stored is None else stored.version
        if stored_version != version - 1:
            raise TournamentChanged(code, version, stored_version)
        self.kept[code] = StoredTournament(version, bytes(state))

    async def create(self, code: str, state: bytes, public: bool, bounds: Bounds) -> None:
        if code in self.kept:
            raise TournamentChanged(code, 1, self.kept[code].version)
        if len(self.kept) >= bounds.most:
            raise TooManyTournaments("store")
        since, made = self.made.get(bounds.maker, (bounds.now, 0))
        if bounds.now - since >= MAKER_WINDOW:
            since, made = bounds.now, 0
        if made >= bounds.per_maker:
            raise TooManyTournaments("maker")
        self.made[bounds.maker] = (since, made + 1)
        self.kept[code] = StoredTournament(1, bytes(state))
        if public:
            self.public.append(code)

    async def public_page(self, offset: int, limit: int) -> tuple[int, list[str]]:
        count = len(self.public)
        newest = count - offset
        return count, self.public[max(0, newest - limit) : max(0, newest)][::-1]

    async def load(self, code: str) -> StoredTournament | None:
        return self.kept.get(code)

    async def codes(self) -> list[str]:
        return sorted(self.kept)

    async def delete(self, code: str) -> None:
        self.kept.pop(code, None)
        if code in self.public:
            self.public.remove(code)
