"""A match of All Fives: deals, turns, forced play, drawing, counting, hand and match end.

`Match` is the whole state, pure and synchronous: `legal_moves()` for the seat to play,
`apply(seat, move)` to play (draws and passes follow the rules and come back as events), and
`view_for(seat)` for exactly what a seat may know. It encodes to bytes and back (`to_bytes`).
"""

from __future__ import annotations

import random
from collections.abc import Sequence

import msgspec

from engine.events import (
    Drew,
    Event,
    HandEnded,
    HandStarted,
    MatchEnded,
    Passed,
    Played,
)
from engine.layout import NOT_OPEN, Layout
from engine.moves import LEAD_MOVES, PASS, PLAYS, IllegalMove, Move
from engine.rules import Rules, round5
from engine.tiles import (
    ALL_TILES,
    FULL_SET,
    IS_DOUBLE,
    SUIT,
    TILE_COUNT,
    End,
    Tile,
    mask_of,
    pips_of,
    tiles_of,
)
from engine.view import View

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


class Match(msgspec.Struct, kw_only=True):
    """The full state of a match. Build one with `Match.new(rules, seed)` or `Match.new(rules, deals=...)`."""

    rules: Rules
    seed: int | None
    hand_number: int = 0
    leader: int = 0
    hands: list[int] = msgspec.field(default_factory=list)
    boneyard: list[int] = msgspec.field(default_factory=list)
    drawn: int = 0
    layout: Layout = msgspec.field(default_factory=Layout)
    turn: int = 0
    passes: int = 0
    forced: int = NO_TILE
    stuck: bool = False
    scores: list[int] = msgspec.field(default_factory=list)
    over: bool = False
    winner: int | tuple[int, ...] | None = None
    events: list[Event] = msgspec.field(default_factory=list)
    record: list[HandRecord] = msgspec.field(default_factory=list)
    last_hand: HandEnded | None = None
    pending_deals: list[Deal] = msgspec.field(default_factory=list)
    #: Tiles the seat to play drew this turn, reported on its move (docs/records.md `drew`).
    drew_this_turn: int = 0

    # -- building -------------------------------------------------------------------------

    @classmethod
    def new(
        cls, rules: Rules | None = None, seed: int | None = None, deals: list[Deal] | None = None
    ) -> Match:
        """Start a match and deal its first hand.

        With a `seed` the same seed gives the same match; with `deals` those hands are dealt first;
        with neither, deals use the operating system's secure randomness.
        """
        rules = rules or Rules()
        match = cls(
            rules=rules, seed=seed, scores=[0] * rules.sides, pending_deals=list(deals or [])
        )
        match._start_hand(previous=None)
        return match

    @classmethod
    def from_view(
        cls, view: View, hands: list[int], boneyard: list[int], seed: int | None = None
    ) -> Match:
        """A full state that agrees with a view, given every seat's hand and the boneyard's order.

        This is how a bot searches: it guesses the hidden tiles (the view's own hand must be kept)
        and plays the guess out. Later hands are dealt from `seed`.
        """
        if view.seat is not None and hands[view.seat] != mask_of(view.hand or ()):
            raise ValueError("the guessed hands must keep the viewing seat's own tiles")
        counts = [h.bit_count() for h in hands]
        if counts != view.hand_counts or len(boneyard) != view.boneyard_size:
            raise ValueError("the guessed hands and boneyard must have the view's sizes")
        placed = mask_of(t for e in view.history if isinstance(e, Played) for t in (e.tile,))
        every = placed | mask_of(boneyard)
        for h in hands:
            every |= h
        if every != FULL_SET or placed.bit_count() + len(boneyard) + sum(counts) != TILE_COUNT:
            raise ValueError("the guess must account for each of the 28 tiles exactly once")
        passes = 0
        for event in reversed(view.history):
            if not isinstance(event, Passed):
                break
            passes += 1
        legal = view.legal
        stuck = bool(legal) and legal[0].tile is None
        forced = NO_TILE
        if legal and not stuck and isinstance(view.history[-1], Drew):
            forced = int(legal[0].tile)  # type: ignore[arg-type]
        placeholder = Deal(tuple(() for _ in hands), (), view.leader)
        return cls(
            rules=view.rules,
            seed=seed,
            hand_number=view.hand_number,
            leader=view.leader,
            hands=list(hands),
            boneyard=list(boneyard),
            drawn=0,
            layout=view.layout.copy(),
            turn=view.turn if view.turn is not None else 0,
            passes=passes,
            forced=forced,
            stuck=stuck,
            scores=list(view.scores),
            over=view.over,
            winner=view.winner,
            events=list(view.history),
            record=[HandRecord(deal=placeholder)],
            last_hand=view.last_hand,
        )

    @classmethod
    def from_bytes(cls, data: bytes) -> Match:
        """Decode a state written by `to_bytes`."""
        return _DECODER.decode(data)

    def to_bytes(self) -> bytes:
        """Encode the whole state (hidden tiles included: for storage, never for a client)."""
        return _ENCODER.encode(self)

    def copy(self) -> Match:
        """An independent copy of the state, for search."""
        twin = self.copy_for_search()
        twin.events = list(self.events)
        twin.record = [
            HandRecord(deal=h.deal, moves=list(h.moves), result=h.result) for h in self.record
        ]
        twin.pending_deals = list(self.pending_deals)
        twin.drew_this_turn = self.drew_this_turn
        return twin

    def copy_for_search(self) -> Match:
        """A cheaper independent copy that forgets the record and the history: for rollouts."""
        return Match(
            rules=self.rules,
            seed=self.seed,
            hand_number=self.hand_number,
            leader=self.leader,
            hands=list(self.hands),
            boneyard=self.boneyard,
            drawn=self.drawn,
            layout=self.layout.copy(),
            turn=self.turn,
            passes=self.passes,
            forced=self.forced,
            stuck=self.stuck,
            scores=list(self.scores),
            over=self.over,
            winner=self.winner,
            events=[],
            record=[HandRecord(deal=self.record[-1].deal)],
            last_hand=self.last_hand,
            pending_deals=[],
        )

    # -- asking -----------------------------------------------------------------------------

    @property
    def players(self) -> int:
        """How many seats play."""
        return self.rules.players

    @property
    def boneyard_left(self) -> int:
        """Tiles still face down."""
        return len(self.boneyard) - self.drawn

    def hand_of(self, seat: int) -> list[Tile]:
        """The tiles a seat holds, lowest first."""
        return list(tiles_of(self.hands[seat]))

    def pips(self, seat: int) -> int:
        """The pips left in a seat's hand."""
        return pips_of(self.hands[seat])

    def total(self) -> int:
        """The ends total of the layout now."""
        return self.layout.total()

    def to_play(self) -> int | None:
        """The seat whose turn it is, or None when the match is over."""
        return None if self.over else self.turn

    def legal_moves(self) -> list[Move]:
        """Every legal move for the seat to play: plays with their ends, or the one pass."""
        if self.over:
            return []
        if self.stuck:
            return [PASS]
        layout = self.layout
        if layout.empty:
            return [LEAD_MOVES[t] for t in tiles_of(self.hands[self.turn])]
        candidates = (1 << self.forced) if self.forced >= 0 else self.hands[self.turn]
        moves = []
        opened = layout.open
        for e in range(4):
            n = opened[e]
            if n < 0:
                continue
            fits = candidates & SUIT[n]
            if not fits:
                continue
            row = PLAYS[e]
            while fits:
                low_bit = fits & -fits
                moves.append(row[low_bit.bit_length() - 1])
                fits ^= low_bit
        return moves

    def view_for(self, seat: int | None) -> View:
        """What `seat` may know (None: a spectator, who sees no hand)."""
        if seat is not None and not 0 <= seat < self.players:
            raise ValueError(f"there is no seat {seat} in a {self.players}-player match")
        to_play = self.to_play()
        return View(
            seat=seat,
            rules=self.rules,
            hand_number=self.hand_number,
            leader=self.leader,
            hand=None if seat is None else list(tiles_of(self.hands[seat])),
            hand_counts=[h.bit_count() for h in self.hands],
            boneyard_size=self.boneyard_left,
            layout=self.layout.copy(),
            total=self.total(),
            scores=list(self.scores),
            turn=to_play,
            legal=self.legal_moves() if seat is not None and seat == to_play else [],
            history=list(self.events),
            last_hand=self.last_hand,
            over=self.over,
            winner=self.winner,
        )

    # -- playing ----------------------------------------------------------------------------

    def apply(self, seat: int, move: Move) -> list[Event]:
        """Play a move for a seat; returns the events it caused, or raises IllegalMove."""
        tile, end = self._check(seat, move)
        events = self.events
        first_event = len(events)
        if tile == NO_TILE:
            self._pass(seat)
        else:
            self._play(seat, tile, end, move.flipped and end == NO_TILE and not IS_DOUBLE[tile])
        if self.events is not events:  # a new hand began: its history starts afresh
            return events[first_event:] + self.events
        return events[first_event:]

    def _check(self, seat: int, move: Move) -> tuple[int, int]:
        """Validate a move against the rules; returns the tile and the end it goes to."""
        if self.over:
            raise IllegalMove("match_over", "8.2", "the match is over")
        if seat != self.turn:
            raise IllegalMove(
                "not_your_turn", "1.2", f"it is seat {self.turn}'s turn, not seat {seat}'s"
            )
        tile_or_none = move.tile
        if tile_or_none is None:
            if self.stuck:
                return NO_TILE, NO_TILE
            if self.forced >= 0:
                raise IllegalMove(
                    "must_play_drawn",
                    "4.2",
                    f"the drawn tile {ALL_TILES[self.forced]} must be played",
                )
            raise IllegalMove(
                "must_play", "4.1", "a player who can play must play; passing is not allowed"
            )
        tile = int(tile_or_none)
        if not 0 <= tile < TILE_COUNT:
            raise IllegalMove("no_such_tile", "1.1", f"there is no tile {tile}")
        if not self.hands[seat] >> tile & 1:
            raise IllegalMove(
                "tile_not_held", "4.1", f"seat {seat} does not hold {ALL_TILES[tile]}"
            )
        if self.stuck:
            raise IllegalMove("must_pass", "4.3", "no tile can be played: the player must pass")
        layout = self.layout
        if not layout.lead:
            if move.end is not None:
                raise IllegalMove(
                    "lead_has_no_end", "5.1", "the lead starts the line: it takes no end"
                )
            return tile, NO_TILE
        if self.forced >= 0 and tile != self.forced:
            raise IllegalMove(
                "must_play_drawn", "4.2", f"the drawn tile {ALL_TILES[self.forced]} must be played"
            )
        if move.end is not None:
            end = int(move.end)
            if not 0 <= end < 4 or layout.open[end] == NOT_OPEN:
                name = End(end).name.lower() if 0 <= end < 4 else str(end)
                raise IllegalMove("end_not_open", "5.4", f"the {name} end is not open")
            if not SUIT[layout.open[end]] >> tile & 1:
                raise IllegalMove(
                    "does_not_match",
                    "5.2",
                    f"{ALL_TILES[tile]} does not match the {End(end).name.lower()} end ({layout.open[end]})",
                )
            return tile, end
        fits = layout.ends_for(tile)
        if not fits:
            raise IllegalMove("does_not_match", "5.2", f"{ALL_TILES[tile]} matches no open end")
        if len(fits) == 1:
            return tile, fits[0]
        if layout.spinner_sides == [True, True] and fits == [End.WEST, End.EAST]:
            return tile, End.EAST  # a lone lead double: both sides alike (5.6)
        names = " or ".join(End(e).name.lower() for e in fits)
        raise IllegalMove("end_required", "5.6", f"{ALL_TILES[tile]} fits {names}: name the end")

    def _play(self, seat: int, tile: int, end: int, flipped: bool = False) -> None:
        rules = self.rules
        self.hands[seat] &= ~(1 << tile)
        layout = self.layout
        if end == NO_TILE:
            layout.place_lead(tile, flipped)
        else:
            layout.place(tile, end)
        total = layout.total()
        points = total if total % 5 == 0 else 0
        drew = self.drew_this_turn
        self.drew_this_turn = 0
        self.events.append(
            Played(seat, tile, None if end == NO_TILE else end, total, points, flipped)
        )
        self.record[-1].moves.append(RecordedMove(seat, tile, end, drew, total, points, flipped))
        self.passes = 0
        if points:
            side = rules.side_of(seat)
            self.scores[side] += points
            if self.scores[side] >= rules.winning_score:
                self._end_hand(HandEnded("won", seat, (0,) * rules.sides, self._all_pips()))
                return
        if not self.hands[seat]:
            self._end_hand(self._count_domino(seat))
            return
        self._begin_turn((seat + 1) % rules.players)

    def _pass(self, seat: int) -> None:
        self.events.append(Passed(seat, self._open_numbers()))
        drew = self.drew_this_turn
        self.drew_this_turn = 0
        self.record[-1].moves.append(RecordedMove(seat, NO_TILE, NO_TILE, drew, self.total(), 0))
        self.passes += 1
        self.stuck = False
        if self.passes >= self.rules.players:
            self._end_hand(self._count_blocked())
            return
        self._begin_turn((seat + 1) % self.rules.players)

    def _begin_turn(self, seat: int) -> None:
        """Hand the turn to a seat; one with no playable tile draws until it can play (4.2, 4.3)."""
        self.turn = seat
        self.forced = NO_TILE
        self.stuck = False
        playable = self.layout.playable
        hand = self.hands[seat]
        if hand & playable:
            return
        drew = 0
        last = len(self.boneyard) - self.rules.reserve
        while self.drawn < last:
            tile = self.boneyard[self.drawn]
            self.drawn += 1
            hand |= 1 << tile
            drew += 1
            if playable >> tile & 1:
                self.forced = tile
                break
        self.hands[seat] = hand
        if drew:
            self.events.append(Drew(seat, drew, self._open_numbers()))
            self.drew_this_turn = drew
        if self.forced == NO_TILE:
            self.stuck = True

    def _open_numbers(self) -> tuple[int, ...]:
        return tuple(sorted({n for n in self.layout.open if n >= 0}))

    # -- hands ------------------------------------------------------------------------------

    def _all_pips(self) -> tuple[int, ...]:
        return tuple(pips_of(h) for h in self.hands)

    def _count_domino(self, seat: int) -> HandEnded:
        pips = self._all_pips()
        return HandEnded("domino", seat, domino_points(self.rules, seat, pips), pips)

    def _count_blocked(self) -> HandEnded:
        pips = self._all_pips()
        return HandEnded("blocked", None, blocked_points(self.rules, pips), pips)

    def _end_hand(self, result: HandEnded) -> None:
        rules = self.rules
        for side, p in enumerate(result.points):
            self.scores[side] += p
        self.events.append(result)
        self.record[-1].result = result
        self.last_hand = result
        self.stuck = False
        self.forced = NO_TILE
        reached = [s for s, score in enumerate(self.scores) if score >= rules.winning_score]
        if reached:
            best = max(self.scores[s] for s in reached)
            winners = tuple(s for s in reached if self.scores[s] == best)
            self.over = True
            self.winner = winners[0] if len(winners) == 1 else winners
            self.events.append(MatchEnded(self.winner))
            return
        self._start_hand(previous=result)

    def _start_hand(self, previous: HandEnded | None) -> None:
        """Deal the next hand and give the lead to its leader (2, 3)."""
        rules = self.rules
        self.hand_number += 1
        deal = self.pending_deals.pop(0) if self.pending_deals else self._shuffled_deal()
        check_deal(rules, deal)
        if previous is not None and previous.kind == "domino" and deal.leader != previous.by:
            raise IllegalMove(
                "wrong_leader",
                "3.2",
                f"seat {previous.by} dominoed and must lead hand {self.hand_number}, not seat {deal.leader}",
            )
        self.hands = [mask_of(h) for h in deal.hands]
        self.boneyard = list(deal.boneyard)
        self.drawn = 0
        self.layout = Layout()
        self.passes = 0
        self.leader = deal.leader
        self.events = [HandStarted(self.hand_number, deal.leader)]
        self.record.append(HandRecord(deal=deal))
        self.turn = deal.leader
        self.forced = NO_TILE
        self.stuck = False
        self.drew_this_turn = 0

    def _shuffled_deal(self) -> Deal:
        """A shuffled deal: from the seed and the hand number, or from secure randomness."""
        rules = self.rules
        rng: random.Random = (
            random.SystemRandom()
            if self.seed is None
            else random.Random(f"allfives/{self.seed}/{self.hand_number}")
        )
        tiles = list(range(TILE_COUNT))
        rng.shuffle(tiles)
        k = rules.tiles_per_hand
        hands = tuple(tuple(sorted(tiles[i * k : (i + 1) * k])) for i in range(rules.players))
        boneyard = tuple(tiles[rules.players * k :])
        random_leader = rng.randrange(rules.players)
        last = self.last_hand
        leader = (
            last.by
            if last is not None and last.kind == "domino" and last.by is not None
            else random_leader
        )
        return Deal(hands, boneyard, leader)

    def __repr__(self) -> str:
        hands = " | ".join(" ".join(str(t) for t in self.hand_of(s)) for s in range(self.players))
        return (
            f"<Match hand {self.hand_number}, seat {self.turn} to play, scores {self.scores}, "
            f"layout {self.layout}, hands {hands}, boneyard {self.boneyard_left}>"
        )


