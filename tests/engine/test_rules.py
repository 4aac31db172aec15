"""Every rule of docs/rules.md and every worked example (section 9), as tests that read like the rules."""

from __future__ import annotations

import itertools

import pytest
from engine_helpers import play

from engine import (
    ALL_TILES,
    PASS,
    Drew,
    End,
    HandEnded,
    IllegalMove,
    Match,
    Move,
    Passed,
    Played,
    Rules,
    RulesError,
    Tile,
    blocked_points,
    domino_points,
    layout_from,
    positions,
    round5,
)
from engine.scoring import blocked_result
from protocol.rules import DEFAULT_TARGETS

# -- 1. Equipment and players ---------------------------------------------------------------


def test_the_set_has_28_distinct_tiles_written_high_end_first() -> None:
    names = [str(t) for t in ALL_TILES]
    assert len(set(names)) == 28
    assert "6-4" in names and "4-6" not in names
    assert Tile.parse("4-6") == Tile.parse("6-4")
    assert str(Tile.parse("3-0")) == "3-0"


@pytest.mark.parametrize("text", ["7-1", "5", "5-", "a-b", "5-3-1", ""])
def test_parsing_rejects_what_is_not_a_tile(text: str) -> None:
    with pytest.raises(ValueError):
        Tile.parse(text)


@pytest.mark.parametrize("players", [1, 5])
def test_a_match_has_two_to_four_players(players: int) -> None:
    with pytest.raises(RulesError):
        Rules(players=players)


def test_play_passes_in_seat_order() -> None:
    match = Match.new(Rules(players=3), seed=4)
    seats: list[int] = []
    while match.hand_number == 1 and len(seats) < 8:
        seats.append(match.turn)
        match.apply(match.turn, match.legal_moves()[0])
    assert all(b == (a + 1) % 3 for a, b in itertools.pairwise(seats))


def test_partners_score_into_one_team_total() -> None:
    # Seat 2 (team A) leads 5-5 for 10: the score is the team's.
    match = positions.match(
        "4 | - | 1-0 2-0 3-0 4-0 6-0 / 1-1 2-1 3-1 4-1 6-1 / 5-5 2-2 3-2 4-2 6-2 / 3-3 4-3 6-3 4-4 6-4"
        " | ... | 2 | 0 0"
    )
    play(match, "5-5")
    assert match.scores == [10, 0]


# -- 2. The deal -----------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("hand_size", "players", "size"),
    [
        ("standard", 2, 9), ("standard", 3, 7), ("standard", 4, 5),
        ("five", 2, 5), ("five", 3, 5), ("five", 4, 5),
        ("seven-five", 2, 7), ("seven-five", 3, 5), ("seven-five", 4, 5),
    ],
)  # fmt: skip
def test_hand_sizes(hand_size: str, players: int, size: int) -> None:
    match = Match.new(Rules(players=players, hand_size=hand_size), seed=9)  # type: ignore[arg-type]
    assert [len(match.hand_of(s)) for s in range(players)] == [size] * players
    assert match.boneyard_left == 28 - size * players


def test_the_same_seed_deals_the_same_match_and_another_seed_another() -> None:
    a, b, c = (Match.new(Rules(players=2), seed=s) for s in (5, 5, 6))
    assert a == b
    assert a.hands != c.hands


def test_the_boneyard_order_decides_what_is_drawn() -> None:
    match = positions.match(
        "2 hand_size=five | - | 6-6 5-5 4-4 3-3 2-2 / 1-0 2-0 3-0 4-0 1-1 | 2-1 3-1 6-1 ... | 0 | 0 0"
    )
    assert Drew(1, 3, (6,)) in play(match, "6-6")
    assert {Tile.parse(t) for t in ("2-1", "3-1", "6-1")} <= set(match.hand_of(1))
    assert Tile.parse("6-0") not in match.hand_of(1)


def test_a_deal_that_is_not_the_28_tiles_is_refused() -> None:
    rules = Rules(players=2, hand_size="five")
    deal = positions.deal(
        "2 hand_size=five | - | 6-6 5-5 4-4 3-3 2-2 / 1-0 2-0 3-0 4-0 1-1 | ... | 0 | 0 0"
    )
    broken = type(deal)(deal.hands, deal.boneyard[:-1] + deal.boneyard[:1], 0)
    with pytest.raises(IllegalMove, match="28 tiles"):
        Match.new(rules, deals=[broken])


