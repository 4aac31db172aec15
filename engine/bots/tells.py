"""What the other seats' plays suggest about their tiles: a sampled deal is weighed by how likely
the plays seen this hand would have been, had the players held those tiles.

The model of a player is the greedy habit most players share: score the most you can, else shed
your heaviest tile; with probability `noise` any legal move. A deal in which an opponent could
have scored 20 but played for nothing is unlikely, not impossible. Only plays after a seat's
last draw are weighed: before it, what the seat held then cannot be told from what it holds now.
"""

from __future__ import annotations

from engine.events import Drew, HandStarted, Played
from engine.kernel import LEAD, total_after
from engine.layout import Layout
from engine.tiles import PIPS, SUIT, TILE_COUNT, bits_of
from engine.view import View


class Tell:
    """One play to weigh, as masks: which tiles would have beaten it, tied with it, fitted each end."""

    __slots__ = ("beats", "fits", "known", "seat", "ties")

    def __init__(self, seat: int, tile: int, end: int, layout: Layout, later: int) -> None:
        self.seat = seat
        #: Tiles the seat surely held then: the one it played and those it played since.
        self.known = later | 1 << tile
        o = layout.open
        sides = layout.spinner_sides
        ends = [LEAD] if layout.empty else [e for e in range(4) if o[e] >= 0]
        keys = {}
        for e in ends:
            fitting = range(TILE_COUNT) if e == LEAD else bits_of(SUIT[o[e]])
            for t in fitting:
                total = total_after(o, layout.weight, layout.spinner, sides[0], sides[1], t, e)
                keys[t, e] = (total if total % 5 == 0 else 0) * 64 + PIPS[t]
        chosen = keys[tile, end]
        self.beats = 0
        self.fits: list[int] = []
        self.ties: list[int] = []
        for e in ends:
            fit = tie = 0
            for (t, e2), key in keys.items():
                if e2 != e:
                    continue
                fit |= 1 << t
                if key > chosen:
                    self.beats |= 1 << t
                elif key == chosen:
                    tie |= 1 << t
            self.fits.append(fit)
            self.ties.append(tie)

    def likelihood(self, held: int, noise: float) -> float:
        """The chance of this play from a hand `held` then, under the noisy greedy model."""
        legal = 0
        for fit in self.fits:
            legal += (held & fit).bit_count()
        chance = noise / legal
        if not held & self.beats:
            ties = 0
            for tie in self.ties:
                ties += (held & tie).bit_count()
            chance += (1 - noise) / ties
        return chance


class Tells:
    """The plays of this hand that can be weighed, ready to score sampled deals against."""

    __slots__ = ("noise", "tells")

    def __init__(self, view: View, noise: float = 0.2) -> None:
        self.noise = noise
        layout = Layout()
        plays: list[tuple[int, int, int, int, Layout]] = []
        last_draw: dict[int, int] = {}
        forced: set[int] = set()
        for index, event in enumerate(view.history):
            if isinstance(event, HandStarted):
                layout = Layout()
                plays, last_draw, forced = [], {}, set()
            elif isinstance(event, Drew):
                last_draw[event.seat] = index
                forced.add(index + 1)
            elif isinstance(event, Played):
                end = LEAD if event.end is None else event.end
                if index not in forced and event.seat != view.seat:
                    plays.append((index, event.seat, event.tile, end, layout.copy()))
                if event.end is None:
                    layout.place_lead(event.tile, event.flipped)
                else:
                    layout.place(event.tile, event.end)
        self.tells: list[Tell] = []
        for index, seat, tile, end, before in plays:
            if index < last_draw.get(seat, -1):
                continue
            later = 0
            for other in view.history[index + 1 :]:
                if isinstance(other, Played) and other.seat == seat:
                    later |= 1 << other.tile
            self.tells.append(Tell(seat, tile, end, before, later))

    def __bool__(self) -> bool:
        return bool(self.tells)

    def likelihood(self, hands: list[int]) -> float:
        """How likely the plays seen are if the seats hold `hands` now."""
        noise = self.noise
        chance = 1.0
        for tell in self.tells:
            chance *= tell.likelihood(hands[tell.seat] | tell.known, noise)
        return chance
