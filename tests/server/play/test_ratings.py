"""Rating updates: the server's rating code against openskill's own results for the same matches."""

from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from openskill.models import PlackettLuce
from protocol_helpers import examples

from protocol.rules import Rules
from server.play.ratings import RatedSeat, Standing, ladder_of, ranks_of, rate_match

#: openskill with its defaults, built apart from the server's own model.
REFERENCE = PlackettLuce()

standings = st.builds(
    Standing,
    mu=st.floats(min_value=0.0, max_value=50.0),
    sigma=st.floats(min_value=0.5, max_value=9.0),
    games=st.integers(min_value=0, max_value=1000),
    wins=st.integers(min_value=0, max_value=1000),
)


def reference(sides: list[list[Standing]], ranks: list[int]) -> list[list[tuple[float, float]]]:
    teams = [[REFERENCE.rating(mu=s.mu, sigma=s.sigma) for s in side] for side in sides]
    rated = REFERENCE.rate(teams, ranks=[float(rank) for rank in ranks])
    return [[(r.mu, r.sigma) for r in side] for side in rated]


def test_two_players_move_as_openskill_says() -> None:
    before = {"ann": Standing(), "bot:hard": Standing(mu=30.0, sigma=4.0, games=10, wins=7)}
    seats = [RatedSeat("ann", 30), RatedSeat("bot:hard", 30)]
    changes = rate_match(Rules(players=2), seats, [250, 120], 0, before)
    assert changes is not None
    ann, bot = reference([[before["ann"]], [before["bot:hard"]]], [1, 2])
    assert (changes[0][1].mu, changes[0][1].sigma) == pytest.approx(ann[0])
    assert (changes[1][1].mu, changes[1][1].sigma) == pytest.approx(bot[0])
    assert changes[0][1].mu > 25.0 and changes[1][1].mu < 30.0
    assert (changes[0][1].games, changes[0][1].wins) == (1, 1)
    assert (changes[1][1].games, changes[1][1].wins) == (11, 7)


def test_three_players_are_ranked_by_the_end_of_the_match() -> None:
    before = {"a": Standing(), "b": Standing(mu=28.0, sigma=5.0), "c": Standing(mu=20.0, sigma=6.0)}
    seats = [RatedSeat("a"), RatedSeat("b"), RatedSeat("c")]
    # c won; a finished above b.
    changes = rate_match(Rules(players=3), seats, [150, 90, 205], 2, before)
    assert changes is not None
    expected = reference([[before["a"]], [before["b"]], [before["c"]]], [2, 3, 1])
    for seat in range(3):
        assert (changes[seat][1].mu, changes[seat][1].sigma) == pytest.approx(expected[seat][0])
    assert changes[2][1].mu > before["c"].mu and changes[1][1].mu < before["b"].mu


def test_partnerships_rate_each_team_as_one_side() -> None:
    before = {
        "ann": Standing(mu=26.0, sigma=7.0),
        "bob": Standing(mu=24.0, sigma=6.0),
        "cid": Standing(mu=31.0, sigma=3.0),
        "bot:normal": Standing(mu=22.0, sigma=2.5),
    }
    seats = [RatedSeat("ann"), RatedSeat("bob"), RatedSeat("cid"), RatedSeat("bot:normal")]
    changes = rate_match(Rules(players=4, teams=True), seats, [120, 200], 1, before)
    assert changes is not None
    expected = reference(
        [[before["ann"], before["cid"]], [before["bob"], before["bot:normal"]]], [2, 1]
    )
    got = {seat: (new.mu, new.sigma) for seat, (_, new) in changes.items()}
    assert got[0] == pytest.approx(expected[0][0]) and got[2] == pytest.approx(expected[0][1])
    assert got[1] == pytest.approx(expected[1][0]) and got[3] == pytest.approx(expected[1][1])


def test_guests_and_four_alone_are_not_rated() -> None:
    seats = [RatedSeat("ann"), RatedSeat(None)]
    assert rate_match(Rules(players=2), seats, [250, 0], 0, {}) is None
    four = [RatedSeat(f"p{i}") for i in range(4)]
    assert ladder_of(Rules(players=4, teams=False)) is None
    assert rate_match(Rules(players=4, teams=False), four, [1, 2, 3, 4], 3, {}) is None


def test_a_stand_in_wins_for_nobody_but_loses_for_its_player() -> None:
    seats = [RatedSeat("ann", moves=20, stand_in_moves=15), RatedSeat("bot:easy", moves=20)]
    won = rate_match(Rules(players=2), seats, [250, 10], 0, {})
    assert won is not None
    assert (won[0][1].mu, won[0][1].sigma) == (won[0][0].mu, won[0][0].sigma)
    assert won[0][1].games == 1 and won[1][1].mu < 25.0
    lost = rate_match(Rules(players=2), seats, [10, 250], 1, {})
    assert lost is not None and lost[0][1].mu < 25.0


def test_a_bot_level_in_two_seats_takes_the_mean_of_its_seats() -> None:
    seats = [RatedSeat("ann"), RatedSeat("bot:hard"), RatedSeat("bot:hard")]
    changes = rate_match(Rules(players=3), seats, [100, 205, 50], 1, {})
    assert changes is not None
    expected = reference([[Standing()], [Standing()], [Standing()]], [2, 1, 3])
    mean = (expected[1][0][0] + expected[2][0][0]) / 2
    assert changes[1][1].mu == pytest.approx(mean) and changes[1][1] == changes[2][1]
    assert changes[1][1].games == 1 and changes[1][1].wins == 1


@given(
    players=st.sampled_from([2, 3, 4]),
    data=st.data(),
)
@settings(max_examples=examples(60), deadline=None)
def test_any_match_rates_as_openskill_does(players: int, data: st.DataObject) -> None:
    rules = Rules(players=players, teams=players == 4)
    sides = 2 if rules.partnership else players
    scores = data.draw(st.lists(st.integers(0, 300), min_size=sides, max_size=sides))
    winner = data.draw(st.sampled_from([None, *range(sides)]))
    before = {f"p{seat}": data.draw(standings) for seat in range(players)}
    seats = [RatedSeat(f"p{seat}") for seat in range(players)]
    changes = rate_match(rules, seats, scores, winner, before)
    assert changes is not None
    ranks = ranks_of(scores, winner)
    groups = [[0, 2], [1, 3]] if rules.partnership else [[seat] for seat in range(players)]
    expected = reference([[before[f"p{seat}"] for seat in group] for group in groups], ranks)
    for group, rated in zip(groups, expected, strict=True):
        for seat, (mu, sigma) in zip(group, rated, strict=True):
            assert (changes[seat][1].mu, changes[seat][1].sigma) == pytest.approx((mu, sigma))


@given(st.lists(st.integers(0, 300), min_size=2, max_size=4), st.data())
def test_ranks_put_the_winner_first_then_the_scores(scores: list[int], data: st.DataObject) -> None:
    winner = data.draw(st.sampled_from(range(len(scores))))
    ranks = ranks_of(scores, winner)
    assert ranks[winner] == 1
    for a in range(len(scores)):
        for b in range(len(scores)):
            if a != winner and b != winner and scores[a] > scores[b]:
                assert ranks[a] < ranks[b]
            if a != winner and b != winner and scores[a] == scores[b]:
                assert ranks[a] == ranks[b]
