"""The table as text: dominoes, the spinner and its arms, the corner total, hands, 80x24 fit."""

from __future__ import annotations

import io
import itertools
import time

import msgspec
import pytest
from hypothesis import given
from hypothesis import strategies as st
from protocol_helpers import diff, hand_ended
from rich.console import Console
from rich.text import Text
from table_helpers import cross_view, make_view, screen, state_of

from clients.cli import i18n
from clients.cli.commands import Ask
from clients.cli.render import HEADER_GAP, MIN_WIDTH, header, render, total_text
from clients.cli.state import error_text
from clients.cli.styles import GOLD, PLAYABLE
from protocol import messages as msg
from protocol.patch import to_builtins
from protocol.views import (
    AnyEvent,
    Ends,
    HandStarted,
    Layout,
    MatchEnded,
    MoveSpec,
    Played,
    RoomView,
    SeatInfo,
)


def column_of(rows: list[str], text: str) -> tuple[int, int]:
    """(row, column) of the only row holding `text`."""
    found = [(index, row.index(text)) for index, row in enumerate(rows) if text in row]
    assert len(found) == 1, (text, found, "\n".join(rows))
    return found[0]


#: 5-5 spinner with 3-5 west, 5-1 east, 5-2 up north, 5-4 then 4-4 down south.
STAR = Layout(line=[[3, 5], [5, 5], [5, 1]], spinner=1, north=[[5, 2]], south=[[5, 4], [4, 4]])


def test_the_spinner_lies_across_the_line_with_its_arms_above_and_below() -> None:
    rows = screen(make_view(layout=STAR, ends=Ends(west=3, east=1, north=2, south=8), total=14))
    line, spinner = column_of(rows, "┣━┫")
    assert rows[line - 1][spinner : spinner + 3] == "┏5┓"
    assert rows[line + 1][spinner : spinner + 3] == "┗5┛"
    assert "[3|5] ┣━┫ [5|1]" in rows[line]
    # North: 5-2 stands upright, its 5 against the spinner, its open 2 on top.
    assert rows[line - 2][spinner : spinner + 3] == "└5┘"
    assert rows[line - 3][spinner : spinner + 3] == "┌2┐"
    # South: 5-4 upright going down, then the double 4-4 lying across the arm.
    assert rows[line + 2][spinner : spinner + 3] == "┌5┐"
    assert rows[line + 3][spinner : spinner + 3] == "└4┘"
    assert rows[line + 4][spinner - 1 : spinner + 4] == "[4|4]"


def test_a_double_on_the_line_is_drawn_across_it() -> None:
    layout = Layout(line=[[2, 6], [6, 6], [6, 1], [1, 1], [1, 3]], spinner=1)
    rows = screen(make_view(layout=layout, ends=Ends(west=2, east=3, north=6, south=6), total=5))
    line, column = column_of(rows, "├─┤")
    assert rows[line - 1][column : column + 3] == "┌1┐"
    assert rows[line + 1][column : column + 3] == "└1┘"
    assert "[2|6] ┣━┫ [6|1] ├─┤ [1|3]" in rows[line]


def test_a_long_line_fits_80_columns_keeping_both_ends_and_the_spinner() -> None:
    chain = [0, 1, 2, 3, 4, 5, 6, 0, 2, 4, 6, 1, 3, 5, 0, 3, 6, 2, 5, 1, 4]
    line = [[a, b] for a, b in itertools.pairwise(chain)]
    spinner = 10
    line.insert(spinner, [chain[spinner], chain[spinner]])
    layout = Layout(
        line=line, spinner=spinner, north=[[6, 2], [2, 2], [2, 5], [5, 3]], south=[[6, 4]]
    )
    view = make_view(layout=layout, ends=Ends(west=0, east=6, north=3, south=6), total=15)
    rows = screen(view)
    assert len(rows) <= 23
    assert all(len(row) <= 80 for row in rows)
    line_row, _ = column_of(rows, "┣━┫")
    drawn = rows[line_row]
    assert drawn.lstrip().startswith("[0|1]")
    assert drawn.rstrip().endswith(f"[{line[-1][0]}|{line[-1][1]}]")
    assert "more)" in drawn
    # The north arm keeps its open end (5-3 shows 3 on top) even if its inner tiles give way.
    assert any("┌3┐" in row for row in rows[:line_row])
    wide = screen(view, width=200, height=60)
    assert "more)" not in wide[column_of(wide, "┣━┫")[0]]


