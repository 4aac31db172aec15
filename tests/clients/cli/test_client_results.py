"""How hands and matches are told: the count at a hand's end in the words of docs/rules.md 7, the
scoreboard by hand, and the ends totals a play would make as the server says them (/ends)."""

from __future__ import annotations

import re
from types import SimpleNamespace
from typing import Any, cast

import pytest
from protocol_helpers import hand_ended
from rich.text import Text
from table_helpers import CROSS_LEGAL, cross_view, make_view, screen_of, state_of

from bridge import convert
from clients.cli.plain import PlainApp
from clients.cli.scoreboard import Scoreboard, explain_hand
from clients.cli.state import TableState
from clients.cli.status import ends_rows
from engine import End, Move
from engine.layout import Layout, layout_from
from protocol import messages as msg
from protocol.rules import Rules
from protocol.views import AnyEvent, HandEnded, HandStarted, MoveSpec, Played, SeatInfo
from protocol.views import Layout as ViewLayout

TWO = ["Ann", "Bot 2"]
THREE = ["Ann", "Bo", "Cy"]
FOUR = ["Ann", "Bo", "Cid", "Di"]


def test_going_out_shows_the_pips_counted_their_rounding_and_the_points() -> None:
    ended = hand_ended(0, [0, 12])
    assert explain_hand(ended, TWO, Rules(players=2)) == [
        "Ann went out. Pips left: 0 (Ann), 12 (Bot 2).",
        "Counted: 12 (Bot 2) pips. 12 rounds to 10: Ann scores 10.",
    ]


def test_a_blocked_three_player_tie_shows_the_third_players_pips_shared() -> None:
    ended = hand_ended(None, [3, 3, 13])
    rows = explain_hand(ended, THREE, Rules(players=3))
    assert rows[0] == "The hand is blocked. Pips left: 3 (Ann), 3 (Bo), 13 (Cy)."
    assert rows[1:] == [
        "Counted: half of Cy's 13 pips. 6.5 rounds to 5: Ann scores 5.",
        "Counted: half of Cy's 13 pips. 6.5 rounds to 5: Bo scores 5.",
    ]


def test_a_blocked_partnership_adds_each_teams_pips() -> None:
    ended = hand_ended(None, [4, 9, 7, 9])
    rows = explain_hand(ended, FOUR, Rules(players=4))
    assert rows[0] == (
        "The hand is blocked. Pips left: Team A (Ann & Cid) 11, Team B (Bo & Di) 18."
    )
    assert rows[1] == (
        "Counted: 9 (Bo) + 9 (Di) = 18. 18 rounds to 20: Team A (Ann & Cid) scores 20."
    )


def test_the_penalty_variant_shows_what_each_loses() -> None:
    ended = hand_ended(0, [0, 8], end_scoring="penalty")
    rows = explain_hand(ended, TWO, Rules(players=2, end_scoring="penalty"))
    assert rows[1] == (
        "Each loses their own pips, rounded to a multiple of five: Bot 2: 8 rounds to 10, loses 10."
    )


def test_penalties_in_partnerships_round_each_players_pips() -> None:
    # Each player loses their own pips rounded (7.4): 3 and 3 lose 5 each, not 6 rounded to 5.
    ended = hand_ended(1, [3, 0, 3, 7], end_scoring="penalty")
    assert ended.points == [-10, -5]
    rows = explain_hand(ended, FOUR, Rules(players=4, end_scoring="penalty"))
    assert (
        rows[1] == "Each loses their own pips, rounded to a multiple of five: Ann: 3 rounds to 5, "
        "loses 5; Cid: 3 rounds to 5, loses 5; Di: 7 rounds to 5, loses 5."
    )


def test_a_match_won_mid_hand_claims_no_pips_counted() -> None:
    ended = HandEnded(kind="won", by=1, points=[0, 0], pips=[9, 4])
    assert explain_hand(ended, TWO, Rules(players=2)) == [
        "Bot 2 reached the target: the pips left were not counted."
    ]


