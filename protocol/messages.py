"""Every message between client and server: JSON objects tagged by "type", as msgspec structs."""

from __future__ import annotations

from typing import Annotated, Any, get_args

import msgspec
from msgspec import Meta, Struct

from protocol.archived import GetReview as GetReview
from protocol.archived import ReviewReply as ReviewReply
from protocol.errors import (
    BAD_JSON,
    INVALID,
    TOO_LARGE,
    UNKNOWN_TYPE,
    ProtocolError,
    explain_validation,
)
from protocol.message_base import MAX_NAME_LENGTH as MAX_NAME_LENGTH
from protocol.message_base import MAX_ROOM_CODE_LENGTH as MAX_ROOM_CODE_LENGTH
from protocol.message_base import MAX_SAFE_INTEGER as MAX_SAFE_INTEGER
from protocol.message_base import ClientMessage as ClientMessage
from protocol.message_base import MessageId as MessageId
from protocol.message_base import Name as Name
from protocol.message_base import RoomCode as RoomCode
from protocol.message_base import ServerMessage as ServerMessage
from protocol.positions import Position
from protocol.ratings import GameId
from protocol.records import Record
from protocol.rules import RoomRules
from protocol.text_checks import BOT_KEY as BOT_KEY
from protocol.text_checks import MAX_CHAT_LENGTH as MAX_CHAT_LENGTH
from protocol.text_checks import validate_chat as validate_chat
from protocol.text_checks import validate_name as validate_name
from protocol.tiles import TILE_PATTERN, EndName, Tile
from protocol.tournaments import (
    CreateTournament,
    FollowTournament,
    JoinTournament,
    LeaveTournament,
    StartTournament,
    TournamentUpdate,
    validate_tournament_name,
)
from protocol.views import BotLevel, Count, Drew, MoveSpec, Passed, Played, RoomView, Seat

PROTOCOL_VERSION = 3
MAX_MESSAGE_BYTES = 4096
MAX_TOKEN_LENGTH = 128
RATE_BURST = 20
RATE_PER_SECOND = 10
#: Rooms in one `rooms` answer at the most; `list_rooms` pages on with `offset`.
ROOMS_PAGE = 50
MAX_ROOMS_OFFSET = 100_000

Token = Annotated[str, Meta(min_length=1, max_length=MAX_TOKEN_LENGTH)]
Seq = Annotated[int, Meta(ge=0, le=MAX_SAFE_INTEGER)]
Version = Annotated[int, Meta(ge=0, le=MAX_SAFE_INTEGER)]
ChatText = Annotated[str, Meta(min_length=1, max_length=MAX_CHAT_LENGTH)]
#: A player's secret key, made by the client on first use: 32 random bytes as URL-safe base64
#: without padding (43 characters); 32 to 64 of [A-Za-z0-9_-] are accepted (`KEY_PATTERN`, also
#: the key of the HTTP API's `Authorization: Key <key>`).
KEY_PATTERN = "[A-Za-z0-9_-]{32,64}"
PlayerKey = Annotated[str, Meta(pattern=f"^{KEY_PATTERN}$")]
from protocol.codes import (  # noqa: E402 - the types of two hello fields
    LinkCode,
    RecoveryCode,
)

# Client -> server ---------------------------------------------------------------------------


class Hello(ClientMessage, tag="hello"):
    """First message of a connection; with `token`, `room` (and `last_seq`) it resumes a seat.

    `key` is the player's secret (never shown, logged or stored in clear by the server); `link`
    a one-time code from `link_code` that joins this new key to the player who asked for it."""

    version: Version
    #: Left out by a connection that only watches (it then takes no seat and posts no chat).
    name: Name | None = None
    token: Token | None = None
    room: RoomCode | None = None
    last_seq: Seq | None = None
    key: PlayerKey | None = None
    link: LinkCode | None = None
    #: A recovery code (`recovery_code`): with `key`, the key joins the code's player.
    recover: RecoveryCode | None = None

    def __repr__(self) -> str:
        # The key is a secret: a repr (in a log line, a traceback) never shows it.
        hidden = "<hidden>" if self.key is not None else None
        recover = "<hidden>" if self.recover is not None else None
        return f"Hello(version={self.version}, name={self.name!r}, key={hidden}, recover={recover})"


