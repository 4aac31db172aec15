"""What a room's receivers are sent after each change: one shared frame, and a few seats' own.

A room has one `seq` and its receivers (every human seat, and the spectators while any watch)
share one public document; a seat's differs only in `you`, `hand` and `legal`. After a change,
`Feed.publish` turns the change's events and the parts that moved (engine.parts, server.rooms.patches)
into the public operations, encoded once into the frame every receiver gets, and, for the seats
whose hand or legal moves changed, a frame of the same public operations followed by their own.
No receiver's document is held here: only the small parts last published.

The last `keep` changes' frames are kept, up to `KEPT_BYTES` in all, so a client that comes back
with the last `seq` it saw gets exactly the frames it missed (its own where it had one, else the
shared one), or a fresh snapshot (server.rooms.documents) when they are no longer kept or it did not
follow the room then. The bytes bound what each of thousands of rooms holds (whole changes
repeat the shared frame, so a count of changes alone would let a room hold many times more;
`KEPT_BYTES` keeps the last few moves, about a minute of play at a human pace, see
docs/performance.md); a receiver that missed more gets the snapshot, which brings it up to date
as well.
Sans-I/O: no awaits, no sockets.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any, NamedTuple

import msgspec

from bridge import convert
from engine import events as engine_events
from engine import parts
from engine.parts import Own, Table
from protocol import messages as msg
from protocol import views as wire
from server.rooms import moved, patches, results
from server.rooms.documents import SPECTATORS, Receiver, public_game, room_view, seat_sides
from server.rooms.room import Room

__all__ = ["DEFAULT_KEEP", "SPECTATORS", "Feed", "Frames", "Receiver", "frame_of"]

DEFAULT_KEEP = 32
#: The most bytes of frames a room keeps for returning receivers (the oldest go first).
KEPT_BYTES = 4096
#: What a kept change holds besides its frames' bytes (its tuple, the shared frame's object, its
#: seq and size), and each seat's own part besides its bytes (its pair and object), as
#: tracemalloc measures them: counted against `KEPT_BYTES`, so that small `moved` frames do not
#: let a room keep many more changes than its bytes say.
KEPT_CHANGE = 128
KEPT_PART = 64

_encode = msgspec.json.Encoder().encode
_decode_events = msgspec.json.Decoder(list[wire.AnyEvent]).decode
_MOVED = b'{"type":"moved",'
#: A seat's own part before it had any (a receiver not followed yet).
_NO_OWN = Own(0, ())


def frame_of(receiver: Receiver, shared: bytes, own: dict[int, bytes]) -> bytes:
    """The one place a receiver's frame of a change is picked: its own, else the shared one."""
    return shared if receiver is None else own.get(receiver, shared)


class Frames(NamedTuple):
    """What one change sends: the shared frame, and the frames of the seats with their own ops.

    `fresh` receivers are new to the room: they get a snapshot instead, not these frames.
    """

    seq: int
    shared: bytes
    own: dict[int, bytes]
    fresh: tuple[Receiver, ...]


