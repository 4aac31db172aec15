"""Positions written as one line (engine.positions, docs/positions.md): read, written, refused."""

from __future__ import annotations

import random
import re
from pathlib import Path

import pytest
from engine_helpers import RULES, random_move
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from protocol_helpers import examples

from engine import ALL_TILES, HandEnded, Match, Move, Rules, Tile, positions
from engine.bots import HardBot
from engine.positions import PositionError

DOCS = Path(__file__).resolve().parents[2] / "docs" / "positions.md"
FIVE = (
    "2 hand_size=five | 6-5 (5-5*) 5-1 north 5-3 | 6-6 4-1 3-0 / 2-1 1-1 4-4 | 6-1 ... | 1 | 10 10"
)


def reached(rules: Rules, seed: int, steps: int) -> Match:
    """A match played `steps` random legal moves from a seeded deal, stopped before it ends."""
    match = Match.new(rules, seed=seed)
    rng = random.Random(seed)
    for _ in range(steps):
        before = match.copy()
        match.apply(match.turn, random_move(match, rng))
        if match.over:
            return before
    return match


POSITIONS = st.builds(reached, RULES, st.integers(0, 10_000), st.integers(0, 80))


def refused(text: str) -> str:
    """The one-line reason `text` is refused (the test fails if it is accepted)."""
    with pytest.raises(PositionError) as err:
        positions.match(text)
    message = str(err.value)
    assert message and "\n" not in message
    return message


# -- the round trip ----------------------------------------------------------------------------


