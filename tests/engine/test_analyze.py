"""`allfives analyze`: the hard bot's review of a record, seat by seat, from what each seat saw."""

from __future__ import annotations

import asyncio
import json
import math
import random
from pathlib import Path

import msgspec
import pytest
from client_helpers import play_first_legal

from allfives.cli import main
from bridge.records import match_of, record_of
from bridge.reviews import review_record, wire_reason
from clients.cli import review as review_module
from clients.cli.connection import Connection
from clients.cli.review_words import reason_words
from clients.cli.state import TableState
from engine import ALL_TILES, Match, Move, Rules, Tile, View, mask_of, positions
from engine.analysis import COSTLY, Decision, review
from engine.bots import HardBot, make_bot
from engine.bots.infer import Knowledge
from engine.reasons import Reason
from protocol import messages as msg
from protocol.records import Record, decode_record, encode_record
from protocol.rules import RoomRules
from server.app import Config, run_server

LOW_BUDGET_MS = 10.0  # 50 deals a decision: enough to rank what these tests compare


def played(match: Match, levels: list[str], seed: int) -> Record:
    """The record of a whole match between bots (hard searches a fixed number of deals)."""
    bots = [
        HardBot(seed + s, budget_ms=None, max_samples=60) if level == "hard" else make_bot(level)
        for s, level in enumerate(levels)
    ]
    while not match.over:
        match.apply(match.turn, bots[match.turn].choose(match.view_for(match.turn)))
    return record_of(match, levels, computed=False)


def bot_record(levels: list[str], seed: int, **rules: object) -> Record:
    rules_ = Rules(players=len(levels), **rules)  # type: ignore[arg-type]
    return played(Match.new(rules_, seed=seed), levels, seed)


# -- positions on paper --------------------------------------------------------------------------

#: Seat 1 led 6-3; seat 0 is to play (what seat 1 still holds is hidden from seat 0's view).
LED_6_3 = "2 hand_size=five | (6-3) | 6-6 3-1 2-0 4-0 4-2 / 1-0 2-2 3-3 4-4 | ... | 0 | 0 0"


def check_paper(view: View) -> None:
    """The view is one the engine could show: some full deal agrees with it."""
    hands, boneyard = Knowledge.of_view(view).sample(random.Random(1))
    assert view.hand is not None and view.seat is not None
    hands[view.seat] = mask_of(view.hand)
    assert Match.from_view(view, hands, boneyard).view_for(view.seat) == view


def test_a_move_that_scores_15_now_beats_one_that_scores_nothing() -> None:
    # Seat 1 led 6-3 (9). 6-6 west makes 12 + 3 = 15; 3-1 east makes 6 + 1 = 7.
    view = positions.view(LED_6_3, seat=0)
    check_paper(view)
    decision = Decision(hand=1, number=2, view=view, played=Move.parse("3-1 east"))
    verdict = review(decision, budget_ms=LOW_BUDGET_MS, seed=3)
    assert verdict.best == Move.parse("6-6 west")
    assert verdict.lost >= COSTLY
    assert verdict.costly
    assert verdict.reasons[0] == Reason(kind="passed_up", points=15, move=Move.parse("6-6 west"))
    assert [move for move, _ in verdict.values] == [Move.parse("6-6 west"), Move.parse("3-1 east")]
    best = Decision(hand=1, number=2, view=view, played=Move.parse("6-6 west"))
    assert review(best, budget_ms=LOW_BUDGET_MS, seed=3).lost == 0


def test_a_heavy_double_kept_to_the_end_of_the_hand_is_named() -> None:
    view = positions.view(LED_6_3, seat=0)
    kept = tuple(Tile.parse(t) for t in ("6-6", "4-2"))
    counted = Decision(
        hand=1, number=2, view=view, played=Move.parse("3-1 east"), kept=kept, counted=True
    )
    reasons = review(counted, budget_ms=LOW_BUDGET_MS, seed=3).reasons
    assert [r.kind for r in reasons] == ["passed_up", "opened", "kept_heavy"]
    assert reasons[2] == Reason(kind="kept_heavy", tile=Tile.parse("6-6"), points=12, counted=True)
    assert reasons[1] == Reason(kind="opened", points=10, move=Move.parse("4-1 east"), seat=1)
    spent = Decision(hand=1, number=2, view=view, played=Move.parse("3-1 east"), kept=kept[1:])
    assert review(spent, budget_ms=LOW_BUDGET_MS, seed=3).reasons == reasons[:2]