def test_the_scoreboard_has_a_row_per_hand_totals_and_the_biggest_play() -> None:
    rules = Rules(players=2)
    board = Scoreboard()
    events: list[AnyEvent] = [
        HandStarted(number=1, leader=0),
        Played(seat=0, tile="5-5", end=None, total=10, points=10),
        Played(seat=1, tile="5-0", end="east", total=5, points=5),
        hand_ended(0, [0, 16]),
        HandStarted(number=2, leader=1),
        Played(seat=1, tile="6-4", end=None, total=10, points=10),
        hand_ended(None, [9, 4]),
    ]
    for event in events:
        board.take(event, rules)
    rows = board.rows(TWO, rules)
    assert rows[0].split() == ["hand", "Ann", "Bot", "2", "how", "it", "ended"]
    assert rows[1].split() == ["1", "25", "5", "Ann", "went", "out"]
    assert rows[2].split() == ["2", "0", "20", "blocked"]  # Bot 2 counts Ann's 9: 10
    assert rows[3].split() == ["total", "25", "25"]
    assert rows[4] == "Biggest play: Ann, 5-5 for 10 in hand 1"


def test_the_cross_positions_legal_totals_are_the_engines() -> None:
    # The client shows these numbers as they come: they must be what the server would send.
    layout, _ = layout_from("lead 6-6; 6-1 east; 6-5 west")
    legal = [convert.move_of(spec.tile, spec.end) for spec in CROSS_LEGAL]
    legal = [layout_move(layout, move) for move in legal]
    assert convert.legal_specs(legal, layout) == CROSS_LEGAL


def layout_move(layout: Layout, move: Move) -> Move:
    """A play with no end named, given the one end it fits on `layout`."""
    if move.end is not None or move.tile is None:
        return move
    (end,) = layout.ends_for(move.tile)
    return Move(move.tile, End(end))


def test_ends_lists_every_playable_tile_with_what_it_would_make() -> None:
    state = state_of(cross_view())
    assert ends_rows(state, 40) == [
        "Type the number (and the end's letter) to play:",
        "5-1: 1 w → 2, 1 e → 10 ★",
        "5-4: 2 w → 5 ★",
        "6-3: 3 n → 9, 3 s → 9",
    ]


def test_ends_shows_the_servers_numbers_and_counts_nothing_itself() -> None:
    # An older server sends no totals: the terminal says it does not know rather than count.
    legal = [MoveSpec(tile=spec.tile, end=spec.end) for spec in CROSS_LEGAL]
    assert ends_rows(state_of(cross_view(legal=legal)), 20)[1:] == [
        "5-1: 1 w → ?, 1 e → ?",
        "5-4: 2 w → ?",
        "6-3: 3 n → ?, 3 s → ?",
    ]
    # And the star is the server's `points`, not a rule of the client's.
    legal = [MoveSpec(tile="5-4", total=5, points=5), MoveSpec(tile="5-1", end="west", total=20)]
    rows = ends_rows(state_of(cross_view(legal=legal)), 20)
    assert rows[1:3] == ["5-1: 1 w → 20", "5-4: 2 w → 5 ★"]


def test_ends_at_a_lead_shows_all_nine_tiles_with_their_numbers_at_80x24() -> None:
    hand = ["6-4", "5-5", "5-0", "4-1", "3-2", "6-6", "2-0", "1-1", "6-2"]
    leads = convert.legal_specs([convert.move_of(tile, None) for tile in hand], Layout())
    state = state_of(make_view(hand=hand, legal=leads, players=2))
    rows = screen_of(state, 80, 24, extra=[Text(" " + row) for row in ends_rows(state, 78)])
    text = "\n".join(rows)
    numbers = dict(state.numbers)
    for tile in hand:
        assert f"{tile}: {numbers[tile]} → " in text, text
    assert f"5-5: {numbers['5-5']} → 10 ★" in text
    assert "more rows" not in text


def test_a_panel_taller_than_its_place_says_how_many_rows_are_out_of_sight() -> None:
    state = state_of(make_view(hand=["6-4"], players=2))
    panel = [Text(f" row {index}") for index in range(40)]
    rows = screen_of(state, 80, 24, extra=panel)
    assert any(re.fullmatch(r" \(\d+ more rows above: PageUp\)", row) for row in rows), rows
    assert " row 39" in rows


