"""What the client knows of its room: the view from snapshot and patches, a log, the last notice.

Sans-I/O: `TableState.receive(message)` takes one server message, updates the state, and returns
the messages the client must send because of it (a `resync` after a gap in `seq`).
"""

from __future__ import annotations

import time
from collections import deque
from collections.abc import Mapping
from dataclasses import dataclass, replace
from typing import Literal

from clients.cli import local, words
from clients.cli.i18n import _, ngettext
from clients.cli.keys import shown_code
from clients.cli.log_lines import LineKind, LogLine, line_kind, told
from clients.cli.safe import visible
from clients.cli.scoreboard import Scoreboard
from clients.cli.seat_news import seat_changes
from protocol import messages as msg
from protocol.patch import ClientState, GapDetected
from protocol.records import Record
from protocol.views import (
    AnyEvent,
    ChatLine,
    GameView,
    HandEnded,
    HandStarted,
    Layout,
    MatchEnded,
    MoveSpec,
    Passed,
    Played,
    RoomView,
)

LOG_LENGTH = 200
NoticeKind = Literal["info", "error", "hint"]


@dataclass(frozen=True)
class Notice:
    """The latest word for the player: an error in words, a hint, a connection note."""

    text: str
    kind: NoticeKind = "info"


def display_names(view: RoomView, played: list[str] | None = None) -> list[str]:
    """A name per seat: people by their name, an ordinary room's bots as "Bot 2" (a
    tournament's by the name the server gave it), free seats as "(free)"; a
    finished match's seats by the `played` names (who sat there while it was played), also
    once they have left."""
    if view.phase == "finished" and played is not None and len(played) == len(view.seats):
        return list(played)
    names = []
    for index, seat in enumerate(view.seats):
        if seat is None:
            names.append(words.free_seat())
        else:
            names.append(words.seat_name(index, seat.name, seat.kind == "bot"))
    return names


def describe_move(move: MoveSpec) -> str:
    """A suggested move in words: "play 5-3 north", "pass"."""
    return words.describe_move(move)


