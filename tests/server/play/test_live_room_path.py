"""The one path every change to a room takes (`LiveRoom.run`), on a server built but not
listening: its effects reach the sender, a chore on a closed room does nothing, a client's
command there is refused, and a sender that changes rooms leaves the one it was in."""

from __future__ import annotations

from collections.abc import AsyncIterator

import pytest
from server_helpers import fast_config

from protocol import errors
from protocol import messages as msg
from protocol.rules import RoomRules
from server.app import Server
from server.metrics import Metrics
from server.play.live import LiveRoom
from server.rooms.feed import SPECTATORS, Receiver
from server.rooms.room import Caller, Room, RoomError
from server.rooms.server_commands import ReleaseAway


class Seen:
    """A connection as a room sees it (`server.play.live.Member`): what it was sent, kept."""

    def __init__(self, name: str) -> None:
        self.name = name
        self.metrics = Metrics()
        self.room: LiveRoom | None = None
        self.seat: int | None = None
        self.spectating = False
        self.frames: list[msg.AnyServerMessage] = []
        self.closed: int | None = None

    @property
    def receiver(self) -> Receiver:
        return self.seat if self.seat is not None else SPECTATORS

    def writable(self) -> bool:
        return self.closed is None

    def write(self, message: bytes) -> None:
        self.frames.append(msg.decode_server(message))

    def send(self, message: bytes) -> None:
        self.write(message)

    def send_message(self, message: msg.ServerMessage) -> None:
        self.write(msg.encode(message))

    def detach(self) -> None:
        self.room, self.seat, self.spectating = None, None, False

    def close(self, code: int, reason: str) -> None:
        self.closed = code

    def caller(self, live: LiveRoom) -> Caller:
        here = self.room is live
        return Caller(self.name, self.seat if here else None, self.spectating and here)


@pytest.fixture
async def built() -> AsyncIterator[Server]:
    server = Server(fast_config())
    try:
        yield server
    finally:
        server.bots.close()
        server.reviews.close()
        await server.ledger.close()


def opened(server: Server, code: str, players: int = 2) -> LiveRoom:
    live = LiveRoom(Room.create(code, RoomRules(players=players)), 8)
    server.registry.open(live)
    return live


async def join(server: Server, live: LiveRoom, member: Seen, id: int) -> None:
    async def admit() -> Caller:
        return member.caller(live)

    await live.run(server.committer, msg.Join(room=live.room.code, id=id), admit, member=member)


async def test_a_command_is_stored_sent_and_its_effects_reach_its_sender(built: Server) -> None:
    live = opened(built, "PATHA")
    ann, bob = Seen("ann"), Seen("bob")
    await join(built, live, ann, id=1)
    assert ann.room is live and ann.seat == 0 and ann in live.connections()
    joined, snapshot = ann.frames
    assert isinstance(joined, msg.Joined) and (joined.id, joined.seat) == (1, 0)
    assert isinstance(snapshot, msg.Snapshot) and snapshot.seq == live.room.seq
    await join(built, live, bob, id=2)
    (patch,) = ann.frames[2:]  # bob's seat reaches ann as one patch of the change
    assert isinstance(patch, msg.Patch) and patch.seq == live.room.seq
    assert [type(frame) for frame in bob.frames] == [msg.Joined, msg.Snapshot]
    stored = await built.store.load_room(live.room.code)
    assert stored is not None and stored.seq == live.room.seq, "the change is stored"


async def test_a_chore_on_a_closed_room_does_nothing_and_a_clients_command_is_refused(
    built: Server,
) -> None:
    live = opened(built, "PATHB")
    ann = Seen("ann")
    await join(built, live, ann, id=1)
    built.registry.forget(live)
    before, sent = live.room.to_bytes(), len(ann.frames)
    outcome = await live.run(built.committer, ReleaseAway(0.0))
    assert not outcome.changed and live.room.to_bytes() == before
    with pytest.raises(RoomError) as refused:
        await join(built, live, Seen("bob"), id=2)
    assert refused.value.code == errors.NO_SUCH_ROOM
    assert live.room.to_bytes() == before and len(ann.frames) == sent


async def test_a_sender_seated_in_another_room_leaves_the_one_it_was_in(built: Server) -> None:
    first, second = opened(built, "PATHC"), opened(built, "PATHD")
    ann, bob = Seen("ann"), Seen("bob")
    await join(built, first, ann, id=1)
    await join(built, first, bob, id=2)
    await join(built, second, ann, id=3)
    assert ann.room is second and ann not in first.connections()
    assert first.room.seats[0] is None, "a waiting room frees the seat of a player who left"
    assert isinstance(bob.frames[-1], msg.Patch) and bob.frames[-1].seq == first.room.seq
