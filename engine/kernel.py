"""Placing a tile and counting the ends on plain ints (docs/rules.md 5, 6): the one fast kernel.

The bots' playouts (`engine.bots.sim`), the endgame solver (`engine.bots.endgame`), the bots'
move choice and the legal moves' totals the server sends (`engine.parts`) all place and count
with these functions. `engine.layout.Layout` is the reference that also keeps the chains drawn
on the table; tests/engine/test_kernel.py plays random matches of every player count and variant and
checks, move by move, that this kernel and `Layout` agree.

The state of the ends is five values, as `Layout` holds them: `o[e]` the number open at end `e`
(-1 where nothing may be played), `w[e]` what that end adds to the count, `sp` the spinner's
number (-1 while there is none), and `s0`, `s1` whether the spinner's west and east line sides
are still empty (while one is, the spinner counts both halves, 6.2).
"""

from __future__ import annotations

from collections.abc import Iterable, MutableSequence, Sequence

from engine.tiles import HIGH, LOW, PIPS, SUIT

#: The end of a lead: the first tile on an empty layout.
LEAD = -1
#: SUITX[n] is SUIT[n], and SUITX[-1] is 0: the tiles a closed end (-1) takes.
SUITX: tuple[int, ...] = (*SUIT, 0)
#: ADDS[n][t]: what tile t, played on an end showing n, makes that end count: both halves for a
#: double (6.3), else its other number (meaningless where t does not match n).
ADDS: tuple[tuple[int, ...], ...] = tuple(
    tuple(2 * h if h == lo else (lo if h == n else h) for h, lo in zip(HIGH, LOW, strict=True))
    for n in range(7)
)

#: The highest ends total there can be (four ends on double sixes); POINTS has one entry more.
MAX_TOTAL = 48
#: POINTS[total]: what an ends total scores, itself when a positive multiple of 5 (6.4), as a
#: table for the bots' inner loops (`points_of` says the same).
POINTS: tuple[int, ...] = tuple(t if t % 5 == 0 else 0 for t in range(MAX_TOTAL + 1))


def place(
    o: MutableSequence[int],
    w: MutableSequence[int],
    sp: int,
    s0: bool,
    s1: bool,
    tile: int,
    end: int,
) -> tuple[int, bool, bool, int]:
    """Place `tile` at `end` (LEAD: lead it, high number west), which it matches.

    `o` and `w` change in place; returns the spinner, whether its west and east line sides are
    still empty, and the ends total after the tile (6.1-6.3).
    """
    h = HIGH[tile]
    lo = LOW[tile]
    if end < 0:
        o[0] = h
        o[1] = lo
        if h == lo:
            w[0] = w[1] = 0
            return h, True, True, 2 * h
        w[0] = h
        w[1] = lo
        return sp, s0, s1, h + lo
    outer = lo if h == o[end] else h
    covering = (s0 if end == 0 else s1) if end < 2 else False
    o[end] = outer
    if h == lo and sp < 0:
        # The first double is the spinner; the side it was played on is already taken (5.3).
        sp = h
        w[end] = 0
        if end == 0:
            s0 = True
        else:
            s1 = True
    else:
        if end == 0:
            s0 = False
        elif end == 1:
            s1 = False
        w[end] = 2 * h if h == lo else outer
        if covering and not s0 and not s1:
            # Both line sides are taken: the arms open (5.4).
            o[2] = o[3] = sp
    total = w[0] + w[1] + w[2] + w[3]
    if s0 or s1:
        total += 2 * sp
    return sp, s0, s1, total


def others(w: Sequence[int], sp: int, s0: bool, s1: bool, end: int) -> int:
    """What every end but `end` counts once a tile covers `end` (a line side of the spinner that
    stays empty counts the spinner's two halves)."""
    rest = w[0] + w[1] + w[2] + w[3] - w[end]
    if (s1 if end == 0 else s0) if end < 2 else (s0 or s1):
        rest += 2 * sp
    return rest


def total_after(
    o: Sequence[int], w: Sequence[int], sp: int, s0: bool, s1: bool, tile: int, end: int
) -> int:
    """The ends total once `tile` is placed at `end` (LEAD on an empty layout), without placing it."""
    if end < 0:
        return PIPS[tile]  # a lone tile counts its pips, a double both halves (6.2)
    return others(w, sp, s0, s1, end) + ADDS[o[end]][tile]


def greedy_plays(
    tiles: int, o: Sequence[int], w: Sequence[int], sp: int, s0: bool, s1: bool
) -> list[tuple[int, int, int]]:
    """Every play of the tiles in the mask `tiles` as (greedy key, tile, end), in end then tile
    order; the key is what the play scores, then its pips (the bots' greedy choice)."""
    keyed = []
    for e in range(4):
        n = o[e]
        if n < 0:
            continue
        fits = tiles & SUIT[n]
        if not fits:
            continue
        rest = others(w, sp, s0, s1, e)
        adds = ADDS[n]
        while fits:
            low_bit = fits & -fits
            fits ^= low_bit
            t = low_bit.bit_length() - 1
            keyed.append((POINTS[rest + adds[t]] * 64 + PIPS[t], t, e))
    return keyed


def totals_of(
    o: Sequence[int],
    w: Sequence[int],
    sp: int,
    s0: bool,
    s1: bool,
    plays: Iterable[tuple[int | None, int | None, bool]],
) -> tuple[int | None, ...]:
    """`total_after` for each of `plays`, each (tile, end, ...) as a `Move` is: None for a pass
    (no tile), a lead where there is no end. One loop for a whole legal list (a room's hot path)."""
    base = w[0] + w[1] + w[2] + w[3]
    spinner = 2 * sp
    made: list[int | None] = []
    for tile, end, _ in plays:
        if tile is None:
            made.append(None)
        elif end is None:
            made.append(PIPS[tile])
        elif (s1 if end == 0 else s0) if end < 2 else (s0 or s1):
            made.append(base - w[end] + spinner + ADDS[o[end]][tile])
        else:
            made.append(base - w[end] + ADDS[o[end]][tile])
    return tuple(made)


def points_of(total: int) -> int:
    """What a total scores: itself when a positive multiple of 5, else nothing (6.4)."""
    return total if total % 5 == 0 else 0
