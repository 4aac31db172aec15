"""The feed: patches derived from events keep every receiver's document exactly a fresh snapshot.

Random matches (2 to 4 players, every variant, spectators coming and going, chat past its cap,
bots and stand-ins, players dropping and coming back, the room reloaded as another process
would) are followed by every receiver applying only the frames the feed sends; after every
change each document must equal the one built the plain way from that receiver's own view
(tests/feed_oracle.py), and a receiver coming back from any earlier seq must get there too.
"""

from __future__ import annotations

import json
import random
from typing import Any

import msgspec
from feed_oracle import diff, reference_document
from hypothesis import given, settings
from hypothesis import strategies as st
from protocol_helpers import examples
from room_harness import led, room_with

from engine import parts
from protocol import messages as msg
from protocol.patch import apply, events_of, moved_ops
from protocol.views import CHAT_HISTORY, Drew, Played, SeatInfo
from server.rooms import moved, patches
from server.rooms.feed import SPECTATORS, Feed, Frames, Receiver, frame_of
from server.rooms.room import Room

JSON = st.recursive(
    st.none()
    | st.booleans()
    | st.integers(-3, 3)
    | st.sampled_from([0.5, 1.0])
    | st.text(max_size=3),
    lambda inner: (
        st.lists(inner, max_size=6)
        | st.dictionaries(
            st.sampled_from(["a", "b", "~", "/", "a/b", "~1", "0"]), inner, max_size=4
        )
    ),
    max_leaves=30,
)


def exact(value: Any) -> str:
    """A rendering that tells 1 from 1.0 from true."""
    return json.dumps(value, sort_keys=True)


@given(JSON, JSON)
def test_the_oracle_diff_turns_any_document_into_any_other(old: Any, new: Any) -> None:
    before = exact(old)
    assert exact(apply({"d": old}, diff({"d": old}, {"d": new}))) == exact({"d": new})
    assert exact(old) == before


def operations(document: dict[str, Any], message: msg.Patch | msg.Moved) -> list[dict[str, Any]]:
    """The RFC 6902 operations a frame stands for, on the document it follows."""
    return moved_ops(document, message) if isinstance(message, msg.Moved) else message.ops


class Followers:
    """Every receiver of one room, each holding the document its frames built, by seq."""

    def __init__(self, room: Room, feed: Feed) -> None:
        self.room = room
        self.feed = feed
        self.held: dict[Receiver, dict[int, dict[str, Any]]] = {}
        self.changes = 0
        #: Frames received as `moved` (a change of moves alone, told by its events).
        self.moved = 0
        for receiver in feed.receivers(room):
            self.snapshot(receiver)

    def snapshot(self, receiver: Receiver) -> None:
        message = msg.decode_server(self.feed.snapshot(self.room, receiver))
        assert isinstance(message, msg.Snapshot) and message.seq == self.room.seq
        self.held[receiver] = {message.seq: msgspec.to_builtins(message.state)}

    def publish(self, events: list[Any], raw: bool) -> None:
        """The room changed: every receiver applies its frame (new ones take a snapshot)."""
        room = self.room
        self.changes += 1
        sent = msgspec.Raw(msgspec.json.encode(events)) if raw else events
        frames = self.feed.publish(room, sent)
        assert frames.seq == room.seq
        receivers = self.feed.receivers(room)
        for receiver in list(self.held):
            if receiver not in receivers:
                del self.held[receiver]
        for receiver in receivers:
            if receiver in frames.fresh or receiver not in self.held:
                self.snapshot(receiver)
                continue
            self.follow(receiver, frames, events)
        self.check()

    def follow(self, receiver: Receiver, frames: Frames, events: list[Any]) -> None:
        frame = frame_of(receiver, frames.shared, frames.own)
        message = msg.decode_server(frame)
        assert isinstance(message, msg.Patch | msg.Moved) and message.seq == self.room.seq
        documents = self.held[receiver]
        held = documents[max(documents)]
        if isinstance(message, msg.Moved):
            self.moved += 1
            told: list[Any] = list(message.events)
            assert frame.count(b'"type":"played"') + frame.count(b'"type":"drew"') + frame.count(
                b'"type":"passed"'
            ) == len(events), "each event comes once"
        else:
            assert b'"events"' not in frame
            told = list(events_of(message.ops))
        assert msgspec.to_builtins(told) == msgspec.to_builtins(events), (
            "each event comes once, as the line it adds to the history or the chat"
        )
        documents[message.seq] = apply(held, operations(held, message))

    def check(self) -> None:
        for receiver, documents in self.held.items():
            held = documents[max(documents)]
            fresh = reference_document(self.room, receiver)
            assert exact(held) == exact(fresh), diff(fresh, held)

    def come_back(self, rng: random.Random) -> None:
        """A receiver returns from an earlier seq it held: the frames missed bring it up to date."""
        if not self.held:
            return
        receiver = rng.choice(list(self.held))
        documents = self.held[receiver]
        last = rng.choice(list(documents))
        frames = self.feed.catch_up(self.room, receiver, last)
        if last == self.room.seq:
            assert frames == []
        document = documents[last]
        for frame in frames:
            message = msg.decode_server(frame)
            if isinstance(message, msg.Snapshot):
                document = msgspec.to_builtins(message.state)
            else:
                assert isinstance(message, msg.Patch | msg.Moved)
                document = apply(document, operations(document, message))
        assert exact(document) == exact(reference_document(self.room, receiver))

    def reload(self) -> None:
        """Another process's copy: the room is decoded afresh (the feed keeps its parts)."""
        self.room = Room.from_bytes(self.room.to_bytes())

    def reset(self) -> None:
        """The room read again after a gap: the feed forgets, every receiver gets a snapshot."""
        self.feed.reset(self.room.seq)
        self.held.clear()
        for receiver in self.feed.receivers(self.room):
            self.snapshot(receiver)


