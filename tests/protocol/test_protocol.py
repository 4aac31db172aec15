"""The wire protocol: messages round-trip, garbage is refused with a ProtocolError, the README's
examples hold."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import msgspec
import protocol_session
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from protocol_helpers import (
    CLIENT_MESSAGES,
    JSON_VALUES,
    SERVER_MESSAGES,
    examples,
)

from clients.cli import words
from protocol.errors import ERROR_CODES, ProtocolError
from protocol.messages import (
    CLIENT_TYPES,
    MAX_CHAT_LENGTH,
    MAX_MESSAGE_BYTES,
    MAX_NAME_LENGTH,
    Chat,
    ClientMessage,
    Hello,
    Join,
    Moved,
    Patch,
    Play,
    ServerMessage,
    Snapshot,
    decode_client,
    decode_server,
    encode,
    validate_chat,
    validate_name,
)
from protocol.patch import ClientState
from protocol.tiles import ALL_TILES, format_tile, normalize_tile, parse_tile
from protocol.views import (
    Played,
    RoomView,
)


def refused(data: bytes | str) -> ProtocolError:
    """The ProtocolError that decoding a client frame raises."""
    with pytest.raises(ProtocolError) as caught:
        decode_client(data)
    return caught.value


# Round trips


@given(CLIENT_MESSAGES)
def test_every_client_message_round_trips(message: ClientMessage) -> None:
    assert decode_client(encode(message)) == message
    assert decode_client(encode(message).decode()) == message


@settings(max_examples=examples(60))
@given(SERVER_MESSAGES)
def test_every_server_message_round_trips(message: ServerMessage) -> None:
    assert decode_server(encode(message)) == message


def test_each_message_is_a_json_object_tagged_by_type() -> None:
    frame = json.loads(encode(Play(tile="5-3", end="east", id=7)))
    assert frame == {"type": "play", "tile": "5-3", "end": "east", "id": 7}
    assert json.loads(encode(Hello(version=2, name="Ann"))) == {
        "type": "hello",
        "version": 2,
        "name": "Ann",
    }


# Garbage never gets past the edge as anything but a ProtocolError


def decode_or_refuse(frame: bytes | str) -> None:
    """Decoding either yields a client message or raises a ProtocolError with a known code."""
    try:
        message = decode_client(frame)
    except ProtocolError as problem:
        assert problem.code in ERROR_CODES
        assert problem.message
        return
    assert isinstance(message, ClientMessage)


@given(st.binary(max_size=200) | st.text(max_size=200))
def test_random_bytes_are_refused_cleanly(frame: bytes | str) -> None:
    decode_or_refuse(frame)


@given(JSON_VALUES)
def test_random_json_is_refused_cleanly(value: Any) -> None:
    decode_or_refuse(json.dumps(value))


@given(st.sampled_from(sorted(CLIENT_TYPES)), st.dictionaries(st.text(max_size=10), JSON_VALUES))
def test_known_types_with_random_fields_are_refused_cleanly(
    kind: str, fields: dict[str, Any]
) -> None:
    decode_or_refuse(json.dumps({**fields, "type": kind}))


@given(CLIENT_MESSAGES, st.data())
def test_valid_messages_with_one_field_spoiled_are_refused_cleanly(
    message: ClientMessage, data: st.DataObject
) -> None:
    frame = json.loads(encode(message))
    key = data.draw(st.sampled_from(sorted(frame)))
    frame[key] = data.draw(JSON_VALUES)
    decode_or_refuse(json.dumps(frame))


@given(st.binary(max_size=200) | st.text(max_size=200) | JSON_VALUES.map(json.dumps))
def test_random_frames_to_a_client_raise_only_protocol_errors(frame: bytes | str) -> None:
    try:
        assert isinstance(decode_server(frame), ServerMessage)
    except ProtocolError as problem:
        assert problem.code in ERROR_CODES


def test_deeply_nested_json_is_refused_cleanly() -> None:
    for frame in ["[" * 2000 + "]" * 2000, '{"type": "chat", "text": ' + "[" * 1500 + "]" * 1500]:
        problem = refused(frame + "}" * frame.startswith("{"))
        assert problem.code == "bad_json" and "deeply" in problem.message


# Error codes say what went wrong, and echo the id


def test_text_that_is_not_json_is_bad_json() -> None:
    assert refused('{"type": "play",').code == "bad_json"


def test_json_that_is_not_a_typed_object_is_unknown_type() -> None:
    assert refused("[1, 2]").code == "unknown_type"
    assert refused('{"tile": "5-3"}').code == "unknown_type"
    problem = refused('{"type": "fly", "id": 4}')
    assert (problem.code, problem.id, problem.command) == ("unknown_type", 4, None)
    assert "fly" in problem.message


def test_a_known_type_with_a_bad_field_is_invalid_and_names_the_field() -> None:
    problem = refused('{"type": "play", "tile": "7-1", "id": 9}')
    assert (problem.code, problem.command, problem.id) == ("invalid", "play", 9)
    assert problem.message.startswith("tile:")
    missing = refused('{"type": "join"}')
    assert missing.code == "invalid" and "room" in missing.message
    bad_rules = refused('{"type": "create_room", "rules": {"players": 5}}')
    assert "rules.players" in bad_rules.message
    bad_end = refused('{"type": "play", "tile": "5-3", "end": "up"}')
    assert "end" in bad_end.message


def test_an_oversized_frame_is_too_large() -> None:
    frame = json.dumps({"type": "chat", "text": "x" * MAX_MESSAGE_BYTES})
    assert refused(frame).code == "too_large"


# Names and chat


def test_names_are_stripped_and_must_be_printable_and_short() -> None:
    hello = decode_client('{"type": "hello", "version": 2, "name": "  Ann  "}')
    assert isinstance(hello, Hello) and hello.name == "Ann"
    join = decode_client('{"type": "join", "room": "ABCD", "name": " Bo "}')
    assert isinstance(join, Join) and join.name == "Bo"
    for name in ["   ", "Ann\u0007", "x" * (MAX_NAME_LENGTH + 1), "a\nb", ""]:
        problem = refused(json.dumps({"type": "hello", "version": 2, "name": name}))
        assert problem.code == "invalid" and problem.message.startswith("name:"), name


def test_chat_lines_are_bounded() -> None:
    chat = decode_client(json.dumps({"type": "chat", "text": " hi all "}))
    assert isinstance(chat, Chat) and chat.text == "hi all"
    assert refused(json.dumps({"type": "chat", "text": "x" * (MAX_CHAT_LENGTH + 1)})).code == (
        "invalid"
    )
    assert refused(json.dumps({"type": "chat", "text": "   "})).code == "invalid"


def test_validators_raise_value_error_for_bad_text() -> None:
    assert validate_name(" Cid ") == "Cid"
    assert validate_chat(" gg ") == "gg"
    with pytest.raises(ValueError):
        validate_name("\t")
    with pytest.raises(ValueError):
        validate_chat("line\nbreak")


# Tiles


def test_tiles_parse_in_either_order_and_print_high_end_first() -> None:
    assert parse_tile("6-4") == parse_tile("4-6") == (6, 4)
    assert format_tile(4, 6) == format_tile(6, 4) == "6-4"
    assert normalize_tile("0-3") == "3-0"


@pytest.mark.parametrize("text", ["7-1", "6-", "6_4", " 6-4", "64", "-1-2", "6-4 ", "٣-1", ""])
def test_malformed_tiles_are_refused(text: str) -> None:
    with pytest.raises(ValueError, match="not a tile"):
        parse_tile(text)


def test_the_set_has_28_distinct_tiles() -> None:
    assert len(set(ALL_TILES)) == 28
    assert all(normalize_tile(tile) == tile for tile in ALL_TILES)


@given(st.integers(0, 6), st.integers(0, 6))
def test_format_and_parse_are_inverse(first: int, second: int) -> None:
    assert parse_tile(format_tile(first, second)) == (max(first, second), min(first, second))


# The protocol README is a spec a client can be written from: its examples must be true

README = Path(__file__).resolve().parents[2] / "protocol" / "README.md"


def readme_frames(start: str = "", stop: str = "") -> list[tuple[str, str]]:
    """The `C:`/`S:` example frames of protocol/README.md (between two headings if given)."""
    text = README.read_text()
    if start:
        text = text[text.index(start) :]
    if stop:
        text = text[: text.index(stop)]
    return [(line[0], line[3:]) for line in text.splitlines() if line[:3] in ("C: ", "S: ")]


def test_every_example_frame_in_the_readme_decodes() -> None:
    frames = readme_frames()
    assert len(frames) > 40
    for side, frame in frames:
        decoded = decode_client(frame) if side == "C" else decode_server(frame)
        assert json.loads(encode(decoded)) == json.loads(frame) or side == "C", frame


def test_the_readme_session_is_a_stream_a_client_can_follow() -> None:
    client = ClientState()
    seen: list[str] = []
    for side, frame in protocol_session.readme_session():
        if side == "C":
            continue
        message = decode_server(frame)
        if isinstance(message, Snapshot):
            client.on_snapshot(message)
        elif isinstance(message, Patch | Moved):
            names = [seat.name if seat else "?" for seat in client.view.seats]
            seen += [words.describe(event, names) for event in client.on_patch(message)]
    document = README.read_text().split(protocol_session.DOCUMENT_START)[1]
    document = document.split("```json\n", 1)[1].split("```", 1)[0]
    assert client.view == msgspec.json.decode(document, type=RoomView)
    assert client.seq == 9
    led = client.view.game.history[1] if client.view.game else None
    assert isinstance(led, Played) and led.end is None
    # The lead was written low number first, and that number is the west end of the line.
    west, east = (int(n) for n in led.tile.split("-"))
    assert west < east and seen[1].startswith(f"Ann led {led.tile}")


async def test_the_readme_session_is_what_a_real_server_sends() -> None:
    assert await protocol_session.run_session() == protocol_session.readme_session(), (
        "protocol/README.md's example is out of date: uv run python tests/protocol_session.py --write"
    )
