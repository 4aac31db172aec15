"""With several processes: which one opens a round's tables (docs/tournaments.md, "How a round
is played").

The lease is kept with the tournament itself (`Kept.opening`), so taking it is a save of the
tournament like any other, stored only over the version it was read at: of two processes that
try at once, one takes it. The holder opens the tables' rooms, notes them and gives the lease
back in one save; a holder that stops keeps the others out until its lease ends, then the next
step of any process takes it. One process alone needs none: its steps for one tournament run
one at a time.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

import msgspec

from server.desk.kept import Kept, Opening


@dataclass(frozen=True)
class Lease:
    """This process's side of the lease: its id, how long a lease lasts, and the clock."""

    holder: str
    seconds: float
    clock: Callable[[], float]

    def take(self, kept: Kept) -> Kept:
        """The tournament with the lease taken (or renewed) by this process, or `kept` itself
        while another process holds it."""
        now = self.clock()
        held = kept.opening
        if held is not None and held.by != self.holder and held.until > now:
            return kept
        if held is not None and held.by == self.holder and held.until > now + self.seconds / 2:
            return kept
        return msgspec.structs.replace(kept, opening=Opening(self.holder, now + self.seconds))

    def holds(self, kept: Kept) -> bool:
        """Whether this process holds the lease in `kept` now."""
        held = kept.opening
        return held is not None and held.by == self.holder and held.until > self.clock()

    def give_back(self, kept: Kept) -> Kept:
        """The tournament with this process's lease given back (`kept` if it holds none)."""
        held = kept.opening
        if held is None or held.by != self.holder:
            return kept
        return msgspec.structs.replace(kept, opening=None)
