"""Building matches from hands written on paper, for the engine's tests."""

from __future__ import annotations

import random

from hypothesis import strategies as st

from engine import (
    ALL_TILES,
    Deal,
    End,
    Event,
    HandStarted,
    Match,
    Move,
    Played,
    Rules,
    Tile,
    View,
    is_written_low_first,
    layout_from,
)


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


def paper_view(layout: str, hand: str, seat: int = 0, players: int = 2, **rules: object) -> View:
    """Seat `seat`'s view, to play, of a hand whose layout is written on paper (`layout_from`).

    The layout's tiles were played in turn, the last one by the seat before `seat`, from a deal
    of the rules' size with nothing drawn; `hand` is what `seat` holds now.
    """
    r = Rules(players=players, **rules)  # type: ignore[arg-type]
    table, totals = layout_from(layout)
    steps = [step.split() for step in layout.split(";") if step.strip()]
    first = (seat - len(steps)) % players
    history: list[Event] = [HandStarted(1, first)]
    scores = [0] * r.sides
    played = [0] * players
    for index, (words, total) in enumerate(zip(steps, totals, strict=True)):
        player = (first + index) % players
        lead = words[0] == "lead"
        tile = Tile.parse(words[1] if lead else words[0])
        points = total if total % 5 == 0 else 0
        end = None if lead else int(End.parse(words[1]))
        flipped = lead and is_written_low_first(words[1])
        history.append(Played(player, int(tile), end, total, points, flipped))
        scores[r.side_of(player)] += points
        played[player] += 1
    held = [Tile.parse(t) for t in hand.split()]
    counts = [r.tiles_per_hand - played[s] for s in range(players)]
    counts[seat] = len(held)
    legal = [
        Move(tile, End(end))
        for end in range(4)
        for tile in sorted(held)
        if end in table.ends_for(tile)
    ]
    return View(
        seat=seat,
        rules=r,
        hand_number=1,
        leader=first,
        hand=sorted(held),
        hand_counts=counts,
        boneyard_size=28 - r.tiles_per_hand * players,
        layout=table,
        total=table.total(),
        scores=scores,
        turn=seat,
        legal=legal,
        history=history,
        last_hand=None,
        over=False,
        winner=None,
    )


#: Rules of every player count and variant, for the engine's property tests.
RULES = st.builds(
    Rules,
    players=st.sampled_from([2, 3, 4]),
    teams=st.booleans(),
    hand_size=st.sampled_from(["standard", "five", "seven-five"]),
    target=st.sampled_from([None, 50, 100, 150]),
    end_scoring=st.sampled_from(["opponents", "penalty"]),
    reserve=st.sampled_from([0, 0, 2]),
)


#: The most one play can score: four open ends of at most 12 pips (a double), to a multiple of 5.
MOST_A_PLAY_SCORES = 45
#: The most a count at the end of a hand can score: every pip of the set (168), to a multiple of 5.
MOST_A_COUNT_SCORES = 170


def most_a_side_can_still_score(view: View) -> int:
    """A ceiling on the points one side can still score in the hand from `view`: every tile not
    yet on the table played for the most a play can score, then the most a count can."""
    left = sum(view.hand_counts) + view.boneyard_size
    return left * MOST_A_PLAY_SCORES + MOST_A_COUNT_SCORES
