"""Game records in the `allfives-record/1` format of docs/records.md: types, checks, encode and decode."""

from __future__ import annotations

from typing import Any, Literal

import msgspec
from msgspec import Struct, field

from protocol.errors import explain_validation
from protocol.rules import Rules
from protocol.tiles import ALL_TILES, END_NAMES, normalize_tile, parse_tile

RECORD_FORMAT = "allfives-record/1"

HandKind = Literal["domino", "blocked", "won"]


class RecordFormatError(ValueError):
    """The document is not a well-formed `allfives-record/1` record; the message says where."""


class RecordMove(Struct, kw_only=True, omit_defaults=True):
    """One turn: a play (`tile`, `end` where needed) or a pass; `drew`/`total`/`points` are computed."""

    seat: int
    tile: str | None = None
    end: str | None = None
    pass_: bool = field(default=False, name="pass")
    drew: int | None = None
    total: int | None = None
    points: int | None = None


class HandResult(Struct, kw_only=True):
    """How a hand ended: kind, the seat that went out or played to the target, end-of-hand points."""

    kind: HandKind
    by: int | None
    points: list[int]


class RecordHand(Struct, kw_only=True, omit_defaults=True):
    """One hand: its leader, the deal per seat, the boneyard in draw order and every move."""

    leader: int
    deal: list[list[str]]
    boneyard: list[str]
    moves: list[RecordMove] = []
    result: HandResult | None = None


class Record(Struct, kw_only=True, omit_defaults=True, tag_field="format", tag=RECORD_FORMAT):
    """A whole match: rules, names, hands; `scores` and `winner` are computed by replay."""

    rules: Rules
    hands: list[RecordHand]
    names: list[str] = []
    scores: list[int] | None = None
    winner: int | list[int] | None = None


def decode_record(data: bytes | str) -> Record:
    """Read a record, check its shape (tiles, deals, ends, seats) and write its tiles high end first."""
    try:
        raw = msgspec.json.decode(data)
    except msgspec.DecodeError as error:
        raise RecordFormatError(f"not JSON: {error}") from None
    except RecursionError:
        raise RecordFormatError("JSON nested too deeply to read") from None
    if not isinstance(raw, dict):
        raise RecordFormatError(f"a record is a JSON object, not {_json_kind(raw)}")
    if "format" not in raw:
        raise RecordFormatError(f'no "format" field: not an {RECORD_FORMAT} document')
    if raw["format"] != RECORD_FORMAT:
        raise RecordFormatError(f'"format" is {raw["format"]!r}; expected {RECORD_FORMAT!r}')
    try:
        record = msgspec.convert(raw, Record)
    except msgspec.ValidationError as error:
        raise RecordFormatError(explain_validation(str(error), root="record")) from None
    check_record(record)
    return record


def encode_record(record: Record) -> bytes:
    """Write a record as JSON, leaving out fields that hold no value (`winner` stays once scored)."""
    document = msgspec.to_builtins(record)
    if record.scores is not None:
        document["winner"] = msgspec.to_builtins(record.winner)
    return msgspec.json.encode(document)


def check_record(record: Record) -> None:
    """Raise RecordFormatError unless every hand and move is well formed; normalizes tile notation."""
    rules = record.rules
    if record.names and len(record.names) != rules.players:
        raise RecordFormatError(
            f"names: {len(record.names)} names for {rules.players} players (rules.players)"
        )
    for number, hand in enumerate(record.hands):
        _check_hand(hand, rules, f"hands[{number}]")
    if record.scores is not None and len(record.scores) != rules.sides:
        raise RecordFormatError(f"scores: {len(record.scores)} entries; {_sides_text(rules)}")
    _check_winner(record.winner, rules)


