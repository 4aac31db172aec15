"""JSON Patch (RFC 6902) between view documents, and the client side that follows `seq`."""

from __future__ import annotations

from typing import Any

import jsonpatch
import msgspec

from protocol.messages import Patch, Snapshot
from protocol.views import AnyEvent, RoomView

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

    def on_patch(self, message: Patch) -> list[AnyEvent]:
        """Apply a patch and return its events; GapDetected (state unchanged) unless it is seq + 1."""
        if self.document is None or self.seq is None:
            raise GapDetected(f"patch {message.seq} arrived before any snapshot")
        if message.seq <= self.seq:
            return []
        if message.seq != self.seq + 1:
            raise GapDetected(f"patch {message.seq} does not follow {self.seq}")
        try:
            document = apply(self.document, message.ops)
            view = msgspec.convert(document, RoomView)
            events = events_of(message.ops)
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
