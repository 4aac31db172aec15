"""A match of All Fives: turns, forced play, drawing, the end of a hand and of the match.

`Match` is the whole state, pure and synchronous: `legal_moves()` for the seat to play,
`apply(seat, move)` to play (draws and passes follow the rules and come back as events), and
`view_for(seat)` for exactly what a seat may know. It encodes to bytes and back (`to_bytes`).

Its parts live beside it: the deal and a hand's record in `engine.hands`, what may be played
and why a move is refused in `engine.legality`, the counting at a hand's end in
`engine.scoring`.
"""

from __future__ import annotations

import msgspec

from engine import parts
from engine.events import Drew, Event, HandEnded, HandStarted, MatchEnded, Passed, Played
from engine.hands import NO_TILE, Deal, HandRecord, RecordedMove, check_deal, shuffled_deal
from engine.layout import Layout
from engine.legality import check_move, legal_moves
from engine.moves import IllegalMove, Move
from engine.rules import Rules
from engine.scoring import all_pips, blocked_result, domino_result, side_pips
from engine.tiles import FULL_SET, IS_DOUBLE, TILE_COUNT, Tile, mask_of, pips_of, tiles_of
from engine.view import View


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
        rules = rules or Rules(players=4)
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
        return legal_moves(self)

    def view_for(self, seat: int | None) -> View:
        """What `seat` may know (None: a spectator, who sees no hand): `engine.parts.view`."""
        if seat is not None and not 0 <= seat < self.players:
            raise ValueError(f"there is no seat {seat} in a {self.players}-player match")
        return parts.view(self, seat)

    # -- playing ----------------------------------------------------------------------------

    def apply(self, seat: int, move: Move) -> list[Event]:
        """Play a move for a seat; returns the events it caused, or raises IllegalMove."""
        tile, end = check_move(self, seat, move)
        events = self.events
        first_event = len(events)
        if tile == NO_TILE:
            self._pass(seat)
        else:
            self._play(seat, tile, end, move.flipped and end == NO_TILE and not IS_DOUBLE[tile])
        if self.events is not events:  # a new hand began: its history starts afresh
            return events[first_event:] + self.events
        return events[first_event:]

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
            if self.scores[side] >= rules.target_score:
                self._end_hand(HandEnded("won", seat, (0,) * rules.sides, all_pips(self.hands)))
                return
        if not self.hands[seat]:
            self._end_hand(domino_result(rules, self.hands, seat))
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
            self._end_hand(blocked_result(self.rules, self.hands))
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

    def _end_hand(self, result: HandEnded) -> None:
        rules = self.rules
        held = side_pips(rules, result.pips)
        result = msgspec.structs.replace(result, table=self.layout.drawn(), side_pips=held)
        for side, p in enumerate(result.points):
            self.scores[side] += p
        self.events.append(result)
        self.record[-1].result = result
        self.last_hand = result
        self.stuck = False
        self.forced = NO_TILE
        reached = [s for s, score in enumerate(self.scores) if score >= rules.target_score]
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
        deal = (
            self.pending_deals.pop(0)
            if self.pending_deals
            else shuffled_deal(rules, self.seed, self.hand_number, self.last_hand)
        )
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

    def __repr__(self) -> str:
        hands = " | ".join(" ".join(str(t) for t in self.hand_of(s)) for s in range(self.players))
        return (
            f"<Match hand {self.hand_number}, seat {self.turn} to play, scores {self.scores}, "
            f"layout {self.layout}, hands {hands}, boneyard {self.boneyard_left}>"
        )


_ENCODER = msgspec.msgpack.Encoder()
_DECODER = msgspec.msgpack.Decoder(Match)
