"""Players, ratings and finished matches: the `Ledger` interface the server keeps them through.

Two implementations: `server.storage.archive_local.LocalLedger` (SQLite, in memory or in a file
under `--data DIR`) and `server.storage.archive_redis.RedisLedger` (beside the rooms in Redis, for
any number of processes). Both keep the same things:

- **players**: an id, a name (and its fold, `protocol.names.name_key`, unique), the hashes of
  its keys (at most `MAX_KEYS`; a key itself is never stored), its live link codes (at most
  `MAX_LINKS`, each `LINK_CODE_SECONDS`, used once);
- **ratings**: per ladder and player a `StoredRating`, each with a version the writer of a
  finished match must still find (`commit_game` refuses with `Conflict` otherwise: the caller
  reads again and rates again, so matches finishing at once in several processes all count);
- **games**: each finished match as an `Archived` (the API's `GameDetail` and who sat where),
  with a per-player index newest first, a public index for other askers, counters and a rating
  history of `MAX_HISTORY_POINTS`; `commit_game` writes a game, its index entries and its rating
  changes in one step, and a game already there is not written again (`Exists`).

Key hashes: `key_hash(key)` (SHA-256 of the key, hex); the server hashes a key as soon as it reads
`hello` and keeps only the hash.
"""

from __future__ import annotations

import abc
import hashlib
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

import msgspec

from protocol.api import MAX_HISTORY_POINTS, GameDetail, RatingPoint
from protocol.ratings import LadderName

#: Keys a player holds at the most (linking one more drops the oldest).
MAX_KEYS = 8
#: Link codes a player holds alive at the most (asking for one more drops the oldest).
MAX_LINKS = 3

__all__ = [
    "MAX_HISTORY_POINTS",
    "MAX_KEYS",
    "MAX_LINKS",
    "Archived",
    "ClaimBudget",
    "Committed",
    "Conflict",
    "Exists",
    "KeptPoint",
    "Ledger",
    "Limited",
    "Player",
    "RatingWrite",
    "StoredRating",
    "key_hash",
    "members_of",
    "refolded",
    "released_name",
    "winning_seats",
]


def refolded(
    players: list[tuple[str, str, str]], key_of: Callable[[str], str]
) -> tuple[dict[str, str], list[str]]:
    """For `players` (id, name, fold) oldest first: each one's new fold (id -> fold; a younger
    look-alike gets `"\x00" + id`, which no name folds to), and the look-alikes' names."""
    folds: dict[str, str] = {}
    taken: set[str] = set()
    clashes: list[str] = []
    for id, name, _ in players:
        key = key_of(name)
        if key in taken:
            folds[id] = "\x00" + id
            clashes.append(name)
        else:
            folds[id] = key
            taken.add(key)
    return folds, clashes


def released_name(name: str, id: str) -> str:
    """What a released player is called from then on: the name and a part of its id ("Ann#3f2a"),
    so that the ladder never shows it as the name's next owner."""
    return f"{name}#{id[-4:]}"


def key_hash(key: str) -> str:
    """The only form of a player key the server keeps (and compares)."""
    return hashlib.sha256(key.encode()).hexdigest()


class Player(msgspec.Struct, frozen=True):
    """A player: its id (ratings and games are kept under it) and its name."""

    id: str
    name: str


@dataclass(frozen=True)
class ClaimBudget:
    """New players one address may make: `burst` at once, then `per_second` (a token bucket
    kept in the ledger, so every process on a store charges the same one)."""

    address: str
    burst: int
    per_second: float


@dataclass(frozen=True)
class Limited:
    """A claim refused because its address has spent its budget of new players."""


class StoredRating(msgspec.Struct, frozen=True):
    """A rating as kept: openskill's mu and sigma, rated games and wins on the ladder, and the
    history the weight of a match is worked out from (`server.play.weighting`): matches played
    (by length), the first distinct opponents, the last day's matches (opponent, when)."""

    mu: float
    sigma: float
    games: int = 0
    wins: int = 0
    played: float = 0.0
    opponents: list[str] = msgspec.field(default_factory=list)
    recent: list[tuple[str, float]] = msgspec.field(default_factory=list)


class Archived(msgspec.Struct, kw_only=True):
    """A finished match as archived: what the API answers, the player id of each seat (None: a
    guest) for the indexes and for who may see a private room's game, and whether its room was
    rated (an unrated room's match moves no rating: docs/ratings.md)."""

    detail: GameDetail
    members: list[str | None]
    rated: bool = True


@dataclass(frozen=True)
class RatingWrite:
    """One player's new rating from a finished match: written only if the rating is still the
    one read (`expected`, the version `ratings` gave; None: the player had none)."""

    ladder: LadderName
    player: str
    expected: str | None
    rating: StoredRating
    point: RatingPoint
    #: The game is a private room's: the point is shown to the player alone.
    private: bool = False


class KeptPoint(msgspec.Struct, array_like=True):
    """A rating point as kept: the point, and whether its game is a private room's."""

    point: RatingPoint
    private: bool = False


@dataclass(frozen=True)
class Committed:
    """The game and its ratings were written."""


@dataclass(frozen=True)
class Conflict:
    """A rating changed since it was read: nothing was written; read and rate again."""


@dataclass(frozen=True)
class Exists:
    """The game was archived already (by this process or another): as it was."""

    archived: Archived


