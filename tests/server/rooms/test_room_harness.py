"""A room through its commands and its feed, without sockets (`tests/room_harness.py`): a whole
match, refusals, hidden information and resyncs, as each client receives them."""

from __future__ import annotations

import random

import msgspec
from hypothesis import assume, given, settings
from hypothesis import strategies as st
from room_harness import RoomHarness, hand_tiles

from protocol import errors
from protocol import messages as msg
from protocol.rules import RoomRules
from protocol.views import MoveSpec
from server.rooms.server_commands import Resume

NAMES = ("ann", "bob", "cy", "dee")


def seated(players: int, seed: int, *, watcher: bool = True, target: int = 50) -> RoomHarness:
    """A room of `players` humans (ann is the host), a spectator (eve), the match dealt."""
    harness = RoomHarness(RoomRules(players=players, target=target))
    for name in NAMES[:players]:
        harness.join(name)
    if watcher:
        harness.send("eve", msg.Spectate(room=harness.room.code))
    harness.deal("ann", seed)
    return harness


def move_of(spec: MoveSpec, id: int | None = None) -> msg.Play | msg.Pass:
    """The message that makes a move of a `legal` list."""
    if spec.pass_:
        return msg.Pass(id=id)
    assert spec.tile is not None
    return msg.Play(tile=spec.tile, end=spec.end, id=id)


def followers(harness: RoomHarness) -> list[str]:
    return [name for name, client in harness.clients.items() if client.following]


def connected(harness: RoomHarness, seat: int) -> bool:
    """Whether the room shows the player in `seat` connected (as ann's document says it)."""
    info = harness.document("ann").seats[seat]
    assert info is not None
    return info.connected


def play_one(harness: RoomHarness, pick: random.Random, id: int) -> dict[str, list[bytes]]:
    """The seat to play makes one of the moves its own document lists; what everyone got."""
    mover = harness.seat_to_play()
    game = harness.document(mover).game
    assert game is not None and game.legal, f"{mover} holds no legal move on its turn"
    return harness.send(mover, move_of(pick.choice(game.legal), id))


def test_a_whole_match_is_played_through_the_commands_and_every_client_sees_it_end() -> None:
    harness = seated(4, seed=11)
    pick = random.Random(11)
    moves = 0
    while harness.room.phase == "playing":
        mover = harness.seat_to_play()
        sent = play_one(harness, pick, id=moves + 1)
        moves += 1
        seq = harness.room.seq
        for name in followers(harness):
            patches = [msg.decode_server(frame) for frame in sent[name]]
            changes = [p for p in patches if not isinstance(p, msg.Ack)]
            assert len(changes) == 1 and isinstance(changes[0], msg.Change)
            assert changes[0].seq == seq
        acks = [m for m in map(msg.decode_server, sent[mover]) if isinstance(m, msg.Ack)]
        assert [ack.id for ack in acks] == [moves]
        assert moves < 2000, "the match never ended"
    assert harness.room.phase == "finished"
    for name in followers(harness):
        held = harness.document(name)
        assert held == harness.truth(name)
        assert held.phase == "finished" and held.game is not None and held.game.over
        assert held.game.winner is not None


def test_a_refused_move_changes_nothing_and_reaches_only_its_sender() -> None:
    harness = seated(2, seed=3)
    mover = harness.seat_to_play()
    other = "bob" if mover == "ann" else "ann"
    before, seq = harness.room.to_bytes(), harness.room.seq
    held = {name: harness.document(name) for name in followers(harness)}
    game = harness.truth(other).game
    assert game is not None and game.hand
    tile = game.hand[0]
    sent = harness.send(other, msg.Play(tile=tile, id=41))
    assert list(sent) == [other]
    (refusal,) = [msg.decode_server(frame) for frame in sent[other]]
    assert isinstance(refusal, msg.Error)
    assert (refusal.id, refusal.command, refusal.code) == (41, "play", errors.NOT_YOUR_TURN)
    assert harness.room.to_bytes() == before and harness.room.seq == seq
    assert {name: harness.document(name) for name in followers(harness)} == held


#: Messages a room refuses in the middle of a match, whoever of its clients sends them.
REFUSED = (
    msg.Start(id=1),
    msg.Rematch(id=2),
    msg.AddBot(seat=1, id=3),
    msg.RemoveBot(seat=1, id=4),
    msg.RemovePlayer(seat=1, id=5),
    msg.Play(tile="6-6", end="east", id=6),
    msg.Back(id=7),
    msg.GetRecord(id=8),
    msg.Join(room="HARNESS", id=9),
)


