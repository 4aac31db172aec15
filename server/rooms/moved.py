"""Whether a change can go as a `moved` frame (its events), and the frames' own parts.

A change made of plays, draws and passes within a hand, with nothing else in the room changed
but the turn's deadline, is sent as its events (protocol.messages.Moved): every receiver works
out the rest from the document it holds (protocol.patch.moved_ops). `moves_only` checks, from
the public parts before and after, that the change is exactly what the events say (counts,
boneyard, total, scores, each end's new tiles, which ends are open), so a client's reckoning
always gives the document a snapshot would; any other change goes as a `patch`.
Sans-I/O: no awaits, no sockets.
"""

from __future__ import annotations

import msgspec

from engine.layout import NOT_OPEN
from engine.parts import Own, Table
from protocol import views as wire
from server.rooms.patches import TILE_NAMES, hand_list, legal_list

__all__ = ["TILE_BITS", "moves_only", "own_tail"]

#: Each tile's bit in a hand's mask, by its wire name.
TILE_BITS: dict[str, int] = {name: 1 << index for index, name in enumerate(TILE_NAMES)}
_END_INDEX = {"west": 0, "east": 1, "north": 2, "south": 3}
#: Each tile's two ways round as a chain holds it (inner, outer), by its wire name.
_PIPS: dict[str, tuple[tuple[int, int], ...]] = {
    name: ((int(name[0]), int(name[2])), (int(name[2]), int(name[0]))) for name in TILE_NAMES
}
_encode = msgspec.json.Encoder().encode


def moves_only(before: Table, after: Table, events: list[wire.AnyEvent], sides: list[int]) -> bool:
    """Whether `events` alone (plays on open ends, draws, passes) take `before` to `after`."""
    if not events or (
        after.hand_number != before.hand_number
        or after.lead != before.lead
        or after.leader != before.leader
        or after.last_hand != before.last_hand
        or after.over != before.over
        or after.winner != before.winner
    ):
        return False
    counts = list(before.hand_counts)
    scores = list(before.scores)
    boneyard = before.boneyard
    total = before.total
    placed = [0, 0, 0, 0]
    # The seats that drew, as a mask: a client takes a played tile from the hand it held
    # before the frame, which lacks the tiles its seat drew in the frame.
    drew = 0
    for event in events:
        if isinstance(event, wire.Played):
            end = _END_INDEX.get(event.end) if event.end is not None else None
            pips = _PIPS.get(event.tile)
            if end is None or pips is None or event.stand_in or drew >> event.seat & 1:
                return False
            chain = after.chains[end]
            at = len(before.chains[end]) + placed[end]
            # The tile is the next one at its end, either way round.
            if at >= len(chain) or chain[at] not in pips:
                return False
            placed[end] += 1
            counts[event.seat] -= 1
            scores[sides[event.seat]] += event.points
            total = event.total
        elif isinstance(event, wire.Drew):
            drew |= 1 << event.seat
            counts[event.seat] += event.count
            boneyard -= event.count
        elif not isinstance(event, wire.Passed):
            return False
    # A tile at the west end moves the spinner one place further along the line.
    if after.spinner != (None if before.spinner is None else before.spinner + placed[0]):
        return False
    before_open, after_open = before.open, after.open
    for end in range(4):
        chain = after.chains[end]
        if not placed[end]:
            # Nothing went there: the end is as it was (open or not, and its number).
            if after_open[end] != before_open[end] or len(chain) != len(before.chains[end]):
                return False
        elif (
            before_open[end] == NOT_OPEN
            or len(chain) != len(before.chains[end]) + placed[end]
            or after_open[end] != chain[-1][1]
        ):
            return False
    return (
        tuple(counts) == after.hand_counts
        and tuple(scores) == after.scores
        and boneyard == after.boneyard
        and total == after.total
    )


def own_tail(old: Own, new: Own, played: int) -> bytes | None:
    """A seat's own fields of a `moved` frame, as the JSON that ends it (`,"hand":…}`), or None
    when the shared frame tells the seat everything: its hand is its old one less the tiles it
    played (`played`, a mask), and its legal moves did not change."""
    parts: list[bytes] = []
    if new.hand != old.hand & ~played:
        parts.append(b',"hand":' + _encode(hand_list(new.hand)))
    if new.legal != old.legal or new.totals != old.totals:
        parts.append(b',"legal":' + _encode(legal_list(new.legal, new.totals)))
    if not parts:
        return None
    parts.append(b"}")
    return b"".join(parts)
