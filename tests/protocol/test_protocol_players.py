"""The players' part of the protocol: keys and link codes as `hello` takes them, API answers."""

from __future__ import annotations

import msgspec
import pytest
from hypothesis import given
from hypothesis import strategies as st

from protocol import api, codes
from protocol import messages as msg
from protocol.errors import ProtocolError

KEY_CHARS = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789_-"


def hello(**fields: object) -> bytes:
    return msgspec.json.encode(
        {"type": "hello", "version": msg.PROTOCOL_VERSION, "name": "Ann", **fields}
    )


@given(st.text(KEY_CHARS, min_size=32, max_size=64))
def test_any_key_of_the_alphabet_and_length_is_taken_and_never_shown(key: str) -> None:
    message = msg.decode_client(hello(key=key))
    assert isinstance(message, msg.Hello) and message.key == key
    assert key not in repr(message) and key not in str(message)


@given(
    st.one_of(
        st.text(KEY_CHARS, max_size=31),
        st.text(KEY_CHARS, min_size=65, max_size=80),
        st.text(min_size=32, max_size=64).filter(lambda t: any(c not in KEY_CHARS for c in t)),
    )
)
def test_other_keys_are_refused_without_being_echoed(key: str) -> None:
    with pytest.raises(ProtocolError) as refused:
        msg.decode_client(hello(key=key))
    assert refused.value.code == "invalid"
    # The key is never echoed: the message is not one of its letters longer than another bad
    # key's (a key like "matc" may stand in the fixed words, "must match").
    with pytest.raises(ProtocolError) as other:
        msg.decode_client(hello(key="\u00a7" * len(key)))
    if len(key) > 3 and key not in other.value.message:
        assert key not in refused.value.message


@given(st.text(codes.LINK_ALPHABET, min_size=8, max_size=8), st.data())
def test_a_link_code_reads_in_any_case_and_with_look_alikes(code: str, data: st.DataObject) -> None:
    written = "".join(data.draw(st.sampled_from(sorted(_spellings(char)))) for char in code)
    assert codes.normalize_link_code(written) == code
    assert isinstance(msg.decode_client(hello(key="k" * 43, link=written)), msg.Hello)


def _spellings(char: str) -> set[str]:
    found = {char, char.lower()}
    if char == "1":
        found |= {"I", "i", "L", "l"}
    if char == "0":
        found |= {"O", "o"}
    return found


def test_codes_with_a_letter_of_no_code_are_none() -> None:
    assert codes.normalize_link_code("UUUUUUUU") is None
    assert codes.normalize_link_code("ABC") is None


@given(st.integers(0, 100), st.integers(0, api.MAX_GAMES_PAGE))
def test_api_answers_round_trip(offset: int, limit: int) -> None:
    page = api.GamesPage(name="Ann", offset=offset, limit=limit, total=offset, games=[])
    assert api.decode_answer(api.encode_answer(page), api.GamesPage) == page
    error = api.ApiError(error=api.NOT_FOUND, message="no such game")
    assert msgspec.json.decode(api.encode_answer(error)) == {
        "error": "not_found",
        "message": "no such game",
    }


@given(st.text(codes.LINK_ALPHABET, min_size=20, max_size=20), st.data())
def test_a_recovery_code_reads_in_any_case_with_dashes_or_spaces_and_never_shows(
    code: str, data: st.DataObject
) -> None:
    written = codes.shown_recovery_code(code)
    typed = data.draw(st.sampled_from([written, written.lower(), written.replace("-", " "), code]))
    assert codes.normalize_recovery_code(typed) == code
    message = msg.decode_client(hello(key="k" * 43, recover=typed))
    assert isinstance(message, msg.Hello) and message.recover == typed
    assert typed not in repr(message) and code not in repr(msg.RecoveryCodeReply(code=written))
    assert written not in repr(msg.RecoveryCodeReply(code=written))
    assert codes.normalize_recovery_code(code[:19]) is None
    assert codes.normalize_recovery_code(code[:19] + "U") is None
