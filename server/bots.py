"""Moves for bot seats, stand-ins and hints, computed off the event loop when they cost time.

`easy` and `normal` take microseconds and run in place; `hard` searches for up to its budget
(200 ms by default) and runs in a process pool, so it never holds the event loop.
"""

from __future__ import annotations

import asyncio
import logging
import multiprocessing
import secrets
from concurrent.futures import BrokenExecutor, Executor, ProcessPoolExecutor, ThreadPoolExecutor

from engine import Move, View
from engine.bots import make_bot

CHEAP_LEVELS = frozenset({"easy", "normal"})
log = logging.getLogger("allfives.server")


def choose_move(level: str, view: View, seed: int, budget_ms: float | None) -> Move:
    """The move a bot of `level` makes from `view` (the seat's own view, never more)."""
    return make_bot(level, seed, budget_ms=budget_ms).choose(view)


class BotRunner:
    """Runs bot decisions: cheap levels inline, `hard` in a pool of `workers` processes."""

    def __init__(self, workers: int = 1, budget_ms: float | None = 200.0, processes: bool = True):
        self.workers = workers
        self.budget_ms = budget_ms
        self.processes = processes
        self._pool: Executor | None = None
        self._starting = asyncio.Lock()

    async def choose(self, level: str, view: View) -> Move:
        """A legal move for the view's seat."""
        seed = secrets.randbits(32)
        if level in CHEAP_LEVELS or len(view.legal) == 1:
            return choose_move(level, view, seed, self.budget_ms)
        loop = asyncio.get_running_loop()
        try:
            if self._pool is None:
                async with self._starting:
                    # Starting worker processes takes a while: never on the event loop's thread.
                    await loop.run_in_executor(None, self._start)
            assert self._pool is not None
            return await loop.run_in_executor(
                self._pool, choose_move, level, view, seed, self.budget_ms
            )
        except (BrokenExecutor, OSError, RuntimeError):
            log.exception("the %s bot's pool failed: a new one starts, normal plays now", level)
            self.close()
            return choose_move("normal", view, seed, self.budget_ms)

    def _start(self) -> None:
        if self._pool is not None:
            return
        pool: Executor
        if self.processes:
            context = multiprocessing.get_context("forkserver")
            # Workers need the bots, never the embedding program's __main__.
            context.set_forkserver_preload(["server.bots"])
            pool = ProcessPoolExecutor(self.workers, mp_context=context)
        else:
            pool = ThreadPoolExecutor(self.workers, thread_name_prefix="hard-bot")
        pool.submit(int).result()
        self._pool = pool

    def close(self) -> None:
        """Stop the pool (running decisions are abandoned)."""
        if self._pool is not None:
            self._pool.shutdown(wait=False, cancel_futures=True)
            self._pool = None
