"""After a match finishes: archive it, rate it, and show the rating changes in the room.

The finishing move is stored and sent like any other (nothing here delays it). Then, in a task
of its own, `Finisher`:

1. builds the archived game from the room (the record, who sat where, the result);
2. unless the room was unrated, reads the rated players' ratings, rates the match
   (`server.play.ratings`, weighted by `server.play.weighting`) and writes the
   game, its index entries and the new ratings in one step of the ledger, which refuses when a
   rating changed since it was read (another match finished meanwhile, here or in another
   process): then it reads and rates again. A game archived already (by another process, or
   before a restart) is not written twice: its stored changes are used;
3. makes a room change that puts the changes in the document (`ratings`).

A store that does not answer is retried with a backoff for as long as the server runs. The
archive is keyed by the number of the match the room holds as finished
(`server.rooms.results.finished_number`), not by a count of matches started: each finished
match is archived once, when it finishes, whatever the room does next. With Redis, the finished
match is in the room (stored before the finishing move was sent) until the next match of that
room finishes, and a room whose finished match is not archived yet is
archived by whichever process keeps it (`PlayHooks.keep`, on adoption after a crash or at start):
an acknowledged finished match is never left out of the archive. See docs/persistence.md.
"""

from __future__ import annotations

import asyncio
import base64
import hashlib
import logging
from collections.abc import Callable, Coroutine
from typing import Any

from engine import Match
from protocol.api import GameDetail, GamePlayer, RatingPoint
from protocol.ratings import RatingChange
from server.config import Clock
from server.play import weighting
from server.play.live import LiveRoom, Storer
from server.play.ratings import RatedSeat, Standing, ladder_of
from server.play.registry import Registry
from server.rooms import results
from server.rooms.room import Room
from server.rooms.room_state import FinishedSeat
from server.rooms.server_commands import SetRatings
from server.storage.archive import Archived, Conflict, Exists, Ledger, RatingWrite, StoredRating
from server.storage.store import Store, StoreUnavailable

log = logging.getLogger("allfives.server")

#: How long a stopping server waits for matches that just finished to be archived.
DRAIN_SECONDS = 3.0
RETRY_FIRST = 0.05
RETRY_MAX = 5.0

#: The first and the longest wait between tries to store a finished match's record.
RECORD_RETRY_FIRST = 1.0
RECORD_RETRY_MAX = 30.0


def game_id(record_bytes: bytes) -> str:
    """A finished match's id: from its record (the same match always gets the same id, and
    the id tells nothing of the room)."""
    digest = hashlib.sha256(b"allfives-game\0" + record_bytes).digest()[:15]
    return base64.urlsafe_b64encode(digest).decode()


def archived_of(room: Room, finished_at: float) -> Archived:
    """The archived game of a room's last finished match (rating changes still empty)."""
    state = room.state
    assert state.finished is not None
    record = results.finished_record(room)
    match = Match.from_bytes(state.finished)
    seats = _finished_seats(room)
    moves = [0] * len(seats)
    for hand in record.hands:
        for move in hand.moves:
            if 0 <= move.seat < len(moves):
                moves[move.seat] += 1
    players = [
        GamePlayer(
            seat=index,
            name=record.names[index] if index < len(record.names) else "",
            kind="bot" if seat.kind == "bot" else "player" if seat.player else "guest",
            level=seat.level if seat.kind == "bot" else None,
            moves=moves[index],
            stand_in_moves=seat.stand_in_moves,
            left=seat.left,
        )
        for index, seat in enumerate(seats)
    ]
    winner = match.winner
    rated = state.rules.is_rated
    detail = GameDetail(
        id=game_id(results.finished_bytes(room)),
        finished_at=finished_at,
        rules=record.rules,
        players=players,
        scores=list(match.scores),
        winner=list(winner) if isinstance(winner, tuple) else winner,
        hands=len(record.hands),
        ladder=None,
        # A rated match's result is on the ladder, so its game is public wherever it was
        # played; an unrated private room's game is its players' alone (docs/ratings.md).
        private=not state.rules.public and not rated,
        changes=[],
        record=record,
    )
    return Archived(detail=detail, members=[_member(seat) for seat in seats], rated=rated)


def _finished_seats(room: Room) -> list[FinishedSeat]:
    noted = room.state.finished_seats
    if isinstance(noted, list):
        return noted
    results.note_finished(room.state)  # a room stored before seats were noted
    noted = room.state.finished_seats
    assert isinstance(noted, list)
    return noted


def _member(seat: FinishedSeat) -> str | None:
    """The rated id of a seat: a bot's level, a key's player, or None for a guest."""
    if seat.kind == "bot":
        return f"bot:{seat.level or 'normal'}"
    return seat.player


def standing_of(held: StoredRating) -> Standing:
    """A stored rating as the rating code takes it."""
    return Standing(
        held.mu,
        held.sigma,
        held.games,
        held.wins,
        held.played,
        tuple(held.opponents),
        tuple((who, at) for who, at in held.recent),
    )