def step(followers: Followers, rng: random.Random, raw: bool) -> None:
    """One random change of the room, published."""
    room = followers.room
    match = room.match
    humans = room.human_seats()
    roll = rng.random()
    if roll < 0.08:
        followers.publish([room.say(rng.choice([*humans, None]), "someone", "hi")], raw)
    elif roll < 0.12:
        room.watch(rng.choice([+1, -1]) if room.state.spectators else +1)
        followers.publish([], raw)
    elif roll < 0.17 and humans:
        seat = rng.choice(humans)
        held = room.seats[seat]
        assert held is not None
        if held.connected:
            room.disconnect(seat, now=1.0)
        else:
            room.connect(seat, now=1.0)
        followers.publish([], raw)
    elif roll < 0.2:
        followers.come_back(rng)
    elif roll < 0.22:
        followers.reload()
    elif roll < 0.23:
        followers.reset()
    elif room.phase == "playing" and match is not None:
        turn = room.bot_turn(now=10_000.0)
        if turn is not None:
            events = room.bot_play(turn, rng.choice(turn.view.legal), now=10_000.0)
            assert events is not None
        else:
            events = room.play(match.turn, rng.choice(match.legal_moves()), now=2.0)
        followers.publish(events, raw)


@settings(max_examples=examples(12), deadline=None)
@given(
    st.integers(2, 4),
    st.integers(1, 4),
    st.sampled_from(["standard", "five", "seven-five"]),
    st.sampled_from(["opponents", "penalty"]),
    st.booleans(),
    st.integers(0, 2**32),
    st.booleans(),
)
def test_every_receivers_patched_document_is_a_fresh_snapshot_after_every_change(
    players: int,
    humans: int,
    hand_size: str,
    end_scoring: str,
    teams: bool,
    seed: int,
    raw: bool,
) -> None:
    rng = random.Random(seed)
    humans = min(humans, players)
    room = room_with(
        players, humans, hand_size=hand_size, end_scoring=end_scoring, teams=teams, target=60
    )
    followers = Followers(room, Feed(keep=rng.choice([1, 4, 32])))
    for _ in range(CHAT_HISTORY - 2):
        room.say(0, "H0", "before")
    followers.publish([], raw)
    for match_number in range(2):
        room = followers.room
        followers.publish(room.start(0, seed=seed + match_number), raw)
        while followers.room.phase == "playing":
            step(followers, rng, raw)
        room = followers.room
        assert room.phase == "finished"
        room.rematch(0)
        followers.publish([], raw)
        if humans > 1:
            room.leave(1)
            followers.publish([], raw)
            room.sit("H1 again", 1)
            followers.publish([], raw)
    assert followers.changes > 20
    assert followers.moved > 0


