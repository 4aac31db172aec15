"""The one placing and counting kernel (engine/kernel.py) against the engine's own layout.

The bots' playouts, the endgame solver and the totals of the legal moves the server sends all
count with the kernel; the engine plays with `Layout`. Random matches of every player count and
variant check, move by move, that both place every tile alike and count the same total, and that
what the kernel says a move would make is what the engine makes of it.
"""

from __future__ import annotations

import random

from engine_helpers import RULES, random_move
from hypothesis import given, settings
from hypothesis import strategies as st
from protocol_helpers import examples

from engine import Match, Played, Rules
from engine.kernel import LEAD, MAX_TOTAL, POINTS, greedy_plays, place, points_of, total_after
from engine.layout import Layout
from engine.parts import own
from engine.tiles import PIPS


def predicted(layout: Layout, tile: int, end: int) -> int:
    """The kernel's total for a move on an engine layout, without placing it."""
    sides = layout.spinner_sides
    return total_after(layout.open, layout.weight, layout.spinner, sides[0], sides[1], tile, end)


@settings(max_examples=examples(60), deadline=None)
@given(rules=RULES, seed=st.integers(0, 2**32), rng=st.randoms(use_true_random=False))
def test_the_kernel_places_and_counts_every_move_as_the_engine_does(
    rules: Rules, seed: int, rng: random.Random
) -> None:
    match = Match.new(rules, seed=seed)
    o: list[int] = []
    w: list[int] = []
    sp, s0, s1 = -1, False, False
    while not match.over:
        layout = match.layout
        if layout.empty:
            o, w, sp, s0, s1 = [-1] * 4, [0] * 4, -1, False, False
        legal = match.legal_moves()
        seat_part = own(match, match.turn)
        assert seat_part.legal == tuple(legal)
        for move, total in zip(legal, seat_part.totals, strict=True):
            if move.tile is None:
                assert total is None
                continue
            trial = match.copy()
            made = [e for e in trial.apply(trial.turn, move) if isinstance(e, Played)]
            end = LEAD if move.end is None else int(move.end)
            assert total == predicted(layout, int(move.tile), end) == made[0].total
            assert POINTS[total] == points_of(total) == made[0].points
        if not layout.empty and legal[0].tile is not None:
            # The bots' list of plays is the engine's legal list, each keyed by what it scores.
            tiles = 1 << match.forced if match.forced >= 0 else match.hands[match.turn]
            sides = layout.spinner_sides
            keyed = greedy_plays(tiles, layout.open, layout.weight, layout.spinner, *sides)
            assert [(t, e) for _, t, e in keyed] == [(int(m.tile), m.end) for m in legal]  # type: ignore[arg-type]
            for (key, t, _), total in zip(keyed, seat_part.totals, strict=True):
                assert total is not None and key == points_of(total) * 64 + PIPS[t]
        move = random_move(match, rng)
        hand = match.hand_number
        events = match.apply(match.turn, move)
        played = [e for e in events if isinstance(e, Played)]
        if not played:
            continue
        tile = int(played[0].tile)
        end = LEAD if played[0].end is None else int(played[0].end)
        sp, s0, s1, total = place(o, w, sp, s0, s1, tile, end)
        assert total == played[0].total <= MAX_TOTAL
        if match.over or match.hand_number != hand:
            continue  # the hand ended with this tile: the layout is the next hand's
        if end == LEAD and move.flipped:
            # A lead written low number first faces the other way; the count is the same.
            o[0], o[1], w[0], w[1] = o[1], o[0], w[1], w[0]
        after = match.layout
        assert (o, w, sp, [s0, s1]) == (
            after.open,
            after.weight,
            after.spinner,
            after.spinner_sides,
        )
        assert total == after.total()
