"""The table through a match: results stay until read, tile numbers stay put, old errors go,
a stand-in's plays are marked, the clock counts, and the screen's size is used or said too small."""

from __future__ import annotations

import argparse
import re
import time
from typing import Any

import pytest
from protocol_helpers import diff, hand_ended
from rich.console import Console
from table_helpers import CROSS, CROSS_ENDS, make_view, screen, state_of

from clients.cli import host, i18n, join, local
from clients.cli.ladder import print_ladders
from clients.cli.render import render
from clients.cli.rooms import print_rooms
from clients.cli.state import TableState
from clients.cli.status import rating_note, rating_text
from protocol import messages as msg
from protocol.api import Ladder, LadderAnswer, LadderEntry
from protocol.patch import to_builtins
from protocol.ratings import Rating, RatingChange
from protocol.rules import RoomRules
from protocol.views import (
    AnyEvent,
    ChatLine,
    Drew,
    HandStarted,
    Layout,
    Played,
    RoomView,
    SeatInfo,
)


def change(state: TableState, after: RoomView | dict[str, Any], *events: AnyEvent) -> None:
    """Send the state the patch that takes it to `after`, its history grown by `events`."""
    before = state.sync.document
    assert before is not None and state.seq is not None
    document = after if isinstance(after, dict) else to_builtins(after)
    ops = diff(before, document)
    ops += [{"op": "add", "path": "/game/history/-", "value": to_builtins(e)} for e in events]
    state.receive(msg.Patch(seq=state.seq + 1, ops=ops))


def plain(state: TableState, width: int = 80, height: int = 24) -> str:
    body, footer = render(state, width - 1, height - 1)
    return "\n".join(row.plain for row in [*body, *footer])


def test_a_hands_result_stays_with_its_count_until_the_player_presses_enter() -> None:
    state = state_of(make_view(history=[HandStarted(number=1, leader=0)]))
    ended = hand_ended(0, [0, 12])
    after = to_builtins(make_view(hand=["6-6"], turn=1, legal=[]))
    after["game"]["hand_number"] = 2
    change(state, after, ended, HandStarted(number=2, leader=1))
    # A bot leads at once: the result is still there.
    after["game"]["history"] = [to_builtins(HandStarted(number=2, leader=1))]
    change(state, after, Played(seat=1, tile="6-4", end=None, total=10, points=10))
    shown = plain(state)
    assert "hand 1 result · Enter to go on" in shown
    assert "Ann went out. Pips left: 0 (Ann), 12 (Bot 2)." in shown
    assert "Counted: 12 (Bot 2) pips. 12 rounds to 10: Ann scores 10." in shown
    assert "rounded to 5" not in shown
    assert state.dismiss_result()
    shown = plain(state)
    assert "Enter to go on" not in shown and "Bot 2 led 6-4: total 10, scores 10" in shown


def test_tile_numbers_stay_put_through_a_hand_and_drawn_tiles_are_marked() -> None:
    table = Layout(line=[[6, 6]], spinner=0)
    state = state_of(make_view(hand=["5-3", "6-6", "4-1", "2-0"], turn=1, legal=[]))
    assert state.numbered_hand() == [(1, "5-3"), (2, "6-6"), (3, "4-1"), (4, "2-0")]
    change(state, make_view(hand=["5-3", "4-1", "2-0", "3-3"], turn=0, layout=table))
    assert state.numbered_hand() == [(1, "5-3"), (3, "4-1"), (4, "2-0"), (5, "3-3")]
    assert state.fresh == {"3-3"}
    rows = plain(state).splitlines()
    numbers = next(index for index, row in enumerate(rows) if "your tiles" in row) + 1
    assert rows[numbers].split() == ["1", "3", "4", "5*"]
    assert rows[numbers + 1].split() == ["[5|3]", "[4|1]", "[2|0]", "[3|3]"]
    assert "Your turn: play 1, 3, 4 or 5" in rows[-1]
    assert state.tile_numbered()[5] == "3-3"


