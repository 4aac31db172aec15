"""One room as a sans-I/O state machine: commands in, events and replies out, no awaits.

`Room` holds the match, the seats (name, human or bot, connected, a hash of the secret seat
token), the host, the phase (waiting, playing, finished), chat and a `seq` that grows by one with
every change. Each method checks its command, raises `RoomError(code, message)` and changes
nothing when it refuses, or changes the state, bumps `seq` and returns the public events.
`server.rooms.commands` dispatches a client message to those methods and wraps the result in an
`Outcome`; the stored state, its encoding and the values commands return are in
`server.rooms.room_state`, and what the room says without changing (its listing, the seats as
clients see them, its bytes) in `server.rooms.room_view.RoomView`, which `Room` extends. The
asyncio layer stores the room (`to_bytes`) before anyone sees the result, then publishes the
change through `server.rooms.feed.Feed`.

The jobs are functions over the `RoomState`, and `Room` ties them together and counts each
change: who may take which seat, who is connected or away, spectators per server process and the
host passing on are `server.rooms.presence`; dealing, moves, forced passes and the match's end
`server.rooms.moves`; the turn clock (a deadline per human turn, a stand-in bot for a player away
or out of time) `server.rooms.clock`; chat `server.rooms.chat`; the finished match's record and
rating changes `server.rooms.results`. `process` arguments name the server process a client is
connected through (none with a single process).
"""

from __future__ import annotations

from collections.abc import Collection

import msgspec

from bridge import convert
from engine import Match, Move, RulesError, View
from engine.events import Event
from protocol import errors
from protocol.ratings import RatingChange
from protocol.rules import RoomRules, check
from protocol.views import AnyEvent, BotLevel, ChatLine, Played
from server.rooms import chat, clock, moves, presence, results, tables
from server.rooms.room_state import (
    BotTurn,
    Caller,
    Outcome,
    RoomError,
    RoomState,
    SeatState,
    TableOf,
    new_token,
    token_hash,
)
from server.rooms.room_view import RoomView
from server.rooms.tables import Sitter