# -- 3. Who leads ----------------------------------------------------------------------------


def test_the_first_leader_is_chosen_at_random() -> None:
    leaders = {Match.new(Rules(players=4), seed=s).turn for s in range(40)}
    assert leaders == {0, 1, 2, 3}


def test_the_leader_may_lead_any_tile() -> None:
    match = Match.new(Rules(players=2), seed=3)
    assert sorted(m.tile for m in match.legal_moves() if m.tile is not None) == match.hand_of(
        match.turn
    )
    assert all(m.end is None for m in match.legal_moves())


def test_the_player_who_dominoed_leads_the_next_hand() -> None:
    for seed in range(30):
        match = Match.new(Rules(players=3), seed=seed)
        while match.hand_number == 1:
            match.apply(match.turn, match.legal_moves()[0])
        last = match.last_hand
        assert last is not None
        if last.kind == "domino" and not match.over:
            assert match.turn == last.by == match.leader
            return
    pytest.fail("no seed gave a domino")


def test_a_replayed_deal_led_by_the_wrong_seat_after_a_domino_is_refused() -> None:
    rules = Rules(players=2)
    match = Match.new(rules, seed=11)
    while match.hand_number == 1:
        match.apply(match.turn, match.legal_moves()[0])
    last = match.last_hand
    assert last is not None and last.kind == "domino"
    second = match.record[1].deal
    wrong = type(second)(second.hands, second.boneyard, 1 - second.leader)
    copy = Match.new(rules, deals=[match.record[0].deal, wrong])
    with pytest.raises(IllegalMove, match="must lead"):
        for move in match.record[0].moves:
            copy.apply(
                move.seat,
                Move(
                    None if move.tile < 0 else ALL_TILES[move.tile],
                    None if move.end < 0 else End(move.end),
                ),
            )


# -- 4. A turn -------------------------------------------------------------------------------


def test_a_player_who_can_play_must_play() -> None:
    match = positions.match(
        "2 hand_size=five | - | 6-6 5-5 4-4 3-3 2-2 / 6-1 2-0 3-0 4-0 1-1 | ... | 0 | 0 0"
    )
    play(match, "6-6")
    with pytest.raises(IllegalMove) as err:
        match.apply(1, PASS)
    assert err.value.code == "must_play" and err.value.rule == "4.1"
    assert match.legal_moves() == [
        Move(Tile.parse("6-1"), End.WEST),
        Move(Tile.parse("6-1"), End.EAST),
    ]


def test_a_player_with_no_playable_tile_draws_until_one_plays_and_must_play_it() -> None:
    match = positions.match(
        "2 hand_size=five | - | 6-6 5-5 4-4 3-3 2-2 / 1-0 2-0 3-0 4-0 1-1 | 2-1 3-1 6-1 6-0 ... | 0 | 0 0"
    )
    events = play(match, "6-6")
    assert Drew(1, 3, (6,)) in events
    assert match.legal_moves() == [
        Move(Tile.parse("6-1"), End.WEST),
        Move(Tile.parse("6-1"), End.EAST),
    ]
    with pytest.raises(IllegalMove) as err:
        match.apply(1, Move.parse("2-1"))
    assert err.value.code == "must_play_drawn"
    play(match, "6-1 east")
    assert match.record[0].moves[-1].drew == 3


def test_a_player_passes_when_the_boneyard_is_empty_and_nothing_plays() -> None:
    match = positions.match(
        "2 | - | 6-6 6-5 6-4 6-3 6-2 6-1 6-0 5-5 4-4 / 1-0 2-0 3-0 4-0 1-1 2-1 3-1 4-1 2-2 | ... | 0 | 0 0"
    )
    events = play(match, "6-6")
    assert Drew(1, 10, (6,)) in events
    assert match.legal_moves() == [PASS]
    with pytest.raises(IllegalMove) as err:
        match.apply(1, Move.parse("1-0"))
    assert err.value.code == "must_pass"
    assert Passed(1, (6,)) in play(match, "pass")
    assert match.turn == 0


