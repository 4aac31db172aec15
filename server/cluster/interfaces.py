"""What the cluster's parts use of the process they run in, each a small protocol.

`server.cluster.upkeep.SharedUpkeep` is given the shared committer
(`server.cluster.shared.SharedCommitter`), but sees only an `UpkeepHost`; the replica is given
its place, the registry and the hooks alone. Neither imports the committer, so the cluster's
modules import one another one way only, type-only imports included.
"""

from __future__ import annotations

from typing import Protocol

from server.cluster.membership import Cluster
from server.play.committer import Hooks
from server.play.live import LiveRoom
from server.play.registry import Registry
from server.play.upkeep import Tended


class Host(Protocol):
    """This process's place in the cluster, its rooms and hooks, and the settling of a room's
    unanswered saves."""

    @property
    def cluster(self) -> Cluster:
        """This process's place among the others (once joined)."""

    @property
    def presence_id(self) -> str:
        """This process's id, as rooms name where a player is connected."""

    @property
    def registry(self) -> Registry: ...

    @property
    def hooks(self) -> Hooks: ...

    async def settle(self, live: LiveRoom) -> None:
        """Under the lock: fence off the room's unanswered saves before it changes again."""


class Follower(Protocol):
    """What the upkeep asks of the replica: read a room again from Redis."""

    async def follow_redis(self, live: LiveRoom) -> None: ...


class UpkeepHost(Host, Tended, Protocol):
    """What the upkeep uses: the replica's host, rooms it can change, taking rooms to keep."""

    @property
    def replica(self) -> Follower: ...

    @property
    def lease_seconds(self) -> float:
        """How long this process's lease lasts unless renewed."""

    async def keep_all(self, codes: list[str]) -> None:
        """Load and keep rooms this process took."""