def led(total: int) -> list[AnyEvent]:
    """The history of a hand whose last play made `total` and scored nothing."""
    return [Played(seat=1, tile="6-4", end=None, total=total, points=0)]


def scored(total: int) -> list[AnyEvent]:
    """The history of a hand whose last play made `total` and scored it."""
    return [Played(seat=1, tile="6-4", end=None, total=total, points=total)]


def test_the_ends_total_turns_gold_only_when_the_server_says_its_play_scored() -> None:
    def corner(total: int, history: list[AnyEvent]) -> tuple[str, bool]:
        view = make_view(
            layout=Layout(line=[[6, 4]]), ends=Ends(west=6, east=4), total=total, history=history
        )
        text = header(view, 79)
        gold = any(
            span.style == GOLD and str(total) in text.plain[span.start : span.end]
            for span in text.spans
        )
        return text.plain, gold

    for total in (5, 10, 15, 20, 45):
        plain, gold = corner(total, scored(total))
        assert plain.rstrip().endswith(f"ends total {total} ★") and gold
    for total in (0, 3, 12, 21):
        plain, gold = corner(total, led(total))
        assert plain.rstrip().endswith(f"ends total {total}") and not gold
    # The star is the server's word (`points`), not a rule the terminal keeps.
    unscored: list[AnyEvent] = [Played(seat=1, tile="6-4", end=None, total=10, points=0)]
    assert not corner(10, unscored)[1]
    assert not corner(10, [])[1]


@pytest.mark.parametrize("width", [160, 79, 72, 66, 60, 50, 40, 30])
def test_the_ends_total_and_its_star_stay_whole_however_narrow_the_header(width: int) -> None:
    view = make_view(
        layout=Layout(line=[[6, 4]]), ends=Ends(west=6, east=4), total=10, history=scored(10)
    )
    view.code = "KXQPZZZZ"
    plain = header(view, width).plain
    assert len(plain) <= width
    assert plain.endswith("total 10 ★")
    if width >= 60:
        assert plain.endswith("ends total 10 ★") and "hand 1" in plain


def header_sides(view: RoomView, width: int) -> tuple[str, str, str]:
    """The header's left side, the spaces between and the ends total, as drawn at `width`."""
    plain = header(view, width).plain
    assert len(plain) <= width, (width, plain)
    totals = [total_text(view.game, short).plain for short in (False, True)]
    right = next((total for total in totals if plain.endswith(total)), None)
    assert right is not None, (width, plain)
    rest = plain[: -len(right)]
    left = rest.rstrip(" ")
    return left, rest[len(left) :], right


def header_view(
    players: int, hand_number: int, boneyard: int, total: int, points: int, code: str
) -> RoomView:
    view = make_view(
        players=players,
        layout=Layout(line=[[6, 4]]),
        ends=Ends(west=6, east=4),
        total=total,
        history=[Played(seat=1, tile="6-4", end=None, total=total, points=points)],
    )
    assert view.game is not None
    view.code = code
    view.game.hand_number = hand_number
    view.game.boneyard = boneyard
    return view


@pytest.mark.parametrize("players", [2, 3, 4])
@pytest.mark.parametrize("language", i18n.LANGUAGES)
def test_the_header_keeps_two_spaces_before_the_ends_total_at_every_width(
    language: str, players: int
) -> None:
    # Estonian at 60 columns once drew "… pank 10 otste summa 12": two parts read as one phrase.
    i18n.set_language(language)
    try:
        for view in (
            header_view(players, 10, 10, 12, 0, "KXQPZZZZ"),
            header_view(players, 1, 9, 10, 10, "ABCD"),
            header_view(players, 23, 14, 45, 45, "ZZZZZZZZ"),
        ):
            for width in range(20, 121):
                left, gap, _right = header_sides(view, width)
                assert not left or len(gap) >= HEADER_GAP, (language, width, left + gap)
    finally:
        i18n.set_language("en")


