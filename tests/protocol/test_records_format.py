"""The allfives-record/1 format: the docs/records.md example reads, records round-trip, non-records are refused."""

from __future__ import annotations

import copy
import json
from collections.abc import Callable
from typing import Any

import pytest
from hypothesis import given
from hypothesis import strategies as st

from protocol.records import (
    RECORD_FORMAT,
    HandResult,
    Record,
    RecordFormatError,
    RecordHand,
    RecordMove,
    decode_record,
    encode_record,
)
from protocol.rules import HAND_SIZES, Rules
from protocol.tiles import ALL_TILES, END_NAMES

# The docs/records.md example with its deal filled in: seat 2 holds 5-5, seat 3 holds 5-3.
EXAMPLE = {
    "format": "allfives-record/1",
    "rules": {
        "players": 4,
        "teams": True,
        "hand_size": "standard",
        "target": 200,
        "end_scoring": "opponents",
        "reserve": 0,
    },
    "names": ["Ann", "bot:hard", "Cid", "bot:normal"],
    "hands": [
        {
            "leader": 2,
            "deal": [
                ["6-6", "5-4", "3-1", "2-2", "0-0"],
                ["1-0", "1-1", "2-0", "2-1", "3-0"],
                ["5-5", "3-2", "3-3", "4-0", "4-1"],
                ["5-3", "4-2", "4-3", "5-0", "5-1"],
            ],
            "boneyard": ["4-4", "6-1", "5-2", "6-0", "6-2", "6-3", "6-4", "6-5"],
            "moves": [
                {"seat": 2, "tile": "5-5"},
                {"seat": 3, "tile": "5-3", "end": "east"},
                {"seat": 0, "pass": True},
            ],
        }
    ],
}


def example() -> dict[str, Any]:
    """A fresh copy of the example, to spoil in one place."""
    return copy.deepcopy(EXAMPLE)


def refusal(document: Any) -> str:
    """The message of the RecordFormatError that decoding the document raises."""
    data = document if isinstance(document, str | bytes) else json.dumps(document)
    with pytest.raises(RecordFormatError) as caught:
        decode_record(data)
    return str(caught.value)


def test_the_record_md_example_reads() -> None:
    record = decode_record(json.dumps(EXAMPLE))
    assert record.rules == Rules(players=4, target=200)
    assert record.names[1] == "bot:hard"
    hand = record.hands[0]
    assert hand.leader == 2
    assert hand.moves[1] == RecordMove(seat=3, tile="5-3", end="east")
    assert hand.moves[2].pass_ and hand.moves[2].tile is None
    assert record.scores is None and record.winner is None


def test_missing_rules_fields_take_the_rules_md_defaults() -> None:
    document = example()
    document["rules"] = {"players": 4}
    rules = decode_record(json.dumps(document)).rules
    assert (rules.teams, rules.hand_size, rules.target, rules.end_scoring, rules.reserve) == (
        True,
        "standard",
        None,
        "opponents",
        0,
    )
    assert rules.partnership and rules.target_score == 200 and rules.sides == 2


def test_dealt_tiles_are_read_high_end_first_and_moves_kept_as_written() -> None:
    document = example()
    document["hands"][0]["deal"][3][0] = "3-5"
    document["hands"][0]["moves"][0]["tile"] = "1-6"
    document["hands"][0]["moves"][1]["tile"] = "3-5"
    document["hands"][0]["boneyard"][0] = "4-4"
    hand = decode_record(json.dumps(document)).hands[0]
    assert hand.deal[3][0] == "5-3"
    # A lead's first-written number faces west (rules 5.1), so moves keep their order.
    assert hand.moves[0].tile == "1-6" and hand.moves[1].tile == "3-5"


def test_unknown_fields_are_ignored() -> None:
    document = example()
    document["annotator"] = "Ann"
    document["hands"][0]["moves"][0]["comment"] = "spinner!"
    document["rules"]["house_rule"] = 1
    assert decode_record(json.dumps(document)) == decode_record(json.dumps(EXAMPLE))


