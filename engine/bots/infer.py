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
from engine.tiles import FULL_SET, SUIT, bits_of
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

    __slots__ = ("_cached_order", "_quick_works", "boneyard_size", "groups", "seat", "unseen")

    def __init__(self, seat: int, unseen: int, groups: list[list[Group]], boneyard_size: int):
        self.seat = seat
        self.unseen = unseen
        self.groups = groups
        self.boneyard_size = boneyard_size
        self._cached_order: list[tuple[int, int, int]] | None = None
        self._quick_works = True

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

    def sample(self, rng: random.Random, quick_tries: int = 3) -> tuple[list[int], list[int]]:
        """A random deal of the unseen tiles that respects every count and void: (hands, boneyard).

        The viewing seat's hand comes back as 0 (the caller puts its own tiles there). Quick
        way: shuffle the unseen tiles and let each group, the most constrained first, take the
        first tiles it may hold. When voids leave little room that can fail; then (and for the
        rest of this knowledge's samples) the tiles are placed one by one, each time keeping a
        way to complete the deal (Hall's condition).
        """
        order = self._order()
        for _ in range(quick_tries if self._quick_works else 0):
            pool = bits_of(self.unseen)
            rng.shuffle(pool)
            hands = [0] * len(self.groups)
            for seat, count, forbidden in order:
                if not forbidden:
                    taken, pool = pool[:count], pool[count:]
                else:
                    taken, rest = [], []
                    for t in pool:
                        if len(taken) < count and not forbidden >> t & 1:
                            taken.append(t)
                        else:
                            rest.append(t)
                    pool = rest
                    if len(taken) < count:
                        break
                for t in taken:
                    hands[seat] |= 1 << t
            else:
                return hands, pool
        self._quick_works = False
        return self.sample_carefully(rng)

    def sample_carefully(self, rng: random.Random) -> tuple[list[int], list[int]]:
        """A deal built tile by tile, never leaving the constrained groups without a completion."""
        order = self._order()
        # Groups that forbid the same numbers compete for the same tiles: one class for Hall.
        classes = sorted({forbidden for _, _, forbidden in order if forbidden})
        needs = [0] * len(classes)
        for _, count, forbidden in order:
            if forbidden:
                needs[classes.index(forbidden)] += count
        unions = [0] * (1 << len(classes))
        for subset in range(1, len(unions)):
            low = (subset & -subset).bit_length() - 1
            unions[subset] = unions[subset & (subset - 1)] | ~classes[low]
        left = self.unseen
        if not _completable(needs, unions, left):
            return self._sample_ignoring_voids(rng)
        hands = [0] * len(self.groups)
        for seat, count, forbidden in order:
            if not forbidden:
                continue
            index = classes.index(forbidden)
            for _ in range(count):
                needs[index] -= 1
                candidates = left & ~forbidden
                while True:
                    if not candidates:
                        return self._sample_ignoring_voids(rng)
                    bit = _nth_bit(candidates, int(rng.random() * candidates.bit_count()))
                    if _completable(needs, unions, left & ~bit):
                        break
                    candidates &= ~bit
                left &= ~bit
                hands[seat] |= bit
        pool = bits_of(left)
        rng.shuffle(pool)
        for seat, count, forbidden in order:
            if not forbidden:
                for t in pool[:count]:
                    hands[seat] |= 1 << t
                pool = pool[count:]
        return hands, pool

    def _sample_ignoring_voids(self, rng: random.Random) -> tuple[list[int], list[int]]:
        """A deal by the counts alone (for a history the voids cannot explain)."""
        pool = bits_of(self.unseen)
        rng.shuffle(pool)
        hands = [0] * len(self.groups)
        for seat, count, _ in self._order():
            for t in pool[:count]:
                hands[seat] |= 1 << t
            pool = pool[count:]
        return hands, pool

    def _order(self) -> list[tuple[int, int, int]]:
        """Every group as (seat, count, forbidden), those with the least room to spare first."""
        order = self._cached_order
        if order is None:
            unseen = self.unseen
            order = sorted(
                ((seat, g.count, g.forbidden) for seat, gs in enumerate(self.groups) for g in gs),
                key=lambda g: (unseen & ~g[2]).bit_count() - g[1],
            )
            self._cached_order = order
        return order


def _completable(needs: list[int], unions: list[int], left: int) -> bool:
    """Hall's condition: every set of constrained groups has enough tiles it may take between them.

    Groups without voids can take any tile, so only sets of constrained groups need checking.
    """
    for subset in range(1, len(unions)):
        wanted = 0
        rest = subset
        while rest:
            low = rest & -rest
            wanted += needs[low.bit_length() - 1]
            rest ^= low
        if wanted > (left & unions[subset]).bit_count():
            return False
    return True


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


def _nth_bit(mask: int, n: int) -> int:
    """The n-th lowest set bit of a mask (0-based), as a mask."""
    for _ in range(n):
        mask &= mask - 1
    return mask & -mask
