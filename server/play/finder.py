"""Finding the room a client names: held here, or (several processes) loaded on demand.

A room is found by its code (a private one also by its invite). With several processes a room
not in memory is read by the `Loader` the wiring gives (`server.cluster.replica.Replica.load`);
alone, there is none, and a code not held here names no room. Loads of one code at once share
one read.
"""

from __future__ import annotations

import asyncio
import time
from collections.abc import Callable, Coroutine
from typing import Any

from protocol import errors
from server.play.live import LiveRoom
from server.play.registry import Registry
from server.rooms import codes
from server.rooms.room import RoomError

#: Reads a room no process holds in memory here (several processes), or raises RoomError.
Loader = Callable[[str], Coroutine[Any, Any, LiveRoom]]


class Finder:
    """The rooms of a `Registry` by the code or invite a client gives, loaded with `loader`."""

    def __init__(self, registry: Registry, loader: Loader | None = None) -> None:
        self.registry = registry
        self.loader = loader
        self._loading: dict[str, asyncio.Task[LiveRoom]] = {}

    async def room(self, code: str) -> LiveRoom:
        """The room with this code: in memory, or (several processes) loaded."""
        code = codes.normalise(code)
        live = self.registry.rooms.get(code)
        if live is None:
            if self.loader is None or not codes.well_formed(code):
                raise RoomError(errors.NO_SUCH_ROOM, codes.missing(code))
            loading = self._loading.get(code)
            if loading is None:
                loading = asyncio.get_running_loop().create_task(self.loader(code))
                self._loading[code] = loading
                loading.add_done_callback(lambda _: self._loading.pop(code, None))
            live = await asyncio.shield(loading)
        live.touched = time.monotonic()
        return live

    async def find(self, text: str) -> LiveRoom:
        """The room a client names: a public room's code, or a private one's code and invite."""
        code, invite = codes.split(text)
        try:
            live = await self.room(code)
        except RoomError as error:
            raise RoomError(error.code, codes.missing(text)) from None
        if not live.room.opens(invite):
            raise RoomError(errors.NO_SUCH_ROOM, codes.missing(text))
        return live
