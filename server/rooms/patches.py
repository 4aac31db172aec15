"""The JSON Patch operations a room's change implies, from its events and the parts that moved.

No document is built and none is diffed: `public_ops` compares the public parts of the room
before and after (a dozen numbers, the seats, the layout's chains, which only grow) and turns
each event into the operation it implies (a tile added to an arm, a count, the total, a score, a
history line appended with `add .../-`); `own_ops` does the same for one seat's hand and legal
moves. Every operation is RFC 6902, so any client's patch library applies them; the property
test in tests/server/rooms/test_server_feed.py checks that the result is, after every change, exactly the
document a fresh snapshot gives (server.rooms.documents).

A patch's events are the values of its `add` operations on `/game/history/-` and `/chat/-`, in
order (`protocol.patch.events_of`): each event is sent once per frame.
"""

from __future__ import annotations

from typing import Any

import msgspec

from bridge import convert
from engine import ALL_TILES, PASS, End, Move
from engine.kernel import MAX_TOTAL
from engine.layout import NOT_OPEN
from engine.moves import LEAD_MOVES, PLAYS
from engine.parts import Own, Table
from engine.tiles import PIPS
from protocol import views as wire
from protocol.views import CHAT_HISTORY, AnyEvent


class Op(msgspec.Struct, gc=False):
    """An `add` or `replace` operation: encoded as the JSON object `{"op", "path", "value"}`.

    A struct is one block where a dict is two (the object and its keys), and the collector does
    not track it (an operation never refers back to what holds it).
    """

    op: str
    path: str
    value: Any


class Remove(msgspec.Struct, gc=False):
    """A `remove` operation: `{"op": "remove", "path"}`."""

    op: str
    path: str


Operation = Op | Remove

HISTORY = "/game/history/-"
CHAT = "/chat/-"
TILE_NAMES: tuple[str, ...] = tuple(str(tile) for tile in ALL_TILES)
END_PATHS = ("/game/ends/west", "/game/ends/east", "/game/ends/north", "/game/ends/south")
ARM_PATHS: dict[int, str] = {End.NORTH: "/game/layout/north/-", End.SOUTH: "/game/layout/south/-"}
#: The line's ends as plain names (an enum's member read off its class is a slow lookup on
#: Python 3.11, and `_layout_ops` runs at every move).
_WEST, _EAST = End.WEST, End.EAST
COUNT_PATHS = tuple(f"/game/hand_counts/{seat}" for seat in range(4))
SCORE_PATHS = tuple(f"/game/scores/{side}" for side in range(4))


def replace(path: str, value: Any) -> Operation:
    """A `replace` operation."""
    return Op("replace", path, value)


#: A seat's fields, in the order the document lists them: (attribute, name in the document).
SEAT_FIELDS: tuple[tuple[str, str], ...] = tuple(
    zip(wire.SeatInfo.__struct_fields__, wire.SeatInfo.__struct_encode_fields__, strict=True)
)


def seat_ops(
    index: int, old: wire.SeatInfo | None, new: wire.SeatInfo | None, out: list[Operation]
) -> None:
    """Operations turning seat `index` from `old` into `new`: each changed field replaced at its
    own path, or the whole seat where it was taken or freed."""
    if old is None or new is None:
        out.append(Op("replace", f"/seats/{index}", new))
        return
    for attribute, name in SEAT_FIELDS:
        value = getattr(new, attribute)
        if getattr(old, attribute) != value:
            out.append(Op("replace", f"/seats/{index}/{name}", value))


def table_ops(old: Table, new: Table, out: list[Operation]) -> None:
    """Operations turning the public game of `old` into that of `new`, within one hand.

    The history is not touched here: each event adds its own line (`history_ops`).
    """
    if old.hand_counts != new.hand_counts:
        for seat, count in enumerate(new.hand_counts):
            if old.hand_counts[seat] != count:
                out.append(Op("replace", COUNT_PATHS[seat], count))
    if old.boneyard != new.boneyard:
        out.append(Op("replace", "/game/boneyard", new.boneyard))
    if old.lead != new.lead or old.chains != new.chains:
        _layout_ops(old, new, out)
    if old.open != new.open:
        for end, number in enumerate(new.open):
            if old.open[end] != number:
                value = None if number == NOT_OPEN else number
                out.append(Op("replace", END_PATHS[end], value))
    if old.total != new.total:
        out.append(Op("replace", "/game/total", new.total))
    if old.scores != new.scores:
        for side, score in enumerate(new.scores):
            if old.scores[side] != score:
                out.append(Op("replace", SCORE_PATHS[side], score))
    if old.turn != new.turn:
        out.append(Op("replace", "/game/turn", new.turn))
    if old.leader != new.leader:
        out.append(replace("/game/leader", new.leader))
    if old.last_hand != new.last_hand:
        out.append(replace("/game/last_hand", convert.hand_summary(new.last_hand)))
    if old.over != new.over:
        out.append(replace("/game/over", new.over))
    if old.winner != new.winner:
        out.append(replace("/game/winner", convert.winner(new.winner)))