def test_a_hint_says_what_to_type() -> None:
    state = state_of(cross_view())
    state.receive(msg.HintReply(move=MoveSpec(tile="6-3", end="north")))
    assert state.notice is not None
    assert state.notice.text == "Hint: the hard bot would play 6-3 north (type 3 n)"


@pytest.mark.parametrize(
    ("ended", "players", "said"),
    [
        (
            hand_ended(0, [0, 2]),
            2,
            "Counted: 2 (Bot 2) pips. 2 rounds to 0: nobody scores.",
        ),
        (
            hand_ended(0, [0, 0]),
            2,
            "Counted: 0 (Bot 2) pips. 0 is a multiple of five: nobody scores.",
        ),
        (
            hand_ended(None, [3, 1, 1]),
            3,
            "Counted: half of Ann's 3 pips. 1.5 rounds to 0: nobody scores.",
        ),
        (
            hand_ended(None, [4, 4]),
            2,
            "Nobody scores: both hold the same pips (4).",
        ),
        (
            hand_ended(None, [2, 2, 2]),
            3,
            "Nobody scores: everyone holds the same pips (2).",
        ),
        (
            hand_ended(None, [2, 9, 2, 4], teams=False),
            -4,
            "Nobody scores: the fewest pips are tied (Ann and Cid, 2 each).",
        ),
        (
            hand_ended(None, [1, 1, 0, 1]),
            4,
            "Counted: 1 (Bo) + 1 (Di) = 2. 2 rounds to 0: nobody scores.",
        ),
        (
            hand_ended(None, [1, 3, 3, 1]),
            4,
            "Nobody scores: the teams hold the same pips (4).",
        ),
    ],
)
def test_nobody_scoring_says_whether_pips_were_tied_or_rounded_to_nothing(
    ended: HandEnded, players: int, said: str
) -> None:
    # -4: four players each for themselves.
    names = {2: TWO, 3: THREE, 4: FOUR}[abs(players)]
    rules = Rules(players=abs(players), teams=players > 0)
    assert explain_hand(ended, names, rules)[-1] == said


def four_at_60(**changes: Any) -> TableState:
    """Root and three bots in two teams, as the table holds them."""
    seats = [SeatInfo(seat=0, name="Root", kind="human")] + [
        SeatInfo(seat=index, name="bot:normal", kind="bot", level="normal") for index in (1, 2, 3)
    ]
    return state_of(make_view(hand=["6-4"], players=4, seats=seats, **changes))


def joined(rows: list[str]) -> str:
    """The rows read as one text (a folded row goes on in the next)."""
    return " ".join(" ".join(rows).split())


def test_a_hands_result_wraps_at_60_columns_instead_of_being_cut() -> None:
    state = four_at_60()
    state.result = hand_ended(None, [2, 15, 3, 15])
    state.result_hand = 3
    rows = screen_of(state, 60, 24)
    assert all(len(row) <= 60 for row in rows)
    assert (
        "Counted: 15 (Bot 2) + 15 (Bot 4) = 30. 30 is a multiple of five: Team A (Root & Bot 3) "
        "scores 30." in joined(rows)
    )
    assert "…" not in "".join(rows)


def test_the_match_verdict_and_the_scoreboard_fit_60_columns_whole() -> None:
    state = four_at_60(phase="finished", scores=[205, 150], winner=0, over=True)
    for event in (
        HandStarted(number=1, leader=0),
        Played(seat=0, tile="5-5", end=None, total=10, points=10),
        hand_ended(0, [0, 100, 0, 95]),
    ):
        state.scoreboard.take(event, Rules(players=4))
    rows = screen_of(state, 60, 24)
    assert all(len(row) <= 60 for row in rows)
    assert (
        "Team A (Root & Bot 3) wins the match: Team A (Root & Bot 3) 205, "
        "Team B (Bot 2 & Bot 4) 150." in joined(rows)
    )
    # The reminder is shown whole or not at all, never cut short.
    assert ("/rematch, /save FILE or /quit" in joined(rows)) == ("/rematch" in joined(rows))
    board = state.scoreboard.rows(["Root", "Bot 2", "Bot 3", "Bot 4"], Rules(players=4))
    assert all(len(row) <= 60 for row in board), board
    assert "Team A: Root & Bot 3 · Team B: Bot 2 & Bot 4" in board


