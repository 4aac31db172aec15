"""Replaying a match from its deals and moves, as a record holds them (docs/records.md)."""

from __future__ import annotations

from collections.abc import Callable, Sequence

from engine.hands import Deal
from engine.match import Match
from engine.moves import IllegalMove, Move
from engine.rules import Rules


class ReplayError(ValueError):
    """The first illegal step of a replay: which hand (1-based), which move (1-based), and why."""

    def __init__(self, hand: int, move: int | None, error: IllegalMove) -> None:
        where = f"hand {hand}" if move is None else f"hand {hand}, move {move}"
        super().__init__(f"{where}: {error}")
        self.hand = hand
        self.move = move
        self.error = error


#: Called before each move is applied: the match as it stands, the seat and the move it makes.
BeforeMove = Callable[[Match, int, Move], None]


def replay(
    rules: Rules,
    hands: Sequence[tuple[Deal, Sequence[tuple[int, Move]]]],
    before: BeforeMove | None = None,
) -> Match:
    """Play the given hands through the engine; raises ReplayError at the first illegal step.

    Each hand is its deal and its moves as (seat, move). A hand that is not played to its end
    must be the last one: the match is then returned unfinished. `before`, if given, sees the
    match before each move (to take a seat's view at that moment); it must not change it.
    """
    if not hands:
        raise ReplayError(1, None, IllegalMove("no_hands", "2", "a record holds at least one hand"))
    deals = [deal for deal, _ in hands]
    try:
        match = Match.new(rules, seed=0, deals=deals[:1])
    except IllegalMove as error:
        raise ReplayError(1, None, error) from error
    for number, (_, moves) in enumerate(hands, start=1):
        for index, (seat, move) in enumerate(moves, start=1):
            if match.hand_number != number or match.over:
                raise ReplayError(
                    number, index, IllegalMove("after_end", "7.1", "the hand is already over")
                )
            if index == len(moves) and number < len(hands):
                # The next deal is taken when this hand ends, during its last move.
                match.pending_deals.append(deals[number])
            if before is not None and seat == match.turn:
                before(match, seat, move)
            try:
                match.apply(seat, move)
            except IllegalMove as error:
                raise ReplayError(number, index, error) from error
        if number < len(hands) and match.hand_number == number:
            raise ReplayError(
                number,
                None,
                IllegalMove("unfinished", "7.1", "the hand is not over, yet another follows"),
            )
    return match