def test_a_drawn_tiles_mark_stays_after_a_rejoin() -> None:
    """A new run of the client (its numbers kept with the seat) is told the hand afresh: the
    player's own earlier play does not unmark the tile drawn since."""
    table = Layout(line=[[6, 6], [6, 5]], spinner=0)
    history: list[AnyEvent] = [
        HandStarted(number=1, leader=0),
        Played(seat=0, tile="6-6", end=None, total=12, points=0),
        Played(seat=1, tile="6-5", end="east", total=11, points=0),
        Drew(seat=0, count=1),
    ]
    first = state_of(make_view(hand=["5-3", "6-6", "4-1"], turn=1, legal=[]))
    after = make_view(hand=["5-3", "4-1", "3-3"], layout=table, history=history)
    change(first, after)
    assert first.fresh == {"3-3"}
    again = TableState()
    again.restore_numbering(first.numbering())
    again.receive(msg.Snapshot(seq=9, state=after))
    assert again.fresh == {"3-3"}
    rows = plain(again).splitlines()
    numbers = next(index for index, row in enumerate(rows) if "your tiles" in row) + 1
    assert rows[numbers].split() == ["1", "3", "4*"]


def test_an_old_error_goes_once_the_game_moves_on_but_not_for_a_chat_line() -> None:
    state = state_of(make_view(turn=1, legal=[]))
    state.say("Refused (play): it is Bot 2's turn", "error")
    view = make_view(turn=1, legal=[])
    view.chat = [ChatLine(seat=1, name="Bot 2", text="hi")]
    change(state, view, ChatLine(seat=1, name="Bot 2", text="hi"))
    assert state.notice is not None
    change(state, make_view(turn=0), Played(seat=1, tile="6-4", end=None, total=10, points=10))
    assert state.notice is None
    assert "it is Bot 2's turn" not in plain(state)


def test_a_stand_in_bots_play_is_marked_as_not_the_players_own() -> None:
    femi = SeatInfo(seat=1, name="Femi", kind="human", connected=False)
    seats = [SeatInfo(seat=0, name="Ann", kind="human"), femi]
    state = state_of(make_view(seats=seats, turn=1, legal=[]))
    assert "Femi is away: a bot plays for them in 60 s" in plain(state)
    change(
        state,
        make_view(seats=seats, turn=0),
        Played(seat=1, tile="6-4", end=None, total=10, points=10, stand_in=True),
    )
    assert state.log[-1].text == (
        "Femi led 6-4: total 10, scores 10 (a bot, standing in while they are away)"
    )
    # A move Femi made himself is his, though he is away now: the server says who played it.
    change(
        state,
        make_view(seats=seats, turn=1),
        Played(seat=1, tile="4-4", end="east", total=10, points=10),
    )
    assert state.log[-1].text == "Femi played 4-4 east: total 10, scores 10"


def test_a_stand_in_bots_play_for_you_is_told_to_you_as_yours() -> None:
    # Ann's clock ran out and the stand-in played her turn: she is not "they", away.
    ann = SeatInfo(seat=0, name="Ann", kind="human", stand_in=True)
    seats = [ann, SeatInfo(seat=1, name="Femi", kind="human")]
    state = state_of(make_view(seats=seats, turn=0))
    change(
        state,
        make_view(seats=seats, turn=1, legal=[]),
        Played(seat=0, tile="6-4", end=None, total=10, points=10, stand_in=True),
    )
    assert state.log[-1].text == "Ann led 6-4: total 10, scores 10 (a bot, standing in for you)"
    # Femi sees the same move told of Ann, as before.
    theirs = state_of(make_view(seats=seats, you=1, turn=0, legal=[]))
    change(
        theirs,
        make_view(seats=seats, you=1, turn=1),
        Played(seat=0, tile="6-4", end=None, total=10, points=10, stand_in=True),
    )
    assert theirs.log[-1].text == (
        "Ann led 6-4: total 10, scores 10 (a bot, standing in while they are away)"
    )