@settings(max_examples=25, deadline=None)
@given(
    seed=st.integers(0, 2**32),
    moves=st.integers(0, 40),
    sender=st.sampled_from(("ann", "bob", "cy", "eve", "zed")),
    message=st.sampled_from(REFUSED),
)
def test_any_refusal_mid_match_changes_nothing_and_answers_its_sender_alone(
    seed: int, moves: int, sender: str, message: msg.ClientMessage
) -> None:
    harness = seated(3, seed, target=150)
    pick = random.Random(seed)
    for number in range(moves):
        if harness.room.phase != "playing":
            break
        play_one(harness, pick, number)
    assume(harness.room.phase == "playing")
    before = harness.room.to_bytes()
    held = {name: harness.document(name) for name in followers(harness)}
    sent = harness.send(sender, message)
    assert harness.room.to_bytes() == before
    assert list(sent) == [sender]
    (answer,) = [msg.decode_server(frame) for frame in sent[sender]]
    assert isinstance(answer, msg.Error) and answer.id == message.id
    assert {name: harness.document(name) for name in followers(harness)} == held


@settings(max_examples=15, deadline=None)
@given(seed=st.integers(0, 2**32), players=st.sampled_from((2, 3, 4)))
def test_each_seat_is_sent_only_its_own_tiles_and_a_spectator_none(seed: int, players: int) -> None:
    harness = seated(players, seed, target=25)
    pick = random.Random(seed)
    own_moved = 0  # tiles shown in `moved` frames' own fields: the check sees them
    for number in range(300):
        if harness.room.phase != "playing":
            break
        sent = play_one(harness, pick, number)
        own_moved += sum(len(hand_tiles(f)) for fs in sent.values() for f in fs if b'"moved"' in f)
        hands = {}
        for name in NAMES[:players]:
            game = harness.truth(name).game
            assert game is not None and game.hand is not None
            hands[name] = set(game.hand)
        for name, frames in sent.items():
            shown = set().union(*map(hand_tiles, frames))
            if name == "eve":
                assert shown == set(), "a spectator was sent a tile of a hand"
                continue
            others = set().union(*(hands[n] for n in hands if n != name))
            assert not shown & others, f"{name} was sent another seat's tiles"
            assert shown <= hands[name]
    assert own_moved > 0


@settings(max_examples=15, deadline=None)
@given(seed=st.integers(0, 2**32), players=st.sampled_from((2, 4)))
def test_a_resync_gives_each_client_the_document_its_patches_built(seed: int, players: int) -> None:
    harness = seated(players, seed, target=25)
    pick = random.Random(seed)
    for number in range(200):
        if harness.room.phase != "playing":
            break
        play_one(harness, pick, number)
        if number % 7:
            continue
        for name in followers(harness):
            patched = harness.document(name)
            sent = harness.send(name, msg.Resync(id=500 + number))
            assert list(sent) == [name], "a resync is answered to its sender alone"
            (snapshot,) = [msg.decode_server(frame) for frame in sent[name]]
            assert isinstance(snapshot, msg.Snapshot) and snapshot.id == 500 + number
            assert snapshot.seq == harness.room.seq
            assert msgspec.to_builtins(snapshot.state) == msgspec.to_builtins(patched)


def test_a_seat_taken_back_by_its_token_is_sent_what_it_missed() -> None:
    harness = seated(2, seed=5, watcher=False)
    bob = harness.clients["bob"]
    seat = bob.caller.seat
    (joined,) = [m for m in map(msg.decode_server, bob.received) if isinstance(m, msg.Joined)]
    assert joined.seat_token is not None
    harness.drop("bob")
    missed_from = bob.state.seq
    assert missed_from is not None
    pick = random.Random(5)
    match = harness.room.match
    assert match is not None
    while harness.room.phase == "playing" and match.turn != seat:
        play_one(harness, pick, 0)
    assert harness.room.seq > missed_from
    assert seat is not None and not connected(harness, seat)
    sent = harness.send("bob", Resume(joined.seat_token, missed_from, 71))
    first = msg.decode_server(sent["bob"][0])
    assert isinstance(first, msg.Joined) and (first.seat, first.id) == (seat, 71)
    assert harness.document("bob") == harness.truth("bob")
    assert connected(harness, seat)
    assert harness.document("ann") == harness.truth("ann"), "ann saw bob come back"


def test_a_token_that_holds_no_seat_is_refused_and_changes_nothing() -> None:
    harness = seated(2, seed=5, watcher=False)
    before = harness.room.to_bytes()
    sent = harness.send("mallory", Resume("not-a-token", None, 72))
    (refusal,) = [msg.decode_server(frame) for frame in sent["mallory"]]
    assert isinstance(refusal, msg.Error) and refusal.code == errors.BAD_TOKEN
    assert list(sent) == ["mallory"] and harness.room.to_bytes() == before
