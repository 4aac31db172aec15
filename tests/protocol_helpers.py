"""Hypothesis strategies for the protocol's tests, built from the msgspec types themselves."""

from __future__ import annotations

from typing import Any, get_args

import msgspec.inspect as mi
from hypothesis import strategies as st

from bridge import convert
from engine import Rules
from engine.events import HandEnded as EngineHandEnded
from engine.events import HandEndKind
from engine.scoring import blocked_counts, domino_counts, points_of
from protocol.messages import AnyClientMessage, AnyServerMessage, validate_chat, validate_name
from protocol.views import HandEnded

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
    """Printable, stripped, non-empty text that `check` leaves as it is."""
    return st.text(PRINTABLE, min_size=1, max_size=max_size).filter(
        lambda text: text == text.strip() and text != "" and check(text) == text
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
    engine_rules = Rules(players=len(pips), **rules)
    kind: HandEndKind = "blocked" if by is None else "domino"
    if by is None:
        counts = blocked_counts(engine_rules, pips)
    else:
        counts = domino_counts(engine_rules, by, pips)
    result = EngineHandEnded(kind, by, points_of(engine_rules, counts), tuple(pips), counts)
    ended = convert.event(result)
    assert isinstance(ended, HandEnded)
    return ended
