"""The `GET /metrics` page, the one place that knows the Prometheus names.

The parts count in plain numbers (`server.metrics`, the door's connections, the committer's
changes taken from other processes, `Refusals.counts`, the finisher, the API); `MetricsPage` is
a `prometheus_client` collector, in a registry of its own, that reads them only when the page is
asked for, so a move never touches a `prometheus_client` object. `prometheus_client` writes the
text.
"""

from __future__ import annotations

from collections.abc import Iterator, Sequence

from prometheus_client import CollectorRegistry, generate_latest
from prometheus_client.core import CounterMetricFamily, GaugeMetricFamily, Metric

from server.edge.api import Api
from server.edge.door import Door
from server.edge.refusals import REFUSED, Refusals
from server.metrics import COLLECTOR, CollectorWatch, Metrics
from server.play.committer import Committer
from server.play.finish import Finisher
from server.play.registry import Registry

#: The kinds of change taken from another process (with Redis), each counted.
ADOPTED = ("move", "state", "misfit")


def gauge(name: str, text: str, value: float) -> GaugeMetricFamily:
    return GaugeMetricFamily(name, text, value=value)


def counter(name: str, text: str, value: float) -> CounterMetricFamily:
    return CounterMetricFamily(name, text, value=value)


def by_label(
    name: str, text: str, label: str, values: Sequence[tuple[object, float]]
) -> CounterMetricFamily:
    """A counter with one sample per value of `label`."""
    family = CounterMetricFamily(name, text, labels=[label])
    for key, value in values:
        family.add_metric([str(key)], value)
    return family


class MetricsPage:
    """The `/metrics` page: a collector of the parts' counts (see the module docstring)."""

    def __init__(
        self,
        metrics: Metrics,
        registry: Registry,
        door: Door,
        committer: Committer,
        refusals: Refusals,
        finisher: Finisher,
        api: Api,
        watch: CollectorWatch = COLLECTOR,
    ) -> None:
        self.metrics = metrics
        self.registry = registry
        self.door = door
        self.committer = committer
        self.refusals = refusals
        self.finisher = finisher
        self.api = api
        self.watch = watch
        #: This server's own registry (not the process-wide default: a process may run several).
        self.collectors = CollectorRegistry()
        self.collectors.register(self)

    def text(self) -> str:
        """The page, as served."""
        return generate_latest(self.collectors).decode()

    def collect(self) -> Iterator[Metric]:
        """Every metric, read now."""
        rooms = self.registry.rooms
        playing = sum(1 for live in rooms.values() if live.room.phase == "playing")
        counted = self.metrics
        yield gauge("allfives_rooms", "Rooms open.", len(rooms))
        yield gauge("allfives_rooms_playing", "Rooms with a match in progress.", playing)
        yield gauge(
            "allfives_connections", "Open WebSocket connections.", len(self.door.connections)
        )
        yield counter("allfives_matches_started_total", "Matches started.", counted.matches_started)
        yield counter(
            "allfives_matches_finished_total",
            "Matches played to the end.",
            counted.matches_finished,
        )
        yield counter("allfives_moves_total", "Moves applied.", counted.moves)
        yield counter("allfives_frames_sent_total", "Frames queued.", counted.frames_sent)
        yield counter(
            "allfives_slow_clients_dropped_total",
            "Connections closed because they did not read.",
            counted.slow_clients_dropped,
        )
        yield by_label(
            "allfives_errors_total",
            "Commands refused, by error code.",
            "code",
            sorted(counted.errors.items()),
        )
        adopted = self.committer.adopted()
        if adopted is not None:  # with Redis only
            yield by_label(
                "allfives_changes_adopted_total",
                "Other processes' changes taken, by kind (move: made again; state: read whole; "
                "misfit: a move read from Redis instead).",
                "kind",
                [(kind, adopted.get(kind, 0)) for kind in ADOPTED],
            )
        yield from self.collector_passes()
        yield by_label(
            "allfives_http_refused_total",
            "HTTP requests refused over a limit, by status.",
            "status",
            [(status, self.refusals.counts.get(status, 0)) for status in sorted(REFUSED)],
        )
        yield counter(
            "allfives_games_archived_total",
            "Finished matches archived and rated here.",
            self.finisher.archived,
        )
        yield counter(
            "allfives_rating_conflicts_total",
            "Ratings read again: another match changed them first.",
            self.finisher.conflicts,
        )
        yield counter(
            "allfives_api_answered_total", "HTTP API requests answered.", self.api.answered
        )
        yield counter(
            "allfives_api_refused_total",
            "HTTP API requests refused (not found, bad, rate-limited, unavailable).",
            self.api.refused,
        )

    def collector_passes(self) -> Iterator[Metric]:
        """The garbage collector's passes in this process (`server.metrics.CollectorWatch`)."""
        watch = self.watch
        generations = range(3)
        yield by_label(
            "allfives_gc_passes_total",
            "Garbage collector passes, by generation.",
            "generation",
            [(g, watch.passes[g]) for g in generations],
        )
        yield by_label(
            "allfives_gc_seconds_total",
            "Time in garbage collector passes, by generation.",
            "generation",
            [(g, watch.seconds[g]) for g in generations],
        )
        yield by_label(
            "allfives_gc_collected_total",
            "Unreachable objects found, by generation.",
            "generation",
            [(g, watch.collected[g]) for g in generations],
        )
        yield gauge(
            "allfives_gc_frozen_objects",
            "Objects frozen out of the collector's passes, as counted at its last whole-heap pass.",
            watch.frozen,
        )
        yield gauge(
            "allfives_gc_longest_seconds",
            "The longest garbage collector pass so far.",
            watch.longest,
        )
