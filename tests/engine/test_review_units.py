"""The review in the players' units: game points (the hard bot's premium for winning the match
kept out), an accuracy per player and per hand, moves graded as inaccuracies, mistakes and
blunders, and the same sentences in the terminal's `/review`, `allfives show` and `analyze`."""

from __future__ import annotations

import math
import re

import pytest
from engine_helpers import most_a_side_can_still_score
from hypothesis import given, settings
from hypothesis import strategies as st
from protocol_helpers import examples

from bridge.records import decisions_of, record_of
from bridge.reviews import review_record
from clients.cli.review_words import line_words, summary_text
from engine import Match, Rules
from engine.analysis import ACCURACY_SCALE, BLUNDER, INACCURACY, MISTAKE
from engine.bots import make_bot
from protocol.records import Record
from protocol.review import Review

BUDGET_MS = 10.0  # 50 deals a decision


def bots_match(players: int, target: int, seed: int, level: str = "normal") -> Record:
    """A whole match between bots of one level, as a record (seats named P0, P1, ...)."""
    match = Match.new(Rules(players=players, teams=players == 4, target=target), seed=seed)
    bots = [make_bot(level, seed * players + s) for s in range(players)]
    while not match.over:
        match.apply(match.turn, bots[match.turn].choose(match.view_for(match.turn)))
    return record_of(match, [f"P{s}" for s in range(players)])


def shown(review: Review, names: list[str]) -> str:
    """Every player's summary as the terminal shows it (`/review`, `allfives show`)."""
    return "\n".join(row.plain for p in review.players for row in summary_text(p, names))


def test_a_match_won_105_to_55_shows_game_points_and_an_accuracy_per_player() -> None:
    """The match of the report: two players to 100, won 105-55 in three hands. Every figure
    shown in points stays within the 160 points the hands scored (the old review showed 394.3
    lost over 3 hands, the match premium counted as points), and each player has an accuracy."""
    record = bots_match(2, 100, seed=207)
    assert record.scores == [55, 105] and len(record.hands) == 3
    names = ["Ann", "Bob"]
    review = review_record(record, None, BUDGET_MS, seed=0)
    text = shown(review, names)
    # Every figure but the accuracies ("76.9%") is in points (the old review's "174.1 over 3
    # hands" included).
    figures = [float(n) for n in re.findall(r"\b(\d+\.\d+)\b(?!%)", text)]
    assert figures and max(figures) <= 105 + 55, text
    for player in review.players:
        assert player.accuracy is not None and 0 <= player.accuracy <= 100
        assert f"accuracy {player.accuracy:.1f}%" in text
        assert len(player.by_hand) == 3
        assert player.lost_per_move <= 105 + 55
        assert all(line.lost <= 105 + 55 for line in player.costliest)
    assert "Ann (seat 1): accuracy " in text and "Bob (seat 2): accuracy " in text
    assert re.search(r"hand 3: accuracy \d+\.\d%, \d+\.\d points lost a move", text)


def test_a_partnership_match_to_100_shows_no_move_costing_more_than_the_match_scored() -> None:
    """The report's partnership match to 100 showed "4-1 west lost 193.0 points against 5-0
    south": with the premium kept out no move, no mean and no hand shows more points than the
    match's hands scored (seed 1: 90-100 in four hands)."""
    record = bots_match(4, 100, seed=1)
    assert record.scores == [90, 100] and len(record.hands) == 4
    review = review_record(record, None, BUDGET_MS, seed=0)
    scored = sum(record.scores)
    assert max(line.lost for line in review.moves) <= scored
    names = [f"P{s}" for s in range(4)]
    text = shown(review, names)
    figures = [float(n) for n in re.findall(r"\b(\d+\.\d+)\b(?!%)", text)]
    assert figures and max(figures) <= scored, text
    assert all(p.accuracy is not None for p in review.players)


@settings(max_examples=examples(25), deadline=None)
@given(
    players=st.sampled_from([2, 3, 4]),
    target=st.sampled_from([50, 100]),
    seed=st.integers(0, 10**6),
    level=st.sampled_from(["easy", "normal"]),
)
def test_no_loss_shown_exceeds_what_the_hand_could_score_and_accuracy_is_a_percentage(
    players: int, target: int, seed: int, level: str
) -> None:
    record = bots_match(players, target, seed, level)
    review = review_record(record, None, 2.0, seed=seed)
    decisions = decisions_of(record)
    assert len(decisions) == len(review.moves)
    for decision, line in zip(decisions, review.moves, strict=True):
        ceiling = most_a_side_can_still_score(decision.view)
        assert 0 <= line.lost <= 2 * ceiling  # game points: one side's gain less the other's
        assert all(abs(value.value) <= ceiling for value in line.values)
        assert line.accuracy is not None and 0 <= line.accuracy <= 100
        # Worked out from the unrounded loss: within what rounding the loss to 0.01 moves it.
        accuracy = 100 * math.exp(-line.lost / ACCURACY_SCALE)
        assert line.accuracy == pytest.approx(accuracy, abs=0.11)
        expected = (
            "blunder"
            if line.lost >= BLUNDER
            else "mistake"
            if line.lost >= MISTAKE
            else "inaccuracy"
            if line.lost >= INACCURACY
            else None
        )
        assert line.grade == expected or (expected is None and line.grade in ("best", "good"))
    for player in review.players:
        mine = [line for line in review.moves if line.seat == player.seat]
        assert player.decisions == len(mine) == sum(h.decisions for h in player.by_hand)
        if not mine:
            assert player.accuracy is None
            continue
        assert player.accuracy is not None and 0 <= player.accuracy <= 100
        assert player.lost_per_move <= max(line.lost for line in mine) + 0.05
        for hand in player.by_hand:
            assert hand.accuracy is None or 0 <= hand.accuracy <= 100
            assert (hand.accuracy is None) == (hand.decisions == 0)
        grades = [line.grade for line in mine]
        assert (player.inaccuracies, player.mistakes, player.blunders) == (
            grades.count("inaccuracy"),
            grades.count("mistake"),
            grades.count("blunder"),
        )


def test_a_move_is_worded_with_its_grade_and_the_best_move_plainly() -> None:
    record = bots_match(2, 100, seed=207)
    review = review_record(record, None, BUDGET_MS, seed=0)
    names = ["Ann", "Bob"]
    worded = {line.grade: line_words(line, names) for line in review.moves}
    assert worded["best"].endswith(": the best move")
    assert re.fullmatch(
        r"\S+( \w+)? lost \d+\.\d points against .+ \(a blunder\)(: .+)?", worded["blunder"]
    )
    assert "(a mistake)" in worded["mistake"]