def test_computed_fields_are_read_and_written() -> None:
    document = example()
    document["hands"][0]["moves"][0].update({"drew": 0, "total": 10, "points": 10})
    document["hands"][0]["result"] = {"kind": "blocked", "by": None, "points": [0, 0]}
    document["scores"] = [10, 0]
    document["winner"] = None
    record = decode_record(json.dumps(document))
    assert record.hands[0].moves[0].points == 10
    assert record.hands[0].result == HandResult(kind="blocked", by=None, points=[0, 0])
    written = json.loads(encode_record(record))
    assert written["hands"][0]["result"] == {"kind": "blocked", "by": None, "points": [0, 0]}
    assert written["winner"] is None and written["scores"] == [10, 0]


def test_writing_leaves_out_empty_fields_and_puts_format_first() -> None:
    text = encode_record(decode_record(json.dumps(EXAMPLE)))
    assert text.startswith(b'{"format":"allfives-record/1"')
    written = json.loads(text)
    assert "winner" not in written and "scores" not in written
    assert written["hands"][0]["moves"][0] == {"seat": 2, "tile": "5-5"}
    assert written["hands"][0]["moves"][2] == {"seat": 0, "pass": True}


# Anything that is not a record is refused, saying where and why

SPOILERS: list[tuple[str, Callable[[dict[str, Any]], Any], str]] = [
    ("wrong format", lambda d: d.update(format="allfives-record/2"), "allfives-record/2"),
    ("no format", lambda d: d.pop("format"), 'no "format"'),
    ("no rules", lambda d: d.pop("rules"), "rules"),
    ("no hands", lambda d: d.pop("hands"), "hands"),
    ("five players", lambda d: d["rules"].update(players=5), "rules.players"),
    ("odd target", lambda d: d["rules"].update(target=203), "rules.target"),
    ("unknown variant", lambda d: d["rules"].update(hand_size="six"), "rules.hand_size"),
    ("unknown tile", lambda d: d["hands"][0]["deal"][1].__setitem__(2, "7-1"), "deal[1][2]"),
    ("not a tile", lambda d: d["hands"][0]["boneyard"].__setitem__(0, "44"), "boneyard[0]"),
    ("tile twice", lambda d: d["hands"][0]["boneyard"].__setitem__(0, "6-6"), "appears twice"),
    ("tile missing", lambda d: d["hands"][0]["boneyard"].pop(), 'lack "6-5"'),
    ("three hands dealt", lambda d: d["hands"][0]["deal"].pop(), "3 hands dealt"),
    ("short hand", lambda d: d["hands"][0]["deal"][0].pop(), "deal[0]: 4 tiles"),
    ("bad end", lambda d: d["hands"][0]["moves"][1].update(end="up"), "moves[1].end"),
    ("end on a pass", lambda d: d["hands"][0]["moves"][2].update(end="west"), "moves[2].end"),
    ("play and pass", lambda d: d["hands"][0]["moves"][0].update({"pass": True}), "not both"),
    ("empty move", lambda d: d["hands"][0]["moves"][0].pop("tile"), '"tile" or "pass"'),
    ("unknown move tile", lambda d: d["hands"][0]["moves"][0].update(tile="9-9"), "moves[0].tile"),
    ("no such seat", lambda d: d["hands"][0]["moves"][0].update(seat=4), "moves[0].seat"),
    ("no such leader", lambda d: d["hands"][0].update(leader=-1), "leader"),
    ("names count", lambda d: d["names"].pop(), "names"),
    ("seat not a number", lambda d: d["hands"][0]["moves"][0].update(seat="2"), "seat"),
    ("deal not a list", lambda d: d["hands"][0].update(deal="all"), "hands[0].deal"),
    (
        "result kind",
        lambda d: d["hands"][0].update(result={"kind": "x", "by": 0, "points": [0, 0]}),
        "kind",
    ),
    (
        "result points",
        lambda d: d["hands"][0].update(result={"kind": "domino", "by": 0, "points": [0]}),
        "per team",
    ),
    ("scores per seat", lambda d: d.update(scores=[0, 0, 0, 0]), "per team"),
    ("winner team", lambda d: d.update(scores=[200, 0], winner=2), "winner"),
]