def domino_points(rules: Rules, seat: int, pips: Sequence[int]) -> tuple[int, ...]:
    """End-of-hand points per side when `seat` went out, given every seat's pips (7.3, 7.4)."""
    points = [0] * rules.sides
    if rules.end_scoring == "penalty":
        for s, p in enumerate(pips):
            points[rules.side_of(s)] -= round5(p)
    else:
        mine = rules.side_of(seat)
        left = sum(p for s, p in enumerate(pips) if rules.side_of(s) != mine)
        points[mine] = round5(left)
    return tuple(points)


def blocked_points(rules: Rules, pips: Sequence[int]) -> tuple[int, ...]:
    """End-of-hand points per side when nobody can play, given every seat's pips (7.3, 7.4)."""
    points = [0] * rules.sides
    if rules.end_scoring == "penalty":
        for s, p in enumerate(pips):
            points[rules.side_of(s)] -= round5(p)
    elif rules.partnership:
        team = [pips[0] + pips[2], pips[1] + pips[3]]
        if team[0] != team[1]:
            low = 0 if team[0] < team[1] else 1
            points[low] = round5(team[1 - low])
    else:
        fewest = min(pips)
        lows = [s for s, p in enumerate(pips) if p == fewest]
        if len(lows) == 1:
            points[lows[0]] = round5(sum(pips) - fewest)
        elif len(lows) == 2 and rules.players == 3:
            third = next(p for s, p in enumerate(pips) if s not in lows)
            for s in lows:
                points[s] = round5(third / 2)
    return tuple(points)


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


_ENCODER = msgspec.msgpack.Encoder()
_DECODER = msgspec.msgpack.Decoder(Match)
