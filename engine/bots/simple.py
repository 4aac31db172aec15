"""The easy and normal bots: a random legal move, and the greedy move."""

from __future__ import annotations

import random

from engine.kernel import LEAD, points_of, total_after
from engine.moves import Move
from engine.tiles import PIPS
from engine.view import View


def decision_rng(seed: int, view: View) -> random.Random:
    """A random source fixed by the bot's seed and the public moment of the match."""
    return random.Random(f"{seed}/{view.seat}/{view.hand_number}/{len(view.history)}/{view.scores}")


def points_now(view: View, move: Move) -> int:
    """What a move scores at once (0 for a pass)."""
    if move.tile is None:
        return 0
    lay = view.layout
    end = LEAD if move.end is None else int(move.end)
    sides = lay.spinner_sides
    total = total_after(lay.open, lay.weight, lay.spinner, sides[0], sides[1], move.tile, end)
    return points_of(total)


def greedy_moves(view: View) -> list[Move]:
    """The legal moves that score the most now and, among those, shed the heaviest tile."""
    best: list[Move] = []
    best_key = -1
    for move in view.legal:
        key = points_now(view, move) * 64 + (PIPS[move.tile] if move.tile is not None else 0)
        if key > best_key:
            best, best_key = [move], key
        elif key == best_key:
            best.append(move)
    return best


class EasyBot:
    """Plays a random legal move."""

    level = "easy"

    def __init__(self, seed: int = 0) -> None:
        self.seed = seed

    def choose(self, view: View) -> Move:
        """A random legal move for the seat to play."""
        legal = _legal(view)
        if len(legal) == 1:
            return legal[0]
        return decision_rng(self.seed, view).choice(legal)


class NormalBot:
    """Greedy: the most points now, then its heaviest tile (ties broken at random)."""

    level = "normal"

    def __init__(self, seed: int = 0) -> None:
        self.seed = seed

    def choose(self, view: View) -> Move:
        """The greedy move for the seat to play."""
        legal = _legal(view)
        if len(legal) == 1:
            return legal[0]
        best = greedy_moves(view)
        return best[0] if len(best) == 1 else decision_rng(self.seed, view).choice(best)


def _legal(view: View) -> list[Move]:
    if not view.legal:
        raise ValueError(f"seat {view.seat} has no move to make: it is not its turn")
    return view.legal