def test_a_returning_receiver_gets_the_frames_it_missed_or_a_snapshot() -> None:
    room = room_with(players=2, humans=2)
    feed = Feed(keep=4)
    feed.publish(room, [])
    events = room.start(0, seed=9)
    feed.publish(room, events)
    match = room.match
    assert match is not None
    sent: dict[int, dict[int, bytes]] = {0: {}, 1: {}}
    for _ in range(6):
        events = room.play(match.turn, match.legal_moves()[0])
        frames = feed.publish(room, events)
        for seat in (0, 1):
            sent[seat][room.seq] = frame_of(seat, frames.shared, frames.own)
    assert feed.catch_up(room, 0, room.seq) == []
    for seat in (0, 1):  # each seat's own frames, byte for byte, as they were sent
        assert feed.catch_up(room, seat, room.seq - 3) == [
            sent[seat][s] for s in range(room.seq - 2, room.seq + 1)
        ]
    (snapshot,) = feed.catch_up(room, 0, room.seq - 5)
    decoded = msg.decode_server(snapshot)
    assert isinstance(decoded, msg.Snapshot) and decoded.seq == room.seq
    assert msg.decode_server(feed.catch_up(room, 0, None)[0]) == decoded


def test_a_room_keeps_frames_up_to_its_bytes_then_a_returning_receiver_gets_a_snapshot() -> None:
    room = room_with(players=2, humans=2)
    feed = Feed(keep=32, kept_bytes=1500)
    feed.publish(room, [])
    feed.publish(room, room.start(0, seed=9))
    match = room.match
    assert match is not None
    sent: dict[int, bytes] = {}
    for _ in range(12):
        events = room.play(match.turn, match.legal_moves()[0])
        frames = feed.publish(room, events)
        sent[room.seq] = frame_of(0, frames.shared, frames.own)
        kept = sum(len(shared) + sum(len(t) for _, t in own) for _, shared, own in feed.kept)
        assert kept <= 1500 or len(feed.kept) == 1
    assert len(feed.kept) < 12  # the bytes, not the count, bounded it
    oldest = feed.kept[0][0]
    assert feed.catch_up(room, 0, oldest - 1) == [sent[s] for s in range(oldest, room.seq + 1)]
    (snapshot,) = feed.catch_up(room, 0, oldest - 2)  # one change more than kept
    decoded = msg.decode_server(snapshot)
    assert isinstance(decoded, msg.Snapshot) and decoded.seq == room.seq


def test_a_move_is_encoded_once_for_everyone_its_hands_aside() -> None:
    room, feed = led(players=4, humans=4, seed=5, spectators=1)
    match = room.match
    assert match is not None
    mover = match.turn
    frames = feed.publish(room, room.play(mover, match.legal_moves()[0]))
    # The mover's hand and legal moves changed, and so did the next seat's legal moves.
    assert set(frames.own) == {mover, match.turn}
    shared = msg.decode_server(frames.shared)
    assert isinstance(shared, msg.Moved) and shared.hand is None and shared.legal is None
    for seat in frames.own:
        own = msg.decode_server(frame_of(seat, frames.shared, frames.own))
        assert isinstance(own, msg.Moved) and own.events == shared.events
        assert frames.own[seat].startswith(frames.shared[:-1])
    mine = msg.decode_server(frames.own[mover])
    assert isinstance(mine, msg.Moved) and mine.legal == [] and mine.hand is None
    assert frame_of(SPECTATORS, frames.shared, frames.own) is frames.shared


