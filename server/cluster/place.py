"""This process's place among the others on one Redis: its `Cluster`, once it has joined."""

from __future__ import annotations

from server.cluster.membership import Cluster


class Place:
    """Where the replica and the committer find this process's `Cluster` (made by
    `SharedCommitter.join`, once the server listens and so knows its name)."""

    def __init__(self) -> None:
        self.joined: Cluster | None = None

    @property
    def cluster(self) -> Cluster:
        """This process's place among the others (once joined)."""
        assert self.joined is not None, "not joined yet"
        return self.joined

    @property
    def presence_id(self) -> str:
        """This process's id, as rooms name where a player is connected ("" until joined)."""
        return "" if self.joined is None else self.joined.id
