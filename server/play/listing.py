"""The list of public rooms: kept between changes, answered a page at a time.

`list_rooms` is the one answer whose size grows with the server, so it is bounded three ways:
a page holds at most `protocol.messages.ROOMS_PAGE` rooms; the list behind the pages is built
once and kept until a listed room changes in this process (`changed`), and at most `seconds`
(with several processes other processes' rooms change unseen, in Redis), by one builder while
the others wait; and each address may ask `burst` times at once, then `per_second`. A room is
listed while it is public, waits for players, has a free seat and someone is in it
(`Room.listed`); this process keeps its listed rooms apart (`Registry.listed`), so building the
list costs the listed rooms, not every room held.
"""

from __future__ import annotations

import asyncio
import time
from collections.abc import Callable, Coroutine
from typing import Any

from protocol import errors
from protocol import messages as msg
from server.play.budgets import KeyedBuckets
from server.rooms.room import RoomError

#: Builds the whole list (the committer's `public_rooms`).
Fetch = Callable[[], Coroutine[Any, Any, list[msg.RoomSummary]]]


class Listing:
    """Pages of the public rooms, from a list kept `seconds` and rebuilt by one caller."""

    def __init__(self, fetch: Fetch, seconds: float, burst: int, per_second: float) -> None:
        self.fetch = fetch
        self.seconds = seconds
        self.asks = KeyedBuckets(burst, per_second)
        self.builds = 0
        self._rooms: list[msg.RoomSummary] = []
        self._built = -float("inf")
        self._building: asyncio.Future[list[msg.RoomSummary]] | None = None

    async def page(self, address: str, offset: int, id: int | None = None) -> msg.Rooms:
        """The rooms from `offset` for `address`; RoomError `rate_limited` past its rate."""
        now = time.monotonic()
        if not self.asks.take(address, now):
            wait = self.asks.wait(address, now)
            raise RoomError(
                errors.RATE_LIMITED,
                f"too many room lists from your address: try again in {max(0.1, wait):.1f} s",
            )
        rooms = await self._current(now)
        shown = rooms[offset : offset + msg.ROOMS_PAGE]
        return msg.Rooms(rooms=shown, id=id, offset=offset, total=len(rooms))

    def changed(self) -> None:
        """A room in the list (or one that was) changed here: the next page builds it anew."""
        self._built = -float("inf")

    async def _current(self, now: float) -> list[msg.RoomSummary]:
        if now - self._built < self.seconds:
            return self._rooms
        if self._building is None:  # one build at a time; the others wait for it
            self._building = asyncio.ensure_future(self._build())
        return await asyncio.shield(self._building)

    async def _build(self) -> list[msg.RoomSummary]:
        try:
            rooms = sorted(await self.fetch(), key=lambda summary: summary.code)
            self._rooms, self._built = rooms, time.monotonic()
            self.builds += 1
            return rooms
        finally:
            self._building = None
