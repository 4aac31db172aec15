"""The bots: legal moves only, greedy when normal, blind to hidden tiles, reproducible, inferring."""

from __future__ import annotations

import random
import time
from collections.abc import Callable

import pytest
from engine_helpers import most_a_side_can_still_score, play, random_move
from hypothesis import assume, given, settings
from hypothesis import strategies as st
from protocol_helpers import examples

from engine import Drew, Match, Move, Passed, Played, Rules, View, mask_of, positions
from engine.bots import LEVELS, Bot, EasyBot, HardBot, NormalBot, make_bot
from engine.bots.endgame import Endgame
from engine.bots.hard import WIN_VALUE, outcome_value
from engine.bots.infer import Knowledge, suits_mask
from engine.bots.sim import Position, playout
from engine.bots.tells import Tells
from engine.kernel import LEAD, points_of, total_after
from engine.tiles import FULL_SET, PIPS

RULES = st.builds(
    Rules,
    players=st.sampled_from([2, 3, 4]),
    teams=st.booleans(),
    hand_size=st.sampled_from(["standard", "five", "seven-five"]),
    end_scoring=st.sampled_from(["opponents", "penalty"]),
    reserve=st.sampled_from([0, 2]),
    target=st.sampled_from([None, 50, 100]),
)


def quick_bot(level: str, seed: int) -> Bot:
    """A bot that decides the same way on every machine (hard searches a fixed number of deals)."""
    if level == "hard":
        return HardBot(seed, budget_ms=None, max_samples=8, exact_nodes=5000)
    return make_bot(level, seed)


def random_position(rules: Rules, seed: int, steps: int) -> Match:
    """A match after `steps` random legal moves (fewer if it ends first)."""
    match = Match.new(rules, seed=seed)
    rng = random.Random(seed)
    for _ in range(steps):
        if match.over:
            break
        match.apply(match.turn, rng.choice(match.legal_moves()))
    return match


def move(text: str) -> Move:
    return Move.parse(text)


# -- every level -----------------------------------------------------------------------------


@settings(max_examples=examples(40), deadline=None)
@given(
    rules=RULES,
    seed=st.integers(0, 10**6),
    levels=st.lists(st.sampled_from(LEVELS), min_size=4, max_size=4),
)
def test_every_bot_plays_only_legal_moves(rules: Rules, seed: int, levels: list[str]) -> None:
    match = Match.new(rules, seed=seed)
    bots = [quick_bot(levels[s], seed + s) for s in range(rules.players)]
    for _ in range(120):
        if match.over:
            break
        view = match.view_for(match.turn)
        chosen = bots[match.turn].choose(view)
        assert chosen in view.legal
        match.apply(match.turn, chosen)


def test_an_unknown_level_is_refused_with_the_levels_that_exist() -> None:
    try:
        make_bot("grandmaster")
    except ValueError as error:
        assert "easy, normal, hard" in str(error)
    else:
        raise AssertionError("an unknown level was accepted")


def test_a_bot_asked_out_of_turn_says_so() -> None:
    match = Match.new(Rules(players=2), seed=3)
    idle = 1 - match.turn
    for bot in (EasyBot(), NormalBot(), HardBot()):
        try:
            bot.choose(match.view_for(idle))
        except ValueError as error:
            assert "not its turn" in str(error)
        else:
            raise AssertionError(f"{bot.level} chose a move out of turn")


# -- normal -----------------------------------------------------------------------------------


def test_normal_leads_the_tile_that_scores_most() -> None:
    match = positions.match(
        "2 hand_size=five | - | 6-6 6-4 3-2 1-0 2-1 / 5-5 5-0 4-4 4-1 3-0 | ... | 0 | 0 0"
    )
    assert NormalBot().choose(match.view_for(0)) == move("6-4")


def test_normal_scores_rather_than_shedding_a_heavier_tile() -> None:
    match = positions.match(
        "2 hand_size=five | - | 5-5 1-0 2-1 3-1 6-1 / 5-4 5-0 6-6 4-1 3-0 | ... | 0 | 0 0"
    )
    play(match, "5-5")
    # 5-0 makes 10 + 0 = 10; 5-4 is heavier but makes 14.
    assert NormalBot().choose(match.view_for(1)) in (move("5-0 west"), move("5-0 east"))


def test_normal_sheds_its_heaviest_tile_when_nothing_scores() -> None:
    match = positions.match(
        "2 hand_size=five | - | 6-6 6-5 4-2 1-0 2-1 / 5-5 5-0 4-4 4-1 3-0 | ... | 0 | 0 0"
    )
    assert NormalBot().choose(match.view_for(0)) == move("6-6")


