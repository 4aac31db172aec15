"""The `GET /metrics` page: the server's counters (`server.metrics`) with the gauges read now.

`MetricsPage.text` writes the rooms held and playing, the open connections, the changes taken
from other processes (with Redis), the HTTP refusals over a limit, and the matches archived and
the API's answers, in the Prometheus text format.
"""

from __future__ import annotations

from server.edge.api import Api
from server.edge.door import Door
from server.edge.refusals import Refusals
from server.metrics import Metrics, counters
from server.play.committer import Committer
from server.play.finish import Finisher
from server.play.registry import Registry


class MetricsPage:
    """Writes the `/metrics` page from the parts that count (see the module docstring)."""

    def __init__(
        self,
        metrics: Metrics,
        registry: Registry,
        door: Door,
        committer: Committer,
        refusals: Refusals,
        finisher: Finisher,
        api: Api,
    ) -> None:
        self.metrics = metrics
        self.registry = registry
        self.door = door
        self.committer = committer
        self.refusals = refusals
        self.finisher = finisher
        self.api = api

    def text(self) -> str:
        """The page, as served."""
        rooms = self.registry.rooms
        playing = sum(1 for live in rooms.values() if live.room.phase == "playing")
        page = self.metrics.text(
            len(rooms), len(self.door.connections), playing, self.committer.adopted()
        )
        page += "\n".join(self.refusals.lines()) + "\n"
        return page + counters(
            {
                "allfives_games_archived_total": (
                    "Finished matches archived and rated here.",
                    self.finisher.archived,
                ),
                "allfives_rating_conflicts_total": (
                    "Ratings read again: another match changed them first.",
                    self.finisher.conflicts,
                ),
                "allfives_api_answered_total": ("HTTP API requests answered.", self.api.answered),
                "allfives_api_refused_total": (
                    "HTTP API requests refused (not found, bad, rate-limited, unavailable).",
                    self.api.refused,
                ),
            }
        )
