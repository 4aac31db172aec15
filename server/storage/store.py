"""Where rooms are kept: one small async interface, with `MemoryStore` as the embedded default.

The server calls the store in a fixed order. For each accepted command in a room (commands in a
room are applied one at a time, under that room's lock):

1. the room applies the command in memory (`server.rooms.room.Room`), bumping its `seq`;
2. `await store.save_room(code, seq, state)` with the whole room as bytes;
3. only when that returns are replies and patches sent. If it raises `StoreUnavailable`, the room
   is put back as it was before the command and the sender gets an `unavailable` error.

`MemoryStore` is held in the same process as its rooms: the server hands it the live rooms
themselves (`hold`, see `server.play.committer.MemoryCommitter`) instead of encoding each change, and
a room is encoded only when it is loaded (a second server resuming from the same store).

`server.storage.sqlite_store.SqliteStore` (`--data DIR`) is a store of bytes for one process: the
server saves each change through `save_room` (`server.play.committer.LocalCommitter`).

`seq` grows by exactly one per saved change. A finished match is also saved as an
`allfives-record/1` JSON document with `save_record`. `server.storage.redis_store.RedisStore` implements
the same methods, but a server with Redis saves rooms through `server.cluster.membership` instead (a
compare-and-set on the room's version, raising `RoomChanged` or `SaveInDoubt`), since any number
of server processes may share that Redis.
"""

from __future__ import annotations

import abc
from typing import Protocol

import msgspec

from server.storage.tournaments import MemoryTournaments, TournamentStore

#: The version of a room never saved (`server.cluster.membership` gives each save a version token).
NO_VERSION = "none"

DAY = 24 * 60 * 60
#: How long a store that keeps records on disk keeps one (`--record-ttl`).
DEFAULT_RECORD_TTL = 30 * DAY
#: How long a stored room outlives its last save.
DEFAULT_ROOM_TTL = 7 * DAY


class StoreUnavailable(Exception):
    """The store cannot be reached or refused a write: nothing was saved.

    `in_doubt`: the request was sent but no answer came (a stall, a lost connection), so
    whether Redis applied it is unknown (see `SaveInDoubt`).
    """

    def __init__(self, *args: object, in_doubt: bool = False) -> None:
        super().__init__(*args)
        self.in_doubt = in_doubt


class SaveInDoubt(StoreUnavailable):
    """A room's save got no answer: it may have been stored. `version` is the version it wrote.

    Raised by `server.cluster.membership`. The save carries a deadline, so Redis refuses it if it gets
    there later; before the room changes again, `Cluster.fence` makes sure it can never be
    stored and tells whether it was (the server then undoes it: the sender was answered
    `unavailable`, which means unchanged).
    """

    def __init__(self, code: str, seq: int, version: str, reason: str) -> None:
        super().__init__(f"room {code}: change {seq} unanswered: {reason}", in_doubt=True)
        self.code = code
        self.seq = seq
        self.version = version


class RoomChanged(StoreUnavailable):
    """A save was refused: another server process changed the room first (`stored` is its seq).

    Raised by `server.cluster.membership`; the server catches up with the stored room and tries again.
    `stored` is ABSENT when Redis does not hold the room, BUSY when another process that was
    refused before has the next turn.
    """

    ABSENT = -2
    BUSY = -3

    def __init__(self, code: str, seq: int, stored: int) -> None:
        super().__init__(f"room {code}: change {seq} refused, another process stored {stored}")
        self.code = code
        self.seq = seq
        self.stored = stored


class StoredRoom(msgspec.Struct, frozen=True):
    """A room as saved: its `seq`, its state bytes as last written whole (`Room.to_bytes`), and
    the moves logged since (only Redis logs moves: `server.cluster.membership`). The store does
    not read either: the room at `seq` is `server.rooms.notes.with_moves(state, moves)`."""

    seq: int
    state: bytes
    moves: tuple[bytes, ...] = ()