class CreateRoom(ClientMessage, tag="create_room"):
    """Open a room with these rules; the creator takes `seat` (default 0) and becomes host."""

    rules: RoomRules
    seat: Seat | None = None


class ListRooms(ClientMessage, tag="list_rooms"):
    """Ask for the public rooms still waiting for players: `ROOMS_PAGE` of them from `offset`."""

    offset: Annotated[int, Meta(ge=0, le=MAX_ROOMS_OFFSET)] = 0


class Join(ClientMessage, tag="join"):
    """Take a seat in a waiting room: `seat`, or the first free one; `name` overrides hello's."""

    room: RoomCode
    seat: Seat | None = None
    name: Name | None = None


class Spectate(ClientMessage, tag="spectate"):
    """Watch a room without a seat."""

    room: RoomCode


class Leave(ClientMessage, tag="leave"):
    """Leave the room (a seat in a match in progress is kept for reconnection, then a bot plays it)."""


class Back(ClientMessage, tag="back"):
    """Take your seat back from the stand-in bot that plays it (you were idle on your turn)."""


class AddBot(ClientMessage, tag="add_bot"):
    """Host: seat a bot in `seat` (or the first free one) at `level`."""

    seat: Seat | None = None
    level: BotLevel = "normal"


class RemoveBot(ClientMessage, tag="remove_bot"):
    """Host: free the bot's seat in a waiting room."""

    seat: Seat


class RemovePlayer(ClientMessage, tag="remove_player"):
    """Host: free another seat (a player's or a bot's) in a waiting room."""

    seat: Seat


class Start(ClientMessage, tag="start"):
    """Host: start the match once every seat is taken."""


class Play(ClientMessage, tag="play"):
    """Play a tile; `end` is needed only when the tile fits more than one open end."""

    tile: Tile
    end: EndName | None = None


class Pass(ClientMessage, tag="pass"):
    """Pass: allowed only when the legal moves are a single pass."""


class Hint(ClientMessage, tag="hint"):
    """Ask which move the strong bot would make now."""


class Rematch(ClientMessage, tag="rematch"):
    """Host: after a finished match, return the room to waiting with the same seats."""


class Chat(ClientMessage, tag="chat"):
    """Say something to the room."""

    text: ChatText


class Resync(ClientMessage, tag="resync"):
    """Ask for a fresh snapshot (after a gap in `seq`)."""


class GetRecord(ClientMessage, tag="record"):
    """Ask for the record of the room's finished match, or with `game` for an archived game's
    (its id, as the HTTP API names it): one the asker may see, else `no_such_game`."""

    game: GameId | None = None


class AskLinkCode(ClientMessage, tag="link_code"):
    """Ask for a one-time code that links another device's key to this connection's player."""


class AskRecoveryCode(ClientMessage, tag="recovery_code"):
    """Ask for a new recovery code for this connection's player (any older one stops working)."""


class Ping(ClientMessage, tag="ping"):
    """Keepalive; answered by `pong`."""


AnyClientMessage = (
    Hello
    | CreateRoom
    | ListRooms
    | Join
    | Spectate
    | Leave
    | Back
    | AddBot
    | RemoveBot
    | RemovePlayer
    | Start
    | Play
    | Pass
    | Hint
    | Rematch
    | Chat
    | Resync
    | GetRecord
    | GetReview
    | AskLinkCode
    | AskRecoveryCode
    | Ping
    | CreateTournament
    | JoinTournament
    | LeaveTournament
    | StartTournament
    | FollowTournament
)


# Server -> client ---------------------------------------------------------------------------


class Welcome(ServerMessage, tag="welcome"):
    """Answer to hello: the protocol version in use and the server's name and version; `player`
    the name of the player the hello's key belongs to (None without a key)."""

    version: int
    server: str
    id: int | None = None
    player: str | None = None


class Joined(ServerMessage, tag="joined"):
    """You are in `room`: at `seat` with `seat_token` (keep it to reconnect), or spectating (None)."""

    room: RoomCode
    seat: Seat | None
    seat_token: str | None
    id: int | None = None


class RoomSummary(Struct, kw_only=True):
    """A public waiting room in a listing: its rules, who sits where (None = free), the free seats."""

    code: RoomCode
    rules: RoomRules
    seats: list[str | None]
    free_seats: list[Seat]


