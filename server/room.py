"""One room as a sans-I/O state machine: commands in, events and replies out, no awaits.

`Room` holds the match, the seats (name, human or bot, connected, a hash of the secret seat
token), the host, the phase (waiting, playing, finished), chat and a `seq` that grows by one with
every change. Each method checks its command, raises `RoomError(code, message)` and changes
nothing when it refuses, or changes the state, bumps `seq` and returns the public events.
`Room.handle` dispatches a client message to those methods (`server.commands`) and wraps the
result in an `Outcome`; the stored state and the values commands return are in `server.room_state`.
The asyncio layer stores the room (`to_bytes`) before anyone sees the result, then publishes the
change through `server.feed.Feed`.

Forced passes are applied here: whenever the seat to play can neither play nor draw (its only
legal move is a pass), the room passes for it at once, in the same change as the move before.

Presence across server processes: with several processes (`server.cluster`), `links` names the
process each connected seat is connected through and `watchers` counts spectators per process,
so the room's keeper can mark away the players of a process that died (`drop_links`). A single
process passes no `process` (the id of the process a client is connected through) and leaves
both empty.

Turn clock: when the room has `turn_seconds`, each human turn has that long; at the limit a bot
plays that turn. A seat whose player is away (disconnected) waits for `turn_seconds`, or for
`away_seconds` when the room has no clock; after that a bot plays every turn of that seat until
the player comes back.
"""

from __future__ import annotations

import hmac
import secrets
import unicodedata
from collections.abc import Collection
from typing import Any

import msgspec

from bridge import convert
from engine import PASS, IllegalMove, Match, Move, RulesError, View
from protocol import errors
from protocol import messages as msg
from protocol.rules import RoomRules
from protocol.views import CHAT_HISTORY, BotLevel, ChatLine, Phase, SeatInfo
from server import codes, commands
from server.room_state import (
    BotTurn,
    Caller,
    Outcome,
    RoomError,
    RoomState,
    SeatState,
    new_token,
    token_hash,
)

STAND_IN_LEVEL: BotLevel = "normal"
DEFAULT_AWAY_SECONDS = 60.0


