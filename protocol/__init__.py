"""The wire and file formats of allfives: messages, room views, patches and game records."""

from protocol.errors import ERROR_CODES, ProtocolError
from protocol.messages import (
    PROTOCOL_VERSION,
    AnyClientMessage,
    AnyServerMessage,
    decode_client,
    decode_server,
    encode,
)
from protocol.patch import ClientState, GapDetected, apply, to_builtins
from protocol.records import Record, RecordFormatError, decode_record, encode_record
from protocol.rules import RoomRules, Rules
from protocol.tiles import format_tile, parse_tile
from protocol.views import GameView, RoomView

__all__ = [
    "ERROR_CODES",
    "PROTOCOL_VERSION",
    "AnyClientMessage",
    "AnyServerMessage",
    "ClientState",
    "GameView",
    "GapDetected",
    "ProtocolError",
    "Record",
    "RecordFormatError",
    "RoomRules",
    "RoomView",
    "Rules",
    "apply",
    "decode_client",
    "decode_record",
    "decode_server",
    "encode",
    "encode_record",
    "format_tile",
    "parse_tile",
    "to_builtins",
]
