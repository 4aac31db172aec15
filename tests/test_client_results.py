"""How hands and matches are told: the count at a hand's end in the words of docs/rules.md 7, the
scoreboard by hand, and the ends totals a play would make as the server says them (/ends)."""

from __future__ import annotations

import pytest
from client_helpers import CROSS_LEGAL, cross_view, state_of

from bridge import convert
from clients.cli.scoreboard import Scoreboard, explain_hand, round5
from clients.cli.status import ends_rows
from engine import End, Move
from engine.layout import Layout, layout_from
from protocol.rules import Rules
from protocol.views import AnyEvent, HandEnded, HandStarted, MoveSpec, Played

TWO = ["Ann", "Bot 1"]
THREE = ["Ann", "Bo", "Cy"]
FOUR = ["Ann", "Bo", "Cid", "Di"]


@pytest.mark.parametrize(
    ("value", "rounded"), [(7, 5), (8, 10), (12, 10), (13, 15), (6.5, 5), (7.5, 10), (0, 0)]
)
def test_round5_is_to_the_nearest_five_halves_up(value: float, rounded: int) -> None:
    assert round5(value) == rounded


def test_going_out_shows_the_pips_counted_their_rounding_and_the_points() -> None:
    ended = HandEnded(kind="domino", by=0, points=[10, 0], pips=[0, 12])
    assert explain_hand(ended, TWO, Rules(players=2)) == [
        "Ann went out. Pips left: Ann 0, Bot 1 12.",
        "Bot 1 12 pips → rounded to 5: Ann scores 10.",
    ]


def test_a_blocked_three_player_tie_shows_the_third_players_pips_shared() -> None:
    ended = HandEnded(kind="blocked", by=None, points=[5, 5, 0], pips=[3, 3, 13])
    rows = explain_hand(ended, THREE, Rules(players=3))
    assert rows[0] == "The hand is blocked. Pips left: Ann 3, Bo 3, Cy 13."
    assert rows[1:] == [
        "Cy's 13 pips shared by two: 6.5 → rounded to 5: Ann scores 5.",
        "Cy's 13 pips shared by two: 6.5 → rounded to 5: Bo scores 5.",
    ]


def test_a_blocked_partnership_adds_each_teams_pips() -> None:
    ended = HandEnded(kind="blocked", by=None, points=[20, 0], pips=[4, 9, 7, 9])
    rows = explain_hand(ended, FOUR, Rules(players=4))
    assert rows[0] == (
        "The hand is blocked. Pips left: Team A (Ann & Cid) 11, Team B (Bo & Di) 18."
    )
    assert rows[1] == "Team B (Bo & Di) 18 pips → rounded to 5: Team A (Ann & Cid) scores 20."


def test_the_penalty_variant_shows_what_each_loses() -> None:
    ended = HandEnded(kind="domino", by=0, points=[0, -10], pips=[0, 8])
    rows = explain_hand(ended, TWO, Rules(players=2, end_scoring="penalty"))
    assert rows[1] == "Each loses their own pips, rounded to 5: Bot 1 8 → 10."


def test_a_match_won_mid_hand_claims_no_pips_counted() -> None:
    ended = HandEnded(kind="won", by=1, points=[0, 0], pips=[9, 4])
    assert explain_hand(ended, TWO, Rules(players=2)) == [
        "Bot 1 reached the target: the pips left were not counted."
    ]


def test_the_scoreboard_has_a_row_per_hand_totals_and_the_biggest_play() -> None:
    rules = Rules(players=2)
    board = Scoreboard()
    events: list[AnyEvent] = [
        HandStarted(number=1, leader=0),
        Played(seat=0, tile="5-5", end=None, total=10, points=10),
        Played(seat=1, tile="5-0", end="east", total=5, points=5),
        HandEnded(kind="domino", by=0, points=[15, 0], pips=[0, 16]),
        HandStarted(number=2, leader=1),
        Played(seat=1, tile="6-4", end=None, total=10, points=10),
        HandEnded(kind="blocked", by=None, points=[0, 5], pips=[9, 4]),
    ]
    for event in events:
        board.take(event, rules)
    rows = board.rows(TWO, rules)
    assert rows[0].split() == ["hand", "Ann", "Bot", "1", "how", "it", "ended"]
    assert rows[1].split() == ["1", "25", "5", "Ann", "went", "out"]
    assert rows[2].split() == ["2", "0", "15", "blocked"]
    assert rows[3].split() == ["total", "25", "20"]
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
    assert ends_rows(state) == [
        "  1  5-1: west (w) → 2, east (e) → 10 ★",
        "  2  5-4: west (w) → 5 ★",
        "  3  6-3: north (n) → 9, south (s) → 9",
    ]


def test_ends_shows_the_servers_numbers_and_counts_nothing_itself() -> None:
    # An older server sends no totals: the terminal says it does not know rather than count.
    legal = [MoveSpec(tile=spec.tile, end=spec.end) for spec in CROSS_LEGAL]
    assert ends_rows(state_of(cross_view(legal=legal))) == [
        "  1  5-1: west (w) → ?, east (e) → ?",
        "  2  5-4: west (w) → ?",
        "  3  6-3: north (n) → ?, south (s) → ?",
    ]
    # And the star is the server's `points`, not a rule of the client's.
    legal = [MoveSpec(tile="5-4", total=5, points=5), MoveSpec(tile="5-1", end="west", total=20)]
    rows = ends_rows(state_of(cross_view(legal=legal)))
    assert rows[:2] == ["  1  5-1: west (w) → 20", "  2  5-4: west (w) → 5 ★"]