@settings(max_examples=examples(150), deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(POSITIONS, st.integers(0, 2**32))
def test_a_position_reached_by_play_reads_back_as_it_was_and_plays_on_alike(
    match: Match, seed: int
) -> None:
    text = positions.write(match)
    again = positions.match(text, seed=match.seed)
    assert positions.write(again) == text
    assert again.rules == match.rules
    assert again.hands == match.hands
    assert again.boneyard == match.boneyard[match.drawn :]
    assert again.layout == match.layout
    assert (again.turn, again.leader, again.scores) == (match.turn, match.leader, match.scores)
    assert (again.passes, again.forced, again.stuck) == (match.passes, match.forced, match.stuck)
    assert again.drew_this_turn == match.drew_this_turn
    assert again.legal_moves() == match.legal_moves()
    # Played on with the same moves, both tell the same story to the end of the hand.
    rng = random.Random(seed)
    while True:
        move = random_move(match, rng)
        told, retold = match.apply(match.turn, move), again.apply(again.turn, move)
        ended = [i for i, e in enumerate(told) if isinstance(e, HandEnded)]
        if ended:  # the next hands are dealt apart: the hand number is part of the shuffle
            assert retold[: ended[0] + 1] == told[: ended[0] + 1]
            break
        assert retold == told
    assert again.scores == match.scores


@settings(max_examples=examples(30), deadline=None)
@given(POSITIONS)
def test_a_seats_view_of_a_read_position_is_one_a_bot_can_search(match: Match) -> None:
    again = positions.match(positions.write(match))
    view = again.view_for(again.turn)
    assert view.hand == match.hand_of(match.turn)
    assert HardBot(1, budget_ms=None, max_samples=4).choose(view) in again.legal_moves()


# -- refusals ----------------------------------------------------------------------------------

TILE_WORD = re.compile(r"[0-6]-[0-6]")


def mutations(text: str, rng: random.Random) -> list[str]:
    """Every way this module knows to break a written position: each must be refused."""
    rules, layout, hands, boneyard, turn, scores = text.split(" | ")
    out = []
    words = list(TILE_WORD.finditer(text))
    first = words[0]
    # A tile written twice: one tile's name over another's; a tile added again; a tile dropped.
    for _ in range(8):
        copied, over = rng.sample(words, 2)
        out.append(text[: over.start()] + copied[0] + text[over.end() :])
    seat_hands = hands.split(" / ")
    for seat, hand in enumerate(seat_hands):
        doubled = [*seat_hands[:seat], f"{hand} {first[0]}", *seat_hands[seat + 1 :]]
        out.append(" | ".join([rules, layout, " / ".join(doubled), boneyard, turn, scores]))
        dropped = [*seat_hands[:seat], " ".join(hand.split()[1:]), *seat_hands[seat + 1 :]]
        out.append(" | ".join([rules, layout, " / ".join(dropped), boneyard, turn, scores]))
    if boneyard != "-":
        out.append(
            " | ".join([rules, layout, hands, " ".join(boneyard.split()[1:]) or "-", turn, scores])
        )
    # A line tile turned round breaks its joint (the lead's and a double's turn changes nothing).
    line = [] if layout == "-" else layout.split(" north ")[0].split(" south ")[0].split()
    for index, word in enumerate(line):
        a, b = word.strip("()*")[0], word.strip("()*")[2]
        if a != b and "(" not in word:
            turned = [*line[:index], f"{b}-{a}", *line[index + 1 :]]
            rest = layout[len(" ".join(line)) :]
            out.append(" | ".join([rules, " ".join(turned) + rest, hands, boneyard, turn, scores]))
    # The spinner unmarked, or a second one marked.
    if "*" in layout:
        out.append(text.replace("*", "", 1))
    for word in line:
        if word[0] == word[2] and "*" not in word:
            out.append(text.replace(f" {word} ", f" {word}* ", 1) if f" {word} " in text else text)
    # Fields lost or doubled, words that are not tiles, seats, scores or rules.
    out.append(text.replace(" | ", " ", 1))
    out.append(text + " | 0")
    out.append(text.replace(first[0], "7-1", 1))
    out.append(text.replace(first[0], first[0][0], 1))
    out.append(text.replace(first[0], first[0] + "-", 1))
    out.append(" | ".join([rules, layout, hands.replace(" / ", " ", 1), boneyard, turn, scores]))
    out.append(" | ".join([rules + " bogus=1", layout, hands, boneyard, turn, scores]))
    out.append(" | ".join([rules + " reserve=8", layout, hands, boneyard, turn, scores]))
    players = int(rules.split()[0])
    out.append(" | ".join([rules, layout, hands, boneyard, str(players), scores]))
    out.append(" | ".join([rules, layout, hands, boneyard, turn, scores + " 0"]))
    out.append(" | ".join([rules, layout, hands, boneyard, turn, scores.split(" ", 1)[1]]))
    out.append(" | ".join([rules, layout, hands, boneyard, turn, "3 " + scores.split(" ", 1)[1]]))
    out.append(
        " | ".join([rules, layout, hands, boneyard, turn, "1000 " + scores.split(" ", 1)[1]])
    )
    return [m for m in out if m != text]


@settings(max_examples=examples(100), deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(POSITIONS, st.randoms(use_true_random=False))
def test_every_broken_position_is_refused_with_one_line(match: Match, rng: random.Random) -> None:
    text = positions.write(match)
    for broken in mutations(text, rng):
        refused(broken)


@settings(max_examples=examples(100), deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(POSITIONS, st.data())
def test_a_cut_short_position_is_refused_or_is_exactly_another(
    match: Match, data: st.DataObject
) -> None:
    text = positions.write(match)
    cut = text[: data.draw(st.integers(0, len(text) - 1))]
    try:
        read = positions.match(cut)
    except PositionError as err:
        assert "\n" not in str(err)
    else:
        assert positions.write(read) == cut


@pytest.mark.parametrize(
    ("text", "reason"),
    [
        (FIVE.replace(" | 1 | ", " | 1 "), "6 fields"),
        (FIVE.replace("4-4", "6-6"), "6-6 is written twice: in seat 0's hand and seat 1's hand"),
        (FIVE.replace(" ...", ""), "missing: 0-0"),
        (FIVE.replace("(5-5*)", "(5-5)"), "the lead 5-5 is a double, so it is the spinner"),
        (FIVE.replace("6-5 (", "5-6 ("), "5-6 does not join the tile inside it on the west side"),
        (FIVE.replace("north 5-3", "north 3-5"), "on the north side"),
        (FIVE.replace("(5-5*) 5-1", "(5-5*) 5-1 1-1"), "1-1 is written twice"),
        (FIVE.replace("6-6 4-1 3-0", "6-6 4-1 3-0 6-1"), "6-1 is written twice"),
        (FIVE.replace("| 1 |", "| 2 |"), "there is no seat 2"),
        (FIVE.replace("| 1 |", "| 1 passed=1 |"), "nobody passes"),
        (FIVE.replace("| 1 |", "| 1 drew=1 |"), "drawn 1: 0 tiles have left the boneyard"),
        (
            FIVE.replace("4-4 | 6-1 ... | 1", "4-4 6-1 | ... | 1 drew=1"),
            "drew until a tile played, so it holds one that plays, not 3",
        ),
        (FIVE.replace("10 10", "10 12"), "a multiple of 5"),
        (FIVE.replace("10 10", "10"), "write 2 scores"),
        (FIVE.replace("10 10", "-5 10"), "only end_scoring=penalty"),
        (FIVE.replace("10 10", "250 10"), "the match is over"),
        (FIVE.replace("hand_size=five", "hand_size=six"), "these rules are not allowed"),
        (FIVE.replace("hand_size=five", "size=five"), "not a rule: 'size=five'"),
        (FIVE.replace("6-6 4-1 3-0 / ", ""), "2 players need 2 hands"),
        (
            FIVE.replace("3-0 / 2-1 1-1 4-4", "3-0 1-1 4-4 / 2-1"),
            "seat 1 holds 1 of the 5 dealt but has had 2 turns",
        ),
        ("2 | 6-1 1-1 (1-5) | - / - | ... | 0 | 0 0", "1-1 is the first double"),
        ("2 | (6-1) 1-1* north 1-2 | - / - | ... | 0 | 0 0", "opens only once"),
        ("2 | (6-1) 1-2 north 2-3 | - / - | ... | 0 | 0 0", "no spinner lies on the line"),
        ("2 | 6-6 (6-1) | - / - | ... | 0 | 0 0", "6-6 is the first double played"),
    ],
)
def test_a_position_no_play_could_reach_is_refused_by_name(text: str, reason: str) -> None:
    assert reason in refused(text)


def test_seats_holding_more_than_was_dealt_and_drawn_are_refused() -> None:
    rest = " ".join(str(t) for t in ALL_TILES if str(t) not in ("6-6", "5-5", "4-4"))
    text = f"2 hand_size=five | (6-6*) | 5-5 4-4 / {rest} | - | 1 | 0 0"
    assert refused(text) == (
        "the seats hold 20 tiles more than they were dealt, but 18 have left the boneyard"
    )
    # Seat 0 keeps the four it did not lead, seat 1 drew all 18: that is a position.
    kept = " ".join(str(t) for t in ALL_TILES if str(t) not in ("6-6", "5-5", "4-4", "6-0", "5-0"))
    match = positions.match(f"2 hand_size=five | (6-6*) | 5-5 4-4 6-0 5-0 / {kept} | - | 1 | 0 0")
    assert len(match.hand_of(1)) == 5 + 18


# -- reading by hand ---------------------------------------------------------------------------


def test_a_written_position_plays_as_it_reads() -> None:
    match = positions.match(FIVE)
    assert match.turn == 1 and match.scores == [10, 10]
    assert match.hand_of(1) == [Tile.parse(t) for t in ("1-1", "2-1", "4-4")]
    assert match.legal_moves() == [Move.parse("1-1 east"), Move.parse("2-1 east")]
    assert match.boneyard_left == 18 and match.boneyard[0] == Tile.parse("6-1")
    assert match.layout.open == [6, 1, 3, 5] and match.total() == 6 + 1 + 3


def test_a_position_before_the_lead_is_a_deal_with_its_record() -> None:
    text = (
        "2 hand_size=five | - | 6-6 5-5 4-4 3-3 2-2 / 1-0 2-0 3-0 4-0 1-1 | 2-1 3-1 ... | 1 | 0 0"
    )
    deal = positions.deal(text)
    assert deal.leader == 1 and deal.boneyard[:2] == (Tile.parse("2-1"), Tile.parse("3-1"))
    match = positions.match(text)
    assert match.record[0].deal == deal
    assert "nobody has drawn" in refused(text.replace("| 1 |", "| 1 led=0 |"))
    with pytest.raises(PositionError, match="before the lead"):
        positions.deal(FIVE)


def test_spacing_and_the_order_of_a_hand_do_not_change_the_position() -> None:
    loose = FIVE.replace(" | ", "|").replace("6-6 4-1 3-0", "0-3  6-6 1-4")
    assert positions.write(positions.match(loose)) == positions.write(positions.match(FIVE))


def test_a_finished_match_has_no_position_to_write() -> None:
    match = positions.match(
        "2 hand_size=five target=10 | - | 5-5 0-0 1-1 2-2 4-4 / 5-3 6-6 6-4 6-2 6-0 | ... | 0 | 0 0"
    )
    match.apply(0, Move.parse("5-5"))
    assert match.over
    with pytest.raises(PositionError, match="the match is over"):
        positions.write(match)


def test_every_example_in_the_docs_reads_and_writes_back() -> None:
    examples = re.findall(r"^    (\d .*\|.*)$", DOCS.read_text(encoding="utf-8"), re.MULTILINE)
    assert len(examples) >= 5
    for text in examples:
        again = positions.match(positions.write(positions.match(text)))
        assert positions.write(again) == positions.write(positions.match(text))
