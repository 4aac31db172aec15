"""A room's match: dealing it, applying a move with the forced passes after it, and its end.

Plain functions on a `RoomState` and its `Match` (sans-I/O, no clock, no `seq`):
`server.rooms.room.Room` checks who asks, re-arms the turn clock (`server.rooms.clock`) and counts
the change. Each refuses with `RoomError` and changes nothing, or changes the state.

Forced passes are applied here: whenever the seat to play can neither play nor draw (its only
legal move is a pass), the room passes for it at once, in the same change as the move before.
"""

from __future__ import annotations

import secrets

import msgspec

from engine import PASS, IllegalMove, Match, Move, View
from engine.events import Event
from protocol import errors
from protocol.views import Phase
from server.rooms import results
from server.rooms.room_state import MoveNote, RoomError, RoomState, StoodIn


def require_phase(state: RoomState, phase: Phase, doing: str) -> None:
    """RoomError `wrong_phase` unless the room is in `phase`."""
    if state.phase != phase:
        raise RoomError(
            errors.WRONG_PHASE, f"cannot {doing} while the room is {state.phase}, only {phase}"
        )


def require_host(state: RoomState, seat: int | None, doing: str) -> None:
    """RoomError `not_host` unless `seat` is the host's."""
    if seat is None or seat != state.host:
        raise RoomError(errors.NOT_HOST, f"only the host may {doing}")


def require_match(state: RoomState, match: Match | None, seat: int | None) -> Match:
    """The match in progress, for a seated caller (RoomError otherwise)."""
    if seat is None:
        raise RoomError(errors.NOT_IN_ROOM, "take a seat to play")
    if state.phase != "playing" or match is None:
        raise RoomError(errors.WRONG_PHASE, f"no match in progress (the room is {state.phase})")
    return match


def deal(state: RoomState, seed: int | None) -> tuple[Match, list[Event]]:
    """The first hand of a new match once every seat is taken; the match and its engine events
    (the room's `after_move` still to run)."""
    free = [i for i, seat in enumerate(state.seats) if seat is None]
    if free:
        listed = ", ".join(str(s) for s in free)
        raise RoomError(
            errors.INVALID, f"every seat must be taken first (free: {listed})", errors.SEATS_FREE
        )
    match = Match.new(state.rules.match_rules, seed=secrets.randbits(64) if seed is None else seed)
    state.phase = "playing"
    state.matches += 1
    state.deadline = None
    state.deadline_move = -1
    state.ratings = msgspec.UNSET
    state.game_id = msgspec.UNSET
    state.stood_in = msgspec.UNSET
    for held in state.seats:
        if held is not None:
            held.stand_in_moves = msgspec.UNSET
    return match, list(match.events)


def apply(match: Match, seat: int, move: Move) -> list[Event]:
    """The engine's events for a seat's move (RoomError, nothing changed, if it is illegal)."""
    try:
        return match.apply(seat, move)
    except IllegalMove as error:
        code = errors.NOT_YOUR_TURN if error.code == "not_your_turn" else errors.ILLEGAL_MOVE
        raise RoomError(code, f"{error.message} (rule {error.rule})") from None


def after_move(state: RoomState, match: Match) -> list[Event]:
    """Pass for a seat that can do nothing else, count the move, and note the match's end."""
    events: list[Event] = []
    while match.stuck and not match.over:  # stuck: passing is the one legal move (4.3)
        events += match.apply(match.turn, PASS)
    state.moves += 1
    if match.over:
        state.phase = "finished"
        state.finished = match.to_bytes()
        state.finished_match = state.matches
        state.finished_names = [seat.name if seat is not None else "" for seat in state.seats]
        results.note_finished(state)
    return events


def note(
    state: RoomState,
    seat: int,
    move: Move,
    now: float,
    by_stand_in: bool,
    away_seconds: float,
    idle_seconds: float,
) -> MoveNote:
    """The move as another process replays it (`server.rooms.notes.replay_move`); a stand-in's
    move is counted on its seat."""
    held = state.seats[seat]
    if by_stand_in and held is not None:
        held.stand_in_moves = (held.stand_in_moves or 0) + 1
    tile = None if move.tile is None else int(move.tile)
    end = None if move.end is None else int(move.end)
    stand_in = held is not None and held.stand_in
    return MoveNote(
        seat, tile, end, move.flipped, now, stand_in, away_seconds, by_stand_in, idle_seconds
    )


def note_stand_in(state: RoomState, hand: int, place: int) -> None:
    """Keep that a stand-in made the move at `place` in hand `hand`'s history (a new hand's
    first such move forgets the last hand's)."""
    held = state.stood_in
    if isinstance(held, StoodIn) and held.hand == hand:
        held.places.append(place)
    else:
        state.stood_in = StoodIn(hand, [place])


def stand_in_places(state: RoomState, match: Match) -> list[int]:
    """The places in the current hand's history of the moves a stand-in made."""
    held = state.stood_in
    if isinstance(held, StoodIn) and held.hand == match.hand_number:
        return held.places
    return []


def hint_view(match: Match, seat: int) -> View:
    """The view a hint is computed from: the asking seat's own, on its turn."""
    if match.turn != seat:
        raise RoomError(errors.NOT_YOUR_TURN, f"it is seat {match.turn}'s turn: no hint now")
    return match.view_for(seat)


def give_back(state: RoomState, seat: int) -> None:
    """A player takes their seat back from the stand-in that plays it."""
    held = state.seats[seat]
    if held is None or not held.stand_in:
        raise RoomError(errors.INVALID, "no stand-in plays for you: the seat is yours")
    held.stand_in = False


def rematch(state: RoomState) -> None:
    """Back to waiting with the same seats (the room drops its match)."""
    state.phase = "waiting"
    for held in state.seats:
        if held is not None:
            held.stand_in = False
