"""Error codes of the wire protocol and the exception that carries one."""

from __future__ import annotations

BAD_JSON = "bad_json"
UNKNOWN_TYPE = "unknown_type"
INVALID = "invalid"
BAD_VERSION = "bad_version"
NOT_YOUR_TURN = "not_your_turn"
ILLEGAL_MOVE = "illegal_move"
ROOM_FULL = "room_full"
NO_SUCH_ROOM = "no_such_room"
BAD_TOKEN = "bad_token"
RATE_LIMITED = "rate_limited"
TOO_LARGE = "too_large"
NOT_HOST = "not_host"
NOT_IN_ROOM = "not_in_room"
WRONG_PHASE = "wrong_phase"
UNAVAILABLE = "unavailable"
BUSY = "busy"
NAME_TAKEN = "name_taken"
BAD_LINK = "bad_link"
NOT_A_PLAYER = "not_a_player"
NO_SUCH_GAME = "no_such_game"

#: Reasons: a finer cause the server adds to some errors (`Error.reason`), for clients to word
#: in the player's language; language-neutral like the codes. A client that does not know one
#: words the code.
# NAME_TAKEN (the code above) is a reason too: `invalid` with it means someone at the table goes
# by that name; the code `name_taken` itself means another player (key) owns the name.
SEAT_TAKEN = "seat_taken"  # room_full: the seat asked for is taken
NO_SUCH_SEAT = "no_such_seat"  # invalid: the room has no seat with that number
ALREADY_SEATED = "already_seated"  # invalid: the caller sits at a seat of this room already
ALREADY_HERE = "already_here"  # invalid: the caller is in this room already
SPECTATORS_SILENT = "spectators_silent"  # invalid: spectators may not chat in this room
SEATS_FREE = "seats_free"  # invalid: start while a seat is free
NO_BOT = "no_bot"  # invalid: remove_bot on a seat that holds no bot
SEAT_FREE = "seat_free"  # invalid: remove_player on a free seat
OWN_SEAT = "own_seat"  # invalid: remove_player on the caller's own seat
BAD_RECOVERY = "bad_recovery"  # bad_link: hello's recovery code is none of this server's
#: invalid: start_tournament with fewer entrants than a table seats (fixed partners: fewer than
#: four, or an odd number)
TOO_FEW_ENTRANTS = "too_few_entrants"
#: rate_limited: create_tournament past the tournaments an address may make in a day
TOURNAMENTS_A_DAY = "tournaments_a_day"

REASONS: frozenset[str] = frozenset(
    {
        NAME_TAKEN,
        SEAT_TAKEN,
        NO_SUCH_SEAT,
        ALREADY_SEATED,
        ALREADY_HERE,
        SPECTATORS_SILENT,
        SEATS_FREE,
        NO_BOT,
        SEAT_FREE,
        OWN_SEAT,
        BAD_RECOVERY,
        TOO_FEW_ENTRANTS,
        TOURNAMENTS_A_DAY,
    }
)

ERROR_CODES: frozenset[str] = frozenset(
    {
        BAD_JSON,
        UNKNOWN_TYPE,
        INVALID,
        BAD_VERSION,
        NOT_YOUR_TURN,
        ILLEGAL_MOVE,
        ROOM_FULL,
        NO_SUCH_ROOM,
        BAD_TOKEN,
        RATE_LIMITED,
        TOO_LARGE,
        NOT_HOST,
        NOT_IN_ROOM,
        WRONG_PHASE,
        UNAVAILABLE,
        BUSY,
        NAME_TAKEN,
        BAD_LINK,
        NOT_A_PLAYER,
        NO_SUCH_GAME,
    }
)


class ProtocolError(Exception):
    """A frame or command was refused: `code` (one of ERROR_CODES), a human `message`, its `command`."""

    def __init__(
        self, code: str, message: str, command: str | None = None, id: int | None = None
    ) -> None:
        super().__init__(f"{code}: {message}")
        self.code = code
        self.message = message
        self.command = command
        self.id = id


def explain_validation(message: str, root: str = "message") -> str:
    """Rewrite msgspec's "Expected `int`, got `str` - at `$.seat`" as "seat: expected `int`, got `str`"."""
    text, separator, path = message.partition(" - at `$")
    text = text.removeprefix("Object ")
    text = text[:1].lower() + text[1:]
    if not separator:
        return text
    return f"{path.rstrip('`').lstrip('.') or root}: {text}"
