"""One room as a sans-I/O state machine: commands in, events and replies out, no awaits.

`Room` holds the match, the seats (name, human or bot, connected, a hash of the secret seat
token), the host, the phase (waiting, playing, finished), chat and a `seq` that grows by one with
every change. Each method checks its command, raises `RoomError(code, message)` and changes
nothing when it refuses, or changes the state, bumps `seq` and returns the public events.
`server.rooms.commands` dispatches a client message to those methods and wraps the result in an
`Outcome`; the stored state and the values commands return are in `server.rooms.room_state`.
The asyncio layer stores the room (`to_bytes`) before anyone sees the result, then publishes the
change through `server.rooms.feed.Feed`.

Forced passes are applied here: whenever the seat to play can neither play nor draw (its only
legal move is a pass), the room passes for it at once, in the same change as the move before.

Who may take which seat, who is connected or away, spectators per server process and the host
passing on are `server.rooms.presence`; the turn clock (a deadline per human turn, a stand-in bot for a player away
or out of time) is `server.rooms.clock`. `process` arguments name the server process a client is
connected through (none with a single process).
"""

from __future__ import annotations

import hmac
import secrets
from collections.abc import Collection
from typing import Any

import msgspec

from bridge import convert
from engine import PASS, IllegalMove, Match, Move, RulesError, View
from protocol import errors
from protocol import messages as msg
from protocol.records import Record
from protocol.rules import RoomRules, check
from protocol.views import CHAT_HISTORY, BotLevel, ChatLine, Phase, SeatInfo
from server.rooms import clock, codes, presence, results
from server.rooms.clock import DEFAULT_AWAY_SECONDS, DEFAULT_IDLE_SECONDS
from server.rooms.room_state import (
    BotTurn,
    Caller,
    MoveNote,
    Outcome,
    RoomError,
    RoomState,
    SeatState,
    decode_room,
    encode_room,
    new_token,
    token_hash,
)

#: How many of a player's last chat `id`s a room remembers (a line sent again is not reposted).
CHAT_IDS_KEPT = 16