def test_a_long_notice_and_long_review_rows_wrap_whole_at_80_columns() -> None:
    state = four_at_60()
    path = "/home/someone/games/allfives/evening-at-the-club/match-7.json"
    state.say(f"Saved the match record to {path}: allfives replay {path}")
    review = (
        " Hand 3, move 6: you played 5-3 east for 0; the hard bot plays 3-3 north for 10 "
        "(you gave up 10); then you passed under a full boneyard"
    )
    rows = screen_of(state, 80, 30, extra=[Text(review)])
    assert all(len(row) <= 80 for row in rows)
    assert f"allfives replay {path}" in joined(rows)
    assert " ".join(review.split()) in joined(rows)


def test_a_team_row_too_wide_for_60_columns_puts_the_partner_under_with_every_count() -> None:
    seats = [
        SeatInfo(seat=0, name="Root", kind="human"),
        SeatInfo(seat=1, name="Kristiina Tammekänd", kind="human", connected=False),
        SeatInfo(seat=2, name="bot:normal", kind="bot", level="normal"),
        SeatInfo(seat=3, name="bot:normal", kind="bot", level="normal"),
    ]
    state = state_of(make_view(hand=["6-4"], players=4, seats=seats, scores=[145, 230]))
    rows = screen_of(state, 60, 20)
    assert all(len(row) <= 60 for row in rows)
    assert any(row.startswith("Team B 230 pts   Kristiina Tammekänd away 1 tile") for row in rows)
    assert any(row.strip() == "Bot 4 1 tile" for row in rows), rows
    assert any(row.startswith("Team A 145 pts ▶ Root (you) 1 tile    Bot 3 1 tile") for row in rows)


@pytest.mark.parametrize("width", [80, 60])
def test_a_hands_end_in_the_log_wraps_whole_with_four_players(width: int) -> None:
    state = four_at_60(history=[HandStarted(number=2, leader=0)])
    state._log_events([hand_ended(None, [3, 12, 7, 9])])
    state.dismiss_result()
    rows = screen_of(state, width, 24)
    assert all(len(row) <= width for row in rows)
    said = (
        "The hand is blocked: Team A (Root & Bot 3) scores 20. "
        "Pips left: 3 (Root), 12 (Bot 2), 7 (Bot 3), 9 (Bot 4)"
    )
    assert said in joined(rows) and "…" not in "".join(rows), rows


def test_a_hands_result_at_60x20_is_not_hidden_by_the_last_layout() -> None:
    """Before the next lead the last hand's layout is shown, but not in the place of its
    result: the result first (whole), the layout once it is read."""
    last = ViewLayout(
        line=[[0, 2], [2, 3], [3, 3], [3, 1], [1, 5], [5, 4], [4, 4], [4, 6], [6, 6], [6, 5]],
        spinner=6,
        north=[[4, 2], [2, 2]],
        south=[[4, 0], [0, 0], [0, 1], [1, 1]],
    )
    state = four_at_60(turn=2, history=[HandStarted(number=2, leader=2)])
    state.last_layout = last
    state.result, state.result_hand = hand_ended(0, [0, 12, 7, 9]), 1
    rows = screen_of(state, 60, 20)
    assert (
        "Counted: 12 (Bot 2) + 9 (Bot 4) = 21. 21 rounds to 20: Team A (Root & Bot 3) scores 20."
        in (joined(rows))
    ), rows
    assert "more row" not in joined(rows)
    state.dismiss_result()
    assert re.search(r"How hand \d+ ended:", joined(screen_of(state, 60, 20)))