def test_the_turn_clock_counts_down_on_screen() -> None:
    view = make_view()
    view.rules = RoomRules(players=2, target=100, turn_seconds=30)
    state = state_of(view)
    assert state.turn_since is not None
    state.turn_since = time.monotonic() - 12.5
    assert "· 18 s left" in plain(state).splitlines()[-1]


def test_a_big_terminal_shows_more_of_the_log_and_a_tiny_one_says_it_is_too_small() -> None:
    view = make_view(hand=[f"{a}-{b}" for a, b in ((6, 6), (6, 5), (5, 5), (4, 1), (3, 0))])
    state = state_of(view)
    for number in range(40):
        state.note(f"line {number}")
    assert sum("line " in row for row in plain(state, 160, 50).splitlines()) > 30
    crossed = make_view(hand=["6-6", "6-5", "5-5", "4-1", "3-0"], players=4)
    assert crossed.game is not None
    crossed.game.layout = Layout(line=[[4, 4], [4, 1], [1, 1]], spinner=2)
    for width, height in ((40, 8), (40, 12), (40, 14), (60, 20)):
        for shown in (view, crossed):
            text = "\n".join(screen(shown, width=width, height=height))
            whole = all(tile in text for tile in ("[6|6]", "[5|5]", "[3|0]", "Your turn"))
            too_small = "The terminal is too small" in text
            assert whole != too_small, text
            # At 40 columns each team's partner takes a row of its own (its count is never cut).
            assert too_small == (height == 8 or (shown is crossed and height <= 14)), text


TOO_SMALL = re.compile(r"needs at least (\d+) columns and (\d+) rows")


def test_the_too_small_screen_asks_for_the_same_size_whatever_is_played() -> None:
    """A refusal, the turn passing on and a tile played leave the "too small" screen as it was
    until the terminal's size changes; at the size it asks for, the whole table shows."""
    hand = ["6-6", "6-5", "5-5", "4-1", "3-0", "2-2", "1-0"]
    for width, height in ((40, 10), (60, 9), (31, 12)):
        state = state_of(make_view(hand=hand, players=3))
        said = plain(state, width, height)
        assert TOO_SMALL.search(" ".join(said.split())), said
        state.say("The table is out of sight: make the terminal bigger to play", "error")
        assert plain(state, width, height) == said
        # A stand-in plays the hidden seat's turn (its clock ran out): one tile fewer.
        played = make_view(hand=hand[1:], players=3, turn=1, legal=[], layout=CROSS)
        assert played.game is not None
        played.game.ends = CROSS_ENDS
        move = Played(seat=0, tile="6-1", end="east", total=12, points=0, stand_in=True)
        change(state, played, move)
        assert plain(state, width, height) == said
        asked = TOO_SMALL.search(" ".join(said.split()))
        assert asked is not None
        columns, rows = int(asked.group(1)), int(asked.group(2))
        state.say("A notice long enough to fold onto three rows at this width " * 3, "error")
        table = plain(state, max(width, columns), rows)
        assert "too small" not in table, table
        assert all(f"[{tile.replace('-', '|')}]" in table for tile in hand[1:]), table
        assert "ends W5 E1 N6 S6 = 12" in table or "[5|6]" in table, table


def test_everyone_is_told_when_a_bot_takes_a_players_seat() -> None:
    ann = SeatInfo(seat=0, name="Ann", kind="human")
    femi = SeatInfo(seat=1, name="Femi", kind="human")
    state = state_of(make_view(seats=[ann, femi], turn=1, legal=[]))
    bot = SeatInfo(seat=1, name="bot:easy", kind="bot", level="easy")
    change(state, make_view(seats=[ann, bot], turn=1, legal=[]))
    assert state.log[-1].text == "an easy bot took Femi's seat 2"


def test_join_without_a_code_and_private_opens_an_unlisted_room() -> None:
    listed = [
        msg.RoomSummary(code="BCDF", rules=RoomRules(players=2), seats=["Bo", None], free_seats=[1])
    ]
    assert join.choose_room(2)(listed) == [msg.Join(room="BCDF")]
    opened = join.choose_room(3, private=True)(listed)
    assert opened == [msg.CreateRoom(rules=RoomRules(players=3, public=False))]