@settings(max_examples=examples(40), deadline=None)
@given(rules=RULES, seed=st.integers(0, 10**6), steps=st.integers(0, 40))
def test_normal_never_scores_less_than_the_best_scoring_move(
    rules: Rules, seed: int, steps: int
) -> None:
    match = random_position(rules, seed, steps)
    assume(not match.over)
    best = 0
    for candidate in match.legal_moves():
        trial = match.copy()
        trial.apply(trial.turn, candidate)
        best = max(best, scored_by_last_play(trial, match))
    trial = match.copy()
    trial.apply(trial.turn, NormalBot(seed).choose(match.view_for(match.turn)))
    assert scored_by_last_play(trial, match) == best


def scored_by_last_play(after: Match, before: Match) -> int:
    """What the one play between two states scored (0 for a pass)."""
    moves = after.record[len(before.record) - 1].moves
    last = moves[len(before.record[-1].moves)]
    return last.points if last.tile >= 0 else 0


# -- hidden information and reproducibility -----------------------------------------------------


def same_view_other_tiles(match: Match, seed: int) -> Match | None:
    """A state whose view for the seat to play equals `match`'s, with other hidden tiles (if any)."""
    seat = match.turn
    view = match.view_for(seat)
    rng = random.Random(seed)
    for _ in range(30):
        hands, boneyard = Knowledge.of_view(view).sample(rng)
        hands[seat] = mask_of(view.hand or ())
        if hands != match.hands or boneyard != match.boneyard[match.drawn :]:
            return Match.from_view(view, hands, boneyard, seed=seed + 1)
    return None


def position_with_a_choice(rules: Rules, seed: int, steps: int) -> Match:
    """A random position where the seat to play has more than one legal move."""
    match = random_position(rules, seed, steps)
    rng = random.Random(seed + 1)
    while not match.over and len(match.legal_moves()) < 2:
        match.apply(match.turn, random_move(match, rng))
    return match


@settings(max_examples=examples(25), deadline=None)
@given(
    rules=RULES,
    seed=st.integers(0, 10**6),
    steps=st.integers(0, 30),
    level=st.sampled_from(["normal", "hard"]),
)
def test_a_bot_never_peeks_at_hidden_tiles(rules: Rules, seed: int, steps: int, level: str) -> None:
    match = position_with_a_choice(rules, seed, steps)
    assume(not match.over)
    other = same_view_other_tiles(match, seed)
    assume(other is not None)
    assert other is not None
    seat = match.turn
    assert other.view_for(seat) == match.view_for(seat)
    assert other.hands != match.hands or other.boneyard != match.boneyard[match.drawn :]
    first = quick_bot(level, 7).choose(match.view_for(seat))
    second = quick_bot(level, 7).choose(other.view_for(seat))
    assert first == second


def test_hard_gives_the_same_move_for_the_same_seed_and_view() -> None:
    for seed in range(6):
        match = position_with_a_choice(Rules(players=2), seed, 4)
        view = match.view_for(match.turn)
        bot = quick_bot("hard", seed)
        chosen = bot.choose(view)
        assert quick_bot("hard", seed).choose(view) == chosen
        assert bot.choose(view) == chosen


def test_a_lone_legal_move_is_returned_at_once() -> None:
    rng = random.Random(5)
    match = Match.new(Rules(players=2), seed=5)
    while len(match.legal_moves()) != 1:
        match.apply(match.turn, random_move(match, rng))
    bot = HardBot(budget_ms=60_000)
    began = time.perf_counter()
    chosen = bot.choose(match.view_for(match.turn))
    assert time.perf_counter() - began < 0.5
    assert bot.last_samples == 0
    assert chosen == match.legal_moves()[0]


def test_hard_stops_thinking_when_its_budget_runs_out() -> None:
    match = position_with_a_choice(Rules(players=2), 11, 0)
    bot = HardBot(budget_ms=30, max_samples=10**9)
    began = time.perf_counter()
    bot.choose(match.view_for(match.turn))
    assert time.perf_counter() - began < 1.0
    assert 0 < bot.last_samples < 10**9


# -- inference ----------------------------------------------------------------------------------


def test_samples_never_give_a_seat_that_passed_on_3_and_5_a_3_or_a_5() -> None:
    view, passer = first_pass_on((3, 5))
    threes_and_fives = suits_mask((3, 5))
    unseen = Knowledge.of_view(view).unseen
    assert (unseen & threes_and_fives).bit_count() >= 3  # a sampler ignoring voids would slip
    knowledge = Knowledge.of_view(view)
    rng = random.Random(0)
    for _ in range(300):
        hands, _ = knowledge.sample(rng)
        assert hands[passer] & threes_and_fives == 0
        assert hands[passer].bit_count() == view.hand_counts[passer]


