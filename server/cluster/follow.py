"""What several processes keep of a room held in this one, attached to its `LiveRoom` from
outside (`follow`): the single-process path never sees it.

- `version`: the version of the room's state stored in Redis that `room` is (each save's own).
- `inbox`: notices of other processes' changes not taken yet, by seq (`server.cluster.replica`).
- `doubts`: versions of saves that got no answer (answered `unavailable`), to fence off before
  the room changes again (`SharedCommitter.settle`); with the state of a save that undid one.
- `arrived`: set when a notice arrives (cleared by whoever waits for the next one).
- `follower`: the task following Redis for the room.
"""

from __future__ import annotations

import asyncio
from dataclasses import dataclass, field
from typing import TYPE_CHECKING

from server.play.live import LiveRoom
from server.storage.store import NO_VERSION

if TYPE_CHECKING:
    from server.cluster.notices import Notice


@dataclass
class Follow:
    """A room's state among several processes; see the module docstring."""

    version: str = NO_VERSION
    inbox: dict[int, Notice] = field(default_factory=dict)
    doubts: dict[str, bytes | None] = field(default_factory=dict)
    arrived: asyncio.Event = field(default_factory=asyncio.Event)
    follower: asyncio.Task[None] | None = None


def follow(live: LiveRoom) -> Follow:
    """The several-process state of a room held here (made on first use)."""
    attached = live.attached
    if not isinstance(attached, Follow):
        attached = live.attached = Follow()
    return attached
