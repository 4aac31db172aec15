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

The server stores a tournament before it shows anything of it (docs/tournaments.md).
"""

from __future__ import annotations

import abc

import msgspec


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

    async def save(self, code: str, version: int, state: bytes) -> None:
        check_version(version)
        stored = self.kept.get(code)
        stored_version = 0 if stored is None else stored.version
        if stored_version != version - 1:
            raise TournamentChanged(code, version, stored_version)
        self.kept[code] = StoredTournament(version, bytes(state))

    async def load(self, code: str) -> StoredTournament | None:
        return self.kept.get(code)

    async def codes(self) -> list[str]:
        return sorted(self.kept)

    async def delete(self, code: str) -> None:
        self.kept.pop(code, None)