def test_the_reasons_are_worded_by_the_client_with_the_names_of_the_record() -> None:
    view = positions.view(LED_6_3, seat=0)
    kept = tuple(Tile.parse(t) for t in ("6-6", "4-2"))
    counted = Decision(
        hand=1, number=2, view=view, played=Move.parse("3-1 east"), kept=kept, counted=True
    )
    reasons = [wire_reason(r) for r in review(counted, budget_ms=LOW_BUDGET_MS, seed=3).reasons]
    assert [reason_words(r, ["Ann", "Bob\x1b[2J"]) for r in reasons] == [
        "passed up 15 points with 6-6 west",
        "opened 10 for Bob\u241b[2J (4-1 east)",
        "kept 6-6 (a heavy double), counted against you when the hand ended",
    ]
    assert reason_words(reasons[1], []) == "opened 10 for seat 2 (4-1 east)"


def test_a_move_that_hands_the_next_player_20_is_ranked_below_a_safe_one() -> None:
    # 6-6 is the spinner (12) with 6-3 east of it. 4-3 east makes 16 and lets 4-4 make 12 + 8 = 20;
    # 3-2 east makes 14, and nothing unseen then scores.
    view = positions.view(
        "2 hand_size=five | 6-6* (6-3) | 3-2 4-3 4-1 0-0 / 1-0 2-2 3-3 4-4 | ... | 0 | 0 15", seat=0
    )
    check_paper(view)
    decision = Decision(hand=1, number=3, view=view, played=Move.parse("4-3 east"))
    verdict = review(decision, budget_ms=LOW_BUDGET_MS, seed=3)
    assert verdict.best == Move.parse("3-2 east")
    assert verdict.lost >= 5
    assert verdict.reasons == (
        Reason(kind="opened", points=20, move=Move.parse("4-4 east"), seat=1, scored=0),
    )


def test_a_tile_at_either_side_of_a_lone_double_costs_nothing() -> None:
    view = positions.view(
        "2 hand_size=five | (5-5*) | 5-3 2-1 6-1 4-0 6-2 / 1-0 2-2 3-3 4-4 | ... | 0 | 0 10", seat=0
    )
    for end in ("east", "west"):
        decision = Decision(hand=1, number=2, view=view, played=Move.parse(f"5-3 {end}"))
        assert review(decision, budget_ms=LOW_BUDGET_MS, seed=1).lost == 0


def test_the_analysis_uses_the_hard_bots_own_choice() -> None:
    for seed in range(4):
        match = Match.new(Rules(players=3), seed=seed)
        view = match.view_for(match.turn)
        bot = HardBot(seed, budget_ms=None, max_samples=40)
        verdict = bot.evaluate(view)
        assert verdict.best == HardBot(seed, budget_ms=None, max_samples=40).choose(view)
        assert set(verdict.as_dict()) == set(view.legal)


# -- only what the seat saw -----------------------------------------------------------------------


