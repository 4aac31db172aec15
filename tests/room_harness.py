"""A room played without sockets: `RoomHarness(rules).send(who, message)` gives the frames each
client receives, the way websockets and h11 test their protocol objects.

The harness runs what the server's room path runs for a command (`server.play.live.LiveRoom`):
`server.rooms.commands.handle`, then, if the room changed, `Feed.publish` and each follower's
frame (`frame_of`, as `LiveRoom.broadcast` picks it), then the command's effects for its sender
(a reply, a seat taken, a snapshot, what it missed...). A refused command is answered with the
`error` the session sends, to its sender alone. Every client keeps its document as a client does
(`protocol.patch.ClientState`: snapshots, then consecutive patches), so a test reads what each
one holds. No store, no lock, no bots or clock: those are the server's, tested over sockets.

`room_with` makes a waiting `Room` alone (humans and easy bots seated), for the tests of the
room's own methods (tests/server/rooms/, tests/server/play/).
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from typing import Any

import msgspec

from protocol import messages as msg
from protocol.patch import ClientState
from protocol.rules import RoomRules
from protocol.views import RoomView
from server.rooms import commands
from server.rooms.commands import Command
from server.rooms.feed import SPECTATORS, Feed, Receiver, frame_of
from server.rooms.room import Caller, Room, RoomError
from server.rooms.room_state import (
    CatchUp,
    Document,
    HintAsked,
    Left,
    Outcome,
    Removed,
    Reply,
    Seated,
)
from server.rooms.server_commands import Depart

#: Frames per client name, in the order each received them.
Sent = dict[str, list[bytes]]

_TILE = re.compile(r"^[0-6]-[0-6]$")


@dataclass
class HarnessClient:
    """One connection to the room: who it is there, what it holds, whether it was closed."""

    caller: Caller
    state: ClientState = field(default_factory=ClientState)
    received: list[bytes] = field(default_factory=list)
    #: The close code the room closed it with (removed by the host), None while open.
    closed: int | None = None

    @property
    def following(self) -> bool:
        """Whether the room sends it its changes (a seat's or the spectators' document)."""
        return self.closed is None and (self.caller.seat is not None or self.caller.spectating)

    @property
    def receiver(self) -> Receiver:
        """Whose document it follows."""
        return self.caller.seat if self.caller.seat is not None else SPECTATORS


class RoomHarness:
    """One room, its feed and its clients by name; `send` is one command and what it sent."""

    def __init__(self, rules: RoomRules, *, code: str = "HARNESS", now: float = 0.0) -> None:
        self.now = now
        self.room = Room.create(code, rules, "harness", now)
        self.feed = Feed()
        self.feed.seq = self.room.seq
        self.clients: dict[str, HarnessClient] = {}

    # -- sending ---------------------------------------------------------------------------

    def send(self, who: str, message: Command) -> Sent:
        """Client `who` (new: a connection of that name, in no room) sends `message`: the frames
        every client received for it (a refusal reaches its sender alone)."""
        client = self.clients.setdefault(who, HarnessClient(Caller(who)))
        sent: Sent = {}
        try:
            outcome = commands.handle(self.room, client.caller, message, self.now)
        except RoomError as error:
            id = message.id if isinstance(message, msg.ClientMessage) else None
            kind = msg.type_of(message) if isinstance(message, msg.ClientMessage) else None
            refusal = msg.Error(
                id=id, command=kind, code=error.code, message=error.message, reason=error.reason
            )
            self._deliver(who, msg.encode(refusal), sent)
            return sent
        if outcome.changed:
            self._publish(outcome, sent)
        self._carry_out(who, outcome, sent)
        return sent

    def deal(self, who: str, seed: int) -> Sent:
        """Host `who` starts the match with the deal of `seed` (`start` deals at random): the
        frames every client received."""
        events = self.room.start(self.clients[who].caller.seat, self.now, seed)
        sent: Sent = {}
        self._publish(Outcome(changed=True, events=events), sent)
        return sent

    def drop(self, who: str) -> Sent:
        """Client `who`'s connection drops: the room notes its seat away, and stops sending to it."""
        client = self.clients[who]
        gone, client.caller = client.caller, Caller(who)  # the room stops sending to it first
        outcome = commands.handle(self.room, gone, Depart(disconnected=True), self.now)
        sent: Sent = {}
        if outcome.changed:
            self._publish(outcome, sent)
        return sent

    def _publish(self, outcome: Outcome, sent: Sent) -> None:
        """Every follower's frame of the change, as `LiveRoom.broadcast` picks it."""
        frames = self.feed.publish(self.room, outcome.events)
        for name, client in self.clients.items():
            if client.following and client.receiver not in frames.fresh:
                self._deliver(name, frame_of(client.receiver, frames.shared, frames.own), sent)

    def _carry_out(self, who: str, outcome: Outcome, sent: Sent) -> None:
        """The command's effects for its sender, in order (as the room path carries them out)."""
        client = self.clients[who]
        for effect in outcome.effects:
            match effect:
                case Reply(message):
                    self._deliver(who, msg.encode(message), sent)
                case Seated(seat):
                    client.caller.seat, client.caller.spectating = seat, seat is None
                case Document(id):
                    self._deliver(who, self.feed.snapshot(self.room, client.receiver, id), sent)
                case CatchUp(last_seq):
                    for frame in self.feed.catch_up(self.room, client.receiver, last_seq):
                        self._deliver(who, frame, sent)
                case Left():
                    client.caller.seat, client.caller.spectating = None, False
                case Removed(seat):
                    for other in self.clients.values():
                        if other.caller.seat == seat and other is not client:
                            other.caller.seat, other.closed = None, 4002
                case HintAsked():
                    pass  # the hint lane answers it, outside the room

    def _deliver(self, who: str, frame: bytes, sent: Sent) -> None:
        client = self.clients[who]
        client.received.append(frame)
        sent.setdefault(who, []).append(frame)
        message = msg.decode_server(frame)
        if isinstance(message, msg.Snapshot):
            client.state.on_snapshot(message)
        elif isinstance(message, msg.Change):
            client.state.on_patch(message)

    # -- reading ---------------------------------------------------------------------------

    def join(self, who: str, seat: int | None = None) -> int:
        """`who` takes a seat (the first free one, or `seat`); the seat it got."""
        self.send(who, msg.Join(room=self.room.code, seat=seat, name=who))
        taken = self.clients[who].caller.seat
        assert taken is not None, f"{who} was not seated"
        return taken

    def document(self, who: str) -> RoomView:
        """The document client `who` holds now, built from the frames it received."""
        return self.clients[who].state.view

    def truth(self, who: str) -> RoomView:
        """The document the room would give `who` now, as a fresh snapshot (nothing is sent)."""
        receiver = self.clients[who].receiver
        snapshot = msg.decode_server(self.feed.snapshot(self.room, receiver))
        assert isinstance(snapshot, msg.Snapshot)
        return snapshot.state

    def seat_to_play(self) -> str:
        """The client whose seat has the turn."""
        match = self.room.match
        assert match is not None, "no match in play"
        for name, client in self.clients.items():
            if client.caller.seat == match.turn:
                return name
        raise AssertionError(f"nobody sits at seat {match.turn}")


