"""What each receiver of a room holds: one view document per seat and one for spectators.

After every change of a room, `Feed.publish` builds each receiver's new document (a seat's from
`match.view_for(seat)`, the spectators' from `match.view_for(None)`), diffs it against the
document that receiver holds, and returns one encoded `patch` frame per receiver. It keeps each
receiver's last `keep` patch frames, so a client that reconnects with the last `seq` it saw gets
exactly the frames it missed, or a fresh snapshot when they are no longer kept. A snapshot of a
held document carries the `seq` that document was built at (`Feed.seq`), never a newer one.
Sans-I/O: no awaits, no sockets.
"""

from __future__ import annotations

from collections import deque
from typing import Any

import msgspec

from engine import View
from protocol import messages as msg
from protocol import views as wire
from server import convert
from server.diff import diff
from server.room import Room

#: A receiver: a seat number, or SPECTATORS.
Receiver = int | None
SPECTATORS: Receiver = None
DEFAULT_KEEP = 32

_to_builtins = msgspec.to_builtins
_encode = msgspec.json.Encoder().encode


class Feed:
    """The documents and recent patch frames of one room's receivers."""

    def __init__(self, keep: int = DEFAULT_KEEP) -> None:
        self.keep = keep
        self.seq = 0
        self.documents: dict[Receiver, dict[str, Any]] = {}
        self.frames: dict[Receiver, deque[tuple[int, bytes]]] = {}
        self._history_hand = (-1, -1)
        self._history: list[Any] = []
        self._chat_source: list[wire.ChatLine] | None = None
        self._chat: list[Any] = []
        self._rules_source: Any = None
        self._rules: Any = None
        self._seats_source: Any = None
        self._seats: Any = None
        self.public: dict[str, Any] | None = None

    # -- building documents ----------------------------------------------------------------

    def receivers(self, room: Room) -> list[Receiver]:
        """Who gets documents: every human seat, and the spectators while any watch."""
        found: list[Receiver] = list(room.human_seats())
        if room.state.spectators:
            found.append(SPECTATORS)
        return found

    def documents_for(
        self, room: Room, receivers: list[Receiver]
    ) -> dict[Receiver, dict[str, Any]]:
        """The current document of each receiver, as plain JSON values."""
        return self._build(room, receivers)[1]

    def _build(
        self, room: Room, receivers: list[Receiver]
    ) -> tuple[dict[str, Any], dict[Receiver, dict[str, Any]]]:
        """The spectators' document and each receiver's.

        Parts every receiver shares (rules, seats, chat, the table and history) are built once
        and the same objects are reused, which keeps memory low and makes diffs cheap.
        """
        public = self._room_base(room)
        match = room.match
        if match is not None:
            public["game"] = self._public_game(match.view_for(None), room.state.matches)
        documents: dict[Receiver, dict[str, Any]] = {}
        for receiver in receivers:
            if receiver is SPECTATORS:
                documents[receiver] = public
                continue
            document = dict(public)
            document["you"] = receiver
            if match is not None:
                document["game"] = self._own_game(public["game"], match.view_for(receiver))
            documents[receiver] = document
        return public, documents

    def _room_base(self, room: Room) -> dict[str, Any]:
        state = room.state
        if self._chat_source is not state.chat:
            self._chat_source = state.chat
            self._chat = _to_builtins(state.chat)
        if self._rules_source is not state.rules:
            self._rules_source = state.rules
            self._rules = _to_builtins(state.rules)
        seats = room.seat_infos()
        if seats != self._seats_source:
            self._seats_source = seats
            self._seats = _to_builtins(seats)
        return {
            "code": state.code,
            "rules": self._rules,
            "seats": self._seats,
            "you": None,
            "host": state.host,
            "phase": state.phase,
            "spectators": state.spectators,
            "game": None,
            "chat": self._chat,
        }

    def _public_game(self, view: View, match_number: int) -> dict[str, Any]:
        """The game as a spectator sees it, with the history converted once per event."""
        history = view.history
        view.history = []
        document: dict[str, Any] = _to_builtins(convert.game_view(view))
        hand = (match_number, view.hand_number)
        if self._history_hand != hand or len(self._history) > len(history):
            self._history_hand = hand
            self._history = []
        known = self._history
        if len(known) < len(history):
            known = known + _to_builtins(convert.events(history[len(known) :]))
            self._history = known
        document["history"] = known
        return document

    @staticmethod
    def _own_game(public: dict[str, Any], view: View) -> dict[str, Any]:
        """A seat's game: the public part and its own hand and legal moves from its own view."""
        if view.seat is None:
            return public
        document = dict(public)
        document["hand"] = [str(tile) for tile in view.hand or ()]
        document["legal"] = _to_builtins(convert.legal_specs(view.legal))
        return document

    # -- publishing ------------------------------------------------------------------------

    def publish(self, room: Room, events: list[Any] | msgspec.Raw) -> dict[Receiver, bytes]:
        """After a change: the patch frame for each receiver that already held a document.

        Receivers new to the room get their document stored but no patch (they are sent a
        snapshot); receivers gone from the room are forgotten. `events` may come already
        encoded as a JSON array (`msgspec.Raw`).
        """
        self.seq = room.seq
        receivers = self.receivers(room)
        for gone in set(self.documents) - set(receivers):
            del self.documents[gone]
            self.frames.pop(gone, None)
        public, documents = self._build(room, receivers)
        common = diff(self.public, public) if self.public is not None else None
        self.public = public
        shared = common is not None and not any(op["path"] in ("", "/game") for op in common)
        common_json = _encode(common) if shared else b""
        head = b'{"type":"patch","seq":%d,"ops":' % room.seq
        tail = b',"events":' + _encode(events) + b"}"
        frames: dict[Receiver, bytes] = {}
        for receiver, document in documents.items():
            previous = self.documents.get(receiver)
            self.documents[receiver] = document
            if previous is None:
                self.frames[receiver] = deque(maxlen=self.keep)
                continue
            if shared and (receiver is SPECTATORS or document["game"] is None):
                ops_json = common_json
            elif shared:
                # Seat documents differ from the spectators' only in `you`, `hand` and `legal`.
                old_game, game = previous["game"], document["game"]
                own = diff(old_game["hand"], game["hand"], "/game/hand")
                own += diff(old_game["legal"], game["legal"], "/game/legal")
                ops_json = _join_arrays(common_json, _encode(own)) if own else common_json
            else:
                ops_json = _encode(diff(previous, document))
            frame = head + ops_json + tail
            self.frames[receiver].append((room.seq, frame))
            frames[receiver] = frame
        return frames

    def snapshot(self, room: Room, receiver: Receiver, id: int | None = None) -> bytes:
        """A snapshot frame of a receiver's current document."""
        document = self.documents.get(receiver)
        seq = self.seq
        if document is None:
            document = self.documents_for(room, [receiver])[receiver]
            seq = room.seq
            if receiver in self.receivers(room):
                self.documents[receiver] = document
                self.frames[receiver] = deque(maxlen=self.keep)
        return _encode(msg.Snapshot(seq=seq, state=document, id=id))  # type: ignore[arg-type]

    def catch_up(self, room: Room, receiver: Receiver, last_seq: int | None) -> list[bytes]:
        """What a returning receiver missed since `last_seq`: the kept patches, or a snapshot."""
        if last_seq is not None and last_seq == room.seq and receiver in self.documents:
            return []
        kept = self.frames.get(receiver)
        if last_seq is not None and kept and last_seq < room.seq:
            missed = [frame for seq, frame in kept if seq > last_seq]
            if missed and kept[-len(missed)][0] == last_seq + 1:
                return missed
        return [self.snapshot(room, receiver)]

    def reset(self, seq: int = 0) -> None:
        """Forget every document (the room was reloaded at `seq`: snapshots follow, not patches)."""
        self.seq = seq
        self.public = None
        self.documents.clear()
        self.frames.clear()
        self._history_hand = (-1, -1)
        self._history = []
        self._chat_source = None


def _join_arrays(first: bytes, second: bytes) -> bytes:
    """Two JSON arrays as one: b"[1]" and b"[2]" give b"[1,2]"."""
    if first == b"[]":
        return second
    return first[:-1] + b"," + second[1:]


def reference_document(room: Room, receiver: Receiver) -> dict[str, Any]:
    """A receiver's document built the plain way, straight from its view (to check `Feed`)."""
    state = room.state
    match = room.match
    view = wire.RoomView(
        code=state.code,
        rules=state.rules,
        seats=room.seat_infos(),
        you=receiver,
        host=state.host,
        phase=state.phase,
        spectators=state.spectators,
        game=convert.game_view(match.view_for(receiver)) if match is not None else None,
        chat=list(state.chat),
    )
    document: dict[str, Any] = _to_builtins(view)
    return document