def swapped_hidden_tiles(record: Record, seat: int, hand: int) -> Record | None:
    """The record with a tile another seat never played swapped with another hidden tile.

    The tiles swapped are held to the end of `hand` by other seats or never drawn from the
    boneyard; the result must still be a legal record (else None).
    """
    match = match_of(record)
    moves = match.record[hand].moves
    written = record.hands[hand]
    used = {str(ALL_TILES[m.tile]) for m in moves if m.tile >= 0}
    drawn = sum(m.drew for m in moves)
    places = [
        (s, i)
        for s, tiles in enumerate(written.deal)
        if s != seat
        for i, tile in enumerate(tiles)
        if tile not in used
    ]
    places += [(-1, i) for i in range(drawn, len(written.boneyard))]
    rng = random.Random(hand)
    for _ in range(200):
        (s1, i1), (s2, i2) = rng.sample(places, 2)
        if s1 == s2:
            continue
        twin = msgspec.convert(msgspec.to_builtins(record), Record)
        hand_ = twin.hands[hand]
        row1 = hand_.boneyard if s1 < 0 else hand_.deal[s1]
        row2 = hand_.boneyard if s2 < 0 else hand_.deal[s2]
        row1[i1], row2[i2] = row2[i2], row1[i1]
        try:
            match_of(twin)
        except ValueError:
            continue
        return twin
    return None


@pytest.mark.parametrize(("players", "seed"), [(2, 5), (3, 6), (4, 7)])
def test_swapping_other_seats_hidden_tiles_never_changes_a_seats_analysis(
    players: int, seed: int
) -> None:
    record = bot_record(["normal"] * players, seed, target=100)
    found = [
        (hand, twin)
        for hand in range(len(record.hands))
        if (twin := swapped_hidden_tiles(record, seat=0, hand=hand)) is not None
    ]
    assert found
    hand, twin = found[0]
    assert twin.hands[hand] != record.hands[hand]
    first = review_record(record, [0], LOW_BUDGET_MS, seed=2)
    second = review_record(twin, [0], LOW_BUDGET_MS, seed=2)
    this_hand = [line for line in first.moves if line.hand == hand + 1]
    assert this_hand
    assert [line for line in second.moves if line.hand == hand + 1] == this_hand


# -- whole matches ----------------------------------------------------------------------------------


def test_a_whole_bot_match_costs_normal_more_than_hard() -> None:
    record = bot_record(["hard", "normal"], seed=3)
    report = review_record(record, None, LOW_BUDGET_MS, seed=1)
    hard, normal = report.players
    assert (hard.name, normal.name) == ("hard", "normal")
    assert hard.decisions > 10 and normal.decisions > 10
    assert normal.lost / normal.decisions > hard.lost / hard.decisions
    assert normal.lost_per_hand > hard.lost_per_hand
    assert normal.costly >= 1
    costliest = [line.lost for line in normal.costliest]
    assert costliest == sorted(costliest, reverse=True) and len(costliest) == 3
    assert max(line.lost for line in report.moves if line.seat == 1) == costliest[0]


# -- the command --------------------------------------------------------------------------------------


@pytest.fixture(scope="module")
def record_file(tmp_path_factory: pytest.TempPathFactory) -> Path:
    path = tmp_path_factory.mktemp("analyze") / "match.json"
    record = bot_record(["hard", "normal"], seed=8, target=100)
    path.write_bytes(encode_record(record))
    return path


def analyze(capsys: pytest.CaptureFixture[str], *args: str) -> tuple[int, str, str]:
    status = main(["analyze", *args])
    out, err = capsys.readouterr()
    return status, out, err


