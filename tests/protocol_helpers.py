"""Hypothesis for the tests: how many examples a property test runs (`examples`), and strategies
for the protocol's tests, built from the msgspec types themselves."""

from __future__ import annotations

from typing import Any, get_args

import jsonpatch
import msgspec
import msgspec.inspect as mi
from hypothesis import settings
from hypothesis import strategies as st

from bridge import convert
from engine import Rules
from engine.events import HandEnded as EngineHandEnded
from engine.events import HandEndKind
from engine.scoring import blocked_counts, domino_counts, points_of, side_pips
from protocol.messages import (
    AnyClientMessage,
    AnyServerMessage,
    Change,
    validate_chat,
    validate_name,
)
from protocol.names import BLANKS, IGNORABLE_RANGES
from protocol.patch import apply, operations_of
from protocol.views import HandEnded


def examples(full: int) -> int:
    """A property test's count of examples: `full` under the "ci" Hypothesis profile (what CI
    runs), a share of it under "dev" (the profile's `max_examples` out of 100), never fewer than
    five (tests/conftest.py loads the profile)."""
    return max(min(full, 5), full * settings().max_examples // 100)


JSON_SCALARS = (
    st.none()
    | st.booleans()
    | st.integers(-(2**53), 2**53)
    | st.floats(allow_nan=False, allow_infinity=False)
    | st.text(max_size=8)
)
JSON_VALUES = st.recursive(
    JSON_SCALARS,
    lambda children: (
        st.lists(children, max_size=4) | st.dictionaries(st.text(max_size=6), children, max_size=4)
    ),
    max_leaves=20,
)
PRINTABLE = st.characters(categories=("L", "M", "N", "P", "S"), include_characters=" ")
CHECKED_TEXT = {"name": validate_name, "text": validate_chat}


def checked_text(check: Any, max_size: int) -> st.SearchStrategy[str]:
    """Printable, stripped, non-empty text that `check` takes and leaves as it is."""

    def taken(text: str) -> bool:
        try:
            return bool(check(text) == text)
        except ValueError:  # a name a reader could not see whole, say
            return False

    return st.text(PRINTABLE, min_size=1, max_size=max_size).filter(
        lambda text: text == text.strip() and text != "" and taken(text)
    )


def for_type(kind: mi.Type, field_name: str = "") -> st.SearchStrategy[Any]:
    """Values of a msgspec type that satisfy its constraints."""
    match kind:
        case mi.Metadata(type=inner):
            return for_type(inner, field_name)
        case mi.NoneType():
            return st.none()
        case mi.BoolType():
            return st.booleans()
        case mi.IntType(gt=gt, ge=ge, lt=lt, le=le, multiple_of=step):
            low = ge if ge is not None else (gt + 1 if gt is not None else -(2**53))
            high = le if le is not None else (lt - 1 if lt is not None else 2**53)
            if step:
                return st.integers(-(-low // step), high // step).map(lambda n: n * step)
            return st.integers(low, high)
        case mi.FloatType(gt=gt, ge=ge, lt=lt, le=le):
            return st.floats(
                min_value=ge if ge is not None else gt,
                max_value=le if le is not None else lt,
                exclude_min=ge is None and gt is not None,
                exclude_max=le is None and lt is not None,
                allow_nan=False,
                allow_infinity=False,
            )
        case mi.StrType(min_length=low, max_length=high, pattern=pattern):
            if pattern is not None:
                return st.from_regex(pattern, fullmatch=True).filter(lambda text: "\n" not in text)
            if field_name in CHECKED_TEXT and high is not None:
                return checked_text(CHECKED_TEXT[field_name], high)
            return st.text(min_size=low or 0, max_size=high if high is not None else 12)
        case mi.LiteralType(values=values):
            return st.sampled_from(values)
        case mi.UnionType(types=types):
            return st.one_of([for_type(member, field_name) for member in types])
        case mi.ListType(item_type=item, min_length=low, max_length=high):
            cap = max(low or 0, 3) if high is None else min(high, max(low or 0, 3))
            return st.lists(for_type(item, field_name), min_size=low or 0, max_size=cap)
        case mi.DictType():
            return st.dictionaries(st.text(max_size=6), JSON_VALUES, max_size=3)
        case mi.AnyType():
            return JSON_VALUES
        case mi.StructType(cls=cls, fields=fields):
            return st.builds(
                cls, **{field.name: for_type(field.type, field.name) for field in fields}
            )
    raise NotImplementedError(f"no strategy for {kind}")


def messages_of(union: Any) -> st.SearchStrategy[Any]:
    """Any message of a tagged union."""
    return st.one_of([for_type(mi.type_info(cls)) for cls in get_args(union)])


CLIENT_MESSAGES = messages_of(AnyClientMessage)
SERVER_MESSAGES = messages_of(AnyServerMessage)


def hand_ended(by: int | None, pips: list[int], **rules: Any) -> HandEnded:
    """A hand's result as the server sends it: seat `by` went out (None: the hand is blocked)
    with every seat's `pips`, its points and counts as the engine makes them."""
    match_rules = Rules(players=len(pips), **rules)
    kind: HandEndKind = "blocked" if by is None else "domino"
    if by is None:
        counts = blocked_counts(match_rules, pips)
    else:
        counts = domino_counts(match_rules, by, pips)
    points = points_of(match_rules, counts)
    held = side_pips(match_rules, pips)
    result = EngineHandEnded(kind, by, points, tuple(pips), counts, side_pips=held)
    ended = convert.event(result)
    assert isinstance(ended, HandEnded)
    return ended


#: The owner's name of the look-alike tests, and 27 names a reader takes for it: the name with
#: an invisible or combining character put in (issue 33's findings, and one of each kind of
#: Default_Ignorable_Code_Point, filler, blank, variation selector and loose mark besides).
OWNER_NAME = "Zedjbz"
LOOK_ALIKES: tuple[str, ...] = (
    "Zedjbz\u034f",  # combining grapheme joiner
    "Zedjbz\ufe0f",  # variation selector 16
    "Zedjbz\ufe00",  # variation selector 1
    "Zedjbz\U000e0100",  # variation selector 17
    "Zedjbz\u180b",  # Mongolian free variation selector 1
    "Zedjbz\u180f",  # Mongolian free variation selector 4
    "Zedjbz\u3164",  # Hangul filler
    "Zedjbz\u115f",  # Hangul choseong filler
    "Zedjbz\u1160",  # Hangul jungseong filler
    "Zedjbz\uffa0",  # halfwidth Hangul filler
    "\u3164Zedjbz",  # a filler in front
    "Zedjbz\u2800",  # braille blank
    "Zedjbz\u17b4",  # Khmer inherent vowel aq
    "Zedjbz\u17b5",  # Khmer inherent vowel aa
    "Zedjbz\u0301",  # combining acute: "Zedjbź"
    "Zedjbz\u0307",  # combining dot above: "Zedjbż"
    "Zedjbz\u0323",  # combining dot below
    "Zedjbz\u0308",  # combining diaeresis
    "Zedjbz\u0301\u0301\u0301",  # marks stacked
    "Ze\u0301djbz",  # a mark inside
    "Zedjbz\u200b",  # zero-width space
    "Zed\u200djbz",  # zero-width joiner
    "Zedjbz\u2060",  # word joiner
    "Zedjbz\u00ad",  # soft hyphen
    "Zedjbz\u061c",  # Arabic letter mark
    "Zedjbz\U000e0041",  # tag A
    "Zedjbz\U0001bca0",  # shorthand format letter overlap
)
#: 12 names a reader takes for a bot's ("bot:hard", "bot:easy").
BOT_LOOK_ALIKES: tuple[str, ...] = (
    "bot\u034f:hard",
    "bot\u05c3easy",  # Hebrew punctuation sof pasuq, a colon to the eye
    "\u3164bot:easy",
    "b\u200bot:hard",
    "bot\ufe0f:easy",
    "bot\u0589hard",  # Armenian full stop
    "bot\u02d0hard",  # modifier letter triangular colon
    "bot\ua789easy",  # modifier letter colon
    "bot\u2236hard",  # ratio
    "bot\uff1aeasy",  # full-width colon
    "bot\u0903easy",  # Devanagari sign visarga
    "bot :\u2800hard",
)
#: Every code point that prints as nothing (`protocol.names.hidden`), and combining marks.
HIDDEN_CHARS = st.one_of(
    *(st.integers(low, high).map(chr) for low, high in IGNORABLE_RANGES),
    st.sampled_from(sorted(BLANKS)),
)
MARKS = st.characters(categories=("Mn", "Me", "Mc"))


def diff(old: dict[str, Any], new: dict[str, Any]) -> list[dict[str, Any]]:
    """RFC 6902 operations that turn `old` into `new` (jsonpatch's general diff: the server
    derives its patches from events and sends no diff)."""
    operations: list[dict[str, Any]] = jsonpatch.make_patch(old, new).patch
    return operations


def frame_ops(document: dict[str, Any], frame: dict[str, Any]) -> list[dict[str, Any]]:
    """The RFC 6902 operations a `patch` frame (as JSON) holds, or a `moved` frame stands for
    on `document` (protocol.patch.moved_ops)."""
    return operations_of(document, msgspec.convert(frame, Change))


def follow(document: dict[str, Any], frame: dict[str, Any]) -> dict[str, Any]:
    """The document after a `patch` or `moved` frame (as JSON), as protocol.patch applies it."""
    return apply(document, frame_ops(document, frame))


def frame_events(frame: dict[str, Any]) -> list[dict[str, Any]]:
    """The events a `patch` frame (as JSON) appends to the history and the chat, or a `moved`
    frame's."""
    if frame["type"] == "moved":
        events: list[dict[str, Any]] = frame["events"]
        return events
    return [
        op["value"]
        for op in frame["ops"]
        if op["op"] == "add" and op["path"] in ("/game/history/-", "/chat/-")
    ]
