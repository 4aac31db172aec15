"""A hand as dealt and as played: the deal (checked, or shuffled), and the record of its moves.

`Deal` is every seat's tiles, the boneyard in draw order and the leader; `check_deal` refuses a
deal that is not the 28 tiles once each in hands of the right size (2.1, 2.2, 3.1), and
`shuffled_deal` deals one from a seed (the same seed, the same deals) or secure randomness.
`HandRecord` keeps a hand's deal, its moves (`RecordedMove`) and its result: enough to replay it.
"""

from __future__ import annotations

import random

import msgspec

from engine.events import HandEnded
from engine.moves import IllegalMove
from engine.rules import Rules
from engine.tiles import FULL_SET, TILE_COUNT, mask_of

#: The tile (and end) of a pass, or of no tile at all.
NO_TILE = -1


class Deal(msgspec.Struct, frozen=True):
    """The tiles of every seat, the boneyard in draw order, and who leads."""

    hands: tuple[tuple[int, ...], ...]
    boneyard: tuple[int, ...]
    leader: int


class RecordedMove(msgspec.Struct, array_like=True, frozen=True, gc=False):
    """One turn as a record keeps it: a play (tile, end or None for the lead) or a pass (no tile).

    `flipped`: a lead written low number first (5.1).
    """

    seat: int
    tile: int
    end: int
    drew: int
    total: int
    points: int
    flipped: bool = False


class HandRecord(msgspec.Struct):
    """One hand as dealt and played: enough to replay it."""

    deal: Deal
    moves: list[RecordedMove] = msgspec.field(default_factory=list)
    result: HandEnded | None = None


def check_deal(rules: Rules, deal: Deal) -> None:
    """Raise IllegalMove unless a deal is the 28 tiles once each, in hands of the right size."""
    if len(deal.hands) != rules.players:
        raise IllegalMove(
            "bad_deal", "2.2", f"a deal for {rules.players} players needs {rules.players} hands"
        )
    for seat, hand in enumerate(deal.hands):
        if len(hand) != rules.tiles_per_hand:
            raise IllegalMove(
                "bad_deal",
                "2.2",
                f"seat {seat} was dealt {len(hand)} tiles, not {rules.tiles_per_hand}",
            )
    every = [t for hand in deal.hands for t in hand] + list(deal.boneyard)
    if sorted(every) != list(range(TILE_COUNT)) or mask_of(every) != FULL_SET:
        raise IllegalMove("bad_deal", "2.1", "a deal must hold each of the 28 tiles exactly once")
    if not 0 <= deal.leader < rules.players:
        raise IllegalMove("bad_deal", "3.1", f"there is no seat {deal.leader} to lead")


def shuffled_deal(
    rules: Rules, seed: int | None, hand_number: int, last_hand: HandEnded | None
) -> Deal:
    """A shuffled deal for hand `hand_number`: from the seed and the hand number, or from secure
    randomness. The seat that dominoed the last hand leads (3.2); else a random seat."""
    rng: random.Random = (
        random.SystemRandom() if seed is None else random.Random(f"allfives/{seed}/{hand_number}")
    )
    tiles = list(range(TILE_COUNT))
    rng.shuffle(tiles)
    k = rules.tiles_per_hand
    hands = tuple(tuple(sorted(tiles[i * k : (i + 1) * k])) for i in range(rules.players))
    boneyard = tuple(tiles[rules.players * k :])
    random_leader = rng.randrange(rules.players)
    leader = (
        last_hand.by
        if last_hand is not None and last_hand.kind == "domino" and last_hand.by is not None
        else random_leader
    )
    return Deal(hands, boneyard, leader)
