"""Building matches from hands written on paper, for the engine's tests."""

from __future__ import annotations

import random

from engine import ALL_TILES, Deal, Match, Move, Rules, Tile


def tiles(text: str) -> tuple[int, ...]:
    """``"6-6 5-4"`` -> the tiles as ints."""
    return tuple(int(Tile.parse(t)) for t in text.split())


def deal_of(rules: Rules, hands: list[str], boneyard: str = "", leader: int = 0) -> Deal:
    """A deal with the given hands; `boneyard` lists the first tiles drawn, the rest follow in order."""
    held = [tiles(h) for h in hands]
    first = tiles(boneyard)
    used = {t for h in held for t in h} | set(first)
    rest = tuple(t for t in ALL_TILES if int(t) not in used)
    return Deal(tuple(held), first + tuple(int(t) for t in rest), leader)


def match_of(hands: list[str], boneyard: str = "", leader: int = 0, **rules: object) -> Match:
    """A match whose first hand is dealt as written (hands must have the rules' size)."""
    r = Rules(players=len(hands), **rules)  # type: ignore[arg-type]
    return Match.new(r, seed=1, deals=[deal_of(r, hands, boneyard, leader)])


def play(match: Match, *moves: str) -> list[object]:
    """Play moves like ``"5-5"``, ``"5-3 east"``, ``"pass"`` for whoever is to play."""
    events: list[object] = []
    for text in moves:
        events += match.apply(match.turn, Move.parse(text))
    return events


def random_move(match: Match, rng: random.Random) -> Move:
    """A random legal move; a lead is written either way round (5.1: its first number faces west)."""
    move = rng.choice(match.legal_moves())
    if move.tile is not None and move.end is None and rng.random() < 0.5:
        return move.flip()
    return move