def _layout_ops(old: Table, new: Table, out: list[Operation]) -> None:
    """Tiles added to the line and the arms (a layout only grows within a hand)."""
    if not old.lead and new.lead:
        out.append(Op("add", "/game/layout/line/0", list(new.lead)))
    old_chains, new_chains = old.chains, new.chains
    for end in range(4):
        before, after = old_chains[end], new_chains[end]
        if before is after or len(before) == len(after):
            continue
        for inner, outer in after[len(before) :]:
            if end == _WEST:
                out.append(Op("add", "/game/layout/line/0", [outer, inner]))
            elif end == _EAST:
                out.append(Op("add", "/game/layout/line/-", [inner, outer]))
            else:
                out.append(Op("add", ARM_PATHS[end], [inner, outer]))
    if old.spinner != new.spinner:
        out.append(replace("/game/layout/spinner", new.spinner))


def history_ops(events: list[AnyEvent], out: list[Operation]) -> int:
    """One appended history line per game event; returns how many were added."""
    added = 0
    for event in events:
        if type(event) is not wire.ChatLine:
            out.append(Op("add", HISTORY, event))
            added += 1
    return added


def chat_ops(lines: list[wire.ChatLine], held: int, out: list[Operation]) -> int:
    """Chat lines appended one operation each, the oldest dropped past CHAT_HISTORY.

    `held` is how many lines the document had; returns how many it has after.
    """
    for line in lines:
        out.append(Op("add", CHAT, line))
        held += 1
        if held > CHAT_HISTORY:
            out.append(Remove("remove", "/chat/0"))
            held -= 1
    return held


def own_ops(old: Own, new: Own, out: list[Operation]) -> None:
    """A seat's hand (a tile out, tiles drawn) and legal moves, from its old private part."""
    if old.hand != new.hand:
        hand_ops(old.hand, new.hand, out)
    if old.legal != new.legal or old.totals != new.totals:
        out.append(Op("replace", "/game/legal", legal_list(new.legal, new.totals)))


def own_fresh(new: Own, out: list[Operation]) -> None:
    """A seat's hand and legal moves over a public game that was just replaced (hand null)."""
    out.append(replace("/game/hand", hand_list(new.hand)))
    if new.legal:
        out.append(replace("/game/legal", legal_list(new.legal, new.totals)))


#: Each move's wire forms by the total it makes: with its end, and without it (for a tile that
#: fits one end only). Built once for every total a move can make (some 11,000 small specs, shared
#: by every room), so that no change of a room builds one.
_SPECS: dict[Move, tuple[dict[int | None, wire.MoveSpec], dict[int | None, wire.MoveSpec]]] = {
    move: (
        {total: convert.move_spec(move, False, total) for total in made},
        {total: convert.move_spec(move, True, total) for total in made},
    )
    for move, made in (
        (PASS, (None,)),
        *((move, (PIPS[move.tile],)) for move in LEAD_MOVES if move.tile is not None),
        *((move, range(MAX_TOTAL + 1)) for row in PLAYS for move in row),
    )
}


def _new_spec(move: Move, single_end: bool, total: int | None) -> wire.MoveSpec:
    """The wire form of a move `_SPECS` does not hold, kept for the next time it comes up."""
    spec = convert.move_spec(move, single_end, total)
    known = _SPECS.get(move)
    if known is not None:
        known[single_end][total] = spec
    return spec


def legal_list(legal: tuple[Move, ...], totals: tuple[int | None, ...]) -> list[wire.MoveSpec]:
    """The legal moves as the document lists them (as `convert.legal_specs`, from shared specs).

    `totals[i]` is what `legal[i]` makes (`Own` holds both).
    """
    specs = _SPECS
    if len(legal) < 2:
        return [
            specs[move][True].get(totals[i]) or _new_spec(move, True, totals[i])
            for i, move in enumerate(legal)
        ]
    tiles = [move.tile for move in legal]
    return [
        specs[move][tiles.count(move.tile) == 1].get(totals[i])
        or _new_spec(move, tiles.count(move.tile) == 1, totals[i])
        for i, move in enumerate(legal)
    ]


def hand_list(mask: int) -> list[str]:
    """A hand as the document lists it: tile names, lowest tile first."""
    names = []
    while mask:
        low = mask & -mask
        names.append(TILE_NAMES[low.bit_length() - 1])
        mask ^= low
    return names


def hand_ops(old: int, new: int, out: list[Operation]) -> None:
    """Removes for the tiles that left a hand, then adds (at their sorted place) for the new ones."""
    removed = old & ~new
    done = 0
    while removed:
        low = removed & -removed
        out.append(Remove("remove", f"/game/hand/{(old & (low - 1)).bit_count() - done}"))
        done += 1
        removed ^= low
    added = new & ~old
    while added:
        low = added & -added
        out.append(
            Op(
                "add",
                f"/game/hand/{(new & (low - 1)).bit_count()}",
                TILE_NAMES[low.bit_length() - 1],
            )
        )
        added ^= low