class TableState:
    """The room as this client holds it, plus a log of what happened and the latest notice."""

    def __init__(self) -> None:
        self.sync = ClientState()
        self.log: deque[LogLine] = deque(maxlen=LOG_LENGTH)
        self.notice: Notice | None = None
        self.room: str | None = None
        self.seat: int | None = None
        self.token: str | None = None
        self.hint: MoveSpec | None = None
        #: The player this connection's key belongs to on the server (None: a guest).
        self.player: str | None = None
        #: The server's address as another device joins it (None: not said).
        self.server_url: str | None = None
        #: The last match record the server sent (asked for with `record`: /save, /review).
        self.record: Record | None = None
        #: The previous hand's last layout, shown until the next lead.
        self.last_layout: Layout | None = None
        #: Whether the connection is up (a table shown while it is down may be out of date).
        self.online = True
        #: A resync was asked for after a gap; patches are ignored until its snapshot comes.
        self.mending = False
        #: The hand the log follows and how many of its history events it has told.
        self._hand: int | None = None
        self._hand_events = 0
        #: Points hand by hand, the biggest play, who went out.
        self.scoreboard = Scoreboard()
        #: The finished match's record was asked for to fill the hands this window did not
        #: see: until it comes the scoreboard lacks them (plain mode waits to tell it).
        self.board_pending = False
        self._board_asked = False
        #: The seats' names while the match was played (a finished match keeps them).
        self.played_names: list[str] | None = None
        #: The last hand's end, shown until the player presses Enter.
        self.result: HandEnded | None = None
        self.result_hand: int | None = None
        #: The match's end, shown with its summary until the player presses Enter.
        self.match_over = False
        #: Tile numbers that stay put through a hand (a played tile's number is not reused).
        self.numbers: dict[str, int] = {}
        self._numbered_hand: int | None = None
        #: Tiles drawn since this player last played.
        self.fresh: set[str] = set()
        self._highest_number = 0
        #: The numbers changed since `numbering()` was last kept (a new hand, a tile drawn).
        self.numbering_changed = False
        #: When the current turn began (time.monotonic), for the turn clock.
        self.turn_since: float | None = None
        self._turn_key: tuple[int, int | None, int] | None = None

    @property
    def view(self) -> RoomView | None:
        """The room document, or None before the first snapshot."""
        try:
            return self.sync.view
        except GapDetected:
            return None

    @property
    def game(self) -> GameView | None:
        """The match in the room, if there is one."""
        view = self.view
        return view.game if view is not None else None

    @property
    def seq(self) -> int | None:
        """The last change this client holds."""
        return self.sync.seq

    def resume_seq(self) -> int | None:
        """The seq a connection coming back asks to be caught up from: None (a snapshot) while
        a resync is awaited. The frames after the seq it holds would be ignored until that
        snapshot, which a connection lost before it came never brings: the table stayed where
        it was, and the next gap asked for nothing."""
        return None if self.mending else self.sync.seq

    def names(self) -> list[str]:
        """The display name of each seat (a finished match's as it was played)."""
        view = self.view
        return display_names(view, self.played_names) if view is not None else []

    def everyone_stayed(self) -> bool:
        """Whether every seat of the finished match is still held (a rematch can be called)."""
        view = self.view
        return view is not None and all(seat is not None for seat in view.seats)

    def my_turn(self) -> bool:
        """Whether it is this client's turn in a match being played."""
        view = self.view
        game = view.game if view is not None else None
        return (
            view is not None
            and game is not None
            and view.phase == "playing"
            and view.you is not None
            and game.turn == view.you
            and bool(game.legal)
        )

    def say(self, text: str, kind: NoticeKind = "info") -> None:
        """Set the notice line."""
        self.notice = Notice(text, kind)

    def note(self, text: str, kind: LineKind = "info") -> None:
        """Add a line to the log."""
        self.log.append(LogLine(text, kind))

    def receive(self, message: msg.AnyServerMessage) -> list[msg.ClientMessage]:
        """Take one server message; returns what must be sent back (a resync after a gap)."""
        match message:
            case msg.Snapshot():
                before = self.view
                self.sync.on_snapshot(message)
                self._mark_new_match(before, self.view)
                self.mending = False
                self._log_missed()
                self._follow_hand()
            case msg.Patch() | msg.Moved():
                before = self.view
                try:
                    events = self.sync.on_patch(message)
                except GapDetected:
                    if self.mending:
                        return []
                    self.mending = True
                    return [msg.Resync()]
                self._mark_new_match(before, self.view)
                self._log_seat_changes(before, self.view)
                self._keep_final_layout(events)
                self._log_events(events)
                self._follow_hand()
                moved = any(not isinstance(event, ChatLine) for event in events)
                if moved and self.notice is not None and self.notice.kind == "error":
                    self.notice = None  # an old refusal goes once the game moves on
            case msg.Joined():
                self.room, self.seat = message.room, message.seat
                self.token = message.seat_token or self.token
            case msg.Error():
                self.say(error_text(message), "error")
                if message.command == "resync":
                    self.mending = False  # refused (too many messages): the next gap asks again
                if message.command == "record":
                    self.board_pending = False  # the board stays as this window saw it
            case msg.HintReply(move=move):
                self.hint = move
                said = _("Hint: the hard bot would {move}").format(move=describe_move(move))
                if move.tile is not None and move.tile in self.numbers:
                    letter = f" {move.end[0]}" if move.end is not None else ""
                    said += _(" (type {what})").format(what=f"{self.numbers[move.tile]}{letter}")
                self.say(said, "hint")
            case msg.RecordReply(record=record):
                self.record = record
                self._name_from_record(record)
                self._board_from_record(record)
            case msg.Welcome(player=player):
                if player is not None:
                    self.player = player
            case msg.LinkCodeReply(code=code, expires_in=seconds):
                minutes = seconds // 60
                said = ngettext(
                    "Link code {code} (works once, for {count} minute): on the other device "
                    "run  {command}",
                    "Link code {code} (works once, for {count} minutes): on the other device "
                    "run  {command}",
                    minutes,
                )
                url = visible(self.server_url.rstrip("/")) if self.server_url else "URL"
                shown = shown_code(visible(code))
                command = f"{local.command()} join {url} --link {shown}"  # i18n: a command
                self.say(
                    said.format(code=shown, count=minutes, command=command),
                    "hint",
                )
        view = self.view
        if view is None or view.phase != "finished":
            self.board_pending = self._board_asked = False
        if view is not None and view.phase == "playing":
            self.played_names = display_names(view)
        elif view is not None and view.phase == "waiting":
            self.played_names = None
        elif self._board_missing(view) and not self._board_asked:
            # A finished match this window did not see from its first hand (a rejoin after a
            # stand-in finished it): its hands are in its record, as the server counted them.
            self._board_asked = self.board_pending = True
            return [msg.GetRecord()]
        elif self._names_missing(view) and isinstance(message, msg.Snapshot):
            # A finished match first seen after some of its players left (a watcher coming
            # late): who played it is in its record.
            return [msg.GetRecord()]
        return []

    def _board_missing(self, view: RoomView | None) -> bool:
        """Whether a finished match's scoreboard lacks hands this window did not see."""
        return (
            view is not None
            and view.phase == "finished"
            and view.game is not None
            and not self.scoreboard.complete()
        )

    def _board_from_record(self, record: Record) -> None:
        """The finished match's scoreboard from its record, when this window missed hands of
        it (the record is that match's: its scores are the room's)."""
        view = self.view
        self.board_pending = False
        if not self._board_missing(view) or view is None or view.game is None:
            return
        if record.scores != view.game.scores:
            return
        self.scoreboard = Scoreboard.of_record(record, view.sides)

    def _names_missing(self, view: RoomView | None) -> bool:
        """Whether a finished match's table has a seat whose player is not known here."""
        return (
            view is not None
            and view.phase == "finished"
            and self.played_names is None
            and any(seat is None for seat in view.seats)
        )

    def _name_from_record(self, record: Record) -> None:
        """Name the finished match's seats after its record (bots as the table names them)."""
        view = self.view
        if not self._names_missing(view) or view is None:
            return
        if len(record.names) != len(view.seats):
            return
        self.played_names = words.table_names(record.names)
        self.log = deque(
            replace(line, text=told(line.event, self.view, self.names()), unnamed=False)
            if line.unnamed and line.event is not None
            else line
            for line in self.log
        )

    def dismiss_result(self) -> bool:
        """The player has read the hand's (or match's) result; False if none was shown."""
        shown = self.result is not None or self.match_over
        self.result, self.match_over = None, False
        return shown

    def numbered_hand(self) -> list[tuple[int, str]]:
        """This player's tiles with their numbers, in number order."""
        game = self.game
        hand = game.hand if game is not None and game.hand is not None else []
        return sorted((self.numbers.get(tile, 0), tile) for tile in hand)

    def tile_numbered(self) -> dict[int, str]:
        """Number -> tile, for what the player types."""
        return {number: tile for number, tile in self.numbered_hand()}

    def numbering(self) -> dict[str, object]:
        """The hand's tile numbers, to keep with the seat (`restore_numbering` takes them)."""
        self.numbering_changed = False
        return {
            "hand": self._numbered_hand,
            "numbers": dict(self.numbers),
            "highest": self._highest_number,
            "fresh": sorted(self.fresh),
        }

    def restore_numbering(self, saved: Mapping[str, object]) -> None:
        """Take back the numbers a previous run of the client showed for this hand (a saved
        file: anything malformed is ignored)."""
        hand, numbers, highest = saved.get("hand"), saved.get("numbers"), saved.get("highest")
        fresh = saved.get("fresh")
        if not (isinstance(hand, int) and isinstance(numbers, dict) and isinstance(highest, int)):
            return
        kept = {
            tile: number
            for tile, number in numbers.items()
            if isinstance(tile, str) and isinstance(number, int) and 0 < number <= highest
        }
        if len(set(kept.values())) != len(kept):
            return
        self.numbers, self._numbered_hand, self._highest_number = kept, hand, highest
        self.fresh = (
            {tile for tile in fresh if isinstance(tile, str)} if isinstance(fresh, list) else set()
        )

    def _follow_hand(self) -> None:
        """Keep the tile numbers (new tiles get the next number) and the turn clock current."""
        game = self.game
        if game is None:  # no match, or back to waiting for a rematch: the next starts afresh
            self.numbers, self._numbered_hand, self.fresh = {}, None, set()
            self.turn_since = self._turn_key = None
            self.scoreboard = Scoreboard()
            # The last match's cards are put away: its seats may empty now (shown "(free)"),
            # and its scores are gone; the log keeps its result as it was said.
            self.result, self.match_over = None, False
            return
        moves = sum(1 for event in game.history if isinstance(event, Played | Passed))
        key = (game.hand_number, game.turn, moves)
        if key != self._turn_key:
            self._turn_key, self.turn_since = key, time.monotonic()
        hand = game.hand or []
        if game.hand_number != self._numbered_hand:
            self.numbers, self._numbered_hand, self.fresh = {}, game.hand_number, set()
            self._highest_number = 0
            self.numbering_changed = True
        dealt = self._highest_number == 0
        self.numbers = {tile: n for tile, n in self.numbers.items() if tile in hand}
        for tile in hand:
            if tile not in self.numbers:
                self._highest_number += 1
                self.numbers[tile] = self._highest_number
                self.numbering_changed = True
                if not dealt:
                    self.fresh.add(tile)
        self.fresh &= set(hand)

    def _keep_final_layout(self, events: list[AnyEvent]) -> None:
        """When a hand ends, keep the layout it ended on (the server's) to show until the lead."""
        if any(isinstance(event, HandStarted) for event in events):
            ended = [event for event in events if isinstance(event, HandEnded)]
            self.last_layout = ended[-1].layout if ended else None

    def _mark_new_match(self, before: RoomView | None, after: RoomView | None) -> None:
        """After a rematch: a line between the last match's log and the new one's."""
        finished = before is not None and before.phase == "finished"
        if finished and after is not None and after.phase != "finished":
            self.note("──── " + _("A new match") + " ────", "match")

    def _log_seat_changes(self, before: RoomView | None, after: RoomView | None) -> None:
        """Say who sat down, left, went away or came back."""
        if before is None or after is None:
            return
        for line in seat_changes(before, after, display_names(before), display_names(after)):
            self.note(line, "info")

    def _log_missed(self) -> None:
        """After a snapshot: log what this hand's history holds that the log does not yet."""
        game = self.game
        if game is None:
            self._hand, self._hand_events = None, 0
            return
        if game.hand_number == self._hand:
            self._log_events(game.history[self._hand_events :])
            return
        last = game.last_hand
        if self._hand is not None and last is not None and game.hand_number == self._hand + 1:
            ended = HandEnded(kind=last.kind, by=last.by, points=last.points, pips=last.pips)
            self._log_events([ended])
        # The hand told afresh (a rejoin): its past plays do not unmark the tiles drawn since.
        self._log_events(game.history, told_again=True)

    def _log_events(self, events: list[AnyEvent], told_again: bool = False) -> None:
        view = self.view
        for event in events:
            if isinstance(event, HandStarted):
                self._hand, self._hand_events = event.number, 0
            if not isinstance(event, ChatLine):
                self._hand_events += 1
            if isinstance(event, Played | HandEnded | MatchEnded):
                self.hint = None
                if self.notice is not None and self.notice.kind == "hint":
                    self.notice = None
            if view is not None:
                self.scoreboard.take(event, view.rules, view.sides)
            if isinstance(event, HandEnded):
                self.result, self.result_hand = event, self._hand
            if isinstance(event, MatchEnded):
                self.match_over = True
            mine = isinstance(event, Played) and view is not None and event.seat == view.you
            if mine and not told_again:
                self.fresh = set()
            unnamed = self._names_missing(view)
            self.log.append(
                LogLine(told(event, view, self.names()), line_kind(event), event, unnamed)
            )


def error_text(error: msg.Error) -> str:
    """A server error in words, naming what was refused."""
    return words.error_text(error)
