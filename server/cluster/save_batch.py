"""Group commit: the room saves that wait while one call is in Redis go together in the next.

A save costs little in Redis but much in the client: asyncio-redis builds, sends and parses each
call in Python. `SaveBatches.save` queues one room's save; when no call is out, the queue goes
at once in one call of the SAVE script (`server.cluster.scripts`), which applies every save in
it on its own (its own checks, its own answer) in one atomic step. While that call is out, new
saves queue for the next. A save alone on a quiet server thus goes at once, as before; under
load, each call carries the saves of many rooms.

Saves of one room never share a call: a room's changes are made one at a time, under its lock.
A call that fails fails each of its saves alike (`StoreUnavailable`, in doubt or not).
"""

from __future__ import annotations

import asyncio
from collections.abc import Awaitable, Callable, Sequence

from server.storage.store import StoreUnavailable

#: At most this many saves in one call (a larger queue goes in several calls, one after another).
DEFAULT_LIMIT = 64

#: Runs the script: the shared keys and arguments, then each save's; an answer per save.
Runner = Callable[[list[bytes], list[bytes]], Awaitable[Sequence[int]]]


class SaveBatches:
    """Queues room saves and sends them, many to a call, one call at a time."""

    def __init__(
        self,
        run: Runner,
        keys: list[bytes],
        args: list[bytes],
        limit: int = DEFAULT_LIMIT,
    ) -> None:
        self._run = run
        self._keys = keys
        self._args = args
        self.limit = limit
        self._queue: list[tuple[list[bytes], list[bytes], asyncio.Future[int]]] = []
        self._out: asyncio.Task[None] | None = None
        #: Calls made and saves sent (`saves / calls` is the mean batch).
        self.calls = 0
        self.saves = 0

    async def save(self, keys: list[bytes], args: list[bytes]) -> int:
        """Queue one save (its keys and arguments); the script's answer for it."""
        future: asyncio.Future[int] = asyncio.get_running_loop().create_future()
        self._queue.append((keys, args, future))
        if self._out is None:
            self._send_next()
        return await future

    def _send_next(self) -> None:
        batch, self._queue = self._queue[: self.limit], self._queue[self.limit :]
        self._out = asyncio.get_running_loop().create_task(self._send(batch))

    async def _send(
        self, batch: list[tuple[list[bytes], list[bytes], asyncio.Future[int]]]
    ) -> None:
        keys = list(self._keys)
        args = list(self._args)
        for save_keys, save_args, _ in batch:
            keys += save_keys
            args += save_args
        self.calls += 1
        self.saves += len(batch)
        try:
            answers = await self._run(keys, args)
        except StoreUnavailable as error:
            for _, _, future in batch:
                if not future.done():
                    future.set_exception(StoreUnavailable(str(error), in_doubt=error.in_doubt))
        except BaseException as error:  # handed to each waiting save as it is
            for _, _, future in batch:
                if not future.done():
                    future.set_exception(error)
            if isinstance(error, asyncio.CancelledError):
                raise
        else:
            for (_, _, future), answer in zip(batch, answers, strict=True):
                if not future.done():
                    future.set_result(int(answer))
        finally:
            self._out = None
            if self._queue:
                self._send_next()