def first_pass_on(numbers: tuple[int, ...]) -> tuple[View, int]:
    """The view of the next seat, in the first random 4-player hand where a seat holding two or
    more tiles passed with exactly `numbers` open."""
    for seed in range(1700, 4000):
        match = Match.new(Rules(players=4), seed=seed)
        rng = random.Random(seed)
        while not match.over and match.hand_number == 1:
            match.apply(match.turn, random_move(match, rng))
            last = match.events[-1]
            if match.hand_number == 1 and isinstance(last, Passed) and last.open == numbers:
                if match.hands[last.seat].bit_count() >= 2:
                    view = match.view_for(match.turn)
                    unseen = Knowledge.of_view(view).unseen
                    if (unseen & suits_mask(numbers)).bit_count() >= 3:
                        return view, last.seat
                break
    raise AssertionError(f"no random hand passed on {numbers}: widen the search")


@settings(max_examples=examples(60), deadline=None)
@given(rules=RULES, seed=st.integers(0, 10**6), steps=st.integers(0, 60))
def test_samples_respect_counts_and_every_void_still_in_force(
    rules: Rules, seed: int, steps: int
) -> None:
    match = random_position(rules, seed, steps)
    assume(not match.over)
    seat = match.turn
    view = match.view_for(seat)
    knowledge = Knowledge.of_view(view)
    own = mask_of(view.hand or ())
    played = mask_of(e.tile for e in view.history if isinstance(e, Played))
    assert knowledge.unseen == FULL_SET & ~played & ~own
    voids = voids_in_force(view)
    rng = random.Random(seed)
    for attempt in range(20):
        sample = knowledge.sample if attempt % 2 else knowledge.sample_carefully
        hands, boneyard = sample(rng)
        assert hands[seat] == 0
        assert [h.bit_count() for i, h in enumerate(hands) if i != seat] == [
            c for i, c in enumerate(view.hand_counts) if i != seat
        ]
        assert len(boneyard) == view.boneyard_size
        every = mask_of(boneyard)
        for h in hands:
            assert every & h == 0
            every |= h
        assert every == knowledge.unseen
        for other, void in voids.items():
            assert hands[other] & void == 0


def test_samples_respect_voids_that_leave_little_room() -> None:
    # Three seats drew or passed on 2-3, 0-3 and 2-3: 11 of the 17 unseen tiles must avoid 2 and 3.
    match = random_position(Rules(players=4, teams=False), 1_000_000, 26)
    view = match.view_for(match.turn)
    voids = voids_in_force(view)
    assert len(voids) == 3
    knowledge = Knowledge.of_view(view)
    rng = random.Random(0)
    for _ in range(100):
        hands, _ = knowledge.sample(rng)
        for other, void in voids.items():
            assert hands[other] & void == 0


def test_a_deal_where_an_opponent_passed_up_points_is_less_likely() -> None:
    match = positions.match(
        "2 hand_size=five | - | 5-0 6-6 6-5 6-4 6-3 / 6-0 1-1 2-1 3-1 4-1 | ... | 0 | 0 0"
    )
    play(match, "5-0", "6-0 east")  # 5-5 on the west end would have made 10
    tells = Tells(match.view_for(0))
    could_not_score = [0, mask_of(positions.tiles_in("1-1 2-1 3-1 4-1"))]
    could_have_scored = [0, mask_of(positions.tiles_in("5-5 2-1 3-1 4-1"))]
    assert tells.likelihood(could_not_score) == pytest.approx(1.0)
    assert tells.likelihood(could_have_scored) == pytest.approx(tells.noise / 2)


def voids_in_force(view: View) -> dict[int, int]:
    """For each other seat: the numbers it drew or passed on since its last draw."""
    voids: dict[int, int] = {}
    for event in view.history:
        if isinstance(event, Drew):
            voids[event.seat] = suits_mask(event.open)
        elif isinstance(event, Passed):
            voids[event.seat] = voids.get(event.seat, 0) | suits_mask(event.open)
    voids.pop(view.seat or 0, None)
    return voids


# -- the search's own copy of the rules -----------------------------------------------------------


def greedy_engine_move(match: Match) -> Move:
    """The playouts' greedy policy, on the engine: most points, then heaviest, first in order."""
    lay = match.layout
    best, best_key = match.legal_moves()[0], -1
    for candidate in match.legal_moves():
        if candidate.tile is None:
            return candidate
        end = LEAD if candidate.end is None else int(candidate.end)
        sides = lay.spinner_sides
        total = total_after(
            lay.open, lay.weight, lay.spinner, sides[0], sides[1], candidate.tile, end
        )
        key = points_of(total) * 64 + PIPS[candidate.tile]
        if key > best_key:
            best, best_key = candidate, key
    return best