def test_with_a_reserve_of_two_the_last_two_tiles_are_never_drawn() -> None:
    match = positions.match(
        "2 reserve=2 | - | 6-6 6-5 6-4 6-3 6-2 6-1 6-0 5-5 4-4 / 1-0 2-0 3-0 4-0 1-1 2-1 3-1 4-1 2-2"
        " | ... | 0 | 0 0"
    )
    events = play(match, "6-6")
    assert Drew(1, 8, (6,)) in events
    assert match.boneyard_left == 2 and match.legal_moves() == [PASS]


# -- 5. The layout and the spinner -----------------------------------------------------------


def test_the_leads_first_written_number_faces_west() -> None:
    layout, _ = layout_from("lead 6-4")
    assert layout.open[End.WEST] == 6 and layout.open[End.EAST] == 4
    layout, _ = layout_from("lead 4-6")
    assert layout.open[End.WEST] == 4 and layout.open[End.EAST] == 6
    assert layout.line() == ([[4, 6]], None)


@pytest.mark.parametrize(
    ("lead", "west", "east", "fits_east", "refused_east"),
    [("1-6", 1, 6, "6-2", "1-2"), ("6-1", 6, 1, "1-2", "6-2")],
)
def test_a_lead_written_either_way_decides_which_end_later_tiles_name(
    lead: str, west: int, east: int, fits_east: str, refused_east: str
) -> None:
    match = positions.match(
        "2 hand_size=five | - | 6-1 5-5 4-4 0-0 5-0 / 6-2 1-2 3-3 3-0 4-0 | ... | 0 | 0 0"
    )
    events = play(match, lead)
    assert match.layout.open[:2] == [west, east]
    assert str(Move.parse(lead)) == lead
    played = events[0]
    assert isinstance(played, Played) and played.flipped == (lead == "1-6")
    with pytest.raises(IllegalMove) as refused:
        play(match, f"{refused_east} east")
    assert refused.value.code == "does_not_match" and refused.value.rule == "5.2"
    play(match, f"{fits_east} east")
    assert match.layout.line()[0] == [[west, east], [east, 2]]
    # The record keeps the orientation, so a replay agrees.
    assert match.record[-1].moves[0].flipped == (lead == "1-6")


def test_a_double_lead_is_the_same_either_way() -> None:
    move = Move.parse("5-5")
    assert move.flip() == move and not move.flipped


def test_a_tile_joins_by_its_matching_half_and_its_other_half_becomes_the_end() -> None:
    layout, _ = layout_from("lead 6-4; 4-1 east; 6-2 west")
    assert layout.open[:2] == [2, 1]
    assert layout.line()[0] == [[2, 6], [6, 4], [4, 1]]


def test_the_first_double_is_the_spinner_even_when_it_is_not_the_lead() -> None:
    layout, _ = layout_from("lead 6-4; 4-4 east")
    assert layout.spinner == 4 and layout.line() == ([[6, 4], [4, 4]], 1)


def test_arms_open_only_once_both_line_sides_of_the_spinner_are_taken() -> None:
    layout, _ = layout_from("lead 5-5; 5-3 east")
    assert layout.open[End.NORTH] == layout.open[End.SOUTH] == -1
    layout, _ = layout_from("lead 5-5; 5-3 east; 5-2 west")
    assert layout.open[End.NORTH] == layout.open[End.SOUTH] == 5


def test_a_play_on_an_arm_before_it_opens_is_refused() -> None:
    match = positions.match(
        "2 hand_size=five | - | 5-5 5-0 0-0 1-1 2-2 / 5-3 5-1 3-3 4-4 6-6 | ... | 0 | 0 0"
    )
    play(match, "5-5")
    with pytest.raises(IllegalMove) as err:
        match.apply(1, Move.parse("5-3 north"))
    assert err.value.code == "end_not_open"


def test_only_the_first_double_is_a_spinner() -> None:
    layout, _ = layout_from("lead 5-5; 5-3 east; 5-2 west; 3-3 east")
    assert layout.spinner == 5
    assert layout.open[End.EAST] == 3  # the later double takes one tile on its outer side


def test_a_tile_that_fits_two_ends_must_name_one() -> None:
    match = positions.match(
        "2 hand_size=five | - | 6-3 3-1 0-0 2-2 4-4 / 6-1 5-5 5-4 5-2 5-0 | ... | 0 | 0 0"
    )
    play(match, "6-3", "6-1")  # 6-1 fits the west end only: no end needed
    assert match.layout.open[:2] == [1, 3]
    with pytest.raises(IllegalMove) as err:
        match.apply(0, Move.parse("3-1"))
    assert err.value.code == "end_required" and "west or east" in err.value.message
    play(match, "3-1 east")
    assert match.layout.open[:2] == [1, 1]


