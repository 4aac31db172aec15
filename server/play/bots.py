"""Moves for bot seats, stand-ins and hints, computed off the event loop when they cost time.

`easy` and `normal` take microseconds and run in place; `hard` searches for up to its budget
(200 ms by default) and runs in a pool of worker processes, so it never holds the event loop.

Two lanes, each with its own workers: rooms' bots (and stand-ins) in one, players' hints in the
other, so a bot never waits behind hints. Work waits for a free worker in its lane here, not in
the pool, so waiting work that is cancelled (a hint for a connection that closed) never runs;
the hint lane holds at most `max_hints_waiting` hints, and refuses more (`HintsBusy`). The hard
bot's reviews of finished matches have a third lane of their own (`server.play.reviews`), built
from the same `Lane`, so a review never holds a bot or a hint either.

The pool's processes (multiprocessing's forkserver and its workers) end when the server process
dies, even by SIGKILL: each worker asks Linux for SIGKILL when its parent dies
(`PR_SET_PDEATHSIG`) and watches the server process, exiting once it is gone; the forkserver
exits when the server's end of its pipe closes, and the resource tracker when nobody holds its
pipe any more. The tracker then unlinks the pool's semaphores, which is its job after a kill,
so it is started without its "leaked semaphore objects" warning (`_quiet_tracker`).
"""

from __future__ import annotations

import asyncio
import contextlib
import ctypes
import logging
import multiprocessing
import os
import secrets
import signal
import sys
import threading
import time
from collections.abc import Callable
from concurrent.futures import BrokenExecutor, Executor, ProcessPoolExecutor, ThreadPoolExecutor
from multiprocessing import resource_tracker
from typing import Any, TypeVar

from engine import Move, View
from engine.bots import make_bot

CHEAP_LEVELS = frozenset({"easy", "normal"})
PR_SET_PDEATHSIG = 1
#: How often a worker checks that the server process still runs.
WATCH_SECONDS = 0.1
log = logging.getLogger("allfives.server")
T = TypeVar("T")


def choose_move(level: str, view: View, seed: int, budget_ms: float | None) -> Move:
    """The move a bot of `level` makes from `view` (the seat's own view, never more)."""
    return make_bot(level, seed, budget_ms=budget_ms).choose(view)


def _started(pid: int) -> str | None:
    """When process `pid` started (its /proc stat field), or None if it does not run."""
    try:
        with open(f"/proc/{pid}/stat", "rb") as stat:
            return stat.read().rsplit(b")", 1)[1].split()[19].decode()
    except (OSError, IndexError):
        return None


def _process_alive(pid: int, started: str | None) -> bool:
    """Whether process `pid` runs, and is the one that started at `started` (Linux)."""
    if started is not None:
        return _started(pid) == started
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:
        return True
    return True


def start_worker(pid: int) -> None:
    """A worker's first step (the pool's initializer): deaf to Ctrl-C, and gone with `pid`.

    Ctrl-C at a terminal signals its whole foreground process group, the workers too: each
    printed its traceback (`Process ForkServerProcess-1: ... KeyboardInterrupt`) over the table,
    and a worker busy with a move died with it. The server process decides what Ctrl-C means
    (ask, stop) and ends its pool itself."""
    signal.signal(signal.SIGINT, signal.SIG_IGN)
    watch_server(pid)


def watch_server(pid: int) -> None:
    """In a worker: exit when the server process `pid` dies."""
    if sys.platform.startswith("linux"):
        # SIGKILL when the parent (the forkserver) dies; set before checking it still runs.
        with contextlib.suppress(OSError, AttributeError):
            ctypes.CDLL(None, use_errno=True).prctl(PR_SET_PDEATHSIG, signal.SIGKILL)
    started = _started(pid)

    def watch() -> None:
        while _process_alive(pid, started):
            time.sleep(WATCH_SECONDS)
        os._exit(0)

    threading.Thread(target=watch, name="watch-server", daemon=True).start()


#: The warning filter the resource tracker is started with (`-W`, from `sys.warnoptions`).
TRACKER_WARNINGS = "ignore:resource_tracker:UserWarning"