class Room(RoomView):
    """One room: seats, host, phase, chat, the match and `seq`. See the module docstring."""

    # -- building and storing --------------------------------------------------------------

    @classmethod
    def create(
        cls,
        code: str,
        rules: RoomRules,
        owner: str = "",
        now: float = 0.0,
        invite: str | None = None,
    ) -> Room:
        """An empty waiting room with these rules (RoomError `invalid` if the engine refuses them).

        `invite`: the secret that, with the code, finds a private room (`server.rooms.codes`).
        """
        try:
            check(rules)
        except RulesError as error:
            raise RoomError(errors.INVALID, f"rules: {error}") from None
        seats: list[SeatState | None] = [None] * rules.players
        state = RoomState(
            code=code, rules=rules, seats=seats, owner=owner, empty_since=now, invite=invite
        )
        return cls(state)

    # -- seats -----------------------------------------------------------------------------

    def sit(
        self,
        name: str,
        seat: int | None = None,
        now: float = 0.0,
        process: str = "",
        player: str | None = None,
        watching: bool = False,
    ) -> tuple[int, str]:
        """Seat a person (`player`: its id, None for a guest; `watching`: a spectator here until
        now, who stops watching in the same change) in a waiting room (a chosen seat, or the
        first free); returns seat and token. A tournament's table seats a person only in the
        seat reserved for them, whatever seat they ask for (`server.rooms.tables.claim`)."""
        if tables.is_table(self.state):
            seat, token = tables.claim(self.state, player, now, process, watching)
            self._arm_clock(now)
            self._changed(now)
            return seat, token
        moves.require_phase(self.state, "waiting", "join")
        seat = presence.choose_seat(self.state, seat)
        presence.require_unique(self.state, name)
        if watching:
            presence.watch(self.state, -1, process)
        token = new_token()
        held = SeatState(name=name, kind="human", token_hash=token_hash(token), connected=True)
        if player is not None:
            held.player = player
        self.seats[seat] = held
        presence.link(self.state, seat, process)
        if self.state.host is None or self.seats[self.state.host] is None:
            self.state.host = seat
        self._changed(now)
        return seat, token

    def add_bot(self, by: int | None, seat: int | None, level: BotLevel, now: float = 0.0) -> int:
        """Host: seat a bot in a waiting room; returns its seat."""
        moves.require_host(self.state, by, "add bots")
        moves.require_phase(self.state, "waiting", "add bots")
        seat = presence.choose_seat(self.state, seat)
        self.seats[seat] = SeatState(name=f"bot:{level}", kind="bot", level=level)
        self._changed(now)
        return seat

    def remove_bot(self, by: int | None, seat: int, now: float = 0.0) -> None:
        """Host: free a bot's seat in a waiting room."""
        moves.require_host(self.state, by, "remove bots")
        moves.require_phase(self.state, "waiting", "remove bots")
        presence.check_seat_number(self.state, seat)
        held = self.seats[seat]
        if held is None or held.kind != "bot":
            raise RoomError(errors.INVALID, f"seat {seat} holds no bot", errors.NO_BOT)
        self.seats[seat] = None
        self._changed(now)

    def leave(self, seat: int, now: float = 0.0) -> None:
        """A player leaves: the seat is freed before and after a match, kept (away) during one."""
        if self.seats[seat] is None:
            return
        if self.phase == "playing":
            presence.go_away(self.state, seat, now)
            presence.pass_host(self.state)
            self._arm_clock(now)
        else:
            presence.free(self.state, seat)
        self._changed(now)

    def remove_player(self, by: int | None, seat: int, now: float = 0.0) -> None:
        """Host: free another seat (a player's or a bot's) before the match starts."""
        moves.require_host(self.state, by, "remove players")
        moves.require_phase(self.state, "waiting", "remove players")
        presence.check_seat_number(self.state, seat)
        if self.seats[seat] is None:
            raise RoomError(errors.INVALID, f"seat {seat} is free already", errors.SEAT_FREE)
        if seat == by:
            raise RoomError(errors.INVALID, "to give up your own seat, leave", errors.OWN_SEAT)
        presence.free(self.state, seat)
        self._changed(now)

    def release_away(self, now: float, after: float) -> list[int]:
        """Players away `after` seconds: a waiting room frees their seats (returned), and in any
        phase a host that long away passes the host on."""
        host = self.state.host
        released = presence.release_away(self.state, now, after, self.phase == "waiting")
        if released or self.state.host != host:
            self._changed(now)
        return released

    def connect(self, seat: int, now: float = 0.0, process: str = "") -> None:
        """The player of a seat is online (through server `process`); a stand-in bot stops playing."""
        if presence.connect(self.state, seat, process):
            self._arm_clock(now)
            self._changed(now)

    def disconnect(self, seat: int, now: float = 0.0, process: str = "") -> None:
        """The player of a seat went offline; the seat stays theirs.

        With `process`, only if the seat is still connected through that process (not resumed on
        another one since).
        """
        if presence.disconnect(self.state, seat, now, process):
            self._arm_clock(now)
            self._changed(now)

    def all_away(self, now: float = 0.0) -> bool:
        """Mark every player away and no one watching (a server starting up); True if that changed."""
        if not presence.all_away(self.state, now):
            return False
        self._arm_clock(now)
        self._changed(now)
        return True

    def watch(self, delta: int, now: float = 0.0, process: str = "") -> None:
        """A spectator came (+1) or went (-1) (through server `process`)."""
        presence.watch(self.state, delta, process)
        self._changed(now)

    def drop_links(self, dead: Collection[str], now: float = 0.0) -> bool:
        """Mark away the players, and forget the spectators, of the server processes in `dead`.

        True if that changed anything (then it is a change, with a new seq); see
        `server.rooms.presence.drop_links`.
        """
        changed = presence.drop_links(self.state, dead, now)
        if changed:
            self._arm_clock(now)
            self._changed(now)
        return changed

    # -- the match -------------------------------------------------------------------------

    def start(self, by: int | None, now: float = 0.0, seed: int | None = None) -> list[AnyEvent]:
        """Host: deal the first hand once every seat is taken; returns the events."""
        moves.require_host(self.state, by, "start the match")
        moves.require_phase(self.state, "waiting", "start")
        self.match, events = moves.deal(self.state, seed)
        events += self._after_move(now)
        self._changed(now)
        return convert.events(events)

    def play(
        self, seat: int | None, move: Move, now: float = 0.0, by_stand_in: bool = False
    ) -> list[AnyEvent]:
        """Play a seated player's move (`by_stand_in`: a stand-in bot's for them); returns the
        public events (forced passes included)."""
        match = moves.require_match(self.state, self.match, seat)
        assert seat is not None
        hand, place = match.hand_number, len(match.events)
        events = [*moves.apply(match, seat, move), *self._after_move(now)]
        away, idle = self.away_seconds, self.idle_seconds
        note = moves.note(self.state, seat, move, now, by_stand_in, away, idle)
        said = convert.events(events)
        played = said[0]  # the move's own event comes first
        if by_stand_in and isinstance(played, Played):
            moves.note_stand_in(self.state, hand, place)
            said[0] = msgspec.structs.replace(played, stand_in=True)
        self._changed(now)
        self.last_move = (self.state.seq, note)
        return said

    def history(self, events: list[AnyEvent]) -> list[AnyEvent]:
        """The current hand's history (`events`, as the wire has it) with the moves a stand-in
        made marked `stand_in` (kept with the room: `RoomState.stood_in`)."""
        if self.match is None:
            return events
        for place in moves.stand_in_places(self.state, self.match):
            if place < len(events) and isinstance(played := events[place], Played):
                events[place] = msgspec.structs.replace(played, stand_in=True)
        return events

    def hint_view(self, seat: int | None) -> View:
        """The view a hint is computed from: the asking seat's own, on its turn."""
        match = moves.require_match(self.state, self.match, seat)
        assert seat is not None
        return moves.hint_view(match, seat)

    def bot_level_due(self, now: float) -> BotLevel | None:
        """The level of the bot that must move now, if one must (see `bot_turn`)."""
        return clock.level_due(self.state, self.match, now)

    def bot_turn(self, now: float) -> BotTurn | None:
        """The bot move due now, if any: a bot's turn, or a human's whose time is up or who is away."""
        level = self.bot_level_due(now)
        if level is None or self.match is None:
            return None
        seat = self.match.turn
        return BotTurn(seat, level, self.match.view_for(seat), self.state.moves)

    def bot_play(self, turn: BotTurn, move: Move, now: float) -> list[AnyEvent] | None:
        """Apply a bot's move if its turn is still current; returns the events, or None if stale."""
        if self.bot_turn(now) is None or self.state.moves != turn.move_number:
            return None
        human = clock.stand_in_for(self.state, turn.seat, now)
        return self.play(turn.seat, move, now, by_stand_in=human)

    def back(self, seat: int | None, now: float = 0.0) -> None:
        """A connected player takes their seat back from the stand-in that plays it (it took
        the seat when they were idle past the bound on their turn, `server.rooms.clock`)."""
        moves.require_match(self.state, self.match, seat)
        assert seat is not None
        moves.give_back(self.state, seat)
        self._arm_clock(now)
        self._changed(now)

    def open_table(
        self, of: TableOf, sitters: list[Sitter], now: float = 0.0, seed: int | None = None
    ) -> list[AnyEvent]:
        """A new room as tournament table `of`: its seats reserved (`tables.seat`) and the
        first hand dealt at once; returns the events."""
        moves.require_phase(self.state, "waiting", "open a table")
        tables.seat(self.state, of, sitters, now)
        self.match, events = moves.deal(self.state, seed)
        events += self._after_move(now)
        self._changed(now)
        return convert.events(events)

    def table_scores(self) -> list[int] | None:
        """A tournament table's final scores by seat once its match is over (else None)."""
        result = self.table_result()
        return None if result is None else result.scores

    def table_result(self) -> tables.TableResult | None:
        """A tournament table's final scores by seat and archived game's id, once its match is
        over (else None)."""
        finished = self.state.finished
        scores = None if finished is None else list(Match.from_bytes(finished).scores)
        final = tables.final_scores(self.state, scores)
        if final is None:
            return None
        return tables.TableResult(scores=final, game=results.game_shown(self.state))

    def rematch(self, by: int | None, now: float = 0.0) -> None:
        """Host: back to waiting with the same seats after a finished match."""
        if tables.is_table(self.state):
            raise RoomError(errors.WRONG_PHASE, "a tournament's table plays one match: no rematch")
        moves.require_host(self.state, by, "call a rematch")
        moves.require_phase(self.state, "finished", "rematch")
        moves.rematch(self.state)
        self.match = None
        self._changed(now)

    def set_ratings(
        self, match: int, changes: list[RatingChange], now: float, game_id: str | None = None
    ) -> bool:
        """Note finished match `match` archived as `game_id` with its rating changes; False
        (nothing changed) if the room holds another match now (`results.set_ratings`)."""
        changed = results.set_ratings(self.state, match, changes, game_id)
        if changed:
            self._changed(now)
        return changed

    def say(
        self, seat: int | None, name: str, text: str, now: float = 0.0, id: int | None = None
    ) -> ChatLine:
        """Add a chat line (`server.rooms.chat.say`)."""
        line = chat.say(self.state, seat, name, text, id)
        self._changed(now)
        return line

    def said(self, seat: int, id: int) -> bool:
        """Whether the player in `seat` posted a line with this `id` (among its last ones)."""
        return chat.said(self.state, seat, id)

    # -- the clock -------------------------------------------------------------------------

    def _arm_clock(self, now: float) -> None:
        """Set or clear the current turn's deadline after a move or a seat's coming and going."""
        clock.arm(self.state, self.match, self.away_seconds, now, self.idle_seconds)

    # -- checks and bookkeeping ------------------------------------------------------------

    def _changed(self, now: float) -> None:
        self.state.seq += 1
        if self.is_empty():
            if self.state.empty_since is None:
                self.state.empty_since = now
        else:
            self.state.empty_since = None

    def _after_move(self, now: float) -> list[Event]:
        """Forced passes, the move counted, the end noted (`moves.after_move`); the clock armed."""
        assert self.match is not None
        events = moves.after_move(self.state, self.match)
        self._arm_clock(now)
        return events


__all__ = [
    "BotTurn",
    "Caller",
    "Outcome",
    "Room",
    "RoomError",
    "RoomState",
    "SeatState",
    "new_token",
    "token_hash",
]