class Room:
    """One room: seats, host, phase, chat, the match and `seq`. See the module docstring."""

    def __init__(self, state: RoomState, match: Match | None = None) -> None:
        self.state = state
        self.match = match
        self.away_seconds = DEFAULT_AWAY_SECONDS

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

        `invite`: the secret that, with the code, finds a private room (`server.codes`).
        """
        try:
            convert.engine_rules(rules)
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
        state = _STATE_DECODER.decode(data)
        match = state.match
        state.match = None
        if isinstance(match, bytes):
            match = Match.from_bytes(match)
        return cls(state, match)

    def to_bytes(self) -> bytes:
        """The whole room as bytes, hidden tiles included (for the store, never for a client).

        The match is encoded with the room in one pass, not as bytes of its own inside it.
        """
        self.state.match = self.match
        try:
            return _STATE_ENCODER.encode(self.state)
        finally:
            self.state.match = None

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
        return [i for i, seat in enumerate(self.seats) if seat is not None and seat.kind == "human"]

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
        """Every seat as clients see it."""
        return [seat.info(i) if seat is not None else None for i, seat in enumerate(self.seats)]

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
        self, name: str, seat: int | None = None, now: float = 0.0, process: str = ""
    ) -> tuple[int, str]:
        """Seat a person in a waiting room (a chosen seat, or the first free); returns seat and token."""
        self._require_phase("waiting", "join")
        seat = self._free_seat(seat)
        self._require_unique(name)
        token = new_token()
        self.seats[seat] = SeatState(
            name=name, kind="human", token_hash=token_hash(token), connected=True
        )
        self._link(seat, process)
        if self.state.host is None or self.seats[self.state.host] is None:
            self.state.host = seat
        self._changed(now)
        return seat, token

    def add_bot(self, by: int | None, seat: int | None, level: BotLevel, now: float = 0.0) -> int:
        """Host: seat a bot in a waiting room; returns its seat."""
        self._require_host(by, "add bots")
        self._require_phase("waiting", "add bots")
        seat = self._free_seat(seat)
        self.seats[seat] = SeatState(name=f"bot:{level}", kind="bot", level=level)
        self._changed(now)
        return seat

    def remove_bot(self, by: int | None, seat: int, now: float = 0.0) -> None:
        """Host: free a bot's seat in a waiting room."""
        self._require_host(by, "remove bots")
        self._require_phase("waiting", "remove bots")
        self._check_seat_number(seat)
        held = self.seats[seat]
        if held is None or held.kind != "bot":
            raise RoomError(errors.INVALID, f"seat {seat} holds no bot")
        self.seats[seat] = None
        self._changed(now)

    def leave(self, seat: int, now: float = 0.0) -> None:
        """A player leaves: the seat is freed before and after a match, kept (away) during one."""
        held = self.seats[seat]
        if held is None:
            return
        self.state.links.pop(seat, None)
        if self.phase == "playing":
            held.connected = False
            held.away_since = now
            self._pass_host()
            self._arm_clock(now)
        else:
            self._free(seat)
        self._changed(now)

    def remove_player(self, by: int | None, seat: int, now: float = 0.0) -> None:
        """Host: free another seat (a player's or a bot's) before the match starts."""
        self._require_host(by, "remove players")
        self._require_phase("waiting", "remove players")
        self._check_seat_number(seat)
        if self.seats[seat] is None:
            raise RoomError(errors.INVALID, f"seat {seat} is free already")
        if seat == by:
            raise RoomError(errors.INVALID, "to give up your own seat, leave")
        self._free(seat)
        self._changed(now)

    def release_away(self, now: float, after: float) -> list[int]:
        """Players away `after` seconds: a waiting room frees their seats (returned), and in any
        phase a host that long away passes the host on."""
        gone = []
        for index, held in enumerate(self.seats):
            since = held.away_since if held is not None and not held.connected else None
            if since is not None and now - since >= after:
                gone.append(index)
        released = gone if self.phase == "waiting" else []
        host = self.state.host
        for index in released:
            self._free(index)
        if host in gone and self.state.host == host:
            self._pass_host()
        if released or self.state.host != host:
            self._changed(now)
        return released

    def connect(self, seat: int, now: float = 0.0, process: str = "") -> None:
        """The player of a seat is online (through server `process`); a stand-in bot stops playing."""
        held = self.seats[seat]
        if held is None or held.kind != "human":
            return
        if held.connected and not held.stand_in and self.state.links.get(seat, "") == process:
            return
        held.connected = True
        held.stand_in = False
        held.away_since = None
        self._link(seat, process)
        self._arm_clock(now)
        self._changed(now)

    def disconnect(self, seat: int, now: float = 0.0, process: str = "") -> None:
        """The player of a seat went offline; the seat stays theirs.

        With `process`, only if the seat is still connected through that process (not resumed on
        another one since).
        """
        held = self.seats[seat]
        if held is None or held.kind != "human" or not held.connected:
            return
        if self.state.links.get(seat, "") != process:
            return
        held.connected = False
        held.away_since = now
        self.state.links.pop(seat, None)
        self._arm_clock(now)
        self._changed(now)

    def all_away(self, now: float = 0.0) -> bool:
        """Mark every player away and no one watching (a server starting up); True if that changed."""
        state = self.state
        online = [seat for seat in state.seats if seat is not None and seat.connected]
        if not online and not state.spectators:
            return False
        for seat in online:
            seat.connected = False
            seat.away_since = now
        state.spectators = 0
        state.links = {}
        state.watchers = {}
        self._arm_clock(now)
        self._changed(now)
        return True

    def watch(self, delta: int, now: float = 0.0, process: str = "") -> None:
        """A spectator came (+1) or went (-1) (through server `process`)."""
        state = self.state
        state.spectators = max(0, state.spectators + delta)
        if process:
            count = max(0, state.watchers.get(process, 0) + delta)
            if count:
                state.watchers[process] = count
            else:
                state.watchers.pop(process, None)
        self._changed(now)

    def drop_links(self, dead: Collection[str], now: float = 0.0) -> bool:
        """Mark away the players, and forget the spectators, of the server processes in `dead`.

        A connected seat with no link counts as linked to a dead process too (several processes
        always link seats), and spectators are those `watchers` counts. True if that changed
        anything (then it is a change, with a new seq).
        """
        state = self.state
        changed = False
        for index, held in enumerate(state.seats):
            if held is None or held.kind != "human" or not held.connected:
                continue
            link = state.links.get(index)
            if link is None or link in dead:
                held.connected = False
                held.away_since = now
                state.links.pop(index, None)
                changed = True
        watchers = {
            process: count for process, count in state.watchers.items() if process not in dead
        }
        spectators = sum(watchers.values())
        if watchers != state.watchers or spectators != state.spectators:
            state.watchers, state.spectators = watchers, spectators
            changed = True
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
            raise RoomError(errors.INVALID, f"every seat must be taken first (free: {listed})")
        rules = convert.engine_rules(self.rules)
        self.match = Match.new(rules, seed=secrets.randbits(64) if seed is None else seed)
        self.state.phase = "playing"
        self.state.matches += 1
        self.state.deadline = None
        self.state.deadline_move = -1
        events = list(self.match.events)
        events += self._after_move(now)
        self._changed(now)
        return convert.events(events)

    def play(self, seat: int | None, move: Move, now: float = 0.0) -> list[Any]:
        """Play a seated player's move; returns the public events (forced passes included)."""
        match = self._require_match(seat)
        assert seat is not None
        try:
            events = match.apply(seat, move)
        except IllegalMove as error:
            code = errors.NOT_YOUR_TURN if error.code == "not_your_turn" else errors.ILLEGAL_MOVE
            raise RoomError(code, f"{error.message} (rule {error.rule})") from None
        events = [*events, *self._after_move(now)]
        self._changed(now)
        return convert.events(events)

    def hint_view(self, seat: int | None) -> View:
        """The view a hint is computed from: the asking seat's own, on its turn."""
        match = self._require_match(seat)
        if match.turn != seat:
            raise RoomError(errors.NOT_YOUR_TURN, f"it is seat {match.turn}'s turn: no hint now")
        return match.view_for(seat)

    def bot_level_due(self, now: float) -> BotLevel | None:
        """The level of the bot that must move now, if one must (see `bot_turn`)."""
        match = self.match
        if self.phase != "playing" or match is None or match.over:
            return None
        held = self.seats[match.turn]
        if held is None:
            return None
        if held.kind == "bot":
            return held.level or STAND_IN_LEVEL
        if held.stand_in or self._overdue(now):
            return STAND_IN_LEVEL
        return None

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
        if held is not None and held.kind == "human" and not held.connected:
            held.stand_in = True
        return self.play(turn.seat, move, now)

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

    def finished_match(self) -> tuple[Match, list[str]]:
        """The last finished match and its players' names (RoomError while none is finished)."""
        if self.state.finished is None:
            raise RoomError(
                errors.WRONG_PHASE, "no finished match yet: a record exists once a match ends"
            )
        return Match.from_bytes(self.state.finished), list(self.state.finished_names)

    def say(self, seat: int | None, name: str, text: str, now: float = 0.0) -> ChatLine:
        """Add a chat line (the last CHAT_HISTORY are kept)."""
        line = ChatLine(seat=seat, name=name, text=text)
        chat = [*self.state.chat, line]
        self.state.chat = chat[-CHAT_HISTORY:]
        self._changed(now)
        return line

    # -- the clock -------------------------------------------------------------------------

    @property
    def deadline(self) -> float | None:
        """When the current human turn runs out (wall-clock seconds), if it can."""
        return self.state.deadline

    def _overdue(self, now: float) -> bool:
        state = self.state
        return (
            state.deadline is not None
            and state.deadline_move == state.moves
            and now >= state.deadline
        )

    def _arm_clock(self, now: float) -> None:
        """Set or clear the current turn's deadline after a move or a seat's coming and going."""
        state = self.state
        match = self.match
        if self.phase != "playing" or match is None or match.over:
            state.deadline, state.deadline_move = None, -1
            return
        held = self.seats[match.turn]
        if held is None or held.kind == "bot" or held.stand_in:
            state.deadline, state.deadline_move = None, -1
            return
        limit = self.rules.turn_seconds
        same_turn = state.deadline_move == state.moves and state.deadline is not None
        if limit is not None:
            if not same_turn:
                state.deadline, state.deadline_move = now + limit, state.moves
        elif not held.connected:
            if not same_turn:
                state.deadline, state.deadline_move = now + self.away_seconds, state.moves
        else:
            state.deadline, state.deadline_move = None, -1

    # -- the dispatcher --------------------------------------------------------------------

    def handle(self, caller: Caller, message: msg.ClientMessage, now: float = 0.0) -> Outcome:
        """Apply one in-room client message for `caller`; RoomError if it is refused."""
        return commands.handle(self, caller, message, now)

    # -- checks and bookkeeping ------------------------------------------------------------

    def _link(self, seat: int, process: str) -> None:
        """Note the process a seat is connected through (nothing for a single process)."""
        if process:
            self.state.links[seat] = process
        else:
            self.state.links.pop(seat, None)

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
        while not match.over and match.legal_moves() == [PASS]:
            events += match.apply(match.turn, PASS)
        self.state.moves += 1
        if match.over:
            self.state.phase = "finished"
            self.state.finished = match.to_bytes()
            self.state.finished_names = self.names()
        self._arm_clock(now)
        return events

    def _next_host(self) -> int | None:
        """The player after the host in seat order: the first one connected, else the first."""
        host = self.state.host if self.state.host is not None else -1
        humans = sorted(self.human_seats(), key=lambda s: (s <= host, s))
        online = [s for s in humans if (held := self.seats[s]) is not None and held.connected]
        choices = online or humans
        return choices[0] if choices else None

    def _host_here(self) -> bool:
        """Whether the host's seat is held by a connected player."""
        host = self.state.host
        held = self.seats[host] if host is not None else None
        return held is not None and held.kind == "human" and held.connected

    def _pass_host(self) -> None:
        """The host is gone: the next connected player becomes host (if one is connected)."""
        if self._host_here():
            return
        following = self._next_host()
        if following is not None and (held := self.seats[following]) and held.connected:
            self.state.host = following

    def _free(self, seat: int) -> None:
        """Empty a seat; if it was the host's, the host passes on."""
        self.seats[seat] = None
        self.state.links.pop(seat, None)
        if self.state.host == seat:
            self.state.host = self._next_host()

    def _require_unique(self, name: str) -> None:
        """RoomError `invalid` if a player at the table already goes by this name."""
        wanted = _name_key(name)
        if any(held is not None and _name_key(held.name) == wanted for held in self.seats):
            raise RoomError(errors.INVALID, f"name: someone at this table is {name!r} already")

    def _free_seat(self, seat: int | None) -> int:
        if seat is None:
            free = self.free_seats()
            if not free:
                raise RoomError(errors.ROOM_FULL, f"room {self.code} has no free seat")
            return free[0]
        self._check_seat_number(seat)
        if self.seats[seat] is not None:
            raise RoomError(errors.ROOM_FULL, f"seat {seat} of room {self.code} is taken")
        return seat

    def _check_seat_number(self, seat: int) -> None:
        if not 0 <= seat < self.rules.players:
            raise RoomError(
                errors.INVALID,
                f"seat: room {self.code} has seats 0 to {self.rules.players - 1}, not {seat}",
            )

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


def _name_key(name: str) -> str:
    """Names that look alike compare equal: compatibility forms folded, case and spaces ignored."""
    return "".join(unicodedata.normalize("NFKC", name).casefold().split())


_STATE_ENCODER = msgspec.msgpack.Encoder()
_STATE_DECODER = msgspec.msgpack.Decoder(RoomState)

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