class Room:
    """One room: seats, host, phase, chat, the match and `seq`. See the module docstring."""

    def __init__(self, state: RoomState, match: Match | None = None) -> None:
        self.state = state
        self.match = match
        self.away_seconds = DEFAULT_AWAY_SECONDS
        self.idle_seconds = DEFAULT_IDLE_SECONDS
        #: The seq a move made the room, and the move (`encode_note` gives what `replay_move`
        #: takes): when the last change was that one move, other processes are sent the move,
        #: not the whole room.
        self.last_move: tuple[int, MoveNote | None] = (-1, None)

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

    @classmethod
    def from_bytes(cls, data: bytes) -> Room:
        """A room exactly as stored by `to_bytes` (see `all_away` for a room loaded at start-up)."""
        return cls(*decode_room(data))

    def to_bytes(self) -> bytes:
        """The whole room as bytes, hidden tiles included (for the store, never for a client).

        The match is encoded with the room in one pass, not as bytes of its own inside it.
        """
        return encode_room(self.state, self.match)

    # -- asking ----------------------------------------------------------------------------

    @property
    def code(self) -> str:
        """The room code."""
        return self.state.code

    @property
    def join_code(self) -> str:
        """What finds the room: its code, and for a private room `CODE-INVITE` (never listed)."""
        return codes.handle(self.state.code, self.state.invite)

    def opens(self, invite: str) -> bool:
        """Whether `invite` (the letters after the code, as typed) finds this room."""
        return codes.invite_fits(self.state.invite, invite)

    @property
    def seq(self) -> int:
        """The number of the latest change."""
        return self.state.seq

    @property
    def rules(self) -> RoomRules:
        """The room's rules and options."""
        return self.state.rules

    @property
    def phase(self) -> Phase:
        """waiting, playing or finished."""
        return self.state.phase

    @property
    def seats(self) -> list[SeatState | None]:
        """The seats, None where free."""
        return self.state.seats

    def free_seats(self) -> list[int]:
        """Seats nobody holds."""
        return [i for i, seat in enumerate(self.seats) if seat is None]

    def human_seats(self) -> list[int]:
        """Seats held by people."""
        return presence.human_seats(self.state)

    def listed(self) -> bool:
        """Whether `list_rooms` shows the room: public, waiting, a seat free, someone in it."""
        return (
            self.rules.public
            and self.phase == "waiting"
            and not self.is_empty()
            and bool(self.free_seats())
        )

    def is_empty(self) -> bool:
        """Whether nobody is connected: no seated player online and no spectator."""
        if self.state.spectators:
            return False
        return not any(seat is not None and seat.connected for seat in self.seats)

    def names(self) -> list[str]:
        """The name in each seat ("" where free)."""
        return [seat.name if seat is not None else "" for seat in self.seats]

    def summary(self) -> msg.RoomSummary:
        """The room as a public listing shows it."""
        return msg.RoomSummary(
            code=self.code,
            rules=self.rules,
            seats=[seat.name if seat is not None else None for seat in self.seats],
            free_seats=self.free_seats(),
        )

    def seat_infos(self) -> list[SeatInfo | None]:
        """Every seat as clients see it (the seat to play with its turn's deadline, if timed)."""
        state = self.state
        timed = state.deadline is not None and state.deadline_move == state.moves
        turn = self.match.turn if timed and self.match is not None else None
        return [
            seat.info(i, state.deadline if i == turn else None) if seat is not None else None
            for i, seat in enumerate(self.seats)
        ]

    def seat_of_token(self, token: str) -> int | None:
        """The seat a secret token belongs to, if any."""
        wanted = token_hash(token)
        for index, seat in enumerate(self.seats):
            held = seat.token_hash if seat is not None else None
            if held is not None and hmac.compare_digest(held, wanted):
                return index
        return None

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
        first free); returns seat and token."""
        self._require_phase("waiting", "join")
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
        self._require_host(by, "add bots")
        self._require_phase("waiting", "add bots")
        seat = presence.choose_seat(self.state, seat)
        self.seats[seat] = SeatState(name=f"bot:{level}", kind="bot", level=level)
        self._changed(now)
        return seat

    def remove_bot(self, by: int | None, seat: int, now: float = 0.0) -> None:
        """Host: free a bot's seat in a waiting room."""
        self._require_host(by, "remove bots")
        self._require_phase("waiting", "remove bots")
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
        self._require_host(by, "remove players")
        self._require_phase("waiting", "remove players")
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

    def start(self, by: int | None, now: float = 0.0, seed: int | None = None) -> list[Any]:
        """Host: deal the first hand once every seat is taken; returns the events."""
        self._require_host(by, "start the match")
        self._require_phase("waiting", "start")
        free = self.free_seats()
        if free:
            listed = ", ".join(str(s) for s in free)
            raise RoomError(
                errors.INVALID,
                f"every seat must be taken first (free: {listed})",
                errors.SEATS_FREE,
            )
        self.match = Match.new(
            self.rules.match_rules, seed=secrets.randbits(64) if seed is None else seed
        )
        self.state.phase = "playing"
        self.state.matches += 1
        self.state.deadline = None
        self.state.deadline_move = -1
        self.state.ratings = msgspec.UNSET
        self.state.game_id = msgspec.UNSET
        for held in self.seats:
            if held is not None:
                held.stand_in_moves = msgspec.UNSET
        events = list(self.match.events)
        events += self._after_move(now)
        self._changed(now)
        return convert.events(events)

    def play(
        self, seat: int | None, move: Move, now: float = 0.0, by_stand_in: bool = False
    ) -> list[Any]:
        """Play a seated player's move (`by_stand_in`: a stand-in bot's for them); returns the
        public events (forced passes included)."""
        match = self._require_match(seat)
        assert seat is not None
        try:
            events = match.apply(seat, move)
        except IllegalMove as error:
            code = errors.NOT_YOUR_TURN if error.code == "not_your_turn" else errors.ILLEGAL_MOVE
            raise RoomError(code, f"{error.message} (rule {error.rule})") from None
        events = [*events, *self._after_move(now)]
        held = self.seats[seat]
        if by_stand_in and held is not None:
            held.stand_in_moves = (held.stand_in_moves or 0) + 1
        self._changed(now)
        tile = None if move.tile is None else int(move.tile)
        end = None if move.end is None else int(move.end)
        stand_in = held is not None and held.stand_in
        note = MoveNote(
            seat,
            tile,
            end,
            move.flipped,
            now,
            stand_in,
            self.away_seconds,
            by_stand_in,
            self.idle_seconds,
        )
        self.last_move = (self.state.seq, note)
        return convert.events(events)

    def hint_view(self, seat: int | None) -> View:
        """The view a hint is computed from: the asking seat's own, on its turn."""
        match = self._require_match(seat)
        if match.turn != seat:
            raise RoomError(errors.NOT_YOUR_TURN, f"it is seat {match.turn}'s turn: no hint now")
        return match.view_for(seat)

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

    def bot_play(self, turn: BotTurn, move: Move, now: float) -> list[Any] | None:
        """Apply a bot's move if its turn is still current; returns the events, or None if stale."""
        if self.bot_turn(now) is None or self.state.moves != turn.move_number:
            return None
        held = self.seats[turn.seat]
        human = held is not None and held.kind == "human"
        idle = clock.idle_overdue(self.state, now)
        if human and held is not None and (not held.connected or idle):
            held.stand_in = True  # until the player comes back (or, idle, takes it back)
        return self.play(turn.seat, move, now, by_stand_in=human)

    def back(self, seat: int | None, now: float = 0.0) -> None:
        """A connected player takes their seat back from the stand-in that plays it (it took
        the seat when they were idle past the bound on their turn, `server.rooms.clock`)."""
        self._require_match(seat)
        assert seat is not None
        held = self.seats[seat]
        if held is None or not held.stand_in:
            raise RoomError(errors.INVALID, "no stand-in plays for you: the seat is yours")
        held.stand_in = False
        self._arm_clock(now)
        self._changed(now)

    def rematch(self, by: int | None, now: float = 0.0) -> None:
        """Host: back to waiting with the same seats after a finished match."""
        self._require_host(by, "call a rematch")
        self._require_phase("finished", "rematch")
        self.state.phase = "waiting"
        self.match = None
        for held in self.seats:
            if held is not None:
                held.stand_in = False
        self._changed(now)

    def finished_record(self) -> Record:
        """The record of the last finished match (`server.rooms.results.finished_record`)."""
        return results.finished_record(self)

    def say(
        self, seat: int | None, name: str, text: str, now: float = 0.0, id: int | None = None
    ) -> ChatLine:
        """Add a chat line (the last CHAT_HISTORY are kept); a seat's line remembers its `id`."""
        line = ChatLine(seat=seat, name=name, text=text)
        chat = [*self.state.chat, line]
        self.state.chat = chat[-CHAT_HISTORY:]
        held = self.seats[seat] if seat is not None else None
        if held is not None and id is not None:
            kept = held.chat_ids or []
            held.chat_ids = [*kept, id][-CHAT_IDS_KEPT:]
        self._changed(now)
        return line

    def said(self, seat: int, id: int) -> bool:
        """Whether the player in `seat` posted a line with this `id` (among its last ones)."""
        held = self.seats[seat]
        return held is not None and id in (held.chat_ids or ())

    # -- the clock -------------------------------------------------------------------------

    @property
    def deadline(self) -> float | None:
        """When the current human turn runs out (wall-clock seconds), if it can."""
        return self.state.deadline

    def _arm_clock(self, now: float) -> None:
        """Set or clear the current turn's deadline after a move or a seat's coming and going."""
        clock.arm(self.state, self.match, self.away_seconds, now, self.idle_seconds)

    # -- checks and bookkeeping ------------------------------------------------------------

    def touch(self, now: float) -> None:
        """Count a change made from outside (`server.rooms.results`): a new seq."""
        self._changed(now)

    def _changed(self, now: float) -> None:
        self.state.seq += 1
        if self.is_empty():
            if self.state.empty_since is None:
                self.state.empty_since = now
        else:
            self.state.empty_since = None

    def _after_move(self, now: float) -> list[Any]:
        """Pass for a seat that can do nothing else, count the move, and note the match's end."""
        match = self.match
        assert match is not None
        events: list[Any] = []
        while match.stuck and not match.over:  # stuck: passing is the one legal move (4.3)
            events += match.apply(match.turn, PASS)
        self.state.moves += 1
        if match.over:
            self.state.phase = "finished"
            self.state.finished = match.to_bytes()
            self.state.finished_match = self.state.matches
            self.state.finished_names = self.names()
            results.note_finished(self.state)
        self._arm_clock(now)
        return events

    def _require_phase(self, phase: Phase, doing: str) -> None:
        if self.phase != phase:
            raise RoomError(
                errors.WRONG_PHASE, f"cannot {doing} while the room is {self.phase}, only {phase}"
            )

    def _require_host(self, seat: int | None, doing: str) -> None:
        if seat is None or seat != self.state.host:
            raise RoomError(errors.NOT_HOST, f"only the host may {doing}")

    def _require_match(self, seat: int | None) -> Match:
        if seat is None:
            raise RoomError(errors.NOT_IN_ROOM, "take a seat to play")
        if self.phase != "playing" or self.match is None:
            raise RoomError(errors.WRONG_PHASE, f"no match in progress (the room is {self.phase})")
        return self.match


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