def test_a_tile_on_a_lone_lead_double_with_no_end_goes_east() -> None:
    match = positions.match(
        "2 hand_size=five | - | 5-5 0-0 1-1 2-2 4-4 / 5-3 6-6 6-4 6-2 6-0 | ... | 0 | 0 0"
    )
    play(match, "5-5", "5-3")
    assert match.layout.open[:2] == [5, 3]


def test_a_tile_that_does_not_match_the_end_is_refused_and_nothing_changes() -> None:
    match = positions.match(
        "2 hand_size=five | - | 6-3 0-0 1-1 2-2 4-4 / 3-1 5-5 5-4 5-2 5-0 | ... | 0 | 0 0"
    )
    play(match, "6-3")
    before = match.to_bytes()
    for text, code in [
        ("3-1 west", "does_not_match"),
        ("5-5", "does_not_match"),
        ("0-0 east", "tile_not_held"),
        ("3-1 north", "end_not_open"),
    ]:
        with pytest.raises(IllegalMove) as err:
            match.apply(1, Move.parse(text))
        assert err.value.code == code
    with pytest.raises(IllegalMove) as err:
        match.apply(0, Move.parse("0-0 east"))
    assert err.value.code == "not_your_turn"
    assert match.to_bytes() == before


# -- 6. Counting, and the worked examples of section 9 ----------------------------------------


def test_worked_example_spinner_five_five() -> None:
    _, totals = layout_from("lead 5-5; 5-3 east; 5-2 west; 3-3 east; 5-1 north")
    assert totals == [10, 13, 5, 8, 9]


def test_worked_example_six_four_then_the_four_four_spinner() -> None:
    _, totals = layout_from("lead 6-4; 4-4 east; 4-2 east; 4-1 north; 4-0 south")
    assert totals == [10, 14, 8, 9, 9]


@pytest.mark.parametrize(
    ("lead", "total"), [("3-2", 5), ("6-6", 12), ("0-0", 0), ("5-5", 10), ("5-0", 5)]
)
def test_worked_example_leads(lead: str, total: int) -> None:
    assert layout_from(f"lead {lead}")[1] == [total]


def test_a_double_at_a_line_end_counts_both_halves() -> None:
    assert layout_from("lead 6-4; 6-6 west")[1][-1] == 12 + 4


def test_an_arm_counts_a_double_at_its_end_as_both_halves() -> None:
    assert layout_from("lead 5-5; 5-3 east; 5-2 west; 5-1 north; 1-1 north")[1][-1] == 3 + 2 + 2


def test_the_player_scores_a_total_that_is_a_multiple_of_five() -> None:
    match = positions.match(
        "2 hand_size=five | - | 5-5 0-0 1-1 2-2 4-4 / 5-3 6-6 6-4 6-2 6-0 | ... | 0 | 0 0"
    )
    events = play(match, "5-5")
    assert match.scores == [10, 0] and events[-1].points == 10  # type: ignore[attr-defined]
    play(match, "5-3")
    assert match.scores == [10, 0]


def test_a_zero_total_scores_nothing() -> None:
    match = positions.match(
        "2 hand_size=five | - | 0-0 6-6 1-1 2-2 4-4 / 5-3 6-5 6-4 6-2 6-0 | ... | 0 | 0 0"
    )
    play(match, "0-0")
    assert match.scores == [0, 0]


# -- 7. End of the hand ----------------------------------------------------------------------


@pytest.mark.parametrize(
    ("x", "rounded"),
    [(1, 0), (2, 0), (3, 5), (4, 5), (7, 5), (8, 10), (12, 10), (13, 15), (6.5, 5), (7.5, 10)],
)
def test_round5_rounds_to_the_nearest_five_halves_up(x: float, rounded: int) -> None:
    assert round5(x) == rounded


def test_worked_example_domino_two_players() -> None:
    assert domino_points(Rules(players=2), 0, [0, (6 + 5) + (1 + 0)]) == (10, 0)


def test_domino_in_partnerships_counts_only_the_opponents() -> None:
    assert domino_points(Rules(players=4), 1, [4, 0, 4, 30]) == (0, 10)


