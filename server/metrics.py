"""Counters for `GET /metrics`, written in the Prometheus text format."""

from __future__ import annotations

import gc
import time
from collections import Counter
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any


@dataclass
class Metrics:
    """What the server counts; gauges (rooms, connections) are read when the page is written."""

    matches_started: int = 0
    matches_finished: int = 0
    moves: int = 0
    frames_sent: int = 0
    slow_clients_dropped: int = 0
    errors: Counter[str] = field(default_factory=Counter)

    def text(
        self, rooms: int, connections: int, playing: int, adopted: Mapping[str, int] | None = None
    ) -> str:
        """The metrics page (`adopted`: other processes' changes taken, by kind, with Redis)."""
        lines = [
            *_metric("allfives_rooms", "gauge", "Rooms open.", rooms),
            *_metric("allfives_rooms_playing", "gauge", "Rooms with a match in progress.", playing),
            *_metric("allfives_connections", "gauge", "Open WebSocket connections.", connections),
            *_metric(
                "allfives_matches_started_total",
                "counter",
                "Matches started.",
                self.matches_started,
            ),
            *_metric(
                "allfives_matches_finished_total",
                "counter",
                "Matches played to the end.",
                self.matches_finished,
            ),
            *_metric("allfives_moves_total", "counter", "Moves applied.", self.moves),
            *_metric("allfives_frames_sent_total", "counter", "Frames queued.", self.frames_sent),
            *_metric(
                "allfives_slow_clients_dropped_total",
                "counter",
                "Connections closed because they did not read.",
                self.slow_clients_dropped,
            ),
            "# HELP allfives_errors_total Commands refused, by error code.",
            "# TYPE allfives_errors_total counter",
        ]
        lines += [
            f'allfives_errors_total{{code="{code}"}} {n}' for code, n in sorted(self.errors.items())
        ]
        if adopted is not None:
            lines += [
                "# HELP allfives_changes_adopted_total Other processes' changes taken, by kind "
                "(move: made again; state: read whole; misfit: a move read from Redis instead).",
                "# TYPE allfives_changes_adopted_total counter",
            ]
            lines += [
                f'allfives_changes_adopted_total{{kind="{kind}"}} {adopted.get(kind, 0)}'
                for kind in ("move", "state", "misfit")
            ]
        lines += COLLECTOR.lines()
        return "\n".join(lines) + "\n"


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

    def lines(self) -> list[str]:
        """Its lines of the metrics page."""
        lines = [
            "# HELP allfives_gc_passes_total Garbage collector passes, by generation.",
            "# TYPE allfives_gc_passes_total counter",
        ]
        lines += [
            f'allfives_gc_passes_total{{generation="{g}"}} {self.passes[g]}' for g in range(3)
        ]
        lines += [
            "# HELP allfives_gc_seconds_total Time in garbage collector passes, by generation.",
            "# TYPE allfives_gc_seconds_total counter",
        ]
        lines += [
            f'allfives_gc_seconds_total{{generation="{g}"}} {self.seconds[g]:.6f}' for g in range(3)
        ]
        lines += [
            "# HELP allfives_gc_collected_total Unreachable objects found, by generation.",
            "# TYPE allfives_gc_collected_total counter",
        ]
        lines += [
            f'allfives_gc_collected_total{{generation="{g}"}} {self.collected[g]}' for g in range(3)
        ]
        lines += _metric(
            "allfives_gc_frozen_objects",
            "gauge",
            "Objects frozen out of the collector's passes until the next thaw.",
            gc.get_freeze_count(),
        )
        lines += [
            "# HELP allfives_gc_longest_seconds The longest garbage collector pass so far.",
            "# TYPE allfives_gc_longest_seconds gauge",
            f"allfives_gc_longest_seconds {self.longest:.6f}",
        ]
        return lines


#: The one watch of this process's collector.
COLLECTOR = CollectorWatch()


def _metric(name: str, kind: str, text: str, value: int) -> list[str]:
    return [f"# HELP {name} {text}", f"# TYPE {name} {kind}", f"{name} {value}"]


def counters(values: Mapping[str, tuple[str, int]]) -> str:
    """More counters for the page: name -> (help, value), one block each."""
    lines: list[str] = []
    for name, (text, value) in values.items():
        lines += _metric(name, "counter", text, value)
    return "\n".join(lines) + "\n" if lines else ""
