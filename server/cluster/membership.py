"""Several `allfives serve` processes on one Redis: versioned saves, room notices, room keepers.

Any process may apply a command to its copy of a room. `Cluster.save` (one Lua script, so
atomic) writes the room only if Redis still holds the version the change was made from, and in
the same script publishes a notice of the change to every other process that holds the room.
Otherwise nothing is written and `RoomChanged` is raised: the server catches up with the stored
room and applies the command again. Each room's saved states thus form one chain, whichever
processes made them.

Keys, besides RedisStore's (every key starts with the store's prefix, "allfives:"):

- `allfives:room:<CODE>`: the room hash, with a `version` (a random token per save) besides
  `seq` and `state`; `saved:<NAME>`, the version process NAME stored last; `next` and
  `next_until` while a process has the room's next turn.
- `allfives:public`: code -> JSON summary of each public room waiting with a free seat.
- `allfives:process:<NAME>`: the incarnation of process NAME that runs now; it expires `lease`
  seconds after the last `beat` (a running process beats every `lease / 3` seconds).
- `allfives:processes`: the names of processes that keep rooms.
- `allfives:keeper:<CODE>`: `NAME/INCARNATION` of the process that keeps the room: it alone runs
  the room's bots and turn clock, marks away the players of dead processes and expires the room.
- `allfives:kept:<NAME>`: the codes process NAME keeps (others take them when it dies).
- `allfives:followers:<CODE>`: the names of the processes that hold the room in memory.
- `allfives:fences:<CODE>`: versions of saves that got no answer and were fenced off
  (`Cluster.fence`): Redis refuses them if they ever arrive.

Each process listens on its own channel, `allfives:<DB>:process:<NAME>` (pub/sub ignores
database numbers, hence the DB in the name), on a connection of its own (`server.cluster.notices`, which
also gives the notices' format). A save publishes its notice to the channels of the room's
followers but the writer's, so one process alone on a Redis publishes nothing; when the change
was one move, the notice carries the move, not the state.

The Lua scripts are in `server.cluster.scripts`; they build key names from the prefix, which is
fine on one Redis server (not Redis Cluster).
See docs/persistence.md, "Several server processes".
"""

from __future__ import annotations

import contextlib
import logging
import secrets
from typing import Any, NamedTuple

import asyncio_redis
import msgspec

from server.cluster.notices import NoticeChannel
from server.cluster.save_batch import SaveBatches
from server.cluster.scripts import (
    ALIVE,
    BEAT,
    CLAIM,
    CREATE,
    DELETE,
    FENCE,
    LEAVE,
    ORPHANS,
    PRUNE,
    PUBLIC,
    RESTORE,
    SAVE,
    YIELD,
)
from server.play.live import stored_state
from server.storage.redis_link import run_script
from server.storage.redis_store import HeldRoom, RedisStore
from server.storage.store import NO_VERSION, RoomChanged, SaveInDoubt, StoreUnavailable

log = logging.getLogger("allfives.cluster")

DEFAULT_LEASE = 3.0
#: How long a process refused for another's change has the next turn in that room.
PRIORITY_MS = 500


class Fenced(NamedTuple):
    """What `fence` found: the stored seq (-1: no room) and version, and the fenced save stored."""

    seq: int
    version: str
    stored: str | None


class Status(NamedTuple):
    """What `claim` found for a room: whether this process keeps it, and its stored seq/version."""

    kept: bool
    seq: int
    version: str


class Save(NamedTuple):
    """One change of a room to store (`Cluster.save`): the room's code and new seq, the version
    it was made from (`parent`), the events its clients are sent, and its entry in the public
    list (b"": not listed). What is stored: the room's whole `state`, or, with `state` b"", only
    the change's `move` (logged after the room's last state). A `move` given beside a state is
    what the notice carries instead of the state (`Room.last_move`)."""

    code: str
    seq: int
    parent: str
    events: bytes
    summary: bytes
    state: bytes = b""
    move: bytes = b""

    @property
    def logged(self) -> bool:
        """Only the move is stored, in the room's log."""
        return not self.state