def rate(
    archived: Archived, before: dict[str, tuple[StoredRating, str]]
) -> tuple[list[RatingChange], list[RatingWrite]]:
    """The rating changes of an archived game from the players' ratings read (with versions)."""
    detail = archived.detail
    ladder = ladder_of(detail.rules)
    if not archived.rated:
        return [], []
    seats = [
        RatedSeat(member, player.moves, player.stand_in_moves)
        for member, player in zip(archived.members, detail.players, strict=True)
    ]
    standings = {id: standing_of(held) for id, (held, _) in before.items()}
    rated = weighting.rate_weighted(
        detail.rules, seats, detail.scores, detail.winner, standings, detail.finished_at
    )
    if rated is None or ladder is None:
        return [], []
    changes: list[RatingChange] = []
    writes: dict[str, RatingWrite] = {}
    for seat, (old, new, counted) in sorted(rated.items()):
        member = archived.members[seat]
        assert member is not None
        matches_to_go, opponents_to_go = weighting.still_to_play(member, new)
        changes.append(
            RatingChange(
                seat=seat,
                name=detail.players[seat].name,
                ladder=ladder,
                before=old.wire(),
                after=new.wire(),
                counted=counted,
                provisional=not weighting.established(member, new),
                matches_to_go=matches_to_go,
                opponents_to_go=opponents_to_go,
            )
        )
        held = before.get(member)
        writes[member] = RatingWrite(
            ladder=ladder,
            player=member,
            expected=None if held is None else held[1],
            rating=StoredRating(
                new.mu,
                new.sigma,
                new.games,
                new.wins,
                new.played,
                list(new.opponents),
                list(new.recent),
            ),
            point=RatingPoint(
                game=detail.id, ladder=ladder, at=detail.finished_at, rating=new.ordinal
            ),
            private=detail.private,
        )
    return changes, list(writes.values())


class RecordSaver:
    """Stores a finished match's record beside the room (`Store.save_record`, key
    `CODE/MATCH`), in a task that tries again with a backoff until the store has it."""

    def __init__(
        self, store: Store, spawn: Callable[[Coroutine[Any, Any, Any]], asyncio.Task[Any]]
    ) -> None:
        self.store = store
        self.spawn = spawn

    def save(self, room: Room) -> None:
        """Store the record of the match the room holds as finished (in a task)."""
        self.spawn(self._save(room))

    async def _save(self, room: Room) -> None:
        data = results.finished_bytes(room)
        match = results.finished_number(room.state)
        delay = RECORD_RETRY_FIRST
        while True:  # kept until the store has it (the task ends with the server)
            try:
                await self.store.save_record(f"{room.code}/{match}", data)
            except StoreUnavailable as error:
                if delay == RECORD_RETRY_FIRST:
                    log.warning(
                        "room %s: record of match %d not stored yet (%s): trying again",
                        room.code,
                        match,
                        error,
                    )
                await asyncio.sleep(delay)
                delay = min(RECORD_RETRY_MAX, delay * 2)
            else:
                return


class Finisher:
    """Archives and rates finished matches, and puts the changes in their rooms."""

    def __init__(
        self,
        ledger: Ledger,
        registry: Registry,
        storer: Storer,
        clock: Clock,
        spawn: Callable[[Coroutine[Any, Any, Any]], asyncio.Task[Any]],
    ) -> None:
        self.ledger = ledger
        self.registry = registry
        self.storer = storer
        self.clock = clock
        self.spawn = spawn
        #: (room, match) being archived here now: each once.
        self.working: set[tuple[str, int]] = set()
        self.tasks: set[asyncio.Task[Any]] = set()
        self.archived = 0
        self.conflicts = 0

    def finished(self, live: LiveRoom) -> None:
        """If the room's last finished match is not archived yet, archive it (in a task)."""
        state = live.room.state
        match = results.finished_number(state)
        if match is None or not results.needs_archiving(state) or live.archived == match:
            return
        job = (state.code, match)
        if job in self.working:
            return
        self.working.add(job)
        task = self.spawn(self._finish(live, match))
        self.tasks.add(task)

        def done(_: asyncio.Task[Any]) -> None:
            self.working.discard(job)
            self.tasks.discard(task)

        task.add_done_callback(done)

    async def drain(self, seconds: float | None = None) -> None:
        """Wait up to `seconds` (DRAIN_SECONDS) for the games being archived (a server stopping)."""
        if self.tasks:
            await asyncio.wait(
                list(self.tasks), timeout=DRAIN_SECONDS if seconds is None else seconds
            )

    async def _finish(self, live: LiveRoom, match: int) -> None:
        try:
            await self._finish_now(live, match)
        except asyncio.CancelledError:
            raise
        except Exception:
            log.exception("room %s: match %d could not be archived", live.room.code, match)

    async def _finish_now(self, live: LiveRoom, match: int) -> None:
        room = live.room
        if results.finished_number(room.state) != match:
            return  # the room holds a later finished match now: this one was archived
        archived = archived_of(room, self.clock())
        changes, written = await self._archive(archived, room.code)
        if written:
            self.archived += 1
        live.archived = match
        ratings = SetRatings(match, changes, archived.detail.id)
        await live.run(self.storer, ratings, rollback=False)

    async def _archive(self, archived: Archived, code: str) -> tuple[list[RatingChange], bool]:
        """Write the game and its ratings (again after a conflict): its rating changes, and
        whether this call wrote it (False: the ledger held it already)."""
        detail = archived.detail
        delay = RETRY_FIRST
        while True:
            try:
                ladder = ladder_of(detail.rules) if archived.rated else None
                members = sorted({m for m in archived.members if m is not None})
                before = await self.ledger.ratings(ladder, members) if ladder else {}
                changes, writes = rate(archived, before)
                detail.changes = changes
                detail.ladder = ladder if changes else None
                outcome = await self.ledger.commit_game(archived, writes, self.clock())
            except StoreUnavailable as error:
                if delay == RETRY_FIRST:
                    log.warning("room %s: game not archived yet (%s): trying again", code, error)
                await asyncio.sleep(delay)
                delay = min(RETRY_MAX, delay * 2)
                continue
            if isinstance(outcome, Conflict):
                self.conflicts += 1
                continue
            if isinstance(outcome, Exists):
                return list(outcome.archived.detail.changes), False
            return changes, True


__all__ = ["Finisher", "archived_of", "game_id", "rate"]