@pytest.mark.parametrize(
    ("spoil", "says"), [(s[1], s[2]) for s in SPOILERS], ids=[s[0] for s in SPOILERS]
)
def test_a_spoiled_record_is_refused_with_a_message_saying_where(
    spoil: Callable[[dict[str, Any]], Any], says: str
) -> None:
    document = example()
    spoil(document)
    assert says in refusal(document)


@pytest.mark.parametrize(
    ("data", "says"),
    [
        ("{", "not JSON"),
        (b"\xff\xfe", "not JSON"),
        ("[1, 2]", "JSON object, not an array"),
        ('"allfives-record/1"', "not a string"),
        ("null", "not null"),
        ("[" * 5000 + "]" * 5000, "nested too deeply"),
    ],
)
def test_a_document_that_is_not_a_record_is_refused(data: str | bytes, says: str) -> None:
    assert says in refusal(data)


# Any well-formed record round-trips


@st.composite
def records(draw: st.DrawFn) -> Record:
    """A well-formed record: any variant, shuffled deals, moves that may or may not be legal."""
    players = draw(st.integers(2, 4))
    rules = Rules(
        players=players,
        teams=draw(st.booleans()),
        hand_size=draw(st.sampled_from(sorted(HAND_SIZES))),
        target=draw(st.none() | st.integers(1, 100).map(lambda n: n * 5)),
        end_scoring=draw(st.sampled_from(["opponents", "penalty"])),
        reserve=draw(st.integers(0, 7)),
    )
    hands = [draw(record_hands(rules)) for _ in range(draw(st.integers(0, 3)))]
    scored = draw(st.booleans())
    return Record(
        rules=rules,
        names=draw(st.lists(st.text(max_size=8), min_size=players, max_size=players)),
        hands=hands,
        scores=draw(st.lists(st.integers(-50, 300), min_size=rules.sides, max_size=rules.sides))
        if scored
        else None,
        winner=draw(
            st.none()
            | st.integers(0, rules.sides - 1)
            | st.lists(st.integers(0, players - 1), max_size=2)
        ),
    )


@st.composite
def record_hands(draw: st.DrawFn, rules: Rules) -> RecordHand:
    """One hand of a record: a shuffled deal and some moves."""
    tiles = draw(st.permutations(ALL_TILES))
    size = rules.tiles_per_hand
    deal = [list(tiles[seat * size : (seat + 1) * size]) for seat in range(rules.players)]
    seats = st.integers(0, rules.players - 1)
    play = st.builds(
        RecordMove,
        seat=seats,
        tile=st.sampled_from(ALL_TILES),
        end=st.none() | st.sampled_from(END_NAMES),
        drew=st.none() | st.integers(0, 10),
        total=st.none() | st.integers(0, 60),
        points=st.none() | st.integers(0, 60),
    )
    passing = st.builds(RecordMove, seat=seats, pass_=st.just(True))
    result = st.builds(
        HandResult,
        kind=st.sampled_from(["domino", "blocked", "won"]),
        by=st.none() | seats,
        points=st.lists(st.integers(-100, 100), min_size=rules.sides, max_size=rules.sides),
    )
    return RecordHand(
        leader=draw(seats),
        deal=deal,
        boneyard=list(tiles[rules.players * size :]),
        moves=draw(st.lists(play | passing, max_size=6)),
        result=draw(st.none() | result),
    )


@given(records())
def test_any_well_formed_record_round_trips(record: Record) -> None:
    text = encode_record(record)
    assert decode_record(text) == record
    assert json.loads(text)["format"] == RECORD_FORMAT


@given(records(), st.data())
def test_tiles_in_either_order_read_the_same(record: Record, data: st.DataObject) -> None:
    document = json.loads(encode_record(record))
    for hand in document["hands"]:
        hand["deal"] = [
            [data.draw(st.sampled_from([t, t[::-1]])) for t in tiles] for tiles in hand["deal"]
        ]
        hand["boneyard"] = [t[::-1] for t in hand["boneyard"]]
    assert decode_record(json.dumps(document)) == record