def hand_tiles(frame: bytes) -> set[str]:
    """Every tile a frame puts in its receiver's hand or legal moves: what only the receiver's
    own seat may see (a snapshot's game, a `moved` frame's own fields, or a patch's operations
    on those paths)."""
    data: Any = msgspec.json.decode(frame)
    found: set[str] = set()
    if data.get("type") == "snapshot":
        game = (data.get("state") or {}).get("game") or {}
        _tiles_in(game.get("hand"), found)
        _tiles_in(game.get("legal"), found)
    if data.get("type") == "moved":
        _tiles_in(data.get("hand"), found)
        _tiles_in(data.get("legal"), found)
    for op in data.get("ops", ()):
        path = op.get("path", "")
        if path == "/game":
            value = op.get("value") or {}
            _tiles_in(value.get("hand"), found)
            _tiles_in(value.get("legal"), found)
        elif path == "/game/hand" or path.startswith(("/game/hand/", "/game/legal")):
            _tiles_in(op.get("value"), found)
    return found


def _tiles_in(value: Any, found: set[str]) -> None:
    if isinstance(value, str) and _TILE.match(value):
        found.add(value)
    elif isinstance(value, list):
        for item in value:
            _tiles_in(item, found)
    elif isinstance(value, dict):
        _tiles_in(value.get("tile"), found)


def room_with(players: int = 4, humans: int = 1, **options: Any) -> Room:
    """A waiting room: humans H0.. in the first seats, easy bots in the rest; H0 hosts."""
    room = Room.create("TEST", RoomRules(players=players, **options))
    for index in range(humans):
        room.sit(f"H{index}")
    for _ in range(players - humans):
        room.add_bot(0, None, "easy")
    return room


def led(players: int, humans: int, seed: int, spectators: int = 0) -> tuple[Room, Feed]:
    """A room of `room_with` (and `spectators`) whose every change a feed published: its match
    started and the lead played, so that the next play is one within the hand."""
    room = room_with(players=players, humans=humans)
    for _ in range(spectators):
        room.watch(+1)
    feed = Feed()
    feed.publish(room, [])
    feed.publish(room, room.start(0, seed=seed))
    match = room.match
    assert match is not None
    feed.publish(room, room.play(match.turn, match.legal_moves()[0]))
    return room, feed


__all__ = ["HarnessClient", "RoomHarness", "Sent", "hand_tiles", "led", "room_with"]
