"""Playing matches for the engine's tests: moves as written, random legal moves, every variant.

Positions are written as one line and read by `engine.positions` (docs/positions.md)."""

from __future__ import annotations

import random

import msgspec
from hypothesis import strategies as st

from bridge.records import match_of
from engine import Match, Move, Rules, View
from protocol.records import Record


def play(match: Match, *moves: str) -> list[object]:
    """Play moves like ``"5-5"``, ``"5-3 east"``, ``"pass"`` for whoever is to play."""
    events: list[object] = []
    for text in moves:
        events += match.apply(match.turn, Move.parse(text))
    return events


def random_move(match: Match, rng: random.Random) -> Move:
    """A random legal move; a lead is written either way round (5.1: its first number faces west)."""
    move = rng.choice(match.legal_moves())
    if move.tile is not None and move.end is None and rng.random() < 0.5:
        return move.flip()
    return move


def finished_match(rules: Rules, seed: int) -> Match:
    """A match played to its end by random legal moves, the same for the same seed."""
    match = Match.new(rules, seed=seed)
    rng = random.Random(seed)
    while not match.over:
        match.apply(match.turn, random_move(match, rng))
    return match


#: Rules of every player count and variant, for the engine's property tests.
RULES = st.builds(
    Rules,
    players=st.sampled_from([2, 3, 4]),
    teams=st.booleans(),
    hand_size=st.sampled_from(["standard", "five", "seven-five"]),
    target=st.sampled_from([None, 50, 100, 150]),
    end_scoring=st.sampled_from(["opponents", "penalty"]),
    reserve=st.sampled_from([0, 0, 2]),
)


#: The most one play can score: four open ends of at most 12 pips (a double), to a multiple of 5.
MOST_A_PLAY_SCORES = 45
#: The most a count at the end of a hand can score: every pip of the set (168), to a multiple of 5.
MOST_A_COUNT_SCORES = 170


def most_a_side_can_still_score(view: View) -> int:
    """A ceiling on the points one side can still score in the hand from `view`: every tile not
    yet on the table played for the most a play can score, then the most a count can."""
    left = sum(view.hand_counts) + view.boneyard_size
    return left * MOST_A_PLAY_SCORES + MOST_A_COUNT_SCORES


def scores_after_each_hand(record: Record) -> list[list[int]]:
    """The scores once each hand ended, by the engine replaying the record hand by hand."""
    scores = []
    for count in range(1, len(record.hands) + 1):
        part = msgspec.structs.replace(record, hands=record.hands[:count], scores=None, winner=None)
        scores.append(list(match_of(part).scores))
    return scores