class Rooms(ServerMessage, tag="rooms"):
    """Answer to list_rooms: at most `ROOMS_PAGE` rooms from `offset`, of `total` listed."""

    rooms: Annotated[list[RoomSummary], Meta(max_length=ROOMS_PAGE)]
    id: int | None = None
    offset: Count = 0
    total: Count = 0


class Snapshot(ServerMessage, tag="snapshot"):
    """The whole room document at `seq`; replaces whatever the client held."""

    seq: Seq
    state: RoomView
    id: int | None = None


class Patch(ServerMessage, tag="patch", omit_defaults=True):
    """RFC 6902 operations taking the document from `seq - 1` to `seq`.

    The events behind them are the values the operations append to the history and the chat
    (`protocol.patch.events_of`).
    """

    seq: Seq
    ops: list[dict[str, Any]]


class Moved(ServerMessage, tag="moved", omit_defaults=True):
    """A change made of moves alone, sent as its events: the document from `seq - 1` to `seq`.

    Within a hand, a play, a draw or a pass changes nothing a client cannot work out from the
    event and the document it holds: this frame is the RFC 6902 patch those operations make
    (`protocol.patch.moved_ops`, protocol/README.md "A move's frame"), at a third of its size.
    `turn` and `deadline` are the game's turn and the room's deadline after the moves. Only a
    seat's own frame has `hand` (its whole hand, where it drew) and `legal` (its legal moves,
    where they changed). A change a client could not work out this way comes as a `patch`.
    """

    seq: Seq
    events: list[Played | Drew | Passed]
    turn: Seat | None
    deadline: float | None
    hand: list[Tile] | None = None
    legal: list[MoveSpec] | None = None


#: A frame that takes the document from `seq - 1` to `seq`.
Change = Patch | Moved


class Error(ServerMessage, tag="error", omit_defaults=True):
    """A refused message: the `id` and `type` (`command`) it answers, a code and a sentence
    (English, for people; clients word the code, and the `reason` where one is given: one of
    protocol.errors.REASONS); `retry_after`, where given, the seconds to wait (a `busy`)."""

    id: int | None
    command: str | None
    code: str
    message: str
    reason: str | None = None
    retry_after: int | None = None


class HintReply(ServerMessage, tag="hint"):
    """Answer to hint: the suggested move."""

    move: MoveSpec
    id: int | None = None


class RecordReply(ServerMessage, tag="record"):
    """Answer to record: the finished match as an allfives-record/1 document, and the table
    after each of its steps, as a replay draws it (left out by servers older than them)."""

    record: Record
    positions: list[Position] = msgspec.field(default_factory=list)
    id: int | None = None
    #: The archived game's id when `record` asked for one (None: the room's match).
    game: str | None = None


class LinkCodeReply(ServerMessage, tag="link_code"):
    """Answer to link_code: the one-time code and the seconds it lives."""

    code: str
    expires_in: int
    id: int | None = None


class RecoveryCodeReply(ServerMessage, tag="recovery_code"):
    """Answer to recovery_code: the code, shown once (the server keeps only its hash)."""

    code: str
    id: int | None = None

    def __repr__(self) -> str:
        # The code is a secret: a repr (a log line, a traceback) never shows it.
        return f"RecoveryCodeReply(id={self.id})"


class Pong(ServerMessage, tag="pong"):
    """Answer to ping."""

    id: int | None = None


class Ack(ServerMessage, tag="ack"):
    """A command with an `id` was done; its effects came before this in patches."""

    id: int | None = None


AnyServerMessage = (
    Welcome
    | Joined
    | Rooms
    | Snapshot
    | Patch
    | Moved
    | Error
    | HintReply
    | RecordReply
    | ReviewReply
    | LinkCodeReply
    | RecoveryCodeReply
    | Pong
    | Ack
    | TournamentUpdate
)

CLIENT_TYPES: dict[str, type[ClientMessage]] = {
    cls.__struct_config__.tag: cls for cls in get_args(AnyClientMessage)
}
SERVER_TYPES: dict[str, type[ServerMessage]] = {
    cls.__struct_config__.tag: cls for cls in get_args(AnyServerMessage)
}

_encoder = msgspec.json.Encoder()
_client_decoder = msgspec.json.Decoder(AnyClientMessage)
_server_decoder = msgspec.json.Decoder(AnyServerMessage)


