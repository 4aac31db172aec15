"""`allfives replay`: records of real matches replay legally; broken ones get the right exit status."""

from __future__ import annotations

import json
import random
import subprocess
import sys
from pathlib import Path

import pytest
from engine_helpers import finished_match, play, random_move
from hypothesis import given, settings
from hypothesis import strategies as st
from protocol_helpers import examples

from allfives.cli import main
from bridge.records import match_of, record_of
from clients.cli import i18n
from engine import Match, Rules, positions
from engine.rules import EndScoring
from protocol.records import decode_record, encode_record


def write_record(tmp_path: Path, match: Match, computed: bool = False) -> Path:
    names = [f"p{s}" for s in range(match.players)]
    path = tmp_path / "match.json"
    path.write_bytes(encode_record(record_of(match, names, computed=computed)))
    return path


@settings(max_examples=examples(30), deadline=None)
@given(
    players=st.sampled_from([2, 3, 4]),
    teams=st.booleans(),
    end_scoring=st.sampled_from(["opponents", "penalty"]),
    seed=st.integers(0, 10**6),
)
def test_a_record_goes_through_json_and_replays_to_the_same_match(
    players: int, teams: bool, end_scoring: EndScoring, seed: int
) -> None:
    match = finished_match(
        Rules(players=players, teams=teams, end_scoring=end_scoring, target=100), seed
    )
    record = decode_record(encode_record(record_of(match, ["x"] * players, computed=False)))
    again = match_of(record)
    assert (again.scores, again.winner, again.over) == (match.scores, match.winner, True)


def test_replay_says_legal_and_exits_0(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    match = finished_match(Rules(players=4), 7)
    assert main(["replay", str(write_record(tmp_path, match))]) == 0
    out = capsys.readouterr().out
    assert out.startswith("legal:") and f"winner: {match.winner}" in out


def test_replay_speaks_the_players_language(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    match = finished_match(Rules(players=4), 7)
    broken = tmp_path / "broken.json"
    broken.write_text("{}")
    try:
        assert main(["--lang", "cs", "replay", str(write_record(tmp_path, match))]) == 0
        said = capsys.readouterr().out
        assert main(["--lang", "cs", "replay", str(broken)]) == 2
        refused = capsys.readouterr().err
    finally:
        i18n.set_language("en")
    assert said.startswith("platné: ") and "skóre podle týmů" in said and "vítěz: " in said
    assert "legal" not in said and "winner" not in said
    assert refused.startswith("allfives replay: není to záznam: ")


def test_replay_json_adds_the_computed_fields(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    match = finished_match(Rules(players=2), 3)
    assert main(["replay", str(write_record(tmp_path, match)), "--json"]) == 0
    doc = json.loads(capsys.readouterr().out)
    assert doc["scores"] == match.scores and doc["winner"] == match.winner
    first = doc["hands"][0]
    assert first["result"]["kind"] in ("domino", "blocked", "won")
    assert all({"drew", "points"} <= set(m) for m in first["moves"])
    assert all("total" in m for m in first["moves"] if "tile" in m)
    assert sum(m["points"] for h in doc["hands"] for m in h["moves"]) + sum(
        sum(h["result"]["points"]) for h in doc["hands"] if "result" in h
    ) == sum(match.scores)


def test_an_illegal_move_exits_1_and_names_hand_move_and_rule(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    match = finished_match(Rules(players=2), 5)
    doc = json.loads(write_record(tmp_path, match).read_bytes())
    hand = doc["hands"][0]
    other = 1 - hand["moves"][2]["seat"]
    hand["moves"][2]["tile"] = hand["deal"][other][0]  # a tile the mover does not hold
    path = tmp_path / "bad.json"
    path.write_text(json.dumps(doc))
    assert main(["replay", str(path)]) == 1
    err = capsys.readouterr().err
    assert "hand 1, move 3" in err and "does not hold" in err and "rule 4.1" in err


def test_moves_past_the_end_of_the_match_are_illegal(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    match = finished_match(Rules(players=2, target=50), 9)
    doc = json.loads(write_record(tmp_path, match).read_bytes())
    doc["hands"][-1]["moves"].append({"seat": 0, "pass": True})
    path = tmp_path / "late.json"
    path.write_text(json.dumps(doc))
    assert main(["replay", str(path)]) == 1
    assert "over" in capsys.readouterr().err


@pytest.mark.parametrize(
    "content",
    [
        b"not json at all",
        b"[1, 2]",
        b'{"format": "allfives-record/2", "rules": {"players": 2}}',
        b'{"format": "allfives-record/1", "rules": {"players": 2}, "hands": [{"leader": 0, "deal": [["9-9"], []], "boneyard": []}]}',
    ],
)
def test_a_file_that_is_not_a_record_exits_2(
    tmp_path: Path, content: bytes, capsys: pytest.CaptureFixture[str]
) -> None:
    path = tmp_path / "x.json"
    path.write_bytes(content)
    assert main(["replay", str(path)]) == 2
    assert "not a record" in capsys.readouterr().err


def test_a_deal_that_is_not_the_28_tiles_exits_2(tmp_path: Path) -> None:
    match = finished_match(Rules(players=2), 1)
    doc = json.loads(write_record(tmp_path, match).read_bytes())
    doc["hands"][0]["boneyard"][0] = doc["hands"][0]["boneyard"][1]
    path = tmp_path / "dup.json"
    path.write_text(json.dumps(doc))
    assert main(["replay", str(path)]) == 2


def test_the_console_script_never_prints_a_traceback(tmp_path: Path) -> None:
    path = tmp_path / "x.json"
    path.write_bytes(b'{"format": "allfives-record/1", "rules": {"players": 7}}')
    done = subprocess.run(
        [sys.executable, "-m", "allfives.cli", "replay", str(path)], capture_output=True, text=True
    )
    assert done.returncode == 2 and "Traceback" not in done.stderr


def test_an_unfinished_match_exports_and_replays_to_the_same_position(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    match = Match.new(Rules(players=3), seed=21)
    rng = random.Random(2)
    for _ in range(40):
        match.apply(match.turn, random_move(match, rng))
    again = match_of(decode_record(encode_record(record_of(match, ["a", "b", "c"]))))
    assert again.hands == match.hands and again.scores == match.scores and again.turn == match.turn
    assert main(["replay", str(write_record(tmp_path, match))]) == 0
    assert "unfinished" in capsys.readouterr().out


def test_a_lead_written_low_number_first_replays_with_that_number_west(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    match = positions.match(
        "2 hand_size=five | - | 6-1 5-5 4-4 0-0 5-0 / 6-2 1-2 3-3 3-0 4-0 | ... | 0 | 0 0"
    )
    play(match, "1-6", "6-2 east")
    path = write_record(tmp_path, match)
    document = json.loads(path.read_text())
    assert [m["tile"] for m in document["hands"][0]["moves"]] == ["1-6", "6-2"]
    assert main(["replay", str(path), "--json"]) == 0
    replayed = json.loads(capsys.readouterr().out)
    assert [m["total"] for m in replayed["hands"][0]["moves"]] == [7, 3]
    # The same moves with the lead written high number first put 6 west: 6-2 no longer fits east.
    document["hands"][0]["moves"][0]["tile"] = "6-1"
    path.write_text(json.dumps(document))
    assert main(["replay", str(path)]) == 1
    assert (
        "hand 1, move 2: 6-2 does not match the east end (1) (rule 5.2)" in capsys.readouterr().err
    )