#: SAVE's answers for a save fenced off, and for one that reached Redis after its deadline.
FENCED = -4
LATE = -5


_SCRIPTS = {
    name: source
    for name, source in {
        "save": SAVE,
        "fence": FENCE,
        "prune": PRUNE,
        "restore": RESTORE,
        "yield": YIELD,
        "delete": DELETE,
        "create": CREATE,
        "claim": CLAIM,
        "orphans": ORPHANS,
        "alive": ALIVE,
        "beat": BEAT,
        "leave": LEAVE,
        "public": PUBLIC,
    }.items()
}

_json_decode = msgspec.json.Decoder().decode


def _bytes(value: str | int | bytes) -> bytes:
    return value if isinstance(value, bytes) else str(value).encode()


class Cluster:
    """This process's part in a cluster of servers on one Redis; see the module docstring.

    `name` must differ between processes running at once (the server uses `HOST:PORT`); a
    process started again under the same name takes its predecessor's rooms at once.
    """

    def __init__(self, store: RedisStore, name: str, lease: float = DEFAULT_LEASE) -> None:
        if "/" in name or " " in name:
            raise ValueError(f"a process name has no '/' or space: {name!r}")
        self.store = store
        self.name = name
        self.incarnation = secrets.token_hex(6)
        self.id = f"{name}/{self.incarnation}"
        self.lease = lease
        self.prefix = store.prefix.decode()
        self.channel_head = f"{self.prefix}{store.address.db}:process:".encode()
        #: Notices of other processes' changes, on a connection of its own.
        self.notices = NoticeChannel(store, self.channel_head + name.encode())
        self._beats = 0
        #: Room saves, many rooms to a call (group commit; `saves.calls`, `saves.saves`).
        self.saves = SaveBatches(
            self._run_saves,
            [store.rooms_key, self._key("public")],
            [_bytes(self.ttl), self.channel_head, self.id.encode(), _bytes(PRIORITY_MS),
             name.encode()],
        )  # fmt: skip

    # -- keys ------------------------------------------------------------------------------

    def _key(self, *parts: str) -> bytes:
        return (self.prefix + ":".join(parts)).encode()

    @property
    def ttl(self) -> int:
        """Seconds a room's keeper key outlives its last renewal (the rooms' own lifetime)."""
        return self.store.room_ttl

    # -- rooms -----------------------------------------------------------------------------

    async def save(self, save: Save) -> str:
        """Store a change made from version `save.parent` and publish its notice; the new version.

        RoomChanged (nothing written) when Redis holds another version than the parent;
        SaveInDoubt when no answer came (see `fence`). The save carries a deadline, `timeout`
        seconds from now on Redis's clock: Redis refuses it if it gets there later (a save
        held up in a stalled Redis or on the network), and a save fenced off is refused too.
        ValueError for a save with neither state nor move (nothing to store).
        """
        if not save.state and not save.move:
            raise ValueError(f"room {save.code}: a save needs a state or a move")
        code, seq, parent, move = save.code, save.seq, save.parent, save.move
        version = secrets.token_hex(8)
        head = b"%s %d %s %s%s\n%s\n" % (
            code.encode(),
            seq,
            version.encode(),
            parent.encode(),
            b" move" if move else b"",
            save.events,
        )
        keys = [
            self.store.room_key(code),
            self._key("followers", code),
            self._key("fences", code),
        ]
        deadline = self.store.redis_ms() + int(self.store.timeout * 1000)
        args = [
            _bytes(seq),
            save.state,
            code.encode(),
            head,
            save.summary,
            version.encode(),
            parent.encode(),
            _bytes(deadline),
            move,
            b"1" if save.logged else b"",
        ]
        try:
            stored = await self.saves.save(keys, args)
        except StoreUnavailable as error:
            if error.in_doubt:
                raise SaveInDoubt(code, seq, version, str(error)) from None
            raise
        if stored == FENCED:
            raise StoreUnavailable(f"room {code}: change {seq} was fenced off")
        if stored == LATE:
            raise StoreUnavailable(f"room {code}: change {seq} reached Redis after its deadline")
        if stored != -1:
            raise RoomChanged(code, seq, stored)
        return version

    async def fence(self, code: str, versions: list[str]) -> Fenced:
        """Make sure none of these unanswered saves of the room can be stored any more.

        Returns what Redis holds and which of them, if any, was stored (`Fenced.stored`).
        """
        keys = [self.store.room_key(code), self._key("fences", code)]
        args = [self.name.encode(), _bytes(self.ttl), *(v.encode() for v in versions)]
        seq, version, mine = _json_decode(
            await self._run(f"fence room {code}", "fence", keys, args)
        )
        return Fenced(int(seq), version, mine if mine in versions else None)

    async def yield_next_write(self, code: str) -> None:
        """Give up the room's next write (the priority given when a save was refused) unused."""
        keys = [self.store.room_key(code)]
        await self._run(f"yield room {code}", "yield", keys, [self.id.encode()])

    async def restore(self, code: str, seq: int, state: bytes, version: str) -> bool:
        """Write back a room Redis lost or holds older; False if it holds as new a change."""
        keys = [self.store.room_key(code), self.store.rooms_key]
        args = [_bytes(seq), state, version.encode(), _bytes(self.ttl), code.encode()]
        return bool(await self._run(f"restore room {code}", "restore", keys, args) == -1)

    async def load(self, code: str) -> HeldRoom | None:
        """The stored seq, version and state of a room (its logged moves made again), or None."""
        held = await self.store.read_room(code)
        if held is None:
            return None
        return held._replace(state=stored_state(code, held.state, held.moves), moves=())

    async def head(self, code: str) -> tuple[int, str] | None:
        """The stored seq and version of a room, or None."""

        async def run(connection: asyncio_redis.Connection) -> list[bytes | None]:
            reply = await connection.hmget(self.store.room_key(code), [b"seq", b"version"])
            values: list[bytes | None] = await reply.aslist()
            return values

        seq, version = await self.store.link.call(f"read room {code}", run)
        if seq is None:
            return None
        return int(seq), version.decode() if version else NO_VERSION

    async def keeper(self, code: str) -> str | None:
        """The id (NAME/INCARNATION) of the process noted as keeping a room, if one is."""

        async def run(connection: asyncio_redis.Connection) -> bytes | None:
            found: bytes | None = await connection.get(self._key("keeper", code))
            return found

        found = await self.store.link.call(f"read the keeper of room {code}", run)
        return None if found is None else found.decode()

    async def delete(self, code: str, version: str) -> bool:
        """Delete a room still at `version`, tell the others; False if it changed meanwhile."""
        keys = [
            self.store.room_key(code),
            self.store.rooms_key,
            self._key("public"),
            self._key("keeper", code),
            self._key("kept", self.name),
            self._key("followers", code),
        ]
        args = [version.encode(), code.encode(), self.channel_head, self.name.encode()]
        return bool(await self._run(f"delete room {code}", "delete", keys, args))

    async def create(self, code: str) -> bool:
        """Take a fresh room code (kept and followed here); False if it is in use."""
        keys = [
            self.store.room_key(code),
            self._key("keeper", code),
            self._key("kept", self.name),
            self._key("followers", code),
        ]
        args = [self.id.encode(), code.encode(), _bytes(self.ttl), self.name.encode()]
        return bool(await self._run(f"create room {code}", "create", keys, args))

    async def release(self, code: str) -> None:
        """Give up a code taken by `create` whose room was never stored."""

        async def run(connection: asyncio_redis.Connection) -> None:
            await connection.delete([self._key("keeper", code), self._key("followers", code)])
            await connection.srem(self._key("kept", self.name), [code.encode()])

        await self.store.link.call(f"release room {code}", run)

    async def follow(self, code: str) -> None:
        """Have this process told of the room's changes (before reading it)."""
        key = self._key("followers", code)

        async def run(connection: asyncio_redis.Connection) -> None:
            await connection.sadd(key, [self.name.encode()])
            await connection.expire(key, self.ttl)

        await self.store.link.call(f"follow room {code}", run)

    async def unfollow(self, code: str) -> None:
        """Stop being told of the room's changes."""
        key = self._key("followers", code)
        await self.store.link.call(
            f"unfollow room {code}", lambda c: c.srem(key, [self.name.encode()])
        )

    async def public_rooms(self) -> list[dict[str, Any]]:
        """The summaries of public rooms waiting with a free seat, from every process."""
        text = await self._run("list public rooms", "public", [], [self.prefix.encode()])
        rooms: list[dict[str, Any]] = _json_decode(text)
        return rooms

    # -- keepers and liveness --------------------------------------------------------------

    async def beat(self) -> int:
        """Renew this process's lease (see BEAT for the answer); call every `lease / 3` s."""
        keys = [self._key("process", self.name), self._key("processes")]
        args = [self.incarnation.encode(), _bytes(int(self.lease * 1000)), self.name.encode()]
        answer: int = await self._run("renew the lease", "beat", keys, args)
        self._beats += 1
        if answer == -1 and self._beats > 1:
            log.error("another process runs under the name %s: give each its own", self.name)
        elif answer == 0 and self._beats > 1:
            log.warning("this process's lease had lapsed: other processes may take its rooms")
        return answer

    async def claim(self, codes: list[str], held: bool = True) -> dict[str, Status]:
        """Keep every room among `codes` with no live keeper; each room's status.

        `held`: the rooms are in this process's memory, so it follows them all; else (the stored
        rooms, at start-up) only those it takes.
        """
        if not codes:
            return {}
        args = [self._head_args(), b"1" if held else b"0", *(code.encode() for code in codes)]
        text = await self._run("claim rooms", "claim", [], _flatten(args))
        found: dict[str, Status] = {}
        for code, kept, seq, version in _json_decode(text):
            found[code] = Status(bool(kept), int(seq), version)
        return found

    async def orphans(self) -> list[str]:
        """Keep the rooms of processes whose lease expired; their codes."""
        text = await self._run("take orphaned rooms", "orphans", [], _flatten([self._head_args()]))
        codes: list[str] = _json_decode(text)
        return codes

    async def prune(self, cursor: str = "0", count: int = 100) -> str:
        """Drop from the set of rooms up to `count` codes whose room expired; the next cursor."""
        args = [self.prefix.encode(), cursor.encode(), _bytes(count)]
        found = await self._run("prune the rooms", "prune", [], args)
        return found.decode() if isinstance(found, bytes) else str(found)

    async def alive(self, ids: set[str]) -> set[str]:
        """Those of the process ids (NAME/INCARNATION) that run now (this one always does)."""
        others = sorted(ids - {self.id})
        running = {self.id}
        if others:
            args = [self.prefix.encode(), *(i.encode() for i in others)]
            running.update(_json_decode(await self._run("check processes", "alive", [], args)))
        return running

    def _head_args(self) -> list[bytes]:
        return [
            self.prefix.encode(),
            self.name.encode(),
            self.id.encode(),
            _bytes(self.ttl),
        ]

    async def close(self) -> None:
        """Stop listening and end the lease at once, so others take this process's rooms."""
        self.notices.close()
        keys = [self._key("process", self.name)]
        with contextlib.suppress(StoreUnavailable):
            await self._run("end the lease", "leave", keys, [self.incarnation.encode()])

    # -- running scripts -------------------------------------------------------------------

    async def _run_saves(self, keys: list[bytes], args: list[bytes]) -> list[int]:
        """Run one call of the SAVE script (`server.cluster.save_batch`)."""
        saves = (len(keys) - 2) // 3
        answers: list[int] = await self._run(f"save {saves} room(s)", "save", keys, args)
        return answers

    async def _run(self, what: str, name: str, keys: list[bytes], args: list[bytes]) -> Any:
        """Run one of the scripts (loading it first if Redis does not know it)."""
        source = _SCRIPTS[name]
        return await self.store.link.call(what, lambda c: run_script(c, source, keys, args))


def _flatten(parts: list[Any]) -> list[bytes]:
    flat: list[bytes] = []
    for part in parts:
        if isinstance(part, list):
            flat.extend(part)
        else:
            flat.append(part)
    return flat


__all__ = ["Cluster", "Fenced", "Status"]
