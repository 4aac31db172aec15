"""JSON Patch (RFC 6902) between view documents, and the client side that follows `seq`.

A `moved` frame is a patch told by its events: `moved_ops` gives the RFC 6902 operations it
stands for, against the document the client holds, and a client applies those as it applies a
`patch` frame's.
"""

from __future__ import annotations

from typing import Any

import jsonpatch
import msgspec

from protocol.messages import Change, Moved, Snapshot
from protocol.views import AnyEvent, Drew, Played, RoomView

_BAD_PATCH = (
    jsonpatch.JsonPatchException,
    jsonpatch.JsonPointerException,
    msgspec.ValidationError,
    TypeError,
    KeyError,
    IndexError,
    ValueError,
)


#: Where a patch adds its events: each is the value of an `add` to one of these paths.
EVENT_PATHS = ("/game/history/-", "/chat/-")


class GapDetected(Exception):
    """A patch does not follow the document the client holds: ask the server to `resync`."""


def to_builtins(value: Any) -> Any:
    """A struct (or anything msgspec encodes) as plain dicts, lists, strings and numbers."""
    return msgspec.to_builtins(value)


def events_of(operations: list[dict[str, Any]]) -> list[AnyEvent]:
    """A patch's events, in order: the values its `add` operations append to the history or chat."""
    values = [
        op.get("value")
        for op in operations
        if op.get("op") == "add" and op.get("path") in EVENT_PATHS
    ]
    return msgspec.convert(values, list[AnyEvent]) if values else []


class MovedError(ValueError):
    """A `moved` frame that does not fit the document: its end is not open, its tile does not
    match the end, or a seat in it has no hand count."""


#: Where each end's tiles go in the layout: the west end's at the line's start, tile turned.
_END_PATHS = {
    "west": "/game/layout/line/0",
    "east": "/game/layout/line/-",
    "north": "/game/layout/north/-",
    "south": "/game/layout/south/-",
}


def moved_ops(document: dict[str, Any], message: Moved) -> list[dict[str, Any]]:
    """The RFC 6902 operations a `moved` frame stands for, on the document it follows.

    Each event in order: a play takes a tile from its seat's count (and from the hand, where
    the document is that seat's), puts it at its end with the half that matches the end inside
    (at the west end, before a spinner: the spinner's index grows by one), opens the end at its
    other half, sets the total and adds its points to the seat's side; a draw adds to the seat's
    count and takes from the boneyard; every event is a history line. Then the turn, the
    deadline, and the seat's own `hand` and `legal` where the frame has them.
    MovedError where the frame does not fit the document.
    """
    game = document.get("game")
    if not isinstance(game, dict):
        raise MovedError("a move's frame came with no game in the document")
    counts = list(game["hand_counts"])
    ends = dict(game["ends"])
    scores = list(game["scores"])
    sides = document.get("sides") or list(range(len(scores)))
    hand = game.get("hand") if document.get("you") is not None else None
    held = list(hand) if isinstance(hand, list) else None
    boneyard = game["boneyard"]
    spinner = game["layout"]["spinner"]
    ops: list[dict[str, Any]] = []
    for event in message.events:
        seat = event.seat
        if not 0 <= seat < len(counts):
            raise MovedError(f"seat {seat} has no hand count")
        if type(event) is Played:
            if counts[seat] < 1:
                raise MovedError(f"seat {seat} has no tile to play")
            counts[seat] -= 1
            ops.append(
                {"op": "replace", "path": f"/game/hand_counts/{seat}", "value": counts[seat]}
            )
            if held is not None and seat == document.get("you"):
                if event.tile not in held:
                    raise MovedError(f"{event.tile} is not in this seat's hand")
                ops.append({"op": "remove", "path": f"/game/hand/{held.index(event.tile)}"})
                held.remove(event.tile)
            end = event.end
            open_at = ends.get(end) if end is not None else None
            if end is None or open_at is None:
                raise MovedError(f"{event.tile} went to an end that is not open: {end}")
            high, low = (int(pip) for pip in event.tile.split("-"))
            if open_at not in (high, low):
                raise MovedError(f"{event.tile} does not match the {end} end's {open_at}")
            inner, outer = (high, low) if high == open_at else (low, high)
            placed = [outer, inner] if end == "west" else [inner, outer]
            ops.append({"op": "add", "path": _END_PATHS[end], "value": placed})
            if end == "west" and spinner is not None:  # the line grew before the spinner
                spinner += 1
                ops.append({"op": "replace", "path": "/game/layout/spinner", "value": spinner})
            ends[end] = outer
            ops.append({"op": "replace", "path": f"/game/ends/{end}", "value": outer})
            ops.append({"op": "replace", "path": "/game/total", "value": event.total})
            if event.points:
                side = sides[seat] if seat < len(sides) else -1
                if not 0 <= side < len(scores):
                    raise MovedError(f"seat {seat} has no side to score for")
                scores[side] += event.points
                ops.append({"op": "replace", "path": f"/game/scores/{side}", "value": scores[side]})
        elif type(event) is Drew:
            if event.count > boneyard:
                raise MovedError(f"{event.count} tiles drawn from a boneyard of {boneyard}")
            counts[seat] += event.count
            boneyard -= event.count
            ops.append(
                {"op": "replace", "path": f"/game/hand_counts/{seat}", "value": counts[seat]}
            )
            ops.append({"op": "replace", "path": "/game/boneyard", "value": boneyard})
        ops.append({"op": "add", "path": "/game/history/-", "value": to_builtins(event)})
    ops.append({"op": "replace", "path": "/game/turn", "value": message.turn})
    ops.append({"op": "replace", "path": "/deadline", "value": message.deadline})
    if message.hand is not None:
        ops.append({"op": "replace", "path": "/game/hand", "value": list(message.hand)})
    if message.legal is not None:
        ops.append({"op": "replace", "path": "/game/legal", "value": to_builtins(message.legal)})
    return ops


