"""Plain mode's input: the lines typed at the terminal, read by one thread for the whole program.

`TYPED` hands each line to whoever listens now (a table, the tournament's screen, the next
table); Ctrl-C reaches the same queue as `INTERRUPT`.
"""

from __future__ import annotations

import asyncio
import contextlib
import sys
import threading

#: What the input queue holds for Ctrl-C (no typed line is a lone ETX).
INTERRUPT = "\x03"


class TypedLines:
    """The lines typed at the terminal, read by one thread for the whole program and handed to
    whoever listens now: a table, then the tournament's screen, then the next table (a thread of
    each's own would be left waiting on the terminal and take the next line for the one gone)."""

    def __init__(self) -> None:
        self._target: tuple[asyncio.AbstractEventLoop, asyncio.Queue[str | None]] | None = None
        self._lock = threading.Lock()
        self._started = False
        self._ended = False

    def listen(self, loop: asyncio.AbstractEventLoop, queue: asyncio.Queue[str | None]) -> None:
        """From now on the lines go to `queue` (None: Ctrl-D, or the input's end)."""
        with self._lock:
            self._target = (loop, queue)
            if self._ended:  # the input ended before: nothing more will come
                queue.put_nowait(None)
            if not self._started:
                self._started = True
                threading.Thread(target=self._read, daemon=True).start()

    def _hand(self, line: str | None) -> None:
        with self._lock:
            target = self._target
        if target is not None and not target[0].is_closed():
            with contextlib.suppress(RuntimeError):  # its loop closed meanwhile
                target[0].call_soon_threadsafe(target[1].put_nowait, line)

    def _read(self) -> None:
        """Lines from the terminal, as its line editing gives them (None at the end)."""
        while True:
            line = sys.stdin.readline()
            if not line:  # Ctrl-D on a terminal (which can be read again), or the input's end
                self._hand(None)
                if not sys.stdin.isatty():
                    with self._lock:
                        self._ended = True
                    return
                continue
            self._hand(line.rstrip("\n"))


#: The one reader of the terminal's lines in plain mode.
TYPED = TypedLines()
