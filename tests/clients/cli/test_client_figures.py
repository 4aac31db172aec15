"""Figures a player reads in their language's number style: the review's accuracy and points
lost take the language's decimal mark, as ratings do (docs/i18n.md)."""

from __future__ import annotations

from collections.abc import Iterator

import pytest

from clients.cli import i18n
from clients.cli.review_words import hand_words, line_words, move_text, total_words
from protocol.review import HandReview, PlayerReview, ReviewedMove, ReviewMove

MOVE = ReviewedMove(
    hand=2,
    move=3,
    seat=0,
    played=ReviewMove(tile="5-0"),
    best=ReviewMove(tile="1-1"),
    lost=12.5,
    costly=True,
    accuracy=40.0,
    grade="blunder",
    deals=40,
    exact=False,
)
PLAYER = PlayerReview(
    seat=0,
    name="Ann",
    hands=3,
    decisions=16,
    lost=20.0,
    lost_per_hand=6.7,
    costly=1,
    costliest=[MOVE],
    lost_per_move=1.25,
    accuracy=81.3,
)
HAND = HandReview(hand=2, decisions=5, lost=4.5, lost_per_move=0.9, accuracy=91.3)


@pytest.fixture
def czech() -> Iterator[None]:
    i18n.set_language("cs")
    yield
    i18n.set_language("en")


def figures() -> str:
    return "\n".join(
        [
            total_words(PLAYER),
            hand_words(HAND),
            line_words(MOVE, ["Ann", "Bob"]),
            move_text(MOVE, ["Ann", "Bob"]).plain,
        ]
    )


@pytest.mark.usefixtures("czech")
def test_the_reviews_figures_take_the_languages_decimal_comma() -> None:
    said = figures()
    for figure in ("81,3", "1,2", "91,3", "0,9", "12,5"):
        assert figure in said, said
    assert not any(f"{a}.{b}" in said for a in "0123456789" for b in "0123456789"), said


def test_in_english_the_figures_keep_the_decimal_point() -> None:
    said = figures()
    for figure in ("81.3", "91.3", "0.9", "12.5"):
        assert figure in said, said
