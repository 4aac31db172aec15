"""The test oracle of the feed: each receiver's document built the plain way, and a diff.

`reference_document` builds a receiver's document straight from its own `view_for` (the way the
server built every document before patches were derived from events); `diff` is the document
diff the server used to send, kept to say what differs when a patched document is wrong.

The diff is a fast RFC 6902 diff for room documents (jsonpatch's general one,
`protocol_helpers.diff`, is ~50x slower).
It walks both documents once: objects key by key, lists by their common prefix and suffix (so a
tile leaving a hand is one `remove`, a new history event one `add`), anything else `replace`d.
Scalars must match in type as well as value (`1` is not `true`). Any result is valid RFC 6902:
`protocol.patch.apply(old, diff(old, new)) == new` is checked by the tests.
"""

from __future__ import annotations

from typing import Any

import msgspec

from server.rooms.documents import room_view
from server.rooms.room import Room

Operation = dict[str, Any]


def diff(old: Any, new: Any, path: str = "") -> list[Operation]:
    """RFC 6902 operations that turn the JSON document `old` (found at `path`) into `new`."""
    operations: list[Operation] = []
    _diff(old, new, path, operations)
    return operations


def pointer_token(key: str) -> str:
    """A key escaped for a JSON pointer (RFC 6901)."""
    return key.replace("~", "~0").replace("/", "~1") if "~" in key or "/" in key else key


def _same(old: Any, new: Any) -> bool:
    """JSON equality: Python's `==` (fast, and enough to tell most values apart) made strict."""
    return old is new or (old == new and _strictly_same(old, new))


def _strictly_same(old: Any, new: Any) -> bool:
    """Whether two values that compare equal (`==`) also agree in every type (1 is not true)."""
    if type(old) is not type(new):
        return False
    if type(old) is dict:
        pairs: Any = ((old[key], new[key]) for key in old)
    elif type(old) is list:
        pairs = zip(old, new, strict=True)
    else:
        return True
    for a, b in pairs:
        if a is b:
            continue
        kind = type(a)
        if kind is not type(b):
            return False
        if (kind is dict or kind is list) and not _strictly_same(a, b):
            return False
    return True


def _diff(old: Any, new: Any, path: str, out: list[Operation]) -> None:
    if old is new:
        return
    kind = type(old)
    if kind is not type(new):
        out.append({"op": "replace", "path": path, "value": new})
    elif kind is dict:
        _diff_objects(old, new, path, out)
    elif kind is list:
        _diff_lists(old, new, path, out)
    elif old != new:
        out.append({"op": "replace", "path": path, "value": new})


def _diff_objects(
    old: dict[str, Any], new: dict[str, Any], path: str, out: list[Operation]
) -> None:
    for key, value in old.items():
        here = f"{path}/{pointer_token(key)}"
        if key not in new:
            out.append({"op": "remove", "path": here})
        else:
            _diff(value, new[key], here, out)
    for key, value in new.items():
        if key not in old:
            out.append({"op": "add", "path": f"{path}/{pointer_token(key)}", "value": value})


def _diff_lists(old: list[Any], new: list[Any], path: str, out: list[Operation]) -> None:
    shorter = min(len(old), len(new))
    start = 0
    while start < shorter:
        a, b = old[start], new[start]
        if a is not b and not _same(a, b):
            break
        start += 1
    if start == len(old) == len(new):
        return
    tail = 0
    while tail < shorter - start:
        a, b = old[-1 - tail], new[-1 - tail]
        if a is not b and not _same(a, b):
            break
        tail += 1
    old_middle = len(old) - start - tail
    new_middle = len(new) - start - tail
    if old_middle == new_middle:
        for offset in range(old_middle):
            index = start + offset
            _diff(old[index], new[index], f"{path}/{index}", out)
        return
    if (old_middle and new_middle) or old_middle + new_middle > len(new) + 1:
        out.append({"op": "replace", "path": path, "value": new})
        return
    for _ in range(old_middle):
        out.append({"op": "remove", "path": f"{path}/{start}"})
    for offset in range(new_middle):
        index = start + offset
        out.append({"op": "add", "path": f"{path}/{index}", "value": new[index]})


def reference_document(room: Room, receiver: int | None) -> dict[str, Any]:
    """A receiver's document built the plain way, straight from its view (the snapshot's)."""
    document: dict[str, Any] = msgspec.to_builtins(room_view(room, receiver))
    return document
