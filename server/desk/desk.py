"""The desk: serves the tournament messages (protocol/tournaments.py) of this process's
connections.

Each message that changes a tournament loads it, applies the core's pure command to it
(`server.tournaments.state`), stores the new state as the next version, and only then answers
and tells the tournament's followers here: a tournament is stored before anything about it is
shown. A save that lost a race with another process (`TournamentChanged`) is not merged: the
desk loads the tournament again and applies the command to that, a few times at the most. A
refused command changes nothing and is answered by one error (the core's code and reason).

Who may do what: a tournament is made and joined by a player with a key (a guest is
`not_a_player`: the server seats entrants by their player, so a guest, who is nobody after a
reconnect, cannot enter one); anyone greeted may follow one. A private tournament is found only
with its invite (`CODE-INVITE`), as a private room is; a code that finds nothing costs a lookup
of the address's budget (`server.edge.limits.LookupBudget`), as a room's does.

With several processes, a change another process made reaches the followers here within
`WATCH_SECONDS` (`watch`).

`start_tournament` stores the start, then has the rounds (`server.desk.rounds`) open the first
round's tables, and only then answers: the tables' rooms are in the answer. The rounds then
follow the tables to the tournament's end, through `commit` and `tell` here.
"""

from __future__ import annotations

import asyncio
import time
from collections.abc import Callable
from contextlib import AbstractAsyncContextManager
from typing import Any, Protocol

import msgspec

from protocol import errors
from protocol.message_base import ClientMessage, ServerMessage
from protocol.tournaments import (
    CreateTournament,
    FollowTournament,
    JoinTournament,
    LeaveTournament,
    StartTournament,
    TournamentUpdate,
)
from server.config import Clock, Limits
from server.desk.kept import Kept, decode, encode, handle, new_code, opens, split, view_of
from server.desk.lease import Lease
from server.desk.rounds import Rounds, Spawn, Tables
from server.rooms.codes import new_invite
from server.rooms.room_state import RoomError
from server.storage.archive import Player
from server.storage.store import Store, StoreUnavailable
from server.storage.tournaments import (
    Bounds,
    StoredTournament,
    TooManyTournaments,
    TournamentChanged,
)
from server.tournaments import state
from server.tournaments.stored import Tournament
from server.tournaments.view import entrant_of, table_of

#: Tries of a change that lost races to other processes, and of a fresh code.
TRIES = 5
#: With several processes, how often the tournaments followed here are read for changes made
#: by the others.
WATCH_SECONDS = 1.0


class Follower(Protocol):
    """A connection as the desk sees it."""

    player: Player | None
    address: str

    def send_message(self, message: ServerMessage) -> None: ...


class LookupBudget(Protocol):
    """Failed lookups per address (`server.edge.limits.LookupBudget`): a lookup runs inside
    `guard`, which refuses `rate_limited` while the address's budget is spent."""

    def guard(self, address: str) -> AbstractAsyncContextManager[Any]: ...


