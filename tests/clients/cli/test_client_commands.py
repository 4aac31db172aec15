"""What a typed line means at the table: moves by number or tile, the end question, refusals."""

from __future__ import annotations

import pytest
from table_helpers import cross_view, make_view

from clients.cli.commands import Ask, Quit, Refuse, Send, Show, interpret
from protocol import messages as msg
from protocol.views import Ends, Layout, MoveSpec, SeatInfo


def sent(action: object) -> list[msg.ClientMessage]:
    assert isinstance(action, Send), action
    return list(action.messages)


# -- moves ---------------------------------------------------------------------------------


def test_a_number_plays_that_tile_of_the_hand() -> None:
    assert sent(interpret("2", cross_view())) == [msg.Play(tile="5-4")]


@pytest.mark.parametrize("typed", ["5-4", "4-5", " 4-5 ", "4 - 5", "5|4"])
def test_a_tile_is_played_written_in_either_order(typed: str) -> None:
    assert sent(interpret(typed, cross_view())) == [msg.Play(tile="5-4")]


@pytest.mark.parametrize(
    ("typed", "plain"),
    [("２", "2"), ("٢", "2"), ("۲", "2"), ("５-４", "5-4"), ("٥-٤", "5-4"), ("5－4", "5-4")],
)
def test_other_digits_and_full_width_forms_are_read_as_the_plain_ones_alike(
    typed: str, plain: str
) -> None:
    """A tile's number and a tile are both read whatever digits the keyboard gives (the
    full-width ５ and the Arabic-Indic ٣ were numbers while ６-６ was refused)."""
    assert interpret(typed, cross_view()) == interpret(plain, cross_view())
    assert sent(interpret(typed, cross_view())) == [msg.Play(tile="5-4")]


def test_a_very_long_line_is_refused_with_its_start_and_the_whole_reason() -> None:
    refused = interpret("x" * 3000, cross_view())
    assert isinstance(refused, Refuse)
    assert refused.reason == (
        "'xxxxxxxxxxxxxxxxxxxxxxx'… is not a move: type a tile's number, a tile like 5-3, or /help"
    )


@pytest.mark.parametrize(
    ("typed", "phase"),
    [
        ("1" * 3000, "playing"),
        ("7" * 5000, "playing"),
        ("/" + "1" * 3000, "playing"),
        ("/bots remove " + "9" * 5000, "waiting"),
        ("/bots add " + "9" * 3000, "waiting"),
    ],
    ids=["number", "longer-number", "command", "bot-seat", "bot-level"],
)
def test_a_refused_long_line_is_not_echoed_back_whole(typed: str, phase: str) -> None:
    # A pasted 3,000-digit line came back as rows of digits (issue 45, item F); past 4,300
    # digits a number could not even be read.
    view = cross_view() if phase == "playing" else make_view(phase="waiting", players=3)
    refused = interpret(typed, view)
    assert isinstance(refused, Refuse)
    assert len(refused.reason) < 100 and "…" in refused.reason, refused.reason


def test_a_chat_line_keeps_its_full_width_words() -> None:
    assert sent(interpret("/chat ５ ｏｋ", cross_view())) == [msg.Chat(text="５ ｏｋ")]


@pytest.mark.parametrize(("typed", "lead"), [("4-5", "4-5"), ("5-4", "5-4"), ("2", "5-4")])
def test_a_lead_is_sent_in_the_order_it_was_typed(typed: str, lead: str) -> None:
    view = make_view(hand=["5-1", "5-4", "6-3", "2-2"])  # an empty table: this play leads
    assert sent(interpret(typed, view)) == [msg.Play(tile=lead)]


def test_a_tile_that_fits_two_ends_asks_which_and_the_answer_plays_it_there() -> None:
    view = cross_view()
    asked = interpret("5-1", view)
    assert asked == Ask("5-1", ("west", "east"))
    assert "west (w) or east (e)" in asked.question
    assert sent(interpret("e", view, asked)) == [msg.Play(tile="5-1", end="east")]
    assert sent(interpret("WEST", view, asked)) == [msg.Play(tile="5-1", end="west")]


def test_the_end_can_be_given_with_the_tile() -> None:
    view = cross_view()
    assert sent(interpret("3 s", view)) == [msg.Play(tile="6-3", end="south")]
    assert sent(interpret("6-3n", view)) == [msg.Play(tile="6-3", end="north")]


def test_an_end_the_tile_does_not_fit_is_refused_with_the_ends_it_fits() -> None:
    view = cross_view()
    refusal = interpret("6-3 e", view)
    assert isinstance(refusal, Refuse)
    assert "cannot go east" in refusal.reason and "north or south" in refusal.reason
    asked = Ask("6-3", ("north", "south"))
    again = interpret("w", view, asked)
    assert isinstance(again, Ask) and (again.tile, again.ends) == ("6-3", ("north", "south"))
    assert again.problem is not None and "cannot go west" in again.problem