def test_json_names_every_decision_of_the_seat_and_its_summary(
    record_file: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    status, out, _ = analyze(capsys, str(record_file), "--json", "--seat", "2", "--budget-ms", "5")
    assert status == 0
    report = json.loads(out)
    assert set(report) == {"version", "budget_ms", "seed", "deals", "players", "moves"}
    assert report["version"] == 2
    (player,) = report["players"]
    assert player["seat"] == 1 and player["name"] == "normal"
    assert player["decisions"] == len(report["moves"]) > 0
    assert player["hands"] == len(decode_record(record_file.read_bytes()).hands)
    assert player["lost_per_hand"] == pytest.approx(player["lost"] / player["hands"], abs=0.01)
    for move in report["moves"]:
        assert move["seat"] == 1
        assert set(move) >= {"hand", "move", "played", "best", "lost", "costly", "reasons"}
        assert move["costly"] == (move["lost"] >= 10) == (move["grade"] == "blunder")
        assert move["accuracy"] == pytest.approx(100 * math.exp(-move["lost"] / 10), abs=0.06)
        assert move["lost"] >= 0
        if move["lost"] == 0:
            assert move["reasons"] == []
        assert move["values"][0]["move"] == move["best"]
    again = analyze(capsys, str(record_file), "--json", "--seat", "2", "--budget-ms", "5")
    assert again[1] == out  # the same seed gives the same analysis


def test_text_lists_moves_and_marks_the_costly_ones(
    record_file: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    status, out, err = analyze(capsys, str(record_file), "--budget-ms", "5")
    assert status == 0 and err == ""
    assert "hard (seat 1)" in out and "normal (seat 2)" in out
    assert "points lost a move" in out and "costliest moves:" in out
    report = review_record(decode_record(record_file.read_bytes()), None, 5.0, seed=0)
    assert out.count("??") == sum(player.costly for player in report.players)
    for player in report.players:
        assert f"accuracy {player.accuracy:.1f}%" in out


def test_exit_statuses_are_those_of_replay(
    record_file: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    not_json = tmp_path / "not.json"
    not_json.write_text("{ nope")
    status, out, err = analyze(capsys, str(not_json))
    assert (status, out) == (2, "") and "not a record" in err
    status, _, err = analyze(capsys, str(tmp_path / "missing.json"))
    assert status == 2 and "cannot read" in err

    document = json.loads(record_file.read_text())
    first = document["hands"][0]["moves"][0]
    held = set(document["hands"][0]["deal"][first["seat"]])
    first["tile"] = next(t for hand in document["hands"][0]["deal"] for t in hand if t not in held)
    illegal = tmp_path / "illegal.json"
    illegal.write_text(json.dumps(document))
    status, out, err = analyze(capsys, str(illegal))
    assert (status, out) == (1, "")
    assert "illegal: hand 1, move 1" in err

    status, _, err = analyze(capsys, str(record_file), "--seat", "3")
    assert status == 2 and "no seat 3" in err
    status, _, err = analyze(capsys, str(record_file), "--seat", "0")
    assert status == 2 and "no seat 0" in err


# -- the terminal client's /review ------------------------------------------------------------------


async def test_review_in_the_terminal_client_after_a_match(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(review_module, "BUDGET_MS", 5.0)
    config = Config.of(
        host="127.0.0.1", port=0, bot_delay=0.0, bot_processes=False, rate=1000.0, burst=1000
    )
    async with run_server(config) as server:
        state = TableState()
        changed = asyncio.Event()
        connection = Connection(server.url, "Ann", state, on_change=changed.set)
        first = [
            msg.CreateRoom(rules=RoomRules(players=2, target=50), seat=0),
            msg.AddBot(level="normal"),
        ]
        link = asyncio.create_task(connection.run(first))
        refused_early = None
        played_at = None
        async with asyncio.timeout(30):
            while state.view is None or state.view.phase != "finished":
                await changed.wait()
                changed.clear()
                view = state.view
                if view is None:
                    continue
                if view.phase == "waiting" and all(view.seats) and refused_early is None:
                    refused_early = await review_module.review(connection, state)
                    await connection.send(msg.Start())
                played_at = await play_first_legal(connection, state, played_at)
            rows = await review_module.review(connection, state)
        await connection.close()
        link.cancel()
    assert refused_early == "a review is for a finished match: /review once it is over"
    assert isinstance(rows, list)
    text = "\n".join(row.plain for row in rows)
    assert "Ann (seat 1): accuracy " in text and "points lost a move" in text
    assert "seat 2" not in text  # only the player's own moves
    assert state.record is not None and state.record.names[0] == "Ann"


def test_one_hand_is_said_as_one_hand(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """A match over in its first hand: "2 players, 1 hand", not "1 hands"."""
    record = bot_record(["easy", "easy"], seed=1, target=5)
    assert len(record.hands) == 1
    path = tmp_path / "short.json"
    path.write_bytes(encode_record(record))
    status, out, _err = analyze(capsys, str(path), "--budget-ms", "5")
    assert status == 0 and "2 players, 1 hand;" in " ".join(out.split()), out
