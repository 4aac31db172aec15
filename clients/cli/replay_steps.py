"""A finished match's record as the steps a replay shows (`allfives show`): pure, no terminal.

The steps are the server's positions (`protocol.positions.Position`, `GET /api/games/ID/positions`):
for each hand its deal, one step after each move and one for its result; each holds every
seat's tiles then, the boneyard left, the layout as the table draws it, the move and the
scores. Nothing is placed or counted here: the names are all this module adds.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from clients.cli.i18n import _
from protocol.positions import Position
from protocol.records import Record

#: One step of a replay: the table after it, as the server gives it.
Step = Position


@dataclass
class Replay:
    """The steps of a record, and what they share."""

    names: list[str]
    teams: bool
    sides: int
    hands: int
    steps: list[Step] = field(default_factory=list)


def replay_of(record: Record, positions: list[Position]) -> Replay:
    """The replay of a (checked) record from the server's positions of it."""
    rules = record.rules
    names = [
        (record.names[seat] if seat < len(record.names) else "")
        or _("seat {seat}").format(seat=seat + 1)  # seats count from 1 on screen
        for seat in range(rules.players)
    ]
    return Replay(
        names=names,
        teams=rules.partnership,
        sides=rules.sides,
        hands=len(record.hands),
        steps=list(positions),
    )