def test_an_answer_that_is_no_end_asks_again_and_a_move_typed_instead_is_played() -> None:
    view = cross_view()
    asked = Ask("5-1", ("west", "east"))
    again = interpret("x", view, asked)
    assert isinstance(again, Ask) and again.tile == "5-1" and again.problem is not None
    assert sent(interpret("5-4", view, asked)) == [msg.Play(tile="5-4")]


def test_tile_numbers_typed_follow_the_numbers_shown() -> None:
    view = cross_view()
    numbers = {2: "5-4", 3: "6-3", 5: "2-2"}
    assert sent(interpret("2", view, numbers=numbers)) == [msg.Play(tile="5-4")]
    refused = interpret("1", view, numbers=numbers)
    assert isinstance(refused, Refuse) and "numbered 2, 3, 5" in refused.reason


def test_enter_alone_cancels_the_end_question_and_anything_else_is_read_afresh() -> None:
    view = cross_view()
    asked = Ask("5-1", ("west", "east"))
    cancelled = interpret("", view, asked)
    assert isinstance(cancelled, Refuse) and "not played" in cancelled.reason
    assert sent(interpret("2", view, asked)) == [msg.Play(tile="5-4")]


def test_a_tile_that_fits_no_end_is_refused_with_the_open_ends_and_the_playable_tiles() -> None:
    refusal = interpret("2-2", cross_view())
    assert isinstance(refusal, Refuse)
    assert "2-2 fits no open end" in refusal.reason
    assert "west 5, east 1, north 6, south 6" in refusal.reason
    assert "5-1, 5-4, 6-3" in refusal.reason


def test_a_forced_tile_is_named_when_another_is_typed() -> None:
    view = cross_view(legal=[MoveSpec(tile="6-3", end="north"), MoveSpec(tile="6-3", end="south")])
    refusal = interpret("5-4", view)
    assert isinstance(refusal, Refuse) and "only 6-3 can" in refusal.reason


def test_a_tile_not_held_and_a_number_out_of_range_are_refused() -> None:
    view = cross_view()
    held = interpret("6-5", view)
    assert isinstance(held, Refuse) and held.reason == "you do not hold 6-5"
    numbered = interpret("9", view)
    assert isinstance(numbered, Refuse) and "numbered 1 to 4" in numbered.reason


def test_playing_out_of_turn_is_refused_naming_whose_turn_it_is() -> None:
    refusal = interpret("2", cross_view(turn=1, legal=[]))
    assert isinstance(refusal, Refuse)
    assert refusal.reason == "it is Bot 2's turn, not yours"


def test_moves_are_refused_before_the_match_starts_and_after_it_ends() -> None:
    waiting = interpret("1", make_view(phase="waiting"))
    finished = interpret("1", make_view(phase="finished", turn=None, legal=[]))
    assert isinstance(waiting, Refuse) and "/start" in waiting.reason
    assert isinstance(finished, Refuse) and "over" in finished.reason


def test_on_a_lone_lead_double_a_tile_goes_east_without_asking() -> None:
    view = make_view(
        hand=["5-3"],
        legal=[MoveSpec(tile="5-3", end="west"), MoveSpec(tile="5-3", end="east")],
        layout=Layout(line=[[5, 5]], spinner=0),
        ends=Ends(west=5, east=5),
        total=10,
    )
    assert sent(interpret("1", view)) == [msg.Play(tile="5-3", end="east")]


def test_words_that_are_not_moves_are_refused_and_nothing_is_sent() -> None:
    refusal = interpret("hello", cross_view())
    assert isinstance(refusal, Refuse) and "/help" in refusal.reason
    assert interpret("   ", cross_view()) is None


# -- commands ------------------------------------------------------------------------------


def test_help_and_quit() -> None:
    shown = interpret("/help", None)
    assert isinstance(shown, Show) and "/bots add" in shown.text and "/hint" in shown.text
    assert all(len(line) <= 78 for line in shown.text.splitlines())
    assert interpret("/quit", cross_view()) == Quit()


def test_help_at_a_table_without_a_host_leaves_out_the_hosts_commands() -> None:
    """A tournament's table has no host: nobody there may add bots, start or ask a rematch."""
    hosted = interpret("/help", make_view(host=0))
    table = interpret("/help", make_view(host=None))
    assert isinstance(hosted, Show) and isinstance(table, Show)
    host_lines = [line for line in hosted.text.splitlines() if line.endswith("(host)")]
    assert [line.split()[0] for line in host_lines] == ["/bots"] * 3 + ["/start", "/rematch"]
    assert table.text.splitlines() == [
        line for line in hosted.text.splitlines() if line not in host_lines
    ]
    assert "/back" in table.text and "/quit" in table.text