def test_the_waiting_room_says_whether_it_is_rated_and_a_rated_private_one_warns() -> None:
    view = make_view(phase="waiting")
    for rules, line, warned in (
        (RoomRules(players=2), "listed, rated", False),
        (RoomRules(players=2, public=False), "private, unrated", False),
        (RoomRules(players=2, public=False, rated=True), "private, rated", True),
    ):
        view.rules = rules
        shown = plain(state_of(view))
        assert line in shown
        warning = "Rated: this private room's results show on the public ladder."
        assert (warning in shown) is warned


def test_join_and_host_ask_for_a_rated_room_with_rated() -> None:
    listed: list[msg.RoomSummary] = []
    opened = join.choose_room(2, private=True, rated=True)(listed)
    assert opened == [msg.CreateRoom(rules=RoomRules(players=2, public=False, rated=True))]
    parser = argparse.ArgumentParser()
    host.add_arguments(parser)
    for argv, rated in (([], False), (["--rated"], True), (["--public", "--no-rated"], False)):
        args = parser.parse_args(argv)
        assert local.rules_from(args, public=args.public).rated is rated


def test_a_match_that_moved_no_rating_says_one_thing_provisional_and_what_counts() -> None:
    # "Your rating on the two-player ladder: 0.0 (0.0)" above "No rating moved: ..." read as
    # "my rating is zero" (issue 45, item 5).
    fresh = Rating(mu=25.0, sigma=25.0 / 3, rating=0.0)
    view = make_view(phase="finished", turn=None, legal=[], scores=[55, 30], winner=0, over=True)
    view.ratings = [
        RatingChange(seat=0, name="Ann", ladder="2p", before=fresh, after=fresh, counted=0.0)
    ]
    said = rating_text(view)
    assert said is not None and rating_note(view) is None
    assert said.startswith("No rating moved: a provisional player sat at the table."), said
    assert "5 whole matches" in said and "3 different opponents" in said, said
    assert "0.0" not in said, said
    state = state_of(view)
    state.match_over = True  # the match's summary, until Enter
    shown = plain(state)
    assert shown.count("provisional player sat") == 1 and "0.0 (" not in shown, shown


def test_a_provisional_players_match_says_what_counts_and_how_many_matches_to_go() -> None:
    # One sentence: provisional, what counts, what is still to go; no "0.0 (0.0)" (issue 45).
    fresh = Rating(mu=25.0, sigma=25.0 / 3, rating=0.0)
    view = make_view(phase="finished", turn=None, legal=[], scores=[150, 30], winner=0, over=True)
    expected = {
        (4, 2): "Still to go: 4 more matches and 2 more opponents.",
        (1, 0): "Still to go: 1 more match.",
        (0, 1): "Still to go: 1 more opponent.",
    }
    for (matches, opponents), ending in expected.items():
        view.ratings = [
            RatingChange(
                seat=0,
                name="Ann",
                ladder="2p",
                before=fresh,
                after=fresh,
                counted=0.0,
                provisional=True,
                matches_to_go=matches,
                opponents_to_go=opponents,
            )
        ]
        said = rating_text(view)
        assert said is not None and rating_note(view) is None
        assert said.startswith("No rating moved: your rating is provisional until"), said
        assert "5 whole matches" in said and said.endswith(ending), said
        state = state_of(view)
        state.match_over = True
        shown = " ".join(plain(state).split())
        assert shown.count("your rating is provisional") == 1, shown
        assert "0.0" not in shown, shown
    i18n.set_language("cs")
    try:
        said = rating_text(view)
    finally:
        i18n.set_language("en")
    assert said is not None and said.endswith("Ještě zbývá: 1 soupeř."), said


