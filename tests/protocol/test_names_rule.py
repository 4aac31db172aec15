"""Names a reader can see whole (`protocol.names`): invisible characters, loose marks and bot
look-alikes are refused, or fold onto the name they pass for."""

from __future__ import annotations

import pytest
from hypothesis import given
from hypothesis import strategies as st
from protocol_helpers import (
    BOT_LOOK_ALIKES,
    HIDDEN_CHARS,
    LOOK_ALIKES,
    MARKS,
    OWNER_NAME,
    PRINTABLE,
    checked_text,
)

from protocol import messages as msg
from protocol.names import name_key, name_problem


def refused_or_folded(name: str, owner: str) -> bool:
    """Whether `name` cannot pass for `owner`: `validate_name` refuses it, or it is the same name."""
    try:
        msg.validate_name(name)
    except ValueError:
        return True
    return name_key(name) == name_key(owner)


@pytest.mark.parametrize("name", LOOK_ALIKES, ids=[ascii(name) for name in LOOK_ALIKES])
def test_each_look_alike_is_refused_or_is_the_owners_name(name: str) -> None:
    assert len(LOOK_ALIKES) == 27
    assert refused_or_folded(name, OWNER_NAME)


@pytest.mark.parametrize("name", BOT_LOOK_ALIKES, ids=[ascii(name) for name in BOT_LOOK_ALIKES])
def test_each_bot_look_alike_is_refused(name: str) -> None:
    assert len(BOT_LOOK_ALIKES) == 12
    with pytest.raises(ValueError):
        msg.validate_name(name)


def test_names_people_have_are_taken() -> None:
    for name in ("Bořek", "Nguyễn", "Ann-Marie", "Bottle", "Bot2", "bot", "Ōtani", "Zoë", "ทอม"):
        assert msg.validate_name(name) == name, name
        assert name_problem(name) is None
    # A name written with its marks apart is the same name as the one written precomposed.
    assert name_key("Bor\u030cek") == name_key("Bořek") == name_key("Borek")


@given(
    checked_text(msg.validate_name, msg.MAX_NAME_LENGTH - 1),
    HIDDEN_CHARS | MARKS,
    st.integers(0, msg.MAX_NAME_LENGTH),
)
def test_a_name_with_an_invisible_character_put_in_is_refused_or_the_same(
    name: str, char: str, where: int
) -> None:
    where = min(where, len(name))
    changed = name[:where] + char + name[where:]
    assert refused_or_folded(changed, name)


@given(st.text(PRINTABLE, min_size=1, max_size=12), HIDDEN_CHARS)
def test_bot_with_anything_hidden_is_never_a_persons_name(rest: str, char: str) -> None:
    for name in ("bot" + char + ":" + rest, char + "bot:" + rest, "b" + char + "ot:" + rest):
        with pytest.raises(ValueError):
            msg.validate_name(name)
