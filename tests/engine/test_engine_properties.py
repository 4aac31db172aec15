"""Properties of the engine over random matches, for every player count and variant (hypothesis)."""

from __future__ import annotations

import random

from engine_helpers import RULES, random_move
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from protocol_helpers import examples

from engine import (
    ALL_TILES,
    PASS,
    End,
    HandEnded,
    IllegalMove,
    Match,
    Move,
    Played,
    Rules,
    mask_of,
    replay,
)
from engine.rules import round5
from engine.scoring import blocked_counts, blocked_points, domino_counts, domino_points
from engine.tiles import FULL_SET

EVERY_MOVE = (
    [PASS]
    + [Move(t, e) for t in ALL_TILES for e in (None, *End)]
    + [Move(t, None, flipped=True) for t in ALL_TILES if not t.is_double]
)
MAX_MOVES = 5000


def placed_mask(match: Match) -> int:
    return mask_of(e.tile for e in match.events if isinstance(e, Played))


def check_tiles_accounted_for(match: Match) -> None:
    hands = match.hands
    remaining = mask_of(match.boneyard[match.drawn :])
    masks = [*hands, placed_mask(match), remaining]
    union = 0
    for m in masks:
        assert union & m == 0, "a tile is in two places"
        union |= m
    assert union == FULL_SET
    assert sum(m.bit_count() for m in masks) == 28


def normalized(match: Match, move: Move) -> Move:
    """A move with no end, where the rules allow it, stands for the move at the end it goes to.

    A lead written low number first is the listed lead, turned round (5.1).
    """
    if move.tile is None or move.end is not None:
        return move
    if not match.layout.lead:
        return move._replace(flipped=False)
    fits = match.layout.ends_for(move.tile)
    if len(fits) == 1:
        return Move(move.tile, End(fits[0]))
    if match.layout.spinner_sides == [True, True] and fits == [End.WEST, End.EAST]:
        return Move(move.tile, End.EAST)
    return move


def played_for(rules: Rules, seed: int, rng: random.Random, moves: int) -> Match:
    """A match after up to `moves` random legal moves (fewer if it ends first)."""
    match = Match.new(rules, seed=seed)
    for _ in range(moves):
        if match.over:
            break
        match.apply(match.turn, random_move(match, rng))
    return match


def play_out(rules: Rules, seed: int, rng: random.Random, probe: bool) -> Match:
    """Play a random match to its end, checking the invariants after every move."""
    match = Match.new(rules, seed=seed)
    for _ in range(MAX_MOVES):
        if match.over:
            break
        check_tiles_accounted_for(match)
        legal = match.legal_moves()
        assert legal, "the seat to play always has a legal move"
        # The server passes for a stuck seat by this flag (server.rooms.moves): it must say the same.
        assert match.stuck == (legal == [PASS]), "stuck exactly when passing is the only move"
        if probe:
            listed = set(legal)
            before = match.to_bytes()
            for move in rng.sample(EVERY_MOVE, 12):
                try:
                    match.copy_for_search().apply(match.turn, move)
                except IllegalMove:
                    assert normalized(match, move) not in listed
                else:
                    assert normalized(match, move) in listed
            for move in legal:
                match.copy_for_search().apply(match.turn, move)
            other = (match.turn + 1) % rules.players
            try:
                match.apply(other, legal[0])
                raise AssertionError("a seat played out of turn")
            except IllegalMove as error:
                assert error.code == "not_your_turn"
            assert match.to_bytes() == before, "a refused move changed the state"
        seat = match.turn
        scores = list(match.scores)
        events = match.apply(seat, random_move(match, rng))
        gained = [0] * rules.sides
        for event in events:
            if isinstance(event, Played):
                assert event.points == (event.total if event.total % 5 == 0 else 0)
                gained[rules.side_of(event.seat)] += event.points
            if isinstance(event, HandEnded):
                for side, p in enumerate(event.points):
                    gained[side] += p
                assert all(p % 5 == 0 for p in event.points)
        assert [a + g for a, g in zip(scores, gained, strict=True)] == match.scores
    assert match.over, "every match ends"
    return match


@settings(
    max_examples=examples(25),
    deadline=None,
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.large_base_example],
)
@given(rules=RULES, seed=st.integers(0, 2**32), rng=st.randoms(use_true_random=False))
def test_random_matches_keep_every_invariant(rules: Rules, seed: int, rng: random.Random) -> None:
    match = play_out(rules, seed, rng, probe=True)
    winner = match.winner
    target = rules.target_score
    if isinstance(winner, tuple):
        assert rules.players == 3 and len({match.scores[s] for s in winner}) == 1
    else:
        assert winner is not None and match.scores[winner] >= target
        assert match.scores[winner] == max(match.scores)