def test_a_rejoined_windows_match_summary_totals_the_servers_scores() -> None:
    # The stand-in finished the match while Ann was away; her window saw only hand 5. Its board
    # said "total  20  40" above the result "Kai 160, Bot 2 255" (issue 45, item K).
    history: list[AnyEvent] = [
        HandStarted(number=5, leader=0),
        Played(seat=0, tile="5-5", end=None, total=10, points=10),
        hand_ended(0, [0, 16]),
    ]
    view = make_view(phase="finished", turn=None, legal=[], scores=[160, 255], winner=1)
    assert view.game is not None
    view.game.history, view.game.hand_number, view.game.over = history, 5, True
    state = state_of(view)
    state.match_over = True
    shown = plain(state, 80, 40)
    rows = [" ".join(row.split()) for row in shown.splitlines()]
    assert "1–4 135 255 earlier hands, as the server counts them" in rows, shown
    assert "5 25 0 Ann went out" in rows, shown
    assert "total 160 255" in rows, shown
    assert "not seen" not in shown, shown


def test_the_end_of_a_match_says_why_a_rating_moved_less() -> None:
    rating = Rating(mu=25.0, sigma=8.0, rating=1.0)
    view = make_view(phase="finished")
    for counted, said in ((1.0, None), (0.5, "This match counted 50/100 of a full one")):
        change = RatingChange(
            seat=0, name="Ann", ladder="2p", before=rating, after=rating, counted=counted
        )
        view.ratings = [change]
        note = rating_note(view)
        assert (note is None) if said is None else (note is not None and note.startswith(said))


def test_the_ladder_marks_a_provisional_rating() -> None:
    rating = Rating(mu=25.0, sigma=8.0, rating=1.0)
    entries = [
        LadderEntry(name="Ann", rating=rating, games=3, wins=3, provisional=True),
        LadderEntry(name="bot:easy", rating=rating, games=3, wins=0, bot=True),
    ]
    console = Console(width=200, record=True)
    print_ladders(LadderAnswer(ladders=[Ladder(ladder="2p", entries=entries)]), console)
    shown = console.export_text()
    assert "1.0?" in shown and shown.count("?") == 2  # Ann's, and the note that explains it
    assert "? provisional: a player's matches move no one's rating" in shown


def test_the_public_rooms_list_says_when_a_room_is_unrated() -> None:
    rooms = [
        msg.RoomSummary(
            code="BCDF", rules=RoomRules(players=2), seats=["Bo", None], free_seats=[1]
        ),
        msg.RoomSummary(
            code="GHJK",
            rules=RoomRules(players=3, rated=False),
            seats=["Cy", None, None],
            free_seats=[1, 2],
        ),
    ]
    console = Console(width=120, record=True)
    print_rooms("ws://host:1/", rooms, console)
    shown = console.export_text().splitlines()
    assert [line for line in shown if "unrated" in line] == [
        line for line in shown if "GHJK" in line
    ]


@pytest.mark.parametrize(("width", "height"), [(60, 20), (80, 24)])
def test_a_notice_coming_or_going_never_moves_the_table(width: int, height: int) -> None:
    """A hint (or a refusal) shown above the status line takes a log row, never a layout row:
    the table, the layout and the hand stay where they were."""
    north = [[6, 4], [4, 4], [4, 2], [2, 2], [2, 1]]
    south = [[6, 0], [0, 0], [0, 3], [3, 3], [3, 5]]
    line = [[2, 5], [5, 6], [6, 6], [6, 3], [3, 1], [1, 0], [0, 4]]
    moved = []
    for arms in range(6):
        for logged in (0, 2, 5):
            tables = []
            for hint in (False, True):
                layout = Layout(line=line, spinner=2, north=north[:arms], south=south[:arms])
                view = make_view(hand=["5-3", "2-1", "1-1", "4-0"], layout=layout, total=8)
                state = state_of(view)
                for number in range(logged):
                    state.note(f"line {number}")
                if hint:
                    state.say("Hint: the hard bot would play 2-1 west (type 2 w)", "hint")
                body, _ = render(state, width - 1, height - 1)
                tables.append([row.plain for row in body if not row.plain.startswith(" line")])
            if tables[0] != tables[1]:
                moved.append((arms, logged))
    assert moved == []
