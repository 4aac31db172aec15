"""`--plain` tournament news: after the whole is told once, a screen reader hears only what
changed: each table's result once, the standings' top lines once a round is complete, the next
round's pairings once, the champion once; an unchanged tournament says nothing."""

from __future__ import annotations

import random

from hypothesis import given, settings
from hypothesis import strategies as st

from clients.cli import i18n
from clients.cli.tournament_news import TOP_LINES, news
from protocol.rules import Rules
from protocol.tournaments import (
    EntrantView,
    RoundView,
    StandingView,
    TableView,
    TournamentView,
)


def cup(names: list[str], rounds: list[RoundView], champion: int | None = None) -> TournamentView:
    """A Swiss tournament of `names` at tables of two with these rounds played so far."""
    return TournamentView(
        code="QWRTZ",
        name="Cup",
        format="swiss",
        rules=Rules(players=2),
        partners=None,
        rounds_planned=2,
        public=True,
        turn_seconds=None,
        host=names[0],
        phase="finished" if champion is not None else "playing",
        version=len(rounds),
        entrants=[EntrantView(name=name) for name in names],
        units=[[index] for index in range(len(names))],
        rounds=rounds,
        standings=[
            StandingView(unit=unit, match_points=2, buchholz=0, score=10, played=1, byes=0)
            for unit in range(len(names))
        ],
        champion=champion,
    )


def pairings(count: int, scores: dict[int, list[int]]) -> RoundView:
    """`count` tables (entrants 0-1, 2-3, ...), those in `scores` finished."""
    tables = [
        TableView(seats=[2 * n, 2 * n + 1], room=f"RM{n:02d}", scores=scores.get(n))
        for n in range(count)
    ]
    return RoundView(tables=tables, byes=[])


@settings(max_examples=40, deadline=None)
@given(
    tables=st.integers(min_value=1, max_value=8),
    order=st.randoms(use_true_random=False),
    you=st.integers(min_value=0, max_value=15),
)
def test_each_change_is_said_once_and_an_unchanged_tournament_says_nothing(
    tables: int, order: random.Random, you: int
) -> None:
    i18n.set_language("en")
    names = [f"P{n}" for n in range(2 * tables)]
    finishing = list(range(tables))
    order.shuffle(finishing)
    said: list[str] = []
    scores: dict[int, list[int]] = {}
    before = cup(names, [pairings(tables, scores)])
    for table in finishing:
        scores[table] = [10, table]
        now = cup(names, [pairings(tables, dict(scores))])
        assert news(now, now, you % len(names), 1000) == []
        said += news(before, now, you % len(names), 1000)
        before = now
    second = cup(names, [pairings(tables, scores), pairings(tables, {})])
    said += news(before, second, None, 1000)
    over = cup(names, [pairings(tables, scores), pairings(tables, {})], champion=0)
    said += news(second, over, None, 1000)
    text = "\n".join(said)
    for table in range(tables):
        line = f"Round 1, table {table + 1}: P{2 * table} – P{2 * table + 1}: 10 : {table}"
        assert said.count(line) == 1, text
    # The standings' top lines once, after the round's last result, and no more.
    assert said.count("Standings") == 1, text
    top = said.index("Standings")
    assert top > max(i for i, line in enumerate(said) if line.startswith("Round 1, table"))
    shown = said[top + 2 : top + 2 + min(TOP_LINES, len(names))]
    assert [line.split()[0] for line in shown] == [
        str(n) for n in range(1, 1 + min(TOP_LINES, len(names)))
    ]
    assert ("(/standings says them all)" in said) == (len(names) > TOP_LINES)
    assert said.count("Round 2") == 1 and said.count("Champion: P0") == 1, text
    assert not any("Entrants" in line for line in said), text