@settings(max_examples=examples(60), deadline=None)
@given(rules=RULES, seed=st.integers(0, 2**32), rng=st.randoms(use_true_random=False))
def test_a_record_replays_to_the_same_scores(rules: Rules, seed: int, rng: random.Random) -> None:
    match = play_out(rules, seed, rng, probe=False)
    hands = [
        (
            hand.deal,
            [
                (
                    m.seat,
                    Move(
                        None if m.tile < 0 else ALL_TILES[m.tile],
                        None if m.end < 0 else End(m.end),
                        m.flipped,
                    ),
                )
                for m in hand.moves
            ],
        )
        for hand in match.record
    ]
    again = replay(rules, hands)
    assert again.scores == match.scores and again.winner == match.winner and again.over


@settings(max_examples=examples(60), deadline=None)
@given(
    rules=RULES,
    seed=st.integers(0, 2**32),
    rng=st.randoms(use_true_random=False),
    stop=st.integers(0, 300),
)
def test_a_view_never_depends_on_tiles_its_seat_cannot_see(
    rules: Rules, seed: int, rng: random.Random, stop: int
) -> None:
    match = played_for(rules, seed, rng, stop)
    for seat in [*range(rules.players), None]:
        view = match.view_for(seat)
        if seat is not None:
            assert mask_of(view.hand or ()) == match.hands[seat]
        else:
            assert view.hand is None
        # Swap two tiles this seat cannot see (between other hands and the boneyard): same view.
        hidden = [(s, int(t)) for s in range(rules.players) if s != seat for t in match.hand_of(s)]
        hidden += [(-1, i) for i in range(match.drawn, len(match.boneyard))]
        if len(hidden) < 2:
            continue
        (s1, a), (s2, b) = rng.sample(hidden, 2)
        other = match.copy()
        other.boneyard = list(other.boneyard)
        ta = a if s1 >= 0 else other.boneyard[a]
        tb = b if s2 >= 0 else other.boneyard[b]
        if s1 == s2:
            continue
        for s, t_out, t_in, idx in ((s1, ta, tb, a), (s2, tb, ta, b)):
            if s >= 0:
                other.hands[s] = other.hands[s] & ~(1 << t_out) | (1 << t_in)
            else:
                other.boneyard[idx] = t_in
        assert other.view_for(seat) == view
        assert other.to_bytes() != match.to_bytes()


@settings(max_examples=examples(40), deadline=None)
@given(
    rules=RULES,
    seed=st.integers(0, 2**32),
    rng=st.randoms(use_true_random=False),
    stop=st.integers(0, 400),
)
def test_the_state_encodes_to_bytes_and_back(
    rules: Rules, seed: int, rng: random.Random, stop: int
) -> None:
    match = played_for(rules, seed, rng, stop)
    again = Match.from_bytes(match.to_bytes())
    assert again == match
    if not match.over:
        move = match.legal_moves()[0]
        assert again.apply(again.turn, move) == match.apply(match.turn, move)
        assert again == match


@settings(max_examples=examples(30), deadline=None)
@given(
    rules=RULES,
    seed=st.integers(0, 2**32),
    rng=st.randoms(use_true_random=False),
    stop=st.integers(0, 200),
)
def test_a_state_rebuilt_from_a_view_and_the_true_hidden_tiles_plays_on_identically(
    rules: Rules, seed: int, rng: random.Random, stop: int
) -> None:
    match = played_for(rules, seed, rng, stop)
    if match.over:
        return
    view = match.view_for(match.turn)
    rebuilt = Match.from_view(view, list(match.hands), match.boneyard[match.drawn :], seed=seed)
    assert rebuilt.legal_moves() == match.legal_moves()
    while match.hand_number == view.hand_number and not match.over:
        move = random_move(match, rng)
        a = match.apply(match.turn, move)
        b = rebuilt.apply(rebuilt.turn, move)
        assert a == b
        assert rebuilt.hands == match.hands and rebuilt.scores == match.scores


# The counts a hand's result carries say where every end-of-hand point came from


@st.composite
def hand_ends(draw: st.DrawFn) -> tuple[Rules, int | None, list[int]]:
    """Rules, the seat that went out (None: blocked) and every seat's pips (0 for that seat)."""
    rules = draw(RULES)
    pips = draw(st.lists(st.integers(0, 60), min_size=rules.players, max_size=rules.players))
    out = draw(st.none() | st.integers(0, rules.players - 1))
    if out is not None:
        pips[out] = 0
    return rules, out, pips


@given(hand_ends())
def test_a_hands_counts_add_up_to_its_points_and_round_what_they_count(
    end: tuple[Rules, int | None, list[int]],
) -> None:
    rules, out, pips = end
    counts = blocked_counts(rules, pips) if out is None else domino_counts(rules, out, pips)
    points = blocked_points(rules, pips) if out is None else domino_points(rules, out, pips)
    added = [0] * rules.sides
    for count in counts:
        added[count.side] += count.points
        held = sum(pips[seat] for seat in count.seats)
        assert count.pips == (held / 2 if count.halved else held)
        if rules.end_scoring == "penalty":
            assert count.seats == (count.seats[0],)  # each seat alone, for its own side
            assert count.side == rules.side_of(count.seats[0])
            assert count.points == -round5(count.pips)
        else:  # a side counts others' pips, never its own
            assert all(rules.side_of(seat) != count.side for seat in count.seats)
            assert count.points == round5(count.pips)
    assert tuple(added) == points
