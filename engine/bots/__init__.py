"""Bots that fill empty seats: each chooses a move from its seat's view alone (`choose(view)`).

`easy` plays a random legal move, `normal` the greedy move, `hard` searches sampled deals.
Every bot takes a seed: the same seed and the same view give the same move.
"""

from __future__ import annotations

from typing import Protocol

from engine.bots.hard import HardBot
from engine.bots.simple import EasyBot, NormalBot
from engine.moves import Move
from engine.view import View

LEVELS = ("easy", "normal", "hard")


class Bot(Protocol):
    """Anything that picks a legal move for the seat whose view it is given."""

    level: str

    def choose(self, view: View) -> Move:
        """A legal move for the view's seat; the view must be this seat's turn."""
        ...


def make_bot(level: str, seed: int = 0, budget_ms: float | None = 200.0) -> Bot:
    """A bot of the given level (`easy`, `normal` or `hard`); `budget_ms` bounds hard's thinking."""
    if level == "easy":
        return EasyBot(seed)
    if level == "normal":
        return NormalBot(seed)
    if level == "hard":
        return HardBot(seed, budget_ms=budget_ms)
    raise ValueError(f"unknown bot level {level!r} (choose from {', '.join(LEVELS)})")


__all__ = ["LEVELS", "Bot", "EasyBot", "HardBot", "NormalBot", "make_bot"]
