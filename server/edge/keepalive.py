"""Keepalive pings for every connection on one timer wheel, instead of a task for each.

websockets' own keepalive runs a task per connection that sleeps `ping_interval`, pings, and
waits for the pong: with thousands of connections that is thousands of tasks, sleeping timers and
futures held in memory, and a ping every interval even on a connection that has just spoken.

Here one timer turns a wheel of `SLOTS` slots, one slot every `interval / SLOTS` seconds, and
each open connection sits in one slot, so it is looked at once an interval:

- heard from since it was last looked at (any frame, a pong included): it is alive, nothing is
  sent;
- silent for an interval: it is sent a ping;
- pinged when last looked at and silent since: it failed to answer within an interval, and is
  failed (close code 1011, "keepalive ping timeout") and dropped.

So a silent connection is pinged every interval and dropped one interval after a ping it does
not answer, as with websockets' defaults (a ping every 20 s, 20 s to answer). Time is counted
in the wheel's turns: a connection notes the turn it was last heard from (`Beat.heard`),
which costs its frames one attribute store.
"""

from __future__ import annotations

import asyncio
from typing import Protocol

#: Slots of the wheel: each turn looks at one of them (a connection once an interval).
SLOTS = 20
#: How long a failed connection has to take its close frame before its socket is dropped.
DROP_SECONDS = 1.0


class Pinged(Protocol):
    """A connection as the wheel uses it (`server.edge.gate`'s connections)."""

    def ping_now(self) -> bool:
        """Send a ping; False if the connection is no longer open."""
        ...

    def expire(self) -> None:
        """Fail the connection: it did not answer a ping."""
        ...


class Beat:
    """One connection's place on the wheel. A small object of its own: three more attributes on
    websockets' connection would take its attribute dict past the size at which instances of a
    class share their keys, and each would then cost about a kilobyte more."""

    __slots__ = ("connection", "heard", "pinged", "slot")

    def __init__(self, connection: Pinged, turn: int, slot: int) -> None:
        self.connection = connection
        #: The wheel's turn when a frame was last received, and when a ping was last sent.
        self.heard = turn
        self.pinged = -1
        #: The slot the connection is in (-1: off the wheel).
        self.slot = slot


class Keepalive:
    """The wheel; see the module docstring. `interval` None or 0: no pings."""

    def __init__(self, interval: float | None, slots: int = SLOTS) -> None:
        self.interval = interval or 0.0
        self.tick = self.interval / slots
        self.slots: list[set[Beat]] = [set() for _ in range(slots)]
        #: Turns made so far: the wheel's clock.
        self.turns = 0
        self.pings = 0
        self.expired = 0
        self._timer: asyncio.TimerHandle | None = None
        self._held = 0

    def add(self, connection: Pinged) -> Beat:
        """Watch an open connection (from now on, it is looked at once an interval); whoever
        receives its frames sets `heard` of the beat returned to `turns`."""
        beat = Beat(connection, self.turns, self.turns % len(self.slots))
        if not self.interval:
            beat.slot = -1
            return beat
        self.slots[beat.slot].add(beat)
        self._held += 1
        if self._timer is None:
            self._timer = asyncio.get_running_loop().call_later(self.tick, self._turn)
        return beat

    def remove(self, beat: Beat) -> None:
        """Stop watching a connection (it closed)."""
        if beat.slot >= 0:
            self.slots[beat.slot].discard(beat)
            self._held -= 1
            beat.slot = -1

    def stop(self) -> None:
        """Stop the wheel (the server stops)."""
        if self._timer is not None:
            self._timer.cancel()
            self._timer = None

    def _turn(self) -> None:
        self.turns += 1
        now = self.turns
        span = len(self.slots)
        for beat in list(self.slots[now % span]):
            if beat.pinged > beat.heard:  # pinged last time, silent since
                self.remove(beat)
                self.expired += 1
                beat.connection.expire()
            elif now - beat.heard >= span and beat.connection.ping_now():  # silent an interval
                beat.pinged = now
                self.pings += 1
        self._timer = None
        if self._held:
            self._timer = asyncio.get_running_loop().call_later(self.tick, self._turn)


__all__ = ["DROP_SECONDS", "SLOTS", "Beat", "Keepalive", "Pinged"]
