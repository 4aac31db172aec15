"""A room in memory (`LiveRoom`): its state machine, feed, lock, and who is connected to it.

`LiveRoom.run` is the one path of every change to a room, whoever asks for it (a client, a bot,
the clock, the upkeep, the finisher): under the room's lock, the command
(`server.rooms.commands.handle`), stored and published by the committer, then its effects.
`LiveRoom.exclusive` is the one place the lock is taken.
"""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Awaitable, Callable, Sequence
from typing import Protocol, TypeVar

import msgspec

from protocol import errors
from protocol import messages as msg
from protocol.views import AnyEvent
from server.config import Clock
from server.metrics import Metrics
from server.play.members import CLOSE_REMOVED
from server.rooms import commands
from server.rooms.commands import Command
from server.rooms.feed import Feed, Frames, Receiver, frame_of
from server.rooms.notes import with_moves
from server.rooms.room import Caller, Outcome, Room, RoomError
from server.rooms.room_state import (
    CatchUp,
    Document,
    Effect,
    HintAsked,
    Left,
    Removed,
    Reply,
    Seated,
)
from server.rooms.server_commands import Chore, Depart
from server.storage.store import StoreUnavailable

log = logging.getLogger("allfives.store")
T = TypeVar("T")

#: A change to a room: applied to it, it gives a result and the events it caused.
Change = Callable[[Room], tuple[T, list[AnyEvent]]]
#: Under the lock, before a command: who sends it (None: it is not sent after all).
Admit = Callable[[], Awaitable[Caller | None]]


class Member(Protocol):
    """One connection, as a room uses it: where it is (the room, its seat or spectating),
    sending to it, closing it. The network edge's `server.edge.connection.Connection`."""

    metrics: Metrics
    room: LiveRoom | None
    seat: int | None
    spectating: bool

    @property
    def receiver(self) -> Receiver:
        """Whose document the connection follows (a seat, or the spectators)."""
        ...

    def writable(self) -> bool:
        """Whether a frame may be written now (else the connection is being dropped)."""
        ...

    def write(self, message: bytes) -> None:
        """Send a message of a change (`writable` was checked)."""
        ...

    def send(self, message: bytes) -> None:
        """Send one message to this member alone (a snapshot)."""
        ...

    def send_message(self, message: msg.ServerMessage) -> None:
        """Send one message to this member alone (a reply)."""
        ...

    def detach(self) -> None:
        """Forget the room and seat (the room already stopped sending to it)."""
        ...

    def close(self, code: int, reason: str) -> None:
        """Close the connection with a WebSocket close code and reason."""
        ...


class Storer(Protocol):
    """What a room's one path asks of the committer (`server.play.committer.Committer`, which
    imports this module): its clock, its process's id, whether it still holds the room, and
    storing then publishing a change."""

    @property
    def clock(self) -> Clock: ...

    @property
    def presence_id(self) -> str: ...

    def holds(self, live: LiveRoom) -> bool:
        """Whether this copy is still the room held under its code."""
        ...

    async def change(self, live: LiveRoom, apply: Change[T], rollback: bool = True) -> T:
        """Under the lock: apply a change, store it, send it; its result."""
        ...


#: Adopted moves are replayed into `LiveRoom.saved` once this many wait (bounds memory).
MOVES_KEPT = 64


def _named(caller: Caller) -> Admit:
    """An `admit` that names a caller known already."""

    async def admit() -> Caller:
        return caller

    return admit


def stored_state(code: str, state: bytes, moves: Sequence[bytes]) -> bytes:
    """A stored room's state with the moves logged since made again (`StoredRoom`: only Redis
    logs moves); StoreUnavailable if they do not read back."""
    try:
        return with_moves(state, moves)
    except (RoomError, ValueError, msgspec.DecodeError) as error:
        log.error("room %s as stored does not read back: %s", code, error)
        raise StoreUnavailable(f"room {code} as stored does not read back: {error}") from None