class Desk:
    """The tournaments' messages of this process (see the module docstring)."""

    def __init__(
        self,
        store: Store,
        lookups: LookupBudget,
        limits: Limits,
        tables: Tables,
        spawn: Spawn,
        lease: Lease | None = None,
        clock: Clock = time.time,
    ) -> None:
        self.store = store
        self.clock = clock
        #: The tournaments' rounds played in rooms (`server.desk.rounds`; `lease` with several
        #: processes, `server.desk.lease`).
        self.rounds = Rounds(self, tables, spawn, lease)
        self.lookups = lookups
        #: Tournaments an address may make a day (counted in the store, for every process on
        #: it), and in all.
        self.per_address = limits.max_tournaments_per_ip
        self.most = limits.max_tournaments
        #: Who follows each tournament here, and what each follower follows.
        self.followers: dict[str, set[Follower]] = {}
        self.following: dict[Follower, str] = {}
        #: The version of each followed tournament its followers here were all told last.
        self.told: dict[str, int] = {}
        self._locks: dict[str, asyncio.Lock] = {}

    async def serve(self, follower: Follower, message: ClientMessage) -> None:
        """Serve one tournament message (RoomError if refused: nothing changed)."""
        if isinstance(message, CreateTournament):
            await self._create(follower, message)
        elif isinstance(message, FollowTournament):
            code, kept, stored = await self._find(follower, message.tournament)
            self._follow(follower, code)
            self.told.setdefault(code, stored.version)
            self._send(follower, code, kept, stored.version, message.id)
        elif isinstance(message, JoinTournament):
            player = _player_of(follower)
            name = message.name or player.name
            await self._change(
                follower,
                message,
                state.Join(by=player.id, name=None if message.bot else name, bot=message.bot),
            )
        elif isinstance(message, LeaveTournament):
            player = _player_of(follower)
            await self._change(
                follower, message, state.Leave(by=player.id, entrant=message.entrant)
            )
        elif isinstance(message, StartTournament):
            await self._start(follower, message)
        else:
            raise RoomError(errors.INVALID, f"not a tournament message: {type(message).__name__}")

    def forget(self, follower: Follower) -> None:
        """The connection closed: it follows nothing any more."""
        code = self.following.pop(follower, None)
        if code is not None:
            watching = self.followers.get(code, set())
            watching.discard(follower)
            if not watching:
                self.followers.pop(code, None)
                self.told.pop(code, None)

    # -- the messages ------------------------------------------------------------------------

    async def _create(self, follower: Follower, message: CreateTournament) -> None:
        player = _player_of(follower)
        command = state.Create(
            name=message.name,
            format=message.format,
            table_size=message.rules.players,
            rules=message.rules,
            host=player.id,
            partners=message.partners,
            swiss_rounds=message.rounds,
            public=message.rules.public,
            turn_seconds=message.rules.turn_seconds,
        )
        tournament = _applied(None, command)
        for level in message.bots:
            tournament = _applied(tournament, state.Join(by=player.id, bot=level))
        invite = None if message.rules.public else new_invite()
        kept = Kept(
            tournament=tournament,
            host_name=player.name,
            invite=invite,
            rated=message.rules.is_rated,
        )
        bounds = Bounds(follower.address, self.per_address, self.most, self.clock())
        for _ in range(TRIES):
            code = new_code()
            try:
                await self.store.tournaments.create(code, encode(kept), tournament.public, bounds)
            except TournamentChanged:
                continue  # the code is taken
            except TooManyTournaments as refused:
                if refused.bound == "maker":
                    raise RoomError(
                        errors.RATE_LIMITED,
                        f"an address may make {self.per_address} tournaments a day",
                        errors.TOURNAMENTS_A_DAY,
                    ) from None
                raise RoomError(
                    errors.BUSY, "the server holds as many tournaments as it may"
                ) from None
            break
        else:
            raise RoomError(errors.BUSY, "no free tournament code was found: try again")
        self._follow(follower, code)
        self.told[code] = 1
        self._send(follower, code, kept, 1, message.id)

    async def _change(
        self,
        follower: Follower,
        message: JoinTournament | LeaveTournament,
        command: state.AnyCommand,
    ) -> None:
        code, _, _ = await self._find(follower, message.tournament)
        kept, version, _ = await self.commit(code, [command])
        self._follow(follower, code)
        self.tell(code, kept, version, follower, message.id)

    async def _start(self, follower: Follower, message: StartTournament) -> None:
        """The host starts: `Start` stored, then the first round's tables opened (`rounds`),
        then the host answered and every follower told."""
        player = _player_of(follower)
        code, _, _ = await self._find(follower, message.tournament)
        kept, version, _ = await self.commit(code, [state.Start(by=player.id)])
        opened = await self.rounds.step(code)
        if opened is not None:
            kept, version = opened
        self._follow(follower, code)
        self.tell(code, kept, version, follower, message.id)

    async def commit(
        self,
        code: str,
        commands: list[state.AnyCommand],
        mark: Callable[[Kept], Kept] | None = None,
    ) -> tuple[Kept, int, bool]:
        """Apply `commands` in turn to the stored tournament (then `mark`, which changes what is
        kept beside it) and store the result as its next version (again over what another
        process stored first): the tournament, its version and whether it changed. RoomError
        if the core refuses one (nothing stored)."""
        async with self._locks.setdefault(code, asyncio.Lock()):
            for _ in range(TRIES):
                kept, stored = await self._load(code)
                version = stored.version
                changed = kept.tournament
                for command in commands:
                    changed = _applied(changed, command)
                new = kept
                if changed is not kept.tournament:
                    new = msgspec.structs.replace(kept, tournament=changed)
                if mark is not None:
                    new = mark(new)
                if new is kept:
                    return kept, version, False  # no change (the core's commands told twice)
                try:
                    await self.store.tournaments.save(code, version + 1, encode(new))
                except TournamentChanged:
                    continue  # another process changed it first: apply to what it stored
                return new, version + 1, True
        raise RoomError(errors.BUSY, "the tournament is changing fast: try again")

    async def codes(self) -> list[str]:
        """The codes of every tournament stored."""
        return await self.store.tournaments.codes()

    async def load(self, code: str) -> tuple[Kept, int]:
        """The tournament as stored and its version (RoomError `no_such_room` if none)."""
        kept, stored = await self._load(code)
        return kept, stored.version

    def tell(
        self,
        code: str,
        kept: Kept,
        version: int,
        answered: Follower | None = None,
        id: int | None = None,
    ) -> None:
        """Send the tournament to its followers here (`answered` with the `id` it answers);
        the others are sent each version once (`watch` may have told it first)."""
        if answered is not None:
            self._send(answered, code, kept, version, id)
        if version <= self.told.get(code, 0):
            return
        if code in self.followers:
            self.told[code] = version
        for other in self.followers.get(code, set()) - {answered}:
            self._send(other, code, kept, version, None)

    async def watch(self, every: float) -> None:
        """With several processes: every `every` seconds, the tournaments followed here that
        another process changed since are told to their followers here (the task ends with
        the server)."""
        while True:
            await asyncio.sleep(every)
            for code in list(self.followers):
                try:
                    kept, version = await self.load(code)
                except (RoomError, StoreUnavailable):
                    continue
                if version > self.told.get(code, 0):
                    self.tell(code, kept, version)

    # -- finding and telling -----------------------------------------------------------------

    async def _find(self, follower: Follower, text: str) -> tuple[str, Kept, StoredTournament]:
        """The tournament `text` finds (`no_such_room` otherwise, charged as a failed lookup)."""
        async with self.lookups.guard(follower.address):
            code, invite = split(text)
            stored = await self.store.tournaments.load(code) if code else None
            kept = None if stored is None else decode(stored.state)
            if stored is None or kept is None or not opens(kept, invite):
                raise RoomError(errors.NO_SUCH_ROOM, f"there is no tournament {text!r}")
            return code, kept, stored

    async def _load(self, code: str) -> tuple[Kept, StoredTournament]:
        stored = await self.store.tournaments.load(code)
        if stored is None:
            raise RoomError(errors.NO_SUCH_ROOM, f"there is no tournament {code!r}")
        return decode(stored.state), stored

    def _follow(self, follower: Follower, code: str) -> None:
        if self.following.get(follower) == code:
            return
        self.forget(follower)
        self.following[follower] = code
        self.followers.setdefault(code, set()).add(follower)

    def _send(
        self, follower: Follower, code: str, kept: Kept, version: int, id: int | None
    ) -> None:
        tournament = kept.tournament
        player = follower.player
        you = entrant_of(tournament, None if player is None else player.id)
        view = view_of(code, kept, version, None if player is None else player.id)
        follower.send_message(
            TournamentUpdate(
                tournament=handle(code, kept.invite),
                state=view,
                you=you,
                table=table_of(tournament, you),
                id=id,
            )
        )


def _player_of(follower: Follower) -> Player:
    if follower.player is None:
        raise RoomError(
            errors.NOT_A_PLAYER,
            "tournaments are for players with a key: say hello with your key first",
        )
    return follower.player


def _applied(tournament: Tournament | None, command: state.AnyCommand) -> Tournament:
    try:
        return state.apply(tournament, command)
    except state.TournamentError as error:
        raise RoomError(error.code, error.message, error.reason) from None
