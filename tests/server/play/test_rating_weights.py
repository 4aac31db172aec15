"""How much a match counts (server.play.weighting): farm loops of short matches, throwaway keys
and the same two keys again and again do not climb the ladder (hypothesis), while matches
between established players move ratings as openskill says."""

from __future__ import annotations

from dataclasses import replace

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from protocol_helpers import examples

from protocol.rules import Rules
from server.play.ratings import RatedSeat, Standing, rate_match
from server.play.weighting import (
    ESTABLISHED_MATCHES,
    FULL_TARGET,
    REPEAT_SECONDS,
    established,
    length_weight,
    rate_weighted,
)

NOW = 1_800_000_000.0
DAY = 24 * 60 * 60


def win(standings: dict[str, Standing], winner: str, loser: str, target: int, at: float) -> None:
    """`winner` beats `loser` in a two-player match to `target`: both standings updated."""
    seats = [RatedSeat(winner, 30), RatedSeat(loser, 30)]
    changes = rate_weighted(Rules(players=2, target=target), seats, [target, 0], 0, standings, at)
    assert changes is not None
    standings[winner], standings[loser] = changes[0][1], changes[1][1]


def veteran(mu: float, sigma: float, played: int) -> Standing:
    """An established player who has played `played` full matches against three others."""
    return Standing(
        mu=mu, sigma=sigma, games=played, played=float(played), opponents=("a", "b", "c")
    )


def normal_change(main: Standing, rival: Standing | None = None) -> float:
    """What one normal match does to `main`'s rating: a win at full length over `rival` (by
    default an established player rated as `main` is), neither met today."""
    if rival is None:
        rival = veteran(main.mu, main.sigma, 20)
    fresh = replace(main, recent=())
    standings = {"main": fresh, "rival": replace(rival, recent=())}
    win(standings, "main", "rival", FULL_TARGET, NOW)
    return standings["main"].ordinal - fresh.ordinal


mains = st.builds(
    veteran,
    mu=st.floats(min_value=10.0, max_value=40.0),
    sigma=st.floats(min_value=1.0, max_value=25 / 3),
    played=st.integers(min_value=int(ESTABLISHED_MATCHES), max_value=500),
)
targets = st.integers(min_value=1, max_value=200).map(lambda n: 5 * n)


@settings(max_examples=examples(60), deadline=None)
@given(
    main=mains,
    matches=st.integers(min_value=1, max_value=60),
    pool=st.integers(min_value=1, max_value=60),
    target=targets,
    seconds=st.floats(min_value=0.1, max_value=60.0),
)
def test_a_farm_loop_of_throwaway_keys_climbs_less_than_one_normal_match(
    main: Standing, matches: int, pool: int, target: int, seconds: float
) -> None:
    # A main key beats throwaway keys (fresh, or a pool of them again and again) in a loop.
    standings = {"main": main}
    for index in range(matches):
        win(standings, "main", f"throwaway{index % pool}", target, NOW + index * seconds)
    climb = standings["main"].ordinal - main.ordinal
    assert abs(climb) < abs(normal_change(main))
    assert standings["main"].games == main.games + matches  # every match still counts as one


@settings(max_examples=examples(60), deadline=None)
@given(
    main=mains,
    other=mains,
    matches=st.integers(min_value=2, max_value=60),
    target=targets,
    seconds=st.floats(min_value=1.0, max_value=REPEAT_SECONDS / 60),
)
def test_the_same_two_keys_again_and_again_climb_less_than_one_more_match(
    main: Standing, other: Standing, matches: int, target: int, seconds: float
) -> None:
    # Two established keys: the first match of the day counts; the rest of a day's loop
    # together move the winner less than one normal match more (2/3 of one at the most).
    standings = {"main": main, "other": other}
    win(standings, "main", "other", target, NOW)
    first, rival = standings["main"], standings["other"]
    for index in range(1, matches):
        win(standings, "main", "other", target, NOW + index * seconds)
    climb = standings["main"].ordinal - first.ordinal
    assert climb <= max(0.0, normal_change(first, rival)) + 1e-9


@settings(max_examples=examples(60), deadline=None)
@given(
    main=mains,
    other=mains,
    matches=st.integers(min_value=1, max_value=60),
    target=st.integers(min_value=1, max_value=15).map(lambda n: 5 * n),
    seconds=st.floats(min_value=1.0, max_value=REPEAT_SECONDS / 60),
)
def test_short_matches_between_the_same_two_keys_climb_less_than_one_normal_match(
    main: Standing, other: Standing, matches: int, target: int, seconds: float
) -> None:
    # Up to 60 matches to 75 or less between two established keys in a day, the first
    # included, move the winner less than one match to 150 against the same player.
    standings = {"main": main, "other": other}
    for index in range(matches):
        win(standings, "main", "other", target, NOW + index * seconds)
    climb = standings["main"].ordinal - main.ordinal
    assert climb <= max(0.0, normal_change(main, other)) + 1e-9


def test_short_matches_against_a_bot_count_by_their_length() -> None:
    # Twelve matches to 5 against the easy bot: a new key gets nothing (provisional); an
    # established one gets less than one normal match, where a match to 250 counts fully.
    new = {"new": Standing(), "bot:easy": Standing()}
    for index in range(12):
        win(new, "new", "bot:easy", 5, NOW + index)
    assert new["new"].ordinal == Standing().ordinal
    main = veteran(25.0, 6.0, 10)
    short = {"main": main, "bot:easy": Standing()}
    for index in range(12):
        win(short, "main", "bot:easy", 5, NOW + index)
    assert 0 < short["main"].ordinal - main.ordinal < normal_change(main)
    assert length_weight(5) == pytest.approx(1 / 30) and length_weight(250) == 1.0


def test_a_new_key_counts_once_it_has_played_enough_against_three_opponents() -> None:
    standings = {"ann": Standing()}
    opponents = ["bot:easy", "bot:normal", "bot:hard"]
    for index in range(int(ESTABLISHED_MATCHES)):
        assert not established("ann", standings["ann"])
        win(standings, "ann", opponents[index % 3], FULL_TARGET, NOW + index)
        assert standings["ann"].mu == Standing().mu  # provisional: nobody's rating moves
    assert established("ann", standings["ann"])
    assert standings["ann"].opponents == tuple(opponents)
    # From now on a match moves ratings exactly as openskill says (a bot is not repeated).
    before = dict(standings)
    win(standings, "ann", "bot:hard", FULL_TARGET, NOW + 10)
    seats = [RatedSeat("ann", 30), RatedSeat("bot:hard", 30)]
    full = rate_match(Rules(players=2, target=FULL_TARGET), seats, [FULL_TARGET, 0], 0, before)
    assert full is not None
    assert standings["ann"].mu == pytest.approx(full[0][1].mu) and standings["ann"].mu > 25


def test_repeats_are_forgotten_after_a_day() -> None:
    standings = {"main": veteran(25.0, 5.0, 20), "other": veteran(25.0, 5.0, 20)}
    for index in range(5):
        win(standings, "main", "other", FULL_TARGET, NOW + index)
    tired = standings["main"]
    win(standings, "main", "other", FULL_TARGET, NOW + 10)
    sixth = standings["main"].mu - tired.mu
    standings["main"] = tired
    win(standings, "main", "other", FULL_TARGET, NOW + DAY + 10)
    assert standings["main"].mu - tired.mu > 30 * sixth  # 1/36 then, whole a day later
    assert len(standings["main"].recent) == 1
