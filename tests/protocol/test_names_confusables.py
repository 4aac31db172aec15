"""Look-alike letters over Unicode's confusables data (UTS #39, the `confusable-homoglyphs`
package's table), small capitals and letters with strokes: a name written with them is the name
it passes for, and nothing reads as a bot's name (issue 45)."""

from __future__ import annotations

import functools
import importlib.resources
import json
import unicodedata

import pytest
from hypothesis import given
from hypothesis import strategies as st

from protocol import messages as msg
from protocol.names import name_key

CLAIMED = "Anna"
BOT_NAME = "bot:easy"


@functools.cache
def confusables() -> dict[str, list[dict[str, str]]]:
    data = importlib.resources.files("confusable_homoglyphs").joinpath("confusables.json")
    table: dict[str, list[dict[str, str]]] = json.loads(data.read_text("utf-8"))
    return table


def data_look_alikes(char: str) -> set[str]:
    """The characters the data says `char` is confusable with, either way."""
    table = confusables()
    listed = {entry["c"] for entry in table.get(char, [])}
    return listed | {other for other, entries in table.items() if char in (e["c"] for e in entries)}


def named(name: str) -> set[str]:
    try:
        return {unicodedata.lookup(name)}
    except KeyError:
        return set()


@functools.cache
def look_alikes(letter: str) -> tuple[str, ...]:
    """What a reader takes for `letter` in a name compared without case: its confusables and
    those of its other case, its small capital and that one's confusables (the Cyrillic "т" is
    the small capital "ᴛ"), and the letter with a stroke."""
    found = data_look_alikes(letter) | data_look_alikes(letter.swapcase())
    if letter.isalpha():
        base = unicodedata.name(letter).split()[-1]
        for small in named(f"LATIN LETTER SMALL CAPITAL {base}"):
            found |= {small} | data_look_alikes(small)
        for case in ("SMALL", "CAPITAL"):
            found |= named(f"LATIN {case} LETTER {base} WITH STROKE")
    return tuple(sorted(found - {letter}))


def refused(name: str) -> bool:
    try:
        msg.validate_name(name)
    except ValueError:
        return True
    return False


def written_with(name: str) -> st.SearchStrategy[str]:
    """`name` with each letter kept or written as one of its look-alikes."""
    letters = [st.sampled_from((char, *look_alikes(char))) for char in name]
    return st.tuples(*letters).map("".join)


def test_the_look_alikes_cover_small_capitals_cyrillic_and_strokes() -> None:
    assert {"ʙ", "в"} <= set(look_alikes("b"))
    assert {"ø", "ᴏ", "о", "ο"} <= set(look_alikes("o"))
    assert {"т", "ᴛ", "ŧ"} <= set(look_alikes("t"))
    assert {"ᴀ", "Α", "А"} <= set(look_alikes("A"))


@pytest.mark.parametrize("name", ["ʙot:easy", "bøt:easy", "boт:hard", "ƀot:easy", "BOŦ:hard"])
def test_a_bot_name_written_with_look_alikes_is_refused(name: str) -> None:
    with pytest.raises(ValueError):
        msg.validate_name(name)


@pytest.mark.parametrize("name", ["ᴀnna", "ᴀɴɴᴀ", "Аnnа", "ΑΝΝΑ", "Ⱥnna"])
def test_a_claimed_name_written_with_look_alikes_is_the_same_name(name: str) -> None:
    assert not refused(name)
    assert name_key(name) == name_key(CLAIMED)


def test_names_that_differ_stay_apart() -> None:
    # Greek nu reads as a "v": "Ανvα" is "Avva", not "Anna".
    assert name_key("Ανvα") == name_key("Avva") != name_key(CLAIMED)
    for name in ("Bottle", "Bot2", "bot", "Ole", "Olé", "Łukasz", "Søren", "Тамара"):
        assert not refused(name), name
    assert name_key("Łukasz") == name_key("Lukasz")


@given(written_with(BOT_NAME[:4]), st.sampled_from(["easy", "hard", "", "normal"]))
def test_every_look_alike_of_bot_colon_is_refused(prefix: str, level: str) -> None:
    assert refused(prefix + level)


@given(written_with(CLAIMED))
def test_every_look_alike_of_a_claimed_name_folds_to_its_key(name: str) -> None:
    assert refused(name) or name_key(name) == name_key(CLAIMED)