class Encodable(Protocol):
    """A live room, as a store that holds live rooms keeps it (`server.rooms.room.Room`)."""

    def to_bytes(self) -> bytes:
        """The whole room as bytes."""
        ...


class Store(abc.ABC):
    """Saved rooms and finished-match records, keyed by room code and record key."""

    #: A store in this process's memory that keeps the live rooms (`hold`) rather than their
    #: bytes: it cannot fail, so nothing needs encoding to be restored.
    holds_live_rooms = False
    #: Several processes may share it (Redis): they need the cluster's committer.
    shared = False
    #: The tournaments kept with the rooms (`server.storage.tournaments`), set as it is made.
    tournaments: TournamentStore

    def hold(self, code: str, seq: int, room: Encodable) -> None:
        """Keep a live room as saved at `seq` (only a store that `holds_live_rooms`)."""
        raise NotImplementedError(f"{type(self).__name__} saves bytes (save_room)")

    @abc.abstractmethod
    async def save_room(self, code: str, seq: int, state: bytes) -> None:
        """Save a room's state at `seq` (StoreUnavailable if it was not saved)."""

    @abc.abstractmethod
    async def load_room(self, code: str) -> StoredRoom | None:
        """The saved state of a room, or None."""

    @abc.abstractmethod
    async def delete_room(self, code: str) -> None:
        """Forget a room (an expired one)."""

    @abc.abstractmethod
    async def room_codes(self) -> list[str]:
        """The codes of every saved room (read at start-up to resume them)."""

    @abc.abstractmethod
    async def save_record(self, key: str, record: bytes) -> None:
        """Keep a finished match's record (JSON) under `key` ("ROOM/match-number")."""

    @abc.abstractmethod
    async def load_record(self, key: str) -> bytes | None:
        """A kept record, or None."""

    async def ping(self) -> None:  # noqa: B027 - optional: memory always answers
        """Check that the store answers (StoreUnavailable if not)."""

    async def close(self) -> None:  # noqa: B027 - optional: a store with no connections skips it
        """Release connections (nothing to do for memory)."""


class MemoryStore(Store):
    """Rooms and records in this process's memory: nothing to install, gone when it exits.

    It holds the server's live rooms (`hold`), encoded only when loaded. One instance may
    outlive a server (pass it to a second `run_server`) to resume its rooms. A subclass that
    sets `holds_live_rooms = False` is given bytes through `save_room` instead.
    """

    holds_live_rooms = True

    def __init__(self) -> None:
        self.rooms: dict[str, StoredRoom] = {}
        self.held: dict[str, tuple[int, Encodable]] = {}
        self.records: dict[str, bytes] = {}
        self.tournaments = MemoryTournaments()

    def hold(self, code: str, seq: int, room: Encodable) -> None:
        """Keep a live room as saved at `seq`."""
        self.held[code] = (seq, room)
        self.rooms.pop(code, None)

    async def save_room(self, code: str, seq: int, state: bytes) -> None:
        """Save a room's state at `seq`."""
        self.rooms[code] = StoredRoom(seq, state)
        self.held.pop(code, None)

    async def load_room(self, code: str) -> StoredRoom | None:
        """The saved state of a room (a held room is encoded now), or None."""
        held = self.held.get(code)
        if held is not None:
            return StoredRoom(held[0], held[1].to_bytes())
        return self.rooms.get(code)

    async def delete_room(self, code: str) -> None:
        """Forget a room."""
        self.rooms.pop(code, None)
        self.held.pop(code, None)

    async def room_codes(self) -> list[str]:
        """The codes of every saved room."""
        return [*self.held, *self.rooms]

    async def save_record(self, key: str, record: bytes) -> None:
        """Keep a finished match's record."""
        self.records[key] = record

    async def load_record(self, key: str) -> bytes | None:
        """A kept record, or None."""
        return self.records.get(key)
