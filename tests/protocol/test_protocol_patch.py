"""Patches between view documents, and a client that follows them by `seq` and notices gaps."""

from __future__ import annotations

import itertools
import json
from typing import Any

import msgspec
import msgspec.inspect as mi
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from protocol_helpers import JSON_SCALARS, diff, examples, for_type
from room_harness import led

from protocol.messages import Moved, Patch, Snapshot, decode_server, encode
from protocol.patch import ClientState, GapDetected, apply, to_builtins
from protocol.rules import RoomRules
from protocol.views import ChatLine, Played, RoomView, SeatInfo

KEYS = st.sampled_from(["a", "b", "c", "", "~", "/", "a/b", "~1", "0", "1"]) | st.text(max_size=4)
DOCUMENT_VALUES = st.recursive(
    JSON_SCALARS,
    lambda children: st.lists(children, max_size=5) | st.dictionaries(KEYS, children, max_size=5),
    max_leaves=25,
)
DOCUMENTS = st.dictionaries(KEYS, DOCUMENT_VALUES, max_size=5)
ROOM_VIEWS = for_type(mi.type_info(RoomView))


def exact(value: Any) -> str:
    """A rendering that tells 1 from 1.0 from true, so equality checks are strict."""
    return json.dumps(value, sort_keys=True)


@given(DOCUMENTS, DOCUMENTS)
def test_a_diff_applied_to_the_old_document_gives_the_new(
    old: dict[str, Any], new: dict[str, Any]
) -> None:
    before = exact(old)
    assert exact(apply(old, diff(old, new))) == exact(new)
    assert exact(old) == before


@given(DOCUMENTS, st.data())
def test_a_small_change_gives_a_patch_that_reproduces_it(
    old: dict[str, Any], data: st.DataObject
) -> None:
    new = json.loads(json.dumps(old))
    if new:
        key = data.draw(st.sampled_from(sorted(new)))
        new[key] = data.draw(DOCUMENT_VALUES)
    new[data.draw(KEYS)] = data.draw(DOCUMENT_VALUES)
    assert exact(apply(old, diff(old, new))) == exact(new)


@settings(max_examples=examples(50))
@given(ROOM_VIEWS, ROOM_VIEWS)
def test_a_diff_between_room_views_rebuilds_the_new_view(old: RoomView, new: RoomView) -> None:
    patched = apply(to_builtins(old), diff(to_builtins(old), to_builtins(new)))
    assert exact(patched) == exact(to_builtins(new))


def test_an_unchanged_view_gives_an_empty_patch() -> None:
    view = to_builtins(waiting_room())
    assert diff(view, to_builtins(waiting_room())) == []


def test_operations_are_rfc_6902() -> None:
    old = to_builtins(waiting_room())
    new_view = waiting_room()
    new_view.seats[1] = SeatInfo(seat=1, name="Bo", kind="bot", level="hard")
    ops = diff(old, to_builtins(new_view))
    assert ops == [
        {
            "op": "replace",
            "path": "/seats/1",
            "value": {
                "seat": 1,
                "name": "Bo",
                "kind": "bot",
                "level": "hard",
                "connected": True,
                "stand_in": False,
                "stand_in_moves": 0,
            },
        }
    ]


# The client follows the server's seq


def waiting_room() -> RoomView:
    """A 2-player room with Ann seated and waiting."""
    return RoomView(
        code="KXQP",
        rules=RoomRules(players=2),
        seats=[SeatInfo(seat=0, name="Ann", kind="human"), None],
        you=0,
        host=0,
        phase="waiting",
    )


def server_stream(views: list[RoomView]) -> list[bytes]:
    """What a server sends for a run of views: a snapshot, then one patch per change, as frames."""
    frames = [encode(Snapshot(seq=10, state=views[0]))]
    for seq, (old, new) in enumerate(itertools.pairwise(views), start=11):
        frames.append(encode(Patch(seq=seq, ops=diff(to_builtins(old), to_builtins(new)))))
    return frames


def feed(client: ClientState, frame: bytes) -> None:
    """Hand one server frame to the client state."""
    message = decode_server(frame)
    if isinstance(message, Snapshot):
        client.on_snapshot(message)
    else:
        assert isinstance(message, Patch)
        client.on_patch(message)


@settings(max_examples=examples(30))
@given(st.lists(ROOM_VIEWS, min_size=2, max_size=5))
def test_a_client_following_the_patches_ends_with_the_last_view(views: list[RoomView]) -> None:
    client = ClientState()
    for frame in server_stream(views):
        feed(client, frame)
    assert client.view == views[-1]
    assert client.seq == 10 + len(views) - 1