def encode(message: ClientMessage | ServerMessage) -> bytes:
    """One message as a JSON frame."""
    return _encoder.encode(message)


def decode_client(data: bytes | str) -> AnyClientMessage:
    """Read a client frame; ProtocolError (bad_json, unknown_type, invalid, too_large) if refused."""
    frame = data.encode() if isinstance(data, str) else data
    if len(frame) > MAX_MESSAGE_BYTES:
        raise ProtocolError(TOO_LARGE, f"a message may be at most {MAX_MESSAGE_BYTES} bytes")
    try:
        message: AnyClientMessage = _client_decoder.decode(frame)
    except (msgspec.DecodeError, RecursionError):
        message = _decode_slowly(frame, CLIENT_TYPES)
    return _check_text(message)


def decode_server(data: bytes | str) -> AnyServerMessage:
    """Read a server frame; ProtocolError (bad_json, unknown_type, invalid) if it is not one."""
    try:
        message: AnyServerMessage = _server_decoder.decode(data)
    except (msgspec.DecodeError, RecursionError):
        message = _decode_slowly(data, SERVER_TYPES)
    return message


class _Peek(Struct):
    """Only what names a message: its type and id."""

    type: str | None = None
    id: int | None = None


_peek_decoder = msgspec.json.Decoder(_Peek)


def peek(data: bytes | str) -> tuple[int | None, str | None]:
    """The `id` and `type` of a frame, without reading the rest: (None, None) where they do not parse."""
    if len(data) > MAX_MESSAGE_BYTES:
        return None, None
    try:
        found = _peek_decoder.decode(data)
    except (msgspec.DecodeError, RecursionError):
        return None, None
    id = found.id if found.id is not None and abs(found.id) <= MAX_SAFE_INTEGER else None
    kind = found.type if found.type in CLIENT_TYPES else None
    return id, kind


def _decode_slowly(data: bytes | str, types: dict[str, Any]) -> Any:
    """Decode again step by step to say why a frame was refused (or accept it after all)."""
    try:
        raw = msgspec.json.decode(data)
    except msgspec.DecodeError as error:
        raise ProtocolError(BAD_JSON, f"not JSON: {error}") from None
    except RecursionError:
        raise ProtocolError(BAD_JSON, "JSON nested too deeply to read") from None
    if not isinstance(raw, dict):
        raise ProtocolError(UNKNOWN_TYPE, 'a message is a JSON object with a "type" field')
    given_id = raw.get("id")
    given_id = given_id if isinstance(given_id, int) and not isinstance(given_id, bool) else None
    if given_id is not None and abs(given_id) > MAX_SAFE_INTEGER:
        given_id = None
    kind = raw.get("type")
    if not isinstance(kind, str) or kind not in types:
        known = ", ".join(sorted(types))
        shown = "no type" if kind is None else f"unknown type {kind!r}"
        raise ProtocolError(UNKNOWN_TYPE, f"{shown}; known types: {known}", None, given_id)
    try:
        return msgspec.convert(raw, types[kind])
    except (msgspec.ValidationError, RecursionError) as error:
        explanation = explain_validation(str(error)).replace(
            f"`str` matching regex '{TILE_PATTERN}'", 'a tile like "5-3" (numbers 0 to 6)'
        )
        raise ProtocolError(INVALID, explanation, kind, given_id) from None


#: The messages that carry a player's name (a tuple made once: `A | B` makes a new union at
#: each use, and every client message is checked).
_NAMED = (Hello, Join, JoinTournament)


def _check_text(message: AnyClientMessage) -> AnyClientMessage:
    """Strip and check names and chat lines, which need more than a length limit."""
    try:
        if isinstance(message, _NAMED) and message.name is not None:
            message.name = validate_name(message.name)
        elif isinstance(message, CreateTournament):
            message.name = validate_tournament_name(message.name)
        elif isinstance(message, Chat):
            message.text = validate_chat(message.text)
    except ValueError as error:
        field_name = "text" if isinstance(message, Chat) else "name"
        raise ProtocolError(
            INVALID, f"{field_name}: {error}", type_of(message), message.id
        ) from None
    return message


def type_of(message: ClientMessage | ServerMessage) -> str:
    """A message's `type` on the wire ("play", "patch", ...)."""
    return str(message.__struct_config__.tag)
