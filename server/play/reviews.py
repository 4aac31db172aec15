"""The hard bot's reviews of finished matches, in a lane of their own: once per game, then kept.

A review (`bridge.reviews.review_bytes`: every seat's decisions weighed by the hard bot's search)
costs seconds, so it runs in a `Lane` of its own workers (`server.play.bots.Lane`: processes, or
threads when bots run in threads), never in the bots' lane or the hints': a review never delays a
bot's move or a hint. Each game is reviewed at most once: a second ask while it is worked out
waits for the same result, and a finished review is kept (`kept`, the latest `keep` reviews in
memory, and through `on_reviewed` / `load` in the store beside the match records, with their
retention, so a restart or another process serves it without working it out again; a kept
review of an older `protocol.review.REVIEW_VERSION`, whose points counted the match premium,
is worked out again and kept in its place). At most `max_waiting`
games are reviewed or waiting at once; one more is refused with `ReviewsBusy`, which says when
to ask again (the HTTP answer is 503 with Retry-After, `server.edge.review_api`).
"""

from __future__ import annotations

import asyncio
import logging
import math
import time
from collections import OrderedDict
from collections.abc import Awaitable, Callable

import msgspec

from bridge.reviews import review_bytes
from protocol.review import REVIEW_VERSION
from server.play.bots import Lane
from server.storage.store import Store, StoreUnavailable

log = logging.getLogger("allfives.server")

#: A review function for the lane's workers: (record JSON, budget in ms) -> review JSON.
Compute = Callable[[bytes, float], bytes]

#: Seconds between tries to keep a review the store did not take (doubling up to the most).
KEEP_RETRY_FIRST = 0.5
KEEP_RETRY_MAX = 10.0


class _Version(msgspec.Struct):
    version: int = 1


def current(review: bytes) -> bool:
    """Whether a kept review is of this `REVIEW_VERSION` (an older one is worked out again)."""
    try:
        return msgspec.json.decode(review, type=_Version).version >= REVIEW_VERSION
    except (msgspec.DecodeError, msgspec.ValidationError):
        return False


class ReviewsBusy(Exception):
    """The review lane holds as many games as it may: ask again in `retry_after` seconds."""

    def __init__(self, retry_after: int) -> None:
        super().__init__(f"the reviews are busy: ask again in {retry_after} s")
        self.retry_after = retry_after


