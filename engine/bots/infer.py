"""What a seat can infer about the hidden tiles from its view, and deals that agree with it.

Counting: the unseen tiles are the 28 less the tiles played and the seat's own hand. Voids: a
player who drew or passed held none of the numbers open at that moment (the `open` of `Drew` and
`Passed`); tiles it draws later may show those numbers again. So each other hand is kept as
groups of tiles in the order they came into it, each group with the numbers it cannot show. A
group's forbidden numbers include those of every later group, so a played tile is taken from the
oldest group that may hold it: that choice keeps every deal that any other choice would allow.
"""

from __future__ import annotations

import random

from engine.events import Drew, HandStarted, Passed, Played
from engine.tiles import FULL_SET, SUIT
from engine.view import View


def suits_mask(numbers: tuple[int, ...]) -> int:
    """The bitmask of every tile showing any of `numbers`."""
    mask = 0
    for n in numbers:
        mask |= SUIT[n]
    return mask


class Group:
    """Some tiles of one hand that came in together: how many are left, and what they cannot be."""

    __slots__ = ("count", "forbidden")

    def __init__(self, count: int, forbidden: int) -> None:
        self.count = count
        self.forbidden = forbidden

    def __repr__(self) -> str:
        return f"Group({self.count}, {self.forbidden:#x})"


class Knowledge:
    """The hidden tiles as one seat sees them: the unseen mask and each other seat's groups."""

    __slots__ = ("boneyard_size", "groups", "seat", "unseen")

    def __init__(self, seat: int, unseen: int, groups: list[list[Group]], boneyard_size: int):
        self.seat = seat
        self.unseen = unseen
        self.groups = groups
        self.boneyard_size = boneyard_size

    @classmethod
    def of_view(cls, view: View) -> Knowledge:
        """Read the counts and voids out of a seat's view of the current hand."""
        if view.seat is None or view.hand is None:
            raise ValueError("only a seat's view has a hand to infer from")
        me = view.seat
        players = view.rules.players
        dealt = view.rules.tiles_per_hand
        groups = [[Group(dealt, 0)] for _ in range(players)]
        played = 0
        after_draw = -1
        for event in view.history:
            if isinstance(event, HandStarted):
                groups = [[Group(dealt, 0)] for _ in range(players)]
                played = 0
            elif isinstance(event, Played):
                played |= 1 << event.tile
                seat_groups = groups[event.seat]
                if after_draw == event.seat:
                    seat_groups[-1].count -= 1  # the drawn tile that could be played
                else:
                    _take(seat_groups, event.tile)
                after_draw = -1
                continue
            elif isinstance(event, Drew):
                void = suits_mask(event.open)
                for group in groups[event.seat]:
                    group.forbidden |= void
                groups[event.seat].append(Group(event.count, void))
                after_draw = event.seat
                continue
            elif isinstance(event, Passed):
                void = suits_mask(event.open)
                for group in groups[event.seat]:
                    group.forbidden |= void
            after_draw = -1
        own = 0
        for t in view.hand:
            own |= 1 << t
        groups[me] = []
        for seat, seat_groups in enumerate(groups):
            groups[seat] = [g for g in seat_groups if g.count > 0]
            if seat != me and sum(g.count for g in groups[seat]) != view.hand_counts[seat]:
                # Should not happen with a consistent history; fall back to counting alone.
                groups[seat] = [Group(view.hand_counts[seat], 0)]
        return cls(me, FULL_SET & ~played & ~own, groups, view.boneyard_size)

    def sample(self, rng: random.Random, tries: int = 20) -> tuple[list[int], list[int]]:
        """A random deal of the unseen tiles that respects every count and void: (hands, boneyard).

        The viewing seat's hand comes back as 0 (the caller puts its own tiles there). Groups
        are filled from the most constrained; after `tries` failures the voids are dropped.
        """
        order = sorted(
            ((seat, g) for seat, gs in enumerate(self.groups) for g in gs),
            key=lambda sg: (self.unseen & ~sg[1].forbidden).bit_count() - sg[1].count,
        )
        for attempt in range(tries + 1):
            strict = attempt < tries
            left = self.unseen
            hands = [0] * len(self.groups)
            for seat, group in order:
                allowed = left & ~group.forbidden if strict else left
                pool = _bits(allowed)
                if len(pool) < group.count:
                    break
                for t in rng.sample(pool, group.count):
                    hands[seat] |= 1 << t
                    left &= ~(1 << t)
            else:
                boneyard = _bits(left)
                rng.shuffle(boneyard)
                return hands, boneyard
        raise AssertionError("unreachable: without voids every deal fits")


def _take(groups: list[Group], tile: int) -> None:
    """Remove a played tile from the oldest group that may hold it."""
    for group in groups:
        if group.count > 0 and not group.forbidden >> tile & 1:
            group.count -= 1
            return
    for group in reversed(groups):
        if group.count > 0:
            group.count -= 1
            return


def _bits(mask: int) -> list[int]:
    out = []
    while mask:
        low_bit = mask & -mask
        out.append(low_bit.bit_length() - 1)
        mask ^= low_bit
    return out