def test_a_play_within_a_hand_goes_as_its_event_and_a_lead_as_a_patch() -> None:
    room = room_with(players=4, humans=4, teams=True)
    feed = Feed()
    feed.publish(room, [])
    feed.publish(room, room.start(0, now=100.0, seed=5))
    match = room.match
    assert match is not None
    lead = feed.publish(room, room.play(match.turn, match.legal_moves()[0], now=101.0))
    assert isinstance(msg.decode_server(lead.shared), msg.Patch)
    sizes: list[int] = []
    while match.hand_number == 1 and not match.over:
        mover, move = match.turn, match.legal_moves()[0]
        frames = feed.publish(room, room.play(mover, move, now=102.0))
        message = msg.decode_server(frames.shared)
        if isinstance(message, msg.Moved):
            (event, *_) = message.events
            assert event.seat == mover and message.turn == match.turn
            assert message.deadline == room.turn_deadline()
            sizes.extend(len(frame_of(seat, frames.shared, frames.own)) for seat in range(4))
    # Most plays of a hand are told as their events, in a couple of hundred bytes each.
    assert len(sizes) >= 4 * 6
    assert sorted(sizes)[len(sizes) // 2] < 250


def test_chat_is_one_added_line_and_the_oldest_dropped_past_the_cap() -> None:
    room = room_with(players=2, humans=1)
    feed = Feed()
    for _ in range(CHAT_HISTORY):
        room.say(0, "H0", "old")
    feed.publish(room, [])
    frames = feed.publish(room, [room.say(0, "H0", "new")])
    patch = msg.decode_server(frames.shared)
    assert isinstance(patch, msg.Patch)
    assert [(op["op"], op["path"]) for op in patch.ops] == [
        ("add", "/chat/-"),
        ("remove", "/chat/0"),
    ]


def test_a_turns_deadline_and_a_seats_coming_and_going_are_each_one_field() -> None:
    room = room_with(players=4, humans=4)
    feed = Feed()
    feed.publish(room, [])

    def seat_ops() -> list[dict[str, Any]]:
        patch = msg.decode_server(feed.publish(room, events).shared)
        assert isinstance(patch, msg.Patch)
        return [op for op in patch.ops if op["path"].startswith(("/seats/", "/deadline"))]

    # A seat freed or taken is the whole seat: null, or who now sits there.
    room.leave(3)
    events: list[Any] = []
    assert seat_ops() == [{"op": "replace", "path": "/seats/3", "value": None}]
    room.sit("H3 again", 3)
    assert seat_ops() == [
        {"op": "replace", "path": "/seats/3", "value": msgspec.to_builtins(room.seat_infos()[3])}
    ]
    events = room.start(0, now=100.0, seed=5)
    seat_ops()
    match = room.match
    assert match is not None
    mover = match.turn
    events = room.play(mover, match.legal_moves()[0], now=101.0)
    deadline = room.turn_deadline()
    assert deadline is not None and match.turn != mover
    # The turn moved on: its deadline is one field, and no seat is sent.
    assert seat_ops() == [{"op": "replace", "path": "/deadline", "value": deadline}]
    away = (match.turn + 1) % 4
    room.disconnect(away, now=102.0)
    events = []
    assert seat_ops() == [{"op": "replace", "path": f"/seats/{away}/connected", "value": False}]


SEATS = st.builds(
    SeatInfo,
    seat=st.just(2),
    name=st.sampled_from(["Ann", "Bo"]),
    kind=st.sampled_from(["human", "bot"]),
    level=st.sampled_from([None, "easy", "hard"]),
    connected=st.booleans(),
    stand_in=st.booleans(),
    stand_in_moves=st.integers(0, 2),
)


@given(SEATS, SEATS)
def test_a_seats_operations_replace_each_changed_field_in_the_documents_order(
    old: SeatInfo, new: SeatInfo
) -> None:
    ops: list[patches.Operation] = []
    patches.seat_ops(2, old, new, ops)
    old_fields, new_fields = msgspec.to_builtins(old), msgspec.to_builtins(new)
    assert [msgspec.to_builtins(op) for op in ops] == [
        {"op": "replace", "path": f"/seats/2/{name}", "value": value}
        for name, value in new_fields.items()
        if old_fields.get(name) != value
    ]
    document = {"seats": [None, None, old_fields]}
    assert apply(document, [msgspec.to_builtins(op) for op in ops])["seats"][2] == new_fields


def test_a_draw_then_a_play_by_the_same_seat_in_one_change_goes_as_a_patch() -> None:
    # No rule makes such a change today (a seat draws as its turn begins, a change holds one
    # play), but a client could not take the drawn tile from the hand it held before the frame.
    room, _ = led(players=2, humans=2, seed=3)
    match = room.match
    assert match is not None
    before = parts.table(match)
    seat = match.turn
    events = room.play(seat, match.legal_moves()[0])
    played = next(e for e in events if isinstance(e, Played))
    after = parts.table(match)
    sides = [0, 1]
    assert moved.moves_only(before, after, events, sides) == (
        not any(isinstance(e, Drew) for e in events)
    )
    drawn = Drew(seat=played.seat, count=1)
    bigger = after._replace(
        hand_counts=tuple(c + (i == seat) for i, c in enumerate(after.hand_counts)),
        boneyard=after.boneyard - 1,
    )
    assert not moved.moves_only(before, bigger, [drawn, *events], sides)