class LiveRoom:
    """A room in memory: its state machine, its feed, its lock and who is connected to it.

    Outside a change (under `lock`) `room` is exactly the stored state `saved`, at `saved_seq`
    (with several processes, at the version `server.cluster.follow` keeps). `kept`: this process
    runs the room's bots and clock.
    """

    def __init__(self, room: Room, keep: int) -> None:
        self.room = room
        self.feed = Feed(keep)
        self.feed.seq = room.seq
        self._lock = asyncio.Lock()
        #: Who follows each receiver's document. Lists, not sets: a group is nearly always one
        #: connection (a seat's player), and a room is held for each of thousands.
        self.members: dict[Receiver, list[Member]] = {}
        self._saved = b""
        #: Moves adopted from other processes since `_saved` (`adopt_move`).
        self._moves: list[bytes] = []
        self.saved_seq = room.seq
        self.kept = True
        #: Opened by a client of this process: counts against its address (`Registry.count`).
        self.owned = False
        self.counted = False
        #: When a client last looked the room up here (`time.monotonic`).
        self.touched = 0.0
        #: What another part keeps with the room: with several processes, their state of it
        #: (`server.cluster.follow`); never read on the single-process path.
        self.attached: object | None = None
        #: The phase clients were last sent (a match finishing is seen once).
        self.published_phase = room.phase
        #: The last match archived from this copy (`server.play.finish`).
        self.archived = 0
        #: A tournament table's archived game its tournament was last told (`server.play.tables`).
        self.told_game: str | None = None
        self.driver: asyncio.Task[None] | None = None
        self.timer: asyncio.TimerHandle | None = None
        self.timer_deadline: float | None = None

    def exclusive(self) -> asyncio.Lock:
        """Hold the room alone (`async with live.exclusive():`): every change runs inside
        (`run`), and so does what must see the room as stored (a catch-up, an expiry). The lock
        itself, so holding it makes no object of its own (a move takes it)."""
        return self._lock

    @property
    def busy(self) -> bool:
        """Whether someone holds the room (`exclusive`) now."""
        return self._lock.locked()

    async def run(
        self,
        storer: Storer,
        command: Command,
        admit: Admit | None = None,
        *,
        rollback: bool = True,
        member: Member | None = None,
    ) -> Outcome:
        """The one path of a change: under the lock, `admit` says who sends `command` (None:
        it is not sent after all; no `admit`: this process), the room handles it, the committer
        stores and publishes it, and its effects are carried out for `member` (the sender's
        connection) before the lock is let go. A sender that came from another room leaves it
        after (`Depart`, on that room's own path).

        RoomError if the room refuses it or closed meanwhile (the server's chores do nothing on
        a room that closed). `rollback`: see `apply`.
        """
        async with self._lock:
            caller = Caller("", process=storer.presence_id) if admit is None else await admit()
            if caller is None:
                return Outcome()
            if not storer.holds(self):
                if isinstance(command, Chore):
                    return Outcome()
                raise RoomError(errors.NO_SUCH_ROOM, f"room {self.room.code} has closed")
            outcome = await self.apply(storer, command, caller, rollback=rollback)
            left = None if member is None else self._carry_out(member, outcome.effects, caller)
        if left is not None:
            before, gone = left
            await before.run(storer, Depart(disconnected=False), _named(gone), rollback=False)
        return outcome

    async def apply(
        self,
        storer: Storer,
        command: Command,
        caller: Caller,
        *,
        rollback: bool = True,
    ) -> Outcome:
        """Inside `exclusive` (`run` is the way in): handle, store, publish.

        Without `rollback` a change that could not be stored is not refused: one process keeps
        it (and stores it with the next), several have it stored by their upkeep; its effects
        are carried out all the same.
        """
        outcome: Outcome | None = None

        def step(room: Room) -> tuple[Outcome, list[AnyEvent]]:
            nonlocal outcome
            outcome = commands.handle(room, caller, command, storer.clock())
            return outcome, outcome.events

        try:
            await storer.change(self, step, rollback)
        except StoreUnavailable as error:
            if rollback:
                raise
            log.warning(
                "room %s: %s not stored yet: %s", self.room.code, type(command).__name__, error
            )
        return Outcome() if outcome is None else outcome

    def _carry_out(
        self, member: Member, effects: list[Effect], caller: Caller
    ) -> tuple[LiveRoom, Caller] | None:
        """Under the lock: what a stored command asks for its sender, in order, the same for
        every command. The room the sender was in before this one took it, and who it was
        there (it leaves once this room is let go)."""
        left = None
        for effect in effects:
            match effect:
                case Reply(message):
                    member.send_message(message)
                case Seated(seat):
                    before = member.room
                    if before is not None and before is not self:
                        before.discard(member)
                        gone = Caller(caller.name, member.seat, member.spectating, caller.process)
                        left = (before, gone)
                    self.discard(member)
                    member.room, member.seat = self, seat
                    member.spectating = seat is None
                    self.add(member)
                case Document(id):
                    member.send(self.feed.snapshot(self.room, member.receiver, id))
                case CatchUp(last_seq):
                    for frame in self.feed.catch_up(self.room, member.receiver, last_seq):
                        member.send(frame)
                case Left():
                    self.discard(member)
                    member.detach()
                case Removed(seat):
                    self.close_seat(seat, CLOSE_REMOVED, "the host removed you from the room")
                case HintAsked():
                    pass  # the hint lane takes it (`server.edge.session`)
        return left

    @property
    def saved(self) -> bytes:
        """The room's stored state (`room` outside a change), encoded on demand after moves
        adopted from other processes (empty for a store that holds live rooms)."""
        if self._moves:
            self._replay()
        return self._saved

    @saved.setter
    def saved(self, state: bytes) -> None:
        self._saved = state
        if self._moves:  # a new list only when there were moves: a change stores one
            self._moves = []

    def adopt_move(self, move: bytes) -> None:
        """Another process stored one move (`server.rooms.notes.replay_move`), now made to `room` here too."""
        self._moves.append(move)
        if len(self._moves) > MOVES_KEPT:
            self._replay()

    def _replay(self) -> None:
        self._saved, self._moves = with_moves(self._saved, self._moves), []

    def connections(self) -> list[Member]:
        """Every connection in the room."""
        return [c for group in self.members.values() for c in group]

    def add(self, connection: Member) -> None:
        """Count a connection as following its receiver's document."""
        group = self.members.setdefault(connection.receiver, [])
        if connection not in group:
            group.append(connection)

    def discard(self, connection: Member) -> None:
        """Stop sending to a connection."""
        group = self.members.get(connection.receiver)
        if group is not None and connection in group:
            group.remove(connection)
            if not group:
                del self.members[connection.receiver]

    def close_seat(self, seat: int, code: int, reason: str) -> None:
        """Close the connections on a seat (resumed elsewhere, or removed by the host)."""
        for connection in list(self.members.get(seat, ())):
            self.discard(connection)
            connection.detach()
            connection.close(code, reason)

    def broadcast(self, frames: Frames) -> None:
        """Send a change's messages: each one's frame is built once, whoever gets it."""
        counted: Member | None = None
        sent = 0
        own = frames.own
        shared = frames.shared
        for receiver, group in self.members.items():
            if receiver in frames.fresh:
                continue
            message = frame_of(receiver, shared, own)
            for connection in group:
                if connection.writable():
                    counted = connection
                    connection.write(message)
                    sent += 1
        if counted is not None:  # every connection counts into the server's one set of metrics
            counted.metrics.frames_sent += sent

    def stop_clock(self) -> None:
        """Stop the room's turn clock and its bot driver."""
        if self.timer is not None:
            self.timer.cancel()
        if self.driver is not None:
            self.driver.cancel()
