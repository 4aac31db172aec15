"""What every message shares: the two base classes (tagged by "type") and the bounds of the
fields that room and tournament messages both carry. `protocol.messages` re-exports them."""

from __future__ import annotations

from typing import Annotated

from msgspec import Meta, Struct

MAX_NAME_LENGTH = 24
MAX_ROOM_CODE_LENGTH = 24
#: Numbers a client sends are bounded: ids and seqs to 53 bits (exact in JavaScript too).
MAX_SAFE_INTEGER = 2**53 - 1

Name = Annotated[str, Meta(min_length=1, max_length=MAX_NAME_LENGTH)]
RoomCode = Annotated[str, Meta(min_length=1, max_length=MAX_ROOM_CODE_LENGTH)]
MessageId = Annotated[int, Meta(ge=-MAX_SAFE_INTEGER, le=MAX_SAFE_INTEGER)]


class ClientMessage(Struct, kw_only=True, omit_defaults=True, tag_field="type"):
    """Base of client messages; `id` (chosen by the client) is echoed by the reply or error."""

    id: MessageId | None = None


class ServerMessage(Struct, kw_only=True, tag_field="type"):
    """Base of server messages."""