def _quiet_tracker() -> None:
    """Start multiprocessing's resource tracker without the warning it gives, once the server
    was killed, for the semaphores it cleans up (they are the pool's, and cleaning is expected)."""
    if TRACKER_WARNINGS not in sys.warnoptions:
        sys.warnoptions.append(TRACKER_WARNINGS)
    resource_tracker.ensure_running()


class HintsBusy(Exception):
    """The hint lane already holds as many hints as it may: this one is refused."""


class Lane:
    """A pool of `workers` (processes, or threads) and the work waiting for one of them."""

    def __init__(self, name: str, workers: int, processes: bool) -> None:
        self.name = name
        self.workers = max(1, workers)
        self.processes = processes
        self.waiting = 0
        self._pool: Executor | None = None
        self._starting = asyncio.Lock()
        self._free = asyncio.Semaphore(self.workers)

    async def run(self, level: str, view: View, seed: int, budget_ms: float | None) -> Move:
        """`choose_move` in one of the lane's workers, once one is free (cancellable meanwhile)."""
        return await self.call(choose_move, level, view, seed, budget_ms)

    async def call(self, work: Callable[..., T], *args: Any) -> T:
        """`work(*args)` in one of the lane's workers (a module-level function, for processes),
        once one is free (cancellable meanwhile)."""
        loop = asyncio.get_running_loop()
        self.waiting += 1
        try:
            await self._free.acquire()
        finally:
            self.waiting -= 1
        try:
            if self._pool is None:
                async with self._starting:
                    # Starting worker processes takes a while: never on the event loop's thread.
                    await loop.run_in_executor(None, self._start)
            assert self._pool is not None
            return await loop.run_in_executor(self._pool, work, *args)
        finally:
            self._free.release()

    def _start(self) -> None:
        if self._pool is not None:
            return
        pool: Executor
        if self.processes:
            _quiet_tracker()
            context = multiprocessing.get_context("forkserver")
            # Workers need the bots, never the embedding program's __main__.
            context.set_forkserver_preload(["server.play.bots"])
            pool = ProcessPoolExecutor(
                self.workers, mp_context=context, initializer=start_worker, initargs=(os.getpid(),)
            )
        else:
            pool = ThreadPoolExecutor(self.workers, thread_name_prefix=f"{self.name}-lane")
        pool.submit(int).result()
        self._pool = pool

    def close(self) -> None:
        """Stop the pool (running work is abandoned)."""
        if self._pool is not None:
            self._pool.shutdown(wait=False, cancel_futures=True)
            self._pool = None


class BotRunner:
    """Runs bot decisions: cheap levels inline, `hard` in the bots' lane, hints in their own."""

    def __init__(
        self,
        workers: int = 1,
        budget_ms: float | None = 200.0,
        processes: bool = True,
        hint_workers: int = 1,
        max_hints_waiting: int = 8,
    ) -> None:
        self.workers = workers
        self.budget_ms = budget_ms
        self.processes = processes
        self.max_hints_waiting = max_hints_waiting
        self.bots = Lane("bots", workers, processes)
        self.hints = Lane("hints", hint_workers, processes)

    async def choose(self, level: str, view: View) -> Move:
        """A legal move for the view's seat, from a room's bot (or a stand-in)."""
        return await self._choose(self.bots, level, view)

    async def hint(self, view: View) -> Move:
        """The hard bot's move for a player who asked; HintsBusy if too many hints wait."""
        if self.hints.waiting >= self.max_hints_waiting:
            raise HintsBusy(f"{self.hints.waiting} hints are waiting already")
        return await self._choose(self.hints, "hard", view)

    async def _choose(self, lane: Lane, level: str, view: View) -> Move:
        seed = secrets.randbits(32)
        if level in CHEAP_LEVELS or len(view.legal) == 1:
            return choose_move(level, view, seed, self.budget_ms)
        try:
            return await lane.run(level, view, seed, self.budget_ms)
        except (BrokenExecutor, OSError, RuntimeError):
            log.exception(
                "the %s lane's pool failed: a new one starts, normal plays now", lane.name
            )
            lane.close()
            return choose_move("normal", view, seed, self.budget_ms)

    def close(self) -> None:
        """Stop both lanes' pools (running decisions are abandoned)."""
        self.bots.close()
        self.hints.close()