def test_blocked_individual_the_fewest_pips_scores_the_others() -> None:
    assert blocked_points(Rules(players=3), [3, 8, 9]) == (15, 0, 0)


def test_blocked_individual_a_tie_for_fewest_scores_nothing() -> None:
    assert blocked_points(Rules(players=2), [7, 7]) == (0, 0)
    assert blocked_points(Rules(players=4, teams=False), [3, 3, 8, 9]) == (0, 0, 0, 0)


def test_worked_example_blocked_three_players_split() -> None:
    assert blocked_points(Rules(players=3), [3, 3, 13]) == (5, 5, 0)
    assert blocked_points(Rules(players=3), [4, 4, 4]) == (0, 0, 0)


def test_worked_example_blocked_partnerships() -> None:
    assert blocked_points(Rules(players=4), [4, 9, 7, 9]) == (20, 0)
    assert blocked_points(Rules(players=4), [4, 9, 14, 9]) == (0, 0)


def test_worked_example_penalty_loses_own_pips_rounded() -> None:
    assert domino_points(Rules(players=2, end_scoring="penalty"), 0, [0, 8]) == (0, -10)
    assert blocked_points(Rules(players=4, end_scoring="penalty"), [8, 2, 3, 13]) == (-15, -15)


def test_playing_the_last_tile_ends_the_hand_with_a_domino() -> None:
    match = positions.match(
        "2 hand_size=five | - | 6-6 5-5 4-4 3-3 6-1 / 1-0 2-0 3-0 4-0 1-1 | 6-0 ... | 0 | 0 0",
        seed=1,
    )
    play(match, "6-6", "6-0 east", "6-1 west")
    # still in the first hand: seat 0 has 3 tiles; play them out wherever legal
    while match.hand_number == 1:
        match.apply(match.turn, match.legal_moves()[0])
    assert match.last_hand is not None


def test_blocked_when_every_player_in_turn_has_passed() -> None:
    found = 0
    for seed in range(60):
        match = Match.new(Rules(players=2, hand_size="five"), seed=seed)
        while not match.over and found < 3:
            ev = match.apply(match.turn, match.legal_moves()[0])
            ended = [e for e in ev if isinstance(e, HandEnded)]
            if ended and ended[0].kind == "blocked":
                moves = match.record[-2 if not match.over else -1].moves
                assert all(m.tile < 0 for m in moves[-2:])
                assert ended[0].points == blocked_points(match.rules, ended[0].pips)
                found += 1
    assert found >= 1


# -- 8. Winning the match --------------------------------------------------------------------


def test_the_default_targets() -> None:
    assert Rules(players=2).target_score == 250
    assert Rules(players=3).target_score == Rules(players=4).target_score == 200
    assert Rules(players=2, target=100).target_score == 100
    with pytest.raises(RulesError):
        Rules(players=2, target=99)
    # The defaults written once (what a client reads for a room with no target) are the engine's.
    assert DEFAULT_TARGETS == {2: 250, 3: 200, 4: 200}
    for players, target in DEFAULT_TARGETS.items():
        assert Rules(players=players).target_score == target


def test_a_play_that_reaches_the_target_wins_at_once_even_with_the_last_tile() -> None:
    match = positions.match(
        "2 hand_size=five target=10 | - | 5-5 0-0 1-1 2-2 4-4 / 5-3 6-6 6-4 6-2 6-0 | ... | 0 | 0 0"
    )
    events = play(match, "5-5")
    assert match.over and match.winner == 0
    assert isinstance(events[-2], HandEnded) and events[-2].kind == "won"
    with pytest.raises(IllegalMove) as err:
        match.apply(1, Move.parse("5-3"))
    assert err.value.code == "match_over"
    assert match.legal_moves() == []


def test_a_shared_win_when_the_three_player_split_takes_two_to_the_target() -> None:
    # Two tied players at 195 each score 5 from a blocked hand: equal scores share the win.
    rules = Rules(players=3, target=200)
    match = Match.new(rules, seed=2)
    match.scores = [195, 195, 100]
    match.hands = [tiles_mask("3-0"), tiles_mask("2-1"), tiles_mask("6-5 2-0")]
    match._end_hand(blocked_result(rules, match.hands))
    assert match.over and match.winner == (0, 1)


def tiles_mask(text: str) -> int:
    mask = 0
    for t in positions.tiles_in(text):
        mask |= 1 << t
    return mask