@settings(max_examples=examples(120), deadline=None)
@given(rules=RULES, seed=st.integers(0, 10**6), steps=st.integers(0, 60), pick=st.integers(0, 20))
def test_playouts_follow_the_engines_rules_to_the_end_of_the_hand(
    rules: Rules, seed: int, steps: int, pick: int
) -> None:
    match = random_position(rules, seed, steps)
    assume(not match.over)
    first = match.legal_moves()[pick % len(match.legal_moves())]
    assume(first.tile is not None)
    end = LEAD if first.end is None else int(first.end)
    assert first.tile is not None
    scores, over = playout(Position.of_match(match), int(first.tile), end, random.Random(0), 0.0)
    hand = match.hand_number
    match.apply(match.turn, first)
    while not match.over and match.hand_number == hand:
        match.apply(match.turn, greedy_engine_move(match))
    assert (scores, over) == (match.scores, match.over)


def minimax_on_engine(
    match: Match, my_side: int, value: Callable[[list[int], bool], float]
) -> float:
    """The exact value of the rest of the hand, by trying every move on the engine itself."""
    hand = match.hand_number
    outcomes = []
    for candidate in match.legal_moves():
        after = match.copy()
        after.apply(after.turn, candidate)
        if after.over or after.hand_number != hand:
            outcomes.append(value(list(after.scores), after.over))
        else:
            outcomes.append(minimax_on_engine(after, my_side, value))
    mine = match.rules.side_of(match.turn) == my_side
    return max(outcomes) if mine else min(outcomes)


@settings(max_examples=examples(25), deadline=None)
@given(
    seed=st.integers(0, 10**6),
    players=st.sampled_from([2, 4]),
    hand_size=st.sampled_from(["standard", "five"]),
    end_scoring=st.sampled_from(["opponents", "penalty"]),
    target=st.sampled_from([None, 100]),
)
def test_exact_endgame_search_agrees_with_trying_every_move_on_the_engine(
    seed: int, players: int, hand_size: str, end_scoring: str, target: int | None
) -> None:
    rules = Rules(players=players, hand_size=hand_size, end_scoring=end_scoring, target=target)  # type: ignore[arg-type]
    match = Match.new(rules, seed=seed)
    rng = random.Random(seed)
    while not match.over and not (
        match.boneyard_left == 0
        and sum(h.bit_count() for h in match.hands) <= 8
        and len(match.legal_moves()) > 1
    ):
        match.apply(match.turn, random_move(match, rng))
    assume(not match.over)
    view = match.view_for(match.turn)
    value = outcome_value(view)
    my_side = rules.side_of(match.turn)
    solver = Endgame(Position.of_match(match), value, my_side, limit=10**6)
    for candidate in match.legal_moves():
        end = LEAD if candidate.end is None else int(candidate.end)
        after = match.copy()
        after.apply(after.turn, candidate)
        if after.over or after.hand_number != match.hand_number:
            expected = value(list(after.scores), after.over)
        else:
            expected = minimax_on_engine(after, my_side, value)
        assert solver.value_of(int(candidate.tile), end) == expected  # type: ignore[arg-type]


@settings(max_examples=examples(40), deadline=None)
@given(rules=RULES, seed=st.integers(0, 10**6), steps=st.integers(0, 40))
def test_the_game_points_split_out_of_the_values_leave_the_search_as_it_was(
    rules: Rules, seed: int, steps: int
) -> None:
    """The review's game points (`evaluate(view, split=True)`) come from the same search: the
    same values and choice, and each move's points differ from its value by the match term
    alone (`WIN_VALUE` times a share of the deals, so at most `WIN_VALUE`; none while no side
    can reach the target in this hand)."""
    match = random_position(rules, seed, steps)
    assume(not match.over)
    view = match.view_for(match.turn)
    assume(len(view.legal) > 1)
    plain = HardBot(seed, budget_ms=None, max_samples=16).evaluate(view)
    split = HardBot(seed, budget_ms=None, max_samples=16).evaluate(view, split=True)
    assert split.exact == plain.exact and split.best == plain.best
    assert split.values == plain.values
    assert split.points is not None and plain.points is None
    for value, points in zip(split.values, split.points, strict=True):
        assert abs(value - points) <= WIN_VALUE + 1e-9
        if max(view.scores) + most_a_side_can_still_score(view) < rules.target_score:
            assert value == pytest.approx(points)
