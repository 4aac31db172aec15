"""`allfives arena`: duplicate deals, the figures it prints, and clear errors for bad options."""

from __future__ import annotations

import re

import pytest

from allfives.arena import Plan, percentile, wilson
from allfives.cli import main

FIGURE = r"-?\d+(\.\d+)?"


def run(capsys: pytest.CaptureFixture[str], *args: str) -> tuple[int, str, str]:
    status = main(["arena", *args])
    out, err = capsys.readouterr()
    return status, out, err


def test_a_short_arena_run_prints_every_figure_for_every_bot(
    capsys: pytest.CaptureFixture[str],
) -> None:
    status, out, _ = run(
        capsys, "--players", "2", "--bots", "easy,normal", "--matches", "4", "--target", "50",
        "--workers", "1", "--seed", "3",
    )  # fmt: skip
    assert status == 0
    lines = out.splitlines()
    assert "matches: 4" in lines
    assert "deals: 2" in lines
    for bot in ("easy", "normal"):
        wins = next(line for line in lines if line.startswith(f"{bot} match wins: "))
        assert re.fullmatch(rf"{bot} match wins: {FIGURE} \[{FIGURE}, {FIGURE}\]", wins)
        for name in ("points/hand", "decision p50 ms", "decision p99 ms"):
            assert any(re.fullmatch(rf"{bot} {name}: {FIGURE}", line) for line in lines), name
    rates = [float(line.split()[3]) for line in lines if "match wins" in line]
    assert sum(rates) == pytest.approx(1.0, abs=0.01)


def test_a_partnership_arena_runs_over_worker_processes(capsys: pytest.CaptureFixture[str]) -> None:
    status, out, _ = run(
        capsys, "--players", "4", "--teams", "--bots", "normal,normal", "--matches", "4",
        "--target", "50", "--workers", "2",
    )  # fmt: skip
    assert status == 0
    assert "matches: 4" in out.splitlines()
    assert "normal#1 match wins: " in out
    assert "normal#2 match wins: " in out


def test_the_same_seed_gives_the_same_figures(capsys: pytest.CaptureFixture[str]) -> None:
    args = ["--bots", "easy,normal", "--matches", "6", "--target", "50", "--workers", "1"]
    first = [line for line in run(capsys, *args)[1].splitlines() if "wins" in line]
    second = [line for line in run(capsys, *args)[1].splitlines() if "wins" in line]
    assert first == second


def test_each_deal_is_played_with_the_seats_swapped() -> None:
    plan = Plan(
        rules={"players": 4, "teams": True},
        entries=("hard", "normal"),
        names=("hard", "normal"),
        deals=1,
        seed=1,
        budget_ms=200.0,
    )
    assert [plan.seats_of(0, r) for r in range(plan.seatings)] == [[0, 2], [1, 3]]
    assert [plan.seats_of(1, r) for r in range(plan.seatings)] == [[1, 3], [0, 2]]


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (["--bots", "easy,grandmaster"], "unknown bot level 'grandmaster'"),
        (["--bots", "easy"], "--bots needs 2 levels"),
        (["--players", "3", "--teams"], "--teams needs --players 4"),
        (["--target", "52"], "multiple of 5"),
        (["--matches", "0"], "--matches must be at least 1"),
    ],
)
def test_bad_options_get_a_clear_error(
    capsys: pytest.CaptureFixture[str], args: list[str], message: str
) -> None:
    status, out, err = run(capsys, *args)
    assert status == 2
    assert message in err
    assert out == ""


def test_wilson_interval_and_percentiles() -> None:
    low, high = wilson(62, 100)
    assert (round(low, 3), round(high, 3)) == (0.522, 0.709)
    assert percentile([5.0, 1.0, 3.0, 2.0, 4.0], 50) == 3.0
    assert percentile([float(i) for i in range(1, 101)], 99) == 99.0