@given(
    language=st.sampled_from(i18n.LANGUAGES),
    players=st.integers(2, 4),
    width=st.integers(MIN_WIDTH, 160),
    hand_number=st.integers(1, 99),
    boneyard=st.integers(0, 28),
    total=st.integers(0, 60),
    scores=st.booleans(),
    code=st.text(alphabet="ABCDEFGHJKLMNPQRSTUVWXYZ", min_size=4, max_size=8),
)
def test_the_headers_two_sides_never_meet_whatever_the_table(
    language: str,
    players: int,
    width: int,
    hand_number: int,
    boneyard: int,
    total: int,
    scores: bool,
    code: str,
) -> None:
    i18n.set_language(language)
    try:
        view = header_view(players, hand_number, boneyard, total, total if scores else 0, code)
        left, gap, right = header_sides(view, width)
        assert left and len(gap) >= HEADER_GAP, (left + gap + right, width)
        starred = scores and total > 0
        assert right.endswith(f"{total} ★" if starred else str(total))
    finally:
        i18n.set_language("en")


def test_without_colour_the_table_has_no_colour_codes_but_still_marks_a_scoring_total(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setenv("NO_COLOR", "1")
    out = io.StringIO()
    console = Console(file=out, force_terminal=True, width=80)
    view = make_view(
        layout=Layout(line=[[6, 4]]), ends=Ends(west=6, east=4), total=10, history=scored(10)
    )
    body, footer = render(state_of(view), 79, 23)
    for row in [*body, *footer]:
        console.print(row)
    drawn = out.getvalue()
    assert "ends total 10 ★" in Text.from_ansi(drawn).plain
    for colour_code in ("\x1b[31m", "\x1b[32m", "\x1b[33m", "\x1b[36m", ";33m", ";32m"):
        assert colour_code not in drawn


def test_the_hand_is_numbered_and_the_playable_tiles_are_highlighted_and_listed() -> None:
    view = make_view(
        hand=["5-1", "5-4", "6-3", "2-2"],
        legal=[
            MoveSpec(tile="5-4"),
            MoveSpec(tile="6-3", end="north"),
            MoveSpec(tile="6-3", end="south"),
        ],
        layout=Layout(line=[[5, 6], [6, 6], [6, 0]], spinner=1),
        ends=Ends(west=5, east=0, north=6, south=6),
        total=5,
    )
    rows = screen(view)
    numbers = next(index for index, row in enumerate(rows) if row.split() == ["1", "2", "3", "4"])
    assert rows[numbers + 1].split() == ["[5|1]", "[5|4]", "[6|3]", "[2|2]"]
    assert "Your turn: play 2 or 3" in rows[-1]
    body, _ = render(state_of(view), 79, 23)
    tiles_row = next(row for row in body if "[5|4]" in row.plain)
    styled = {tiles_row.plain[span.start : span.end]: span.style for span in tiles_row.spans}
    assert styled["[5|4]"] == PLAYABLE and styled["[6|3]"] == PLAYABLE
    assert styled["[5|1]"] != PLAYABLE and styled["[2|2]"] != PLAYABLE


def test_players_scores_tile_counts_boneyard_and_whose_turn() -> None:
    view = make_view(turn=1, legal=[], scores=[35, 20], target=150)
    rows = screen(view)
    assert "first to 150" in rows[0] and "boneyard 22" in rows[0]
    assert "Ann (you) 35 pts · 3 tiles" in rows[1]
    assert "▶ Bot 2 20 pts · 3 tiles" in rows[1]
    assert rows[-1].strip() == "Bot 2 to play…"


def test_teams_show_one_score_per_team() -> None:
    seats = [SeatInfo(seat=0, name="Ann", kind="human")] + [
        SeatInfo(seat=i, name="bot:easy", kind="bot", level="easy") for i in (1, 2, 3)
    ]
    view = make_view(players=4, seats=seats, scores=[40, 15], turn=2, legal=[])
    rows = "\n".join(screen(view))
    assert "Team A 40 pts   Ann (you) 3 tiles  ▶ Bot 3 3 tiles" in rows
    assert "Team B 15 pts   Bot 2 3 tiles    Bot 4 3 tiles" in rows


def test_the_log_tells_what_happened_in_words() -> None:
    history = [
        HandStarted(number=1, leader=0),
        Played(seat=0, tile="5-5", end=None, total=10, points=10),
        Played(seat=1, tile="5-3", end="east", total=8, points=0),
    ]
    view = make_view(
        layout=Layout(line=[[5, 5], [5, 3]], spinner=0),
        ends=Ends(west=5, east=3),
        total=8,
        history=history,
    )
    text = "\n".join(screen(view))
    assert "Hand 1: Ann leads" in text
    assert "Ann led 5-5: total 10, scores 10" in text
    assert "Bot 2 played 5-3 east: total 8" in text


def test_the_end_question_says_what_each_end_would_score_under_the_last_error() -> None:
    state = state_of(cross_view())
    state.say("Refused (play): it is not your turn", "error")
    _, footer = render(state, 79, 23, pending=Ask("5-1", ("west", "east")))
    assert [row.plain for row in footer] == [
        " ✗ Refused (play): it is not your turn",
        " 5-1 on w → 2, e → 10 ★: which end?",
    ]


def test_a_waiting_room_lists_its_seats_and_how_friends_join() -> None:
    seats = [
        SeatInfo(seat=0, name="Ann", kind="human"),
        None,
        SeatInfo(seat=2, name="bot:hard", kind="bot", level="hard"),
    ]
    view = make_view(phase="waiting", players=3, seats=seats)
    join_line = "allfives join ws://10.0.0.5:8765 ABCD\nhttp://10.0.0.5:8765/r/ABCD"
    rows = screen(view, join_line=join_line)
    text = "\n".join(rows)
    # The browser link has a row of its own, whole at 80 columns.
    assert any(row.rstrip() == " or in a browser:    http://10.0.0.5:8765/r/ABCD" for row in rows)
    assert "seat 1  Ann  (you)  host" in text
    assert "seat 2  free" in text
    assert "seat 3  Bot 3  hard bot" in text
    assert "Friends join with:  allfives join ws://10.0.0.5:8765 ABCD" in text
    assert "1 free seat: wait for friends, or /bots fill to seat bots; then /start" in text


@pytest.mark.parametrize("width", [31, 40, 50, 60, 80])
def test_the_join_line_and_the_rooms_rules_fold_whole_at_every_width(width: int) -> None:
    """What a friend copies (the command, the link) and the room's rules are never cut: at 60
    columns the host's join command used to end at "ws://127.0.0.1:34"."""
    seats = [SeatInfo(seat=0, name="Hana", kind="human"), None, None, None]
    view = make_view(phase="waiting", players=4, seats=seats)
    command = "uv run allfives join ws://127.0.0.1:34531 MXFT-NJHWHNHD"
    link = "http://127.0.0.1:34531/r/MXFT-NJHWHNHD"
    rows = screen(view, width, 40, join_line=f"{command}\n{link}")
    assert all(len(row) <= width for row in rows), rows
    said = " ".join(" ".join(rows).split())
    assert "Friends join with:" in said and "or in a browser:" in said
    assert "first to 100, listed, rated" in said, rows
    if width >= 50:
        # On rows of their own, the command folded at its spaces and the link whole.
        assert command in said, rows
        assert any(row.strip().endswith(link) for row in rows), rows
    else:
        # Narrower than the link: broken across rows, every character still there.
        assert link in "".join(row.strip() for row in rows), rows


def test_a_finished_match_names_the_winner_and_the_scores() -> None:
    view = make_view(phase="finished", turn=None, legal=[], scores=[55, 30], winner=0, over=True)
    assert "Ann wins the match: Ann 55, Bot 2 30." in screen(view)[-1]


def test_the_log_says_who_sits_down_goes_away_and_comes_back() -> None:
    ann = SeatInfo(seat=0, name="Ann", kind="human")
    state = state_of(make_view(phase="waiting", players=3, seats=[ann, None, None], host=None))
    bob = SeatInfo(seat=1, name="Bob", kind="human")
    bot = SeatInfo(seat=2, name="bot:easy", kind="bot", level="easy")
    steps: list[list[SeatInfo | None]] = [
        [ann, bob, None],
        [ann, bob, bot],
        [ann, SeatInfo(seat=1, name="Bob", kind="human", connected=False), bot],
        [ann, bob, bot],
        [ann, None, bot],
    ]
    for seq, seats in enumerate(steps, start=2):
        before = state.sync.document
        assert before is not None
        after = dict(before, seats=[to_builtins(seat) for seat in seats])
        state.receive(msg.Patch(seq=seq, ops=diff(before, after)))
    assert [line.text for line in state.log] == [
        "Bob took seat 2",
        "an easy bot took seat 3",
        "Bob is away",
        "Bob is back",
        "Bob left seat 2",
    ]


@pytest.mark.parametrize("you_after", [3, None])
def test_a_player_is_not_told_of_their_own_leaving_as_of_anothers(you_after: int | None) -> None:
    # The end of a tournament's table: Bob (seat 4) leaves once the match is over.
    people = [SeatInfo(seat=seat, name=name, kind="human") for seat, name in enumerate("ACDB")]
    people[3] = SeatInfo(seat=3, name="Bob", kind="human")
    state = state_of(make_view(phase="finished", players=4, seats=people, you=3, host=None))
    before = state.sync.document
    assert before is not None
    others_leave = [to_builtins(people[0]), None, *(to_builtins(seat) for seat in people[2:])]
    after = dict(before, seats=others_leave)
    state.receive(msg.Patch(seq=2, ops=diff(before, after)))
    after_bob = dict(after, seats=[*others_leave[:3], None], you=you_after)
    state.receive(msg.Patch(seq=3, ops=diff(after, after_bob)))
    assert [line.text for line in state.log] == ["C left seat 2"]


def test_the_host_is_not_told_of_the_bots_they_seated() -> None:
    ann = SeatInfo(seat=0, name="Ann", kind="human")
    state = state_of(make_view(phase="waiting", seats=[ann, None], host=0))
    before = state.sync.document
    assert before is not None
    bot = SeatInfo(seat=1, name="bot:hard", kind="bot", level="hard")
    after = dict(before, seats=[to_builtins(ann), to_builtins(bot)])
    state.receive(msg.Patch(seq=2, ops=diff(before, after)))
    assert not state.log


def test_while_disconnected_the_status_says_so_instead_of_asking_for_a_move() -> None:
    state = state_of(make_view())
    state.online = False
    _, footer = render(state, 79, 23)
    assert footer[-1].plain.startswith(" Not connected")


def test_before_the_next_lead_the_last_hand_is_shown_as_it_ended() -> None:
    history = [HandStarted(number=1, leader=0)]
    layout = Layout(line=[[3, 5], [5, 5]], spinner=1)
    state = state_of(make_view(layout=layout, ends=Ends(west=3, east=5), total=8, history=history))
    before = state.sync.document
    assert before is not None
    after = to_builtins(make_view(hand=["6-6"], turn=1, legal=[]))
    after["game"]["hand_number"] = 2
    events: list[AnyEvent] = [
        Played(seat=0, tile="5-1", end="east", total=4, points=0),
        # The server says the table the hand ended on: the client places nothing.
        msgspec.structs.replace(
            hand_ended(0, [0, 12]), layout=Layout(line=[[3, 5], [5, 5], [5, 1]], spinner=1)
        ),
        HandStarted(number=2, leader=1),
    ]
    ops = diff(before, after)
    ops += [{"op": "add", "path": "/game/history/-", "value": to_builtins(e)} for e in events]
    state.receive(msg.Patch(seq=2, ops=ops))
    body, _ = render(state, 79, 23)
    text = "\n".join(row.plain for row in body)
    assert "How hand 1 ended:" in text
    assert "[3|5] ┣━┫ [5|1]" in text


@pytest.mark.parametrize(("players", "width"), [(4, 60), (3, 80), (4, 160)])
def test_with_three_or_four_players_the_turn_order_is_shown(players: int, width: int) -> None:
    rows = screen(make_view(players=players), width, 24)
    order = " → ".join(["Ann", "Bot 2", "Bot 3", "Bot 4"][:players])
    assert sum(f"turn order: {order}" in row for row in rows) == 1, "\n".join(rows)
    assert all(len(row) <= width for row in rows)
    assert not any("turn order" in row for row in screen(make_view(players=2), width, 24))


@pytest.mark.parametrize(
    ("winner", "you", "players", "said"),
    [
        (0, 0, 2, "You win."),
        (0, 1, 2, "You lose."),
        (1, 2, 4, "Your team loses."),
        (0, 2, 4, "Your team wins."),
        ([0, 1], 1, 3, "You share the win."),
        ([0, 1], 2, 3, "You lose."),
    ],
)
def test_the_end_of_a_match_says_whether_you_won(
    winner: int | list[int], you: int, players: int, said: str
) -> None:
    view = make_view(
        phase="finished", turn=None, legal=[], players=players, winner=winner, over=True, you=you
    )
    assert said in screen(view)[-1]
    watching = make_view(
        phase="finished", turn=None, legal=[], players=players, winner=winner, over=True, you=None
    )
    assert not any(word in screen(watching)[-1] for word in ("You ", "Your "))


@pytest.mark.parametrize(
    ("command", "said"),
    [("record", "Refused (match record)"), ("link_code", "Refused (link code)")],
)
def test_a_refusal_names_what_was_refused_in_words_not_the_wire_type(
    command: str, said: str
) -> None:
    error = msg.Error(id=3, command=command, code="rate_limited", message="slow down")
    assert error_text(error).startswith(said + ": ")


def test_the_idle_bound_is_counted_down_near_its_end_then_the_stand_in_is_named() -> None:
    ann = SeatInfo(seat=0, name="Ann", kind="human", connected=True)
    bot = SeatInfo(seat=1, name="bot:normal", kind="bot", level="normal")

    def said(*seats: SeatInfo, turn: int = 0, deadline: float | None = None) -> str:
        view = make_view(seats=list(seats), turn=turn, deadline=deadline)
        _, footer = render(state_of(view), 79, 23)
        return " ".join(" ".join(row.plain for row in footer).split())

    assert said(ann, bot, deadline=time.time() + 30.5) == (
        "Your turn: lead any tile · 31 s, then a stand-in"
    )
    assert "stand-in" not in said(ann, bot)  # no deadline: none is counted down
    assert "stand-in" not in said(ann, bot, deadline=time.time() + 299)  # only in its last minute
    taken = SeatInfo(seat=0, name="Ann", kind="human", connected=True, stand_in=True)
    assert said(taken, bot, turn=1).endswith("A stand-in plays for you: /back to play again")


def test_a_finished_matchs_winner_is_said_once_above_the_prompt() -> None:
    # The log's "Ann wins the match" and the status line's "Ann wins the match: ..." one under
    # the other read as the same news twice (issue 45, item 3).
    history = [HandStarted(number=1, leader=0), MatchEnded(winner=0)]
    view = make_view(
        phase="finished", turn=None, legal=[], scores=[55, 30], winner=0, over=True, history=history
    )
    state = state_of(view)
    state.dismiss_result()
    for width in (60, 80):
        body, footer = render(state, width - 1, 23)
        text = "\n".join(row.plain for row in [*body, *footer])
        assert text.count("wins the match") == 1, text
        assert "Ann wins the match: Ann 55, Bot 2 30." in text
