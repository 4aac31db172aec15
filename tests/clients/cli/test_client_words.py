"""The terminal's log in words (clients/cli/words.describe): one English sentence an event.

The other languages' sentences are checked against their catalogs in
tests/test_i18n_catalogs.py and on screen in tests/clients/cli/test_client_languages.py.
"""

from __future__ import annotations

from typing import Any

from hypothesis import given
from hypothesis import strategies as st
from protocol_helpers import messages_of

from clients.cli.words import describe
from protocol.views import (
    AnyEvent,
    ChatLine,
    Drew,
    HandEnded,
    HandStarted,
    MatchEnded,
    Passed,
    Played,
)

NAMES = ["Ann", "Bo", "Cid", "Dee"]


def test_a_scoring_play_reads_as_a_sentence() -> None:
    played = Played(seat=0, tile="5-3", end="east", total=15, points=15)
    assert describe(played, NAMES) == "Ann played 5-3 east: total 15, scores 15"
    lead = Played(seat=2, tile="6-6", end=None, total=12, points=0)
    assert describe(lead, NAMES) == "Cid led 6-6: total 12"


def test_every_event_kind_has_a_sentence() -> None:
    assert describe(Drew(seat=1, count=2), NAMES) == "Bo drew 2 tiles"
    assert describe(Drew(seat=1, count=1), NAMES) == "Bo drew 1 tile"
    assert describe(Passed(seat=3), NAMES) == "Dee passed"
    assert describe(HandStarted(number=2, leader=1), NAMES) == "Hand 2: Bo leads"
    assert describe(ChatLine(seat=None, name="Eve", text="hi"), NAMES) == "Eve: hi"
    domino = HandEnded(kind="domino", by=0, points=[20, 0], pips=[0, 9, 4, 9])
    assert describe(domino, NAMES, teams=True) == (
        "Ann went out: Team A (Ann & Cid) scores 20. Pips left: 0 (Ann), 9 (Bo), 4 (Cid), 9 (Dee)"
    )
    blocked = HandEnded(kind="blocked", by=None, points=[0, 0, 0], pips=[3, 3, 3])
    assert describe(blocked, NAMES[:3]).startswith("The hand is blocked: nobody scores")
    penalty = HandEnded(kind="domino", by=1, points=[-10, 0], pips=[8, 0])
    assert "Ann loses 10" in describe(penalty, NAMES[:2])
    assert describe(MatchEnded(winner=1), NAMES, teams=True) == "Team B (Bo & Dee) wins the match"
    assert describe(MatchEnded(winner=[0, 2]), NAMES[:3]) == "Ann and Cid share the win"
    assert describe(MatchEnded(winner=None), NAMES) == "The match ended without a winner"


# Names reach `describe` only after `validate_name`: printable, so never a line break.
PRINTABLE_NAMES = st.text(
    alphabet=st.characters(blacklist_categories=("Cc", "Cs", "Zl", "Zp")), min_size=1, max_size=5
)


@given(messages_of(AnyEvent), st.lists(PRINTABLE_NAMES, max_size=4), st.booleans())
def test_any_event_reads_as_one_line(event: Any, names: list[str], teams: bool) -> None:
    sentence = describe(event, names, teams)
    assert sentence
    # A chat line's own name and text are the speaker's (validated by the server when said).
    for own in (getattr(event, "text", ""), getattr(event, "name", "")):
        sentence = sentence.replace(own, "") if own else sentence
    assert "\n" not in sentence