def test_bots_are_added_by_the_host_of_a_waiting_room() -> None:
    waiting = make_view(
        phase="waiting",
        players=4,
        seats=[SeatInfo(seat=0, name="Ann", kind="human"), None, None, None],
    )
    assert sent(interpret("/bots add hard", waiting)) == [msg.AddBot(level="hard")]
    assert sent(interpret("/bots add", waiting)) == [msg.AddBot(level="normal")]
    assert sent(interpret("/bots fill easy", waiting)) == [msg.AddBot(level="easy")] * 3
    wrong = interpret("/bots add brilliant", waiting)
    assert isinstance(wrong, Refuse) and "easy, normal or hard" in wrong.reason
    guest = make_view(phase="waiting", players=4, you=1, seats=waiting.seats)
    refused = interpret("/bots add", guest)
    assert isinstance(refused, Refuse) and "only the host" in refused.reason


def test_start_needs_every_seat_taken_and_the_host() -> None:
    seats = [SeatInfo(seat=0, name="Ann", kind="human"), None]
    early = interpret("/start", make_view(phase="waiting", seats=seats))
    assert isinstance(early, Refuse) and "free: 2" in early.reason
    assert sent(interpret("/start", make_view(phase="waiting"))) == [msg.Start()]
    playing = interpret("/start", cross_view())
    assert isinstance(playing, Refuse) and "playing" in playing.reason


def test_bots_remove_takes_the_seat_as_the_table_numbers_it() -> None:
    """The table shows seats from 1 and names the bot in seat 3 "Bot 3": `/bots remove 3`
    frees that seat (the wire's 2), and the refusals list the seats the same way."""
    seats = [
        SeatInfo(seat=0, name="Ann", kind="human"),
        None,
        SeatInfo(seat=2, name="bot:hard", kind="bot", level="hard"),
    ]
    view = make_view(phase="waiting", players=3, seats=seats)
    assert sent(interpret("/bots remove 3", view)) == [msg.RemoveBot(seat=2)]
    own = interpret("/bots remove 1", view)
    assert isinstance(own, Refuse) and own.reason == "seat 1 holds no bot"
    bare = interpret("/bots remove", view)
    assert isinstance(bare, Refuse) and "(seats with bots: 3)" in bare.reason
    start = interpret("/start", view)
    assert isinstance(start, Refuse) and "(free: 2)" in start.reason


def test_chat_hint_and_rematch() -> None:
    assert sent(interpret("/chat good game!", cross_view())) == [msg.Chat(text="good game!")]
    empty = interpret("/chat   ", cross_view())
    assert isinstance(empty, Refuse) and "empty" in empty.reason
    assert sent(interpret("/hint", cross_view())) == [msg.Hint()]
    not_yours = interpret("/hint", cross_view(turn=1, legal=[]))
    assert isinstance(not_yours, Refuse)
    over = make_view(phase="finished", turn=None, legal=[])
    assert sent(interpret("/rematch", over)) == [msg.Rematch()]
    assert isinstance(interpret("/rematch", cross_view()), Refuse)


def test_an_unknown_command_is_refused() -> None:
    refusal = interpret("/dance", cross_view())
    assert isinstance(refusal, Refuse) and "unknown command /dance" in refusal.reason


def test_a_lead_written_as_a_tile_keeps_its_order_and_one_chosen_by_number_is_sent_as_shown() -> (
    None
):
    view = make_view(hand=("6-1", "5-3"), layout=Layout())
    assert sent(interpret("1-6", view)) == [msg.Play(tile="1-6")]
    assert sent(interpret("6-1", view)) == [msg.Play(tile="6-1")]
    assert sent(interpret("1", view)) == [msg.Play(tile="6-1")]


def test_typing_the_asked_tile_again_at_which_end_says_what_is_asked() -> None:
    asked = Ask("5-1", ("west", "east"))
    again = interpret("5-1", cross_view(), asked)
    assert isinstance(again, Ask) and again.tile == "5-1"
    assert again.problem == "which end for 5-1: w or e, or Enter"


def test_back_takes_the_seat_back_only_from_a_stand_in() -> None:
    mine = SeatInfo(seat=0, name="Ann", kind="human", connected=True, stand_in=True)
    bot = SeatInfo(seat=1, name="bot:normal", kind="bot", level="normal")
    assert sent(interpret("/back", make_view(seats=[mine, bot], turn=1))) == [msg.Back()]
    refused = interpret("/back", make_view())
    assert isinstance(refused, Refuse) and "no stand-in plays for you" in refused.reason