def test_a_window_that_joined_late_takes_the_earlier_hands_from_the_servers_scores() -> None:
    # A rejoin after a stand-in finished the match: the board said "hand 5  20  40 / total  20
    # 40" above "Bot 2 wins the match: Kai 160, Bot 2 255" (issue 45, item K).
    rules = Rules(players=2)
    board = Scoreboard()
    for event in (
        HandStarted(number=5, leader=0),
        Played(seat=0, tile="5-5", end=None, total=10, points=10),
        Played(seat=1, tile="5-0", end="east", total=5, points=5),
        hand_ended(0, [0, 16]),
    ):
        board.take(event, rules)
    rows = board.rows(TWO, rules, scores=[160, 255])
    assert rows[1].split() == [
        "1–4",
        "135",
        "250",
        *["earlier", "hands,", "as", "the", "server", "counts", "them"],
    ]
    assert rows[2].split() == ["5", "25", "5", "Ann", "went", "out"]
    assert rows[3].split() == ["total", "160", "255"]  # the result's figures
    assert not any("not seen" in row for row in rows), rows
    # Every hand seen: no row of earlier hands.
    whole = Scoreboard()
    for event in (HandStarted(number=1, leader=0), hand_ended(0, [0, 16])):
        whole.take(event, rules)
    assert whole.rows(TWO, rules, scores=[15, 0])[1:3] == whole.rows(TWO, rules)[1:3]
    assert whole.rows(TWO, rules)[2].split() == ["total", "15", "0"]


def test_plain_mode_says_the_earlier_hands_a_late_window_did_not_see() -> None:
    # The screen-reader transcript's match summary: the hands before the window joined, in the
    # server's figures, then the hands it saw (issue 45, item K).
    view = make_view(phase="finished", turn=None, legal=[], scores=[160, 255], winner=1)
    assert view.game is not None
    view.game.history = [HandStarted(number=5, leader=0), hand_ended(0, [0, 16])]
    said: list[str] = []
    table = SimpleNamespace(state=state_of(view), out=said.append)
    PlainApp._tell_scoreboard(cast(PlainApp, table), view, TWO)
    assert said[:2] == [
        "Hands 1–4, as the server counts them: Ann 145, Bot 2 255.",
        "Hand 5: Ann 15, Bot 2 0; Ann went out.",
    ], said


def test_hands_missed_while_away_are_a_row_of_the_servers_scores_where_they_were_played() -> None:
    # The window saw hand 1, was away for hands 2 and 3 (a stand-in played them), and came back
    # for hand 4: the board's total is still the server's.
    rules = Rules(players=2)
    board = Scoreboard()
    for number in (1, 4):
        board.take(HandStarted(number=number, leader=0), rules)
        board.take(hand_ended(0, [0, 16]), rules)  # Ann went out: 15 for her
    rows = board.rows(TWO, rules, scores=[100, 60])
    assert [row.split()[:3] for row in rows[1:5]] == [
        ["1", "15", "0"],
        ["2–3", "70", "60"],
        ["4", "15", "0"],
        ["total", "100", "60"],
    ], rows
    assert not any("not seen" in row for row in rows), rows
    view = make_view(phase="playing", scores=[100, 60])
    said: list[str] = []
    table = SimpleNamespace(state=SimpleNamespace(scoreboard=board), out=said.append)
    PlainApp._tell_scoreboard(cast(PlainApp, table), view, TWO)
    assert said == [
        "Hand 1: Ann 15, Bot 2 0; Ann went out.",
        "Hands 2–3, as the server counts them: Ann 70, Bot 2 60.",
        "Hand 4: Ann 15, Bot 2 0; Ann went out.",
    ], said
    # One hand missed is said as one.
    board.take(HandStarted(number=6, leader=0), rules)
    said.clear()
    PlainApp._tell_scoreboard(cast(PlainApp, table), view, TWO)
    assert "Hands 2–3, 5, as the server counts them: Ann 70, Bot 2 60." in said, said
    gap = Scoreboard()
    for number in (1, 3):
        gap.take(HandStarted(number=number, leader=0), rules)
    said.clear()
    table.state = SimpleNamespace(scoreboard=gap)
    PlainApp._tell_scoreboard(cast(PlainApp, table), view, TWO)
    assert "Hand 2, as the server counts it: Ann 100, Bot 2 60." in said, said