@settings(max_examples=examples(30))
@given(st.lists(ROOM_VIEWS, min_size=3, max_size=5), st.data())
def test_a_missed_patch_is_detected_and_a_resync_recovers(
    views: list[RoomView], data: st.DataObject
) -> None:
    frames = server_stream(views)
    lost = data.draw(st.integers(1, len(frames) - 2))
    client = ClientState()
    for frame in frames[:lost]:
        feed(client, frame)
    held, seq = client.view, client.seq
    with pytest.raises(GapDetected):
        feed(client, frames[lost + 1])
    assert (client.view, client.seq) == (held, seq)
    client.on_snapshot(Snapshot(seq=10 + len(views) - 1, state=views[-1]))
    assert client.view == views[-1]


def test_a_patch_before_any_snapshot_is_a_gap() -> None:
    with pytest.raises(GapDetected):
        ClientState().on_patch(Patch(seq=1, ops=[]))
    with pytest.raises(GapDetected):
        _ = ClientState().view


def test_a_patch_already_seen_is_ignored_and_events_come_back_once() -> None:
    before = waiting_room()
    line = ChatLine(seat=0, name="Ann", text="hello")
    patch = Patch(seq=2, ops=[{"op": "add", "path": "/chat/-", "value": to_builtins(line)}])
    client = ClientState()
    client.on_snapshot(Snapshot(seq=1, state=before))
    assert client.on_patch(patch) == [line]
    assert client.on_patch(patch) == []
    assert client.view.chat == [line]


def test_a_patch_that_does_not_fit_the_document_is_a_gap() -> None:
    client = ClientState()
    client.on_snapshot(Snapshot(seq=1, state=waiting_room()))
    for ops in (
        [{"op": "remove", "path": "/game/turn"}],
        [{"op": "replace", "path": "/phase", "value": "dancing"}],
        [{"op": "jump", "path": "/phase"}],
    ):
        with pytest.raises(GapDetected):
            client.on_patch(Patch(seq=2, ops=ops))
    assert client.seq == 1 and client.view == waiting_room()


def mid_hand() -> tuple[ClientState, Moved]:
    """Seat 0's client of a two-player room after the lead and one play, and the next play's
    `moved` frame as the server sends it to seat 0."""
    room, feed = led(players=2, humans=2, seed=3)
    match = room.match
    assert match is not None
    client = ClientState()
    client.on_snapshot(msgspec.json.decode(feed.snapshot(room, 0), type=Snapshot))
    frames = feed.publish(room, room.play(match.turn, match.legal_moves()[0]))
    moved = decode_server(frames.own.get(0, frames.shared))
    assert isinstance(moved, Moved)
    return client, moved


def test_a_moved_frame_is_the_patch_it_stands_for() -> None:
    client, moved = mid_hand()
    (played,) = moved.events
    assert isinstance(played, Played) and played.end is not None
    before = client.view
    assert before.game is not None
    assert client.on_patch(moved) == [played]
    after = client.view
    assert after.game is not None and client.seq == moved.seq
    assert after.game.history[-1] == played and after.game.total == played.total
    assert after.game.turn == moved.turn and after.deadline == moved.deadline
    assert sum(after.game.hand_counts) == sum(before.game.hand_counts) - 1
    assert getattr(after.game.ends, played.end) in (int(pip) for pip in played.tile.split("-"))


def test_a_moved_frame_that_does_not_fit_the_document_is_a_gap() -> None:
    client, moved = mid_hand()
    (played,) = moved.events
    assert isinstance(played, Played) and client.view.game is not None
    ends = client.view.game.ends
    closed = next(end for end in ("north", "south") if getattr(ends, end) is None)
    unmatched = next(
        f"{high}-{low}"
        for high in range(7)
        for low in range(high + 1)
        if ends.east not in (high, low) and ends.west not in (high, low)
    )
    mine = msgspec.structs.replace(played, seat=0, tile=unmatched, end="east")
    held, seq = exact(client.document), client.seq
    for events in (
        [msgspec.structs.replace(played, end=closed)],  # an end that is not open
        [msgspec.structs.replace(played, tile=unmatched)],  # a tile that does not match it
        [mine],  # a tile the seat does not hold (and that does not match)
        [msgspec.structs.replace(played, seat=3)],  # a seat with no hand count
    ):
        with pytest.raises(GapDetected):
            client.on_patch(msgspec.structs.replace(moved, events=events))
        assert (exact(client.document), client.seq) == (held, seq)
    waiting = ClientState()
    waiting.on_snapshot(Snapshot(seq=1, state=waiting_room()))
    with pytest.raises(GapDetected):
        waiting.on_patch(msgspec.structs.replace(moved, seq=2))