class Feed:
    """The public and private parts a room's receivers last got, and its recent frames."""

    def __init__(self, keep: int = DEFAULT_KEEP, kept_bytes: int = KEPT_BYTES) -> None:
        self.keep = keep
        self.kept_bytes = kept_bytes
        self._kept_size = 0
        self.seq = 0
        #: (seq, shared frame, own parts) of the last `keep` changes, oldest first: plain tuples
        #: of bytes and ints, which the garbage collector leaves alone. A seat's own frame is
        #: kept as the part after the shared operations (`_kept_frame` puts it back together).
        #: A list: a few entries, where a deque's first block alone is over 500 bytes a room.
        self.kept: list[tuple[int, bytes, tuple[tuple[int, bytes], ...]]] = []
        #: The bytes each kept change holds (its frames), in the same order.
        self._sizes: list[int] = []
        #: Each receiver followed since which seq (patches from then on reach its document).
        self.since: dict[Receiver, int] = {}
        self._ready = False
        self._seats: list[wire.SeatInfo | None] = []
        self._host: int | None = None
        self._deadline: float | None = None
        self._phase: str = ""
        self._spectators = 0
        self._ratings: list[Any] | None = None
        self._game_id: str | None = None
        self._chat = 0
        self._match_number = 0
        self._table: Table | None = None
        self._history = 0
        self._own: dict[int, Own] = {}
        #: The rules the sides were worked out for, and the sides (`_sides_of`).
        self._sides: tuple[object, list[int]] = (None, [])

    # -- who follows the room -------------------------------------------------------------

    def receivers(self, room: Room) -> list[Receiver]:
        """Who gets documents: every human seat, and the spectators while any watch."""
        found: list[Receiver] = list(room.human_seats())
        if room.state.spectators:
            found.append(SPECTATORS)
        return found

    def _take(self, room: Room) -> None:
        """Note the room as it is now, as what every receiver's document shows."""
        state = room.state
        match = room.match
        self.seq = state.seq
        self._seats = room.seat_infos()
        self._host = state.host
        self._deadline = room.turn_deadline()
        self._phase = state.phase
        self._spectators = state.spectators
        self._ratings = results.ratings_shown(state)
        self._game_id = results.game_shown(state)
        self._chat = len(state.chat)
        self._match_number = state.matches
        self._table = parts.table(match) if match is not None else None
        self._history = len(match.events) if match is not None else 0
        self._own = {}
        if match is not None:
            for seat in room.human_seats():
                self._own[seat] = parts.own(match, seat)
        self._ready = True

    def _sides_of(self, room: Room) -> list[int]:
        """Each seat's index in the scores, worked out again only when the rules change."""
        rules = room.state.rules
        if self._sides[0] is not rules:
            self._sides = (rules, seat_sides(room))
        return self._sides[1]

    # -- publishing ------------------------------------------------------------------------

    def publish(self, room: Room, events: list[wire.AnyEvent] | msgspec.Raw) -> Frames:
        """After a change: the frames it sends (wire events, or them encoded as a JSON array).

        Receivers new to the room are in `fresh` (they are sent a snapshot); receivers gone
        from the room are forgotten.
        """
        receivers = self.receivers(room)
        if not self._ready:
            self._take(room)
            self.since = dict.fromkeys(receivers, room.seq)
            return Frames(room.seq, b"", {}, tuple(receivers))
        if isinstance(events, msgspec.Raw):
            events = _decode_events(events)
        ops: list[patches.Operation] = []
        before = self._table
        self._room_ops(room, ops)
        match = room.match
        after: Table | None = None
        if (
            match is not None
            and before is not None
            and (not ops or (len(ops) == 1 and ops[0].path == "/deadline"))
            and room.state.matches == self._match_number
            and len(room.state.chat) == self._chat
            and self._history + len(events) == len(match.events)
        ):
            after = parts.table(match)
            if moved.moves_only(before, after, events, self._sides_of(room)):
                return self._publish_moved(room, events, before, after, receivers)
        game_replaced = self._game_ops(room, events, ops, after)
        self._chat_ops(room, events, ops)
        seq = room.seq
        self.seq = seq
        head = b'{"type":"patch","seq":%d,"ops":' % seq
        public_json = _encode(ops)
        shared = b"".join((head, public_json, b"}"))
        # A seat's own frame: the public operations, then its own (one JSON array).
        own_head = b"".join((head, public_json[:-1], b",")) if ops else head + b"["

        def own_part(seat: int, old: Own | None, new: Own) -> bytes | None:
            mine: list[patches.Operation] = []
            if game_replaced or old is None:
                patches.own_fresh(new, mine)
            elif old != new:
                patches.own_ops(old, new, mine)
            return _encode(mine)[1:] + b"}" if mine else None

        changed = self._moved(before, game_replaced)
        return self._frames(room, receivers, shared, own_head, changed, own_part)

    def _publish_moved(
        self,
        room: Room,
        events: list[wire.AnyEvent],
        before: Table,
        after: Table,
        receivers: list[Receiver],
    ) -> Frames:
        """The frames of a change of moves alone: its events, and each seat's own fields."""
        self._table = after
        self._history += len(events)
        seq = room.seq
        self.seq = seq
        frame = msg.Moved(seq=seq, events=events, turn=after.turn, deadline=self._deadline)  # type: ignore[arg-type]
        shared = _encode(frame)
        played: dict[int, int] = {}
        for event in events:
            if type(event) is wire.Played:
                played[event.seat] = played.get(event.seat, 0) | moved.TILE_BITS[event.tile]

        def own_part(seat: int, old: Own | None, new: Own) -> bytes | None:
            if old is None:
                return moved.own_tail(_NO_OWN, new, 0)
            return moved.own_tail(old, new, played.get(seat, 0))

        changed = self._moved(before, False)
        return self._frames(room, receivers, shared, shared[:-1], changed, own_part)

    def _frames(
        self,
        room: Room,
        receivers: list[Receiver],
        shared: bytes,
        own_head: bytes,
        changed: set[int] | None,
        own_part: Callable[[int, Own | None, Own], bytes | None],
    ) -> Frames:
        """A change's frames: new receivers noted (a snapshot is theirs), each seat whose own
        part changed (any seat, where `changed` is None) sent `own_head` followed by its part
        (`own_part(seat, old, new)`, None when the shared frame is all it needs), the change
        kept, and receivers gone from the room forgotten."""
        seq = room.seq
        match = room.match
        own: dict[int, bytes] = {}
        parts_kept: list[tuple[int, bytes]] = []
        fresh: list[Receiver] = []
        since = self.since
        for receiver in receivers:
            if receiver not in since:
                since[receiver] = seq
                fresh.append(receiver)
                if receiver is not None and match is not None:
                    self._own[receiver] = parts.own(match, receiver)
                continue
            if receiver is None or (changed is not None and receiver not in changed):
                continue
            if match is None:
                self._own.pop(receiver, None)
                continue
            new = parts.own(match, receiver)
            old = self._own.get(receiver)
            self._own[receiver] = new
            tail = own_part(receiver, old, new)
            if tail is not None:
                own[receiver] = own_head + tail
                parts_kept.append((receiver, tail))
        self._forget_gone(receivers)
        self._keep(seq, shared, tuple(parts_kept))
        return Frames(seq, shared, own, tuple(fresh))

    def _forget_gone(self, receivers: list[Receiver]) -> None:
        """Forget the receivers that left the room (every receiver is in `since` by now)."""
        since = self.since
        if len(since) > len(receivers):
            for gone in [r for r in since if r not in receivers]:
                del since[gone]
                if gone is not None:
                    self._own.pop(gone, None)

    def _keep(self, seq: int, shared: bytes, own: tuple[tuple[int, bytes], ...]) -> None:
        """Keep a change's frames; the oldest go past `keep` changes or `kept_bytes`."""
        kept, sizes = self.kept, self._sizes
        kept.append((seq, shared, own))
        size = len(shared) + KEPT_CHANGE
        for _, tail in own:
            size += len(tail) + KEPT_PART
        sizes.append(size)
        self._kept_size += size
        while len(kept) > 1 and (len(kept) > self.keep or self._kept_size > self.kept_bytes):
            del kept[0]
            self._kept_size -= sizes.pop(0)

    def _moved(self, before: Table | None, game_replaced: bool) -> set[int] | None:
        """The seats whose own part may have changed (None: any may have).

        Within a hand, a seat's tiles change only with its tile count, and its legal moves
        only while it is, or was, the seat to play.
        """
        after = self._table
        if before is None or after is None or game_replaced:
            return None
        moved = {
            seat
            for seat, count in enumerate(after.hand_counts)
            if before.hand_counts[seat] != count
        }
        if before.turn is not None:
            moved.add(before.turn)
        if after.turn is not None:
            moved.add(after.turn)
        return moved

    def _room_ops(self, room: Room, ops: list[patches.Operation]) -> None:
        state = room.state
        seats = room.seat_infos()
        if seats != self._seats:
            for index, (old, new) in enumerate(zip(self._seats, seats, strict=True)):
                if old != new:
                    patches.seat_ops(index, old, new, ops)
            self._seats = seats
        if state.host != self._host:
            ops.append(patches.replace("/host", state.host))
            self._host = state.host
        deadline = room.turn_deadline()
        if deadline != self._deadline:
            ops.append(patches.replace("/deadline", deadline))
            self._deadline = deadline
        if state.phase != self._phase:
            ops.append(patches.replace("/phase", state.phase))
            self._phase = state.phase
        if state.spectators != self._spectators:
            ops.append(patches.replace("/spectators", state.spectators))
            self._spectators = state.spectators
        if state.phase != "finished" and self._ratings is None and self._game_id is None:
            return  # both are shown only while a match is finished (`server.rooms.results`)
        ratings = results.ratings_shown(state)
        if ratings != self._ratings:
            ops.append(patches.replace("/ratings", ratings))
            self._ratings = ratings
        game_id = results.game_shown(state)
        if game_id != self._game_id:
            ops.append(patches.replace("/game_id", game_id))
            self._game_id = game_id

    def _game_ops(
        self,
        room: Room,
        events: list[wire.AnyEvent],
        ops: list[patches.Operation],
        new: Table | None = None,
    ) -> bool:
        """The game's operations (`new`: the public part now, where already taken); True if
        the public game was replaced (a new match or hand)."""
        match = room.match
        old = self._table
        if match is None:
            self._table = None
            self._history = 0
            if old is not None:
                ops.append(patches.replace("/game", None))
            return False
        if new is None:
            new = parts.table(match)
        self._table = new
        history = match.events
        if (
            old is not None
            and new.hand_number == old.hand_number
            and room.state.matches == self._match_number
        ):
            patches.table_ops(old, new, ops)
            self._history += patches.history_ops(events, ops)
            if self._history != len(history):
                self._replace_history(room, history, ops)
            return False
        # A new hand (or match): the old hand's last lines, then the new game, then its lines.
        start = _last_hand_start(events)
        if old is not None and room.state.matches == self._match_number:
            patches.history_ops(events[:start], ops)
        self._match_number = room.state.matches
        ops.append(patches.replace("/game", public_game(room)))
        self._history = patches.history_ops(events[start:], ops)
        if self._history != len(history):
            self._replace_history(room, history, ops)
        return True

    def _replace_history(
        self, room: Room, history: list[engine_events.Event], ops: list[patches.Operation]
    ) -> None:
        """The events did not tell the whole history (a caller passed none): send it whole."""
        ops.append(patches.replace("/game/history", room.history(convert.events(history))))
        self._history = len(history)

    def _chat_ops(
        self, room: Room, events: list[wire.AnyEvent], ops: list[patches.Operation]
    ) -> None:
        chat = room.state.chat
        lines = [event for event in events if type(event) is wire.ChatLine]
        if lines:
            self._chat = patches.chat_ops(lines, self._chat, ops)
        if self._chat != len(chat) or (lines and chat[-1] != lines[-1]):
            ops.append(patches.replace("/chat", chat))
            self._chat = len(chat)

    # -- snapshots and catching up ---------------------------------------------------------

    def snapshot(self, room: Room, receiver: Receiver, id: int | None = None) -> bytes:
        """A snapshot frame of a receiver's current document (it is followed from now on)."""
        if not self._ready:
            self._take(room)
        if receiver not in self.since and receiver in self.receivers(room):
            self.since[receiver] = room.seq
            if receiver is not None and room.match is not None:
                self._own[receiver] = parts.own(room.match, receiver)
        return _encode(msg.Snapshot(seq=room.seq, state=room_view(room, receiver), id=id))

    def catch_up(self, room: Room, receiver: Receiver, last_seq: int | None) -> list[bytes]:
        """What a returning receiver missed since `last_seq`: the kept frames, or a snapshot."""
        since = self.since.get(receiver)
        if last_seq is not None and since is not None and since <= last_seq <= room.seq:
            if last_seq == room.seq:
                return []
            missed = [
                _kept_frame(receiver, shared, own)
                for seq, shared, own in self.kept
                if seq > last_seq
            ]
            if missed and self.kept[-len(missed)][0] == last_seq + 1:
                return missed
        return [self.snapshot(room, receiver)]

    def reset(self, seq: int = 0) -> None:
        """Forget every receiver (the room was reloaded at `seq`: snapshots follow, not patches)."""
        self.seq = seq
        self.kept.clear()
        self._sizes.clear()
        self._kept_size = 0
        self.since.clear()
        self._own.clear()
        self._ready = False


def _kept_frame(receiver: Receiver, shared: bytes, own: tuple[tuple[int, bytes], ...]) -> bytes:
    """A kept change's frame for a receiver: its own (rebuilt from the shared frame and its own
    part, as `Feed.publish` built it), else the shared one."""
    for seat, tail in own:
        if seat == receiver:
            if shared.startswith(_MOVED):  # its own fields end the frame: `,"legal":…}`
                return shared[:-1] + tail
            # The shared frame ends with its operations' array: `...]}`, or `[]}` when empty.
            head = shared[:-3] + b"[" if shared.endswith(b"[]}") else shared[:-2] + b","
            return head + tail
    return shared


def _last_hand_start(events: list[wire.AnyEvent]) -> int:
    """Where the last `hand_started` is in a change's events (0 if none)."""
    for index in range(len(events) - 1, -1, -1):
        if type(events[index]) is wire.HandStarted:
            return index
    return 0
