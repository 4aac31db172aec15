"""The terminal's numbers as a player reads them: a negative rating with the minus sign its change
has, and a seat's pips before its name ("2 (Bot 4)"), where "Bot 4 2" read as Bot 42."""

from __future__ import annotations

import pytest
from protocol_helpers import hand_ended
from table_helpers import make_view

from clients.cli import i18n, words
from clients.cli.scoreboard import explain_hand
from clients.cli.status import rating_text
from protocol.ratings import Rating, RatingChange
from protocol.rules import Rules


@pytest.mark.parametrize(("language", "expected"), [("en", "−1.6 (−1.8)"), ("cs", "−1,6 (−1,8)")])
def test_a_negative_rating_and_its_change_use_one_minus_sign(language: str, expected: str) -> None:
    """ "-1.6 (−1.8)" mixed a hyphen (the rating) and a minus sign (the change)."""
    view = make_view(phase="finished")
    view.ratings = [
        RatingChange(
            seat=0,
            name="Ann",
            ladder="2p",
            before=Rating(mu=25.0, sigma=8.0, rating=0.2),
            after=Rating(mu=24.0, sigma=8.5, rating=-1.6),
        )
    ]
    i18n.set_language(language)
    try:
        said = rating_text(view)
    finally:
        i18n.set_language("en")
    assert said is not None and said.endswith(f": {expected}"), said
    assert "-" not in said.split(":")[-1], said


def test_a_seats_pips_come_before_its_name() -> None:
    names = ["Ann", "Bořek Ž.", "Cid", "Bot 4"]
    ended = hand_ended(0, [0, 5, 3, 2], teams=False)
    rows = explain_hand(ended, names, Rules(players=4, teams=False))
    joined = " ".join(rows)
    assert "Pips left: 0 (Ann), 5 (Bořek Ž.), 3 (Cid), 2 (Bot 4)." in joined, rows
    assert "5 (Bořek Ž.) + 3 (Cid) + 2 (Bot 4) = 10" in joined, rows
    assert "Bot 4 2" not in joined and "Ž. 5" not in joined, rows
    assert words.describe(ended, names).endswith(
        "Pips left: 0 (Ann), 5 (Bořek Ž.), 3 (Cid), 2 (Bot 4)"
    )