class Ledger(abc.ABC):
    """Players, ratings and archived games (see the module docstring)."""

    # -- players -----------------------------------------------------------------------------

    @abc.abstractmethod
    async def player_of_key(self, hashed: str) -> Player | None:
        """The player a key (its hash) belongs to, or None."""

    @abc.abstractmethod
    async def player_named(self, fold: str) -> Player | None:
        """The player who owns a name (its fold), or None."""

    @abc.abstractmethod
    async def player(self, id: str) -> Player | None:
        """A player by id, or None."""

    @abc.abstractmethod
    async def claim_within(
        self, hashed: str, name: str, fold: str, now: float, budget: ClaimBudget
    ) -> Player | Limited | None:
        """The key's player; a key seen first makes a player with this name, unless another
        player owns the name (None then: nothing is made). Charged to `budget` in the same
        step: a known key costs nothing, a name taken costs nothing (None), a new player costs
        one (`Limited`, nothing made, once the budget is spent). Claims at once, from any
        process, never pass the budget."""

    @abc.abstractmethod
    async def add_link(self, player: str, code: str, now: float, seconds: int) -> bool:
        """Keep a one-time link code for `player` (the oldest past MAX_LINKS goes); False if
        the code is in use already (the caller makes another)."""

    @abc.abstractmethod
    async def use_link(self, code: str, hashed: str, now: float) -> Player | None:
        """Spend a link code: the key joins its player (leaving any player it had; the oldest
        of MAX_KEYS goes). None, and nothing changed, if the code is unknown, used or expired."""

    @abc.abstractmethod
    async def set_recovery(self, player: str, hashed: str, drop_keys: bool = False) -> None:
        """Keep `hashed` (a recovery code's hash) as `player`'s only recovery code; with
        `drop_keys`, the player's keys go too (an operator moving the name to a new device)."""

    @abc.abstractmethod
    async def use_recovery(self, hashed: str, key: str, now: float) -> Player | None:
        """The key (its hash) joins the player of a recovery code (its hash), as `use_link`
        joins it; the code stays good. None, and nothing changed, for an unknown code."""

    @abc.abstractmethod
    async def refold(self, rule: str, key_of: Callable[[str], str]) -> list[str]:
        """Fold every owned name again with `key_of`, once per `rule` (a server starting after
        the fold changed): a name keeps its player; where two names now fold alike, the older
        player keeps the name's fold and the younger one keeps playing (its keys stay) but is no
        longer found by name. Returns the younger ones' names (empty once `rule` is in force)."""

    @abc.abstractmethod
    async def release(self, fold: str) -> Player | None:
        """Free a name (its fold): its player keeps its games and ratings under its id, renamed
        `released_name(name, id)`, and loses its keys and recovery code. The player as it was,
        or None (nobody owns the name)."""

    # -- ratings and games -------------------------------------------------------------------

    @abc.abstractmethod
    async def ratings(
        self, ladder: LadderName, players: list[str]
    ) -> dict[str, tuple[StoredRating, str]]:
        """The players' ratings on `ladder` that exist, each with its version."""

    @abc.abstractmethod
    async def commit_game(
        self, archived: Archived, writes: list[RatingWrite], now: float
    ) -> Committed | Conflict | Exists:
        """Archive a finished match with its rating changes, in one step (module docstring)."""

    @abc.abstractmethod
    async def game(self, id: str) -> Archived | None:
        """An archived game, or None (never kept, or past its retention)."""

    @abc.abstractmethod
    async def games_of(
        self, player: str, everything: bool, offset: int, limit: int
    ) -> tuple[int, list[Archived]]:
        """A player's games newest first from `offset` and how many there are: all of them
        (`everything`: the player asks), else those of public rooms."""

    @abc.abstractmethod
    async def counts(self, player: str, everything: bool) -> tuple[int, int]:
        """A player's finished matches and wins: all (`everything`), or public rooms' only."""

    @abc.abstractmethod
    async def history(self, player: str, everything: bool) -> list[RatingPoint]:
        """A player's last MAX_HISTORY_POINTS rating points, oldest first: all of them
        (`everything`: the player asks), else those of public rooms' games."""

    @abc.abstractmethod
    async def standings(self, player: str) -> dict[LadderName, StoredRating]:
        """A player's rating on each ladder it played."""

    @abc.abstractmethod
    async def ladder(
        self, ladder: LadderName, limit: int
    ) -> tuple[int, list[tuple[str, StoredRating]]]:
        """The best `limit` players of a ladder (id, rating), and how many it has."""

    @abc.abstractmethod
    async def names(self, ids: list[str]) -> dict[str, str]:
        """The names of those of the players (by id) that exist."""

    async def close(self) -> None:  # noqa: B027 - optional
        """Release what it holds."""


def winning_seats(winner: Any, partnership: bool, players: int) -> set[int]:
    """The seats on the winning side(s) of a match's `winner` (a side, a list of sides, None)."""
    sides = {winner} if isinstance(winner, int) else set(winner or ())
    if not partnership:
        return sides
    return {seat for seat in range(players) if seat % 2 in sides}


def members_of(archived: Archived) -> list[tuple[str, bool]]:
    """Each player (bot levels included) in a game once, with whether its side won."""
    detail = archived.detail
    winners = winning_seats(detail.winner, detail.rules.partnership, len(archived.members))
    seen: dict[str, bool] = {}
    for seat, member in enumerate(archived.members):
        if member is not None:
            seen[member] = seen.get(member, False) or seat in winners
    return list(seen.items())