def operations_of(document: dict[str, Any], message: Change) -> list[dict[str, Any]]:
    """The RFC 6902 operations a `patch` or `moved` frame stands for, on the document it follows."""
    return moved_ops(document, message) if isinstance(message, Moved) else message.ops


def events_in(message: Change) -> list[AnyEvent]:
    """A `patch` or `moved` frame's events, in order."""
    return list(message.events) if isinstance(message, Moved) else events_of(message.ops)


def apply(document: dict[str, Any], operations: list[dict[str, Any]]) -> dict[str, Any]:
    """A new document: `document` with the operations applied (the input is left untouched)."""
    # A document is plain JSON: it copies through its encoding many times faster than through
    # copy.deepcopy, which jsonpatch's own copy (in_place=False) uses.
    copied = msgspec.json.decode(msgspec.json.encode(document))
    patched: dict[str, Any] = jsonpatch.apply_patch(copied, operations, in_place=True)
    return patched


class ClientState:
    """The room document a client holds, kept current by snapshots and consecutive patches."""

    def __init__(self) -> None:
        self.document: dict[str, Any] | None = None
        self.seq: int | None = None
        self._view: RoomView | None = None

    def on_snapshot(self, message: Snapshot) -> None:
        """Replace the document with the snapshot's."""
        self.document = to_builtins(message.state)
        self.seq = message.seq
        self._view = message.state

    def on_patch(self, message: Change) -> list[AnyEvent]:
        """Apply a patch (or a `moved` frame) and return its events; GapDetected (state
        unchanged) unless it is seq + 1."""
        if self.document is None or self.seq is None:
            raise GapDetected(f"patch {message.seq} arrived before any snapshot")
        if message.seq <= self.seq:
            return []
        if message.seq != self.seq + 1:
            raise GapDetected(f"patch {message.seq} does not follow {self.seq}")
        try:
            document = apply(self.document, operations_of(self.document, message))
            events = events_in(message)
            view = msgspec.convert(document, RoomView)
        except _BAD_PATCH as error:
            raise GapDetected(f"patch {message.seq} does not apply: {error}") from None
        self.document, self.seq, self._view = document, message.seq, view
        return events

    @property
    def view(self) -> RoomView:
        """The held document as a RoomView; GapDetected before the first snapshot."""
        if self._view is None:
            raise GapDetected("no snapshot yet")
        return self._view