def _check_hand(hand: RecordHand, rules: Rules, where: str) -> None:
    _check_seat(hand.leader, rules, f"{where}.leader")
    if len(hand.deal) != rules.players:
        raise RecordFormatError(
            f"{where}.deal: {len(hand.deal)} hands dealt, but rules.players is {rules.players}"
        )
    hand.deal = [_tiles(tiles, f"{where}.deal[{seat}]") for seat, tiles in enumerate(hand.deal)]
    hand.boneyard = _tiles(hand.boneyard, f"{where}.boneyard")
    for seat, tiles in enumerate(hand.deal):
        if len(tiles) != rules.tiles_per_hand:
            raise RecordFormatError(
                f"{where}.deal[{seat}]: {len(tiles)} tiles, but a {rules.hand_size} deal for "
                f"{rules.players} players gives {rules.tiles_per_hand}"
            )
    _check_full_set(hand, where)
    for number, move in enumerate(hand.moves):
        _check_move(move, rules, f"{where}.moves[{number}]")
    if hand.result is not None:
        _check_result(hand.result, rules, f"{where}.result")


def _tiles(tiles: list[str], where: str) -> list[str]:
    normal = []
    for index, tile in enumerate(tiles):
        try:
            normal.append(normalize_tile(tile))
        except ValueError as error:
            raise RecordFormatError(f"{where}[{index}]: {error}") from None
    return normal


def _check_full_set(hand: RecordHand, where: str) -> None:
    seen: dict[str, str] = {}
    places = [(f"deal[{seat}]", tiles) for seat, tiles in enumerate(hand.deal)]
    for place, tiles in [*places, ("boneyard", hand.boneyard)]:
        for index, tile in enumerate(tiles):
            here = f"{place}[{index}]"
            if tile in seen:
                raise RecordFormatError(
                    f'{where}: tile "{tile}" appears twice ({seen[tile]} and {here})'
                )
            seen[tile] = here
    missing = [tile for tile in ALL_TILES if tile not in seen]
    if missing:
        listed = ", ".join(f'"{tile}"' for tile in missing)
        raise RecordFormatError(
            f"{where}: deal and boneyard lack {listed}; together they hold the 28 tiles once each"
        )


def _check_move(move: RecordMove, rules: Rules, where: str) -> None:
    _check_seat(move.seat, rules, f"{where}.seat")
    if move.pass_ and move.tile is not None:
        raise RecordFormatError(
            f'{where}: a move is a play or a pass, not both ("tile" and "pass")'
        )
    if not move.pass_ and move.tile is None:
        raise RecordFormatError(f'{where}: a move needs a "tile" or "pass": true')
    if move.end is not None:
        if move.tile is None:
            raise RecordFormatError(f"{where}.end: a pass has no end (only a play names an end)")
        if move.end not in END_NAMES:
            raise RecordFormatError(
                f"{where}.end: {move.end!r} is not an end (ends are {', '.join(END_NAMES)})"
            )
    if move.tile is not None:
        try:
            parse_tile(move.tile)  # kept as written: a lead's first number faces west
        except ValueError as error:
            raise RecordFormatError(f"{where}.tile: {error}") from None


def _check_result(result: HandResult, rules: Rules, where: str) -> None:
    if result.by is not None:
        _check_seat(result.by, rules, f"{where}.by")
    if len(result.points) != rules.sides:
        raise RecordFormatError(
            f"{where}.points: {len(result.points)} entries; {_sides_text(rules)}"
        )


def _check_winner(winner: int | list[int] | None, rules: Rules) -> None:
    if isinstance(winner, int) and not 0 <= winner < rules.sides:
        side = "team" if rules.partnership else "seat"
        raise RecordFormatError(f"winner: {winner} is not a {side} (0 to {rules.sides - 1})")
    if isinstance(winner, list):
        for index, seat in enumerate(winner):
            _check_seat(seat, rules, f"winner[{index}]")


def _check_seat(seat: int, rules: Rules, where: str) -> None:
    if not 0 <= seat < rules.players:
        raise RecordFormatError(
            f"{where}: seat {seat} does not exist with {rules.players} players (0 to "
            f"{rules.players - 1})"
        )


def _sides_text(rules: Rules) -> str:
    if rules.partnership:
        return "scores are listed per team, so 2 are expected"
    return f"scores are listed per seat, so {rules.players} are expected"


def _json_kind(value: Any) -> str:
    kinds = {
        list: "an array",
        str: "a string",
        bool: "a boolean",
        int: "a number",
        float: "a number",
    }
    return "null" if value is None else kinds.get(type(value), type(value).__name__)