class ReviewDesk:
    """The reviews kept and being worked out, by game id (see the module docstring)."""

    def __init__(
        self,
        lane: Lane,
        budget_ms: float,
        max_waiting: int = 4,
        keep: int = 256,
        compute: Compute = review_bytes,
        load: Callable[[str], Awaitable[bytes | None]] | None = None,
        on_reviewed: Callable[[str, bytes], Awaitable[None]] | None = None,
    ) -> None:
        self.lane = lane
        self.budget_ms = budget_ms
        self.max_waiting = max(1, max_waiting)
        self.keep = max(1, keep)
        self.compute = compute
        self.kept: OrderedDict[str, bytes] = OrderedDict()
        self.working: dict[str, asyncio.Task[bytes]] = {}
        #: Reviews computed so far (a kept one asked again is not computed again).
        self.computed = 0
        #: Seconds the last review took (for Retry-After).
        self.last_seconds = 0.0
        #: Called with (game id, review JSON) once a review is done: the store keeps it.
        self.on_reviewed = on_reviewed
        #: A review kept outside this process's memory (by `on_reviewed`), or None.
        self.load = load
        #: Reviews done that the store did not take yet (at most `keep`, the oldest dropped),
        #: and the task that keeps them once it answers again.
        self.unkept: OrderedDict[str, bytes] = OrderedDict()
        self._keeper: asyncio.Task[None] | None = None

    def known(self, game_id: str) -> bytes | None:
        """The review kept for a game, if it was done (and not pushed out of memory since)."""
        review = self.kept.get(game_id)
        if review is not None:
            self.kept.move_to_end(game_id)
        return review

    def remember(self, game_id: str, review: bytes) -> None:
        """Keep a review (one done here, or one the archive held) for the next ask."""
        self.kept[game_id] = review
        self.kept.move_to_end(game_id)
        while len(self.kept) > self.keep:
            self.kept.popitem(last=False)

    def retry_after(self) -> int:
        """Seconds to wait before asking again when busy: the games ahead at the last pace."""
        ahead = len(self.working) / max(1, self.lane.workers)
        return max(1, math.ceil(ahead * max(1.0, self.last_seconds)))

    async def review(self, game_id: str, record: bytes) -> bytes:
        """The game's review as JSON: kept, joined while it is worked out, or worked out now.

        ReviewsBusy when `max_waiting` other games are reviewed or waiting already. The work
        goes on if the asker goes away, so the review is kept for the next ask.
        """
        known = self.known(game_id)
        if known is not None:
            return known
        task = self.working.get(game_id)
        if task is None and self.load is not None:
            try:
                stored = await self.load(game_id)
            except StoreUnavailable as error:
                log.warning("game %s: no kept review read (%s): working it out", game_id, error)
                stored = None
            except Exception:
                log.exception("game %s: a kept review could not be read", game_id)
                stored = None
            if stored is not None and not current(stored):
                log.info(
                    "game %s: the kept review is of an older version: worked out again", game_id
                )
                stored = None
            if stored is not None:
                self.remember(game_id, stored)
                return stored
            task = self.working.get(game_id)  # another ask may have begun meanwhile
        if task is None:
            if len(self.working) >= self.max_waiting:
                raise ReviewsBusy(self.retry_after())
            task = asyncio.get_running_loop().create_task(self._work(game_id, record))
            self.working[game_id] = task
            task.add_done_callback(lambda _: self.working.pop(game_id, None))
        return await asyncio.shield(task)

    async def _work(self, game_id: str, record: bytes) -> bytes:
        began = time.monotonic()
        review = await self.lane.call(self.compute, record, self.budget_ms)
        self.last_seconds = time.monotonic() - began
        self.computed += 1
        self.remember(game_id, review)
        if self.on_reviewed is not None:
            try:
                await self.on_reviewed(game_id, review)
            except StoreUnavailable as error:
                log.warning(
                    "game %s: the review is not kept with the game yet (%s): "
                    "it is once the store answers",
                    game_id,
                    error,
                )
                self._keep_later(game_id, review)
            except Exception:
                log.exception("game %s: the review could not be kept with the game", game_id)
        return review

    def _keep_later(self, game_id: str, review: bytes) -> None:
        """Keep a review the store did not take, from a task of its own, once it answers."""
        self.unkept[game_id] = review
        while len(self.unkept) > self.keep:
            self.unkept.popitem(last=False)
        if self._keeper is None or self._keeper.done():
            self._keeper = asyncio.get_running_loop().create_task(self._keep_unkept())

    async def _keep_unkept(self) -> None:
        delay = KEEP_RETRY_FIRST
        while self.unkept and self.on_reviewed is not None:
            game_id, review = next(iter(self.unkept.items()))
            try:
                await self.on_reviewed(game_id, review)
            except StoreUnavailable:
                await asyncio.sleep(delay)
                delay = min(KEEP_RETRY_MAX, delay * 2)
                continue
            except Exception:
                log.exception("game %s: the review could not be kept with the game", game_id)
            else:
                delay = KEEP_RETRY_FIRST
                log.info("game %s: the review is kept with the game", game_id)
            if self.unkept.get(game_id) is review:
                del self.unkept[game_id]

    def close(self) -> None:
        """Stop the lane's pool (reviews being worked out are abandoned)."""
        for task in self.working.values():
            task.cancel()
        if self._keeper is not None:
            self._keeper.cancel()
        self.lane.close()


class ReviewShelf:
    """Reviews kept beside the match records (key `review/GAME`, with their retention), so a
    restart or another process serves a review without working it out again."""

    def __init__(self, store: Store) -> None:
        self.store = store

    async def load(self, game_id: str) -> bytes | None:
        """The review kept for a game, or None."""
        return await self.store.load_record(f"review/{game_id}")

    async def keep(self, game_id: str, review: bytes) -> None:
        """Keep a game's review."""
        await self.store.save_record(f"review/{game_id}", review)
