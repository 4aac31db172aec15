"""What the server counts, as plain numbers: `GET /metrics` (`server.edge.metrics_page`) reads
them when it is asked, so counting costs a move no more than an addition."""

from __future__ import annotations

import gc
import time
from collections import Counter
from dataclasses import dataclass, field
from typing import Any


@dataclass
class Metrics:
    """What the server counts (the gauges, rooms and connections, are read from their owners
    when the page is written)."""

    matches_started: int = 0
    matches_finished: int = 0
    moves: int = 0
    frames_sent: int = 0
    slow_clients_dropped: int = 0
    errors: Counter[str] = field(default_factory=Counter)


class CollectorWatch:
    """The garbage collector's passes in this process, timed (`gc.callbacks`): how many, how
    long in all and at most, by generation. A pass stops every room of the process, so the
    longest one bounds the server's delays from below."""

    def __init__(self) -> None:
        self.passes = [0, 0, 0]
        self.seconds = [0.0, 0.0, 0.0]
        #: Unreachable objects the passes found (cycles): what a frozen heap holds back between
        #: thaws (`server.collector`) shows in the passes that follow one.
        self.collected = [0, 0, 0]
        self.longest = 0.0
        #: Objects frozen out of the passes when the collector last walked the whole heap (a
        #: thaw, `server.collector`): counting them is a walk of every one, cold in memory (24 ms
        #: for two million), so it is done only when the collector walks them anyway, never by a
        #: scrape.
        self.frozen = 0
        self._started = 0.0
        self._installed = False

    def install(self) -> None:
        """Start timing (once a process, however many servers it runs)."""
        if not self._installed:
            gc.callbacks.append(self._callback)
            self._installed = True

    def _callback(self, phase: str, info: dict[str, Any]) -> None:
        if phase == "start":
            self._started = time.perf_counter()
            return
        took = time.perf_counter() - self._started
        generation = info["generation"]
        self.passes[generation] += 1
        self.seconds[generation] += took
        self.collected[generation] += info["collected"]
        self.longest = max(self.longest, took)


#: The one watch of this process's collector.
COLLECTOR = CollectorWatch()
