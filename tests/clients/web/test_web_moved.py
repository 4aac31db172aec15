"""The browser table follows `moved` frames (protocol version 3), run in headless Chromium.

A `moved` frame is a patch told by its events: protocol.patch.moved_ops is the definition of
the operations it stands for, and the page's `movedOps` (clients/web/js/moved.js) must give the
same, which the page then applies as it applies a `patch` frame's. Here: whole matches of 2, 3
and 4 players played through the room's own commands and feed (tests/room_harness.py), every
frame each seat and a spectator received fed to the page; a frame that does not fit the
document held; and the log in words after a move told by a `moved` frame.
"""

from __future__ import annotations

import json
import random
from collections.abc import Iterator
from typing import Any

import msgspec
import pytest
from protocol_helpers import follow, frame_ops
from room_harness import RoomHarness
from selenium.webdriver.remote.webdriver import WebDriver
from unit_page_helpers import call, unit_page

from protocol import messages as msg
from protocol.patch import ClientState, GapDetected, moved_ops
from protocol.rules import RoomRules

pytestmark = pytest.mark.browser

NAMES = ("ann", "bob", "cy", "dee")
#: The spectator that watches each match.
WATCHER = "eve"


@pytest.fixture(scope="module")
def page() -> Iterator[WebDriver]:
    """One Chromium on the test page, for every test here."""
    with unit_page() as driver:
        yield driver


def played_match(players: int, seed: int, turn_seconds: int | None) -> RoomHarness:
    """A whole match of `players` people and a spectator, each move one of the mover's legal
    moves at random, a second and a half apart on the room's clock."""
    rules = RoomRules(players=players, teams=players == 4, target=100, turn_seconds=turn_seconds)
    harness = RoomHarness(rules, now=1_765_000_000.0)
    for name in NAMES[:players]:
        harness.join(name)
    harness.send(WATCHER, msg.Spectate(room=harness.room.code))
    harness.deal("ann", seed)
    pick = random.Random(seed)
    while harness.room.phase == "playing":
        harness.now += 1.5
        mover = harness.seat_to_play()
        game = harness.document(mover).game
        assert game is not None and game.legal
        spec = pick.choice(game.legal)
        if spec.tile is None:
            harness.send(mover, msg.Pass())
        else:
            harness.send(mover, msg.Play(tile=spec.tile, end=spec.end))
    assert harness.room.phase == "finished"
    return harness


@pytest.fixture(scope="module")
def matches() -> list[RoomHarness]:
    """Matches of 2, 3 and 4 players, with a turn clock and without (deals where a seat
    passes and the hand goes on)."""
    return [
        played_match(2, 6, 30),
        played_match(3, 4, None),
        played_match(4, 0, 20),
    ]


def frames_of(harness: RoomHarness, name: str) -> list[dict[str, Any]]:
    """Every frame client `name` received, as JSON."""
    found: list[dict[str, Any]] = [json.loads(frame) for frame in harness.clients[name].received]
    return found


#: Feeds a[0] to a fresh RoomState: after each frame, the operations the page's movedOps gives
#: for it on the document held before (a `moved` frame's), what the page sent, its document.
FOLLOW = """(() => {
  const room = new unit.state.RoomState();
  return a[0].map((frame) => {
    const ops = frame.type === "moved" ? unit.moved.movedOps(room.doc, frame) : null;
    const sent = room.receive(frame);
    return { ops, sent, doc: room.doc, seq: room.seq };
  });
})()"""


def test_the_pages_moved_ops_are_pythons_for_every_frame_of_real_matches(
    page: WebDriver, matches: list[RoomHarness]
) -> None:
    told = dict.fromkeys(("moved", "hand", "legal", "played", "drew", "passed"), 0)
    for harness in matches:
        for name in harness.clients:
            frames = frames_of(harness, name)
            seen = call(page, FOLLOW, frames)
            state = ClientState()
            for frame, got in zip(frames, seen, strict=True):
                message = msg.decode_server(json.dumps(frame))
                if isinstance(message, msg.Snapshot):
                    state.on_snapshot(message)
                elif isinstance(message, msg.Moved):
                    assert state.document is not None
                    assert got["ops"] == moved_ops(state.document, message), frame
                    state.on_patch(message)
                    told["moved"] += 1
                    told["hand"] += "hand" in frame
                    told["legal"] += "legal" in frame
                    for event in frame["events"]:
                        told[event["type"]] = told.get(event["type"], 0) + 1
                elif isinstance(message, msg.Patch):
                    state.on_patch(message)
                assert got["sent"] == [], frame
                assert got["seq"] == state.seq
                assert got["doc"] == state.document, frame
            assert state.document is not None and state.document["phase"] == "finished"
    # The matches told plays, draws and passes in `moved` frames, and each seat's own frames
    # brought its hand where it drew and its legal moves.
    assert told["moved"] > 100 and told["played"] > 50
    assert told["drew"] > 0 and told["passed"] > 0
    assert told["hand"] > 0 and told["legal"] > 0


def test_a_match_told_in_moved_frames_reads_as_the_same_match_told_in_patches(
    page: WebDriver, matches: list[RoomHarness]
) -> None:
    for harness in matches:
        for name in ("ann", WATCHER):
            frames = frames_of(harness, name)
            # The same frames, each `moved` one sent as the patch of the operations it stands for.
            as_patches: list[dict[str, Any]] = []
            document: dict[str, Any] | None = None
            for frame in frames:
                if frame["type"] == "snapshot":
                    document = frame["state"]
                elif frame["type"] in ("patch", "moved"):
                    assert document is not None
                    ops = frame_ops(document, frame)
                    document = follow(document, frame)
                    if frame["type"] == "moved":
                        frame = {"type": "patch", "seq": frame["seq"], "ops": ops}
                as_patches.append(frame)
            told = call(page, "unit.feed(a[0])", frames)
            patched = call(page, "unit.feed(a[0])", as_patches)
            assert told["doc"] == patched["doc"] == document
            # The log in words, line by line and kind by kind, and each ended hand's table kept.
            assert told["log"] == patched["log"]
            assert len(told["log"]) > 50
            assert told["finals"] == patched["finals"]
            assert any(final is not None for final in told["finals"])


def first_moved(frames: list[dict[str, Any]], test: Any) -> tuple[dict[str, Any], dict[str, Any]]:
    """The first `moved` frame that passes `test`, and the document held just before it."""
    state = ClientState()
    for frame in frames:
        message = msg.decode_server(json.dumps(frame))
        if isinstance(message, msg.Moved) and test(frame):
            assert state.document is not None
            return frame, state.document
        if isinstance(message, msg.Snapshot):
            state.on_snapshot(message)
        elif isinstance(message, msg.Patch | msg.Moved):
            state.on_patch(message)
    raise AssertionError("no such frame")


def plays_of(frame: dict[str, Any]) -> list[dict[str, Any]]:
    played: list[dict[str, Any]] = [e for e in frame["events"] if e["type"] == "played"]
    return played


def misfits(harness: RoomHarness) -> list[tuple[str, dict[str, Any], dict[str, Any]]]:
    """(what is wrong, the document held, a `moved` frame that follows it but does not fit)."""
    frames = frames_of(harness, "ann")
    you = next(f for f in frames if f["type"] == "snapshot")["state"]["you"]
    found = []
    frame, document = first_moved(frames, lambda f: len(plays_of(f)) == 1)
    play = plays_of(frame)[0]
    ends = document["game"]["ends"]
    closed = next(end for end in ("north", "south") if ends[end] is None)
    number = ends[play["end"]]
    a, b = (number + 1) % 7, (number + 2) % 7
    changes: list[tuple[str, dict[str, Any]]] = [
        ("the end is not open", {"end": closed}),
        ("a lead", {"end": None}),
        ("the tile does not match the end", {"tile": f"{max(a, b)}-{min(a, b)}"}),
    ]
    for what, change in changes:
        events = [{**play, **change} if e is play else e for e in frame["events"]]
        found.append((what, document, {**frame, "events": events}))
    # Ann's own play of a tile her hand does not hold, at an open end it matches.
    frame, document = first_moved(frames, lambda f: any(p["seat"] == you for p in plays_of(f)))
    play = next(p for p in plays_of(frame) if p["seat"] == you)
    number = document["game"]["ends"][play["end"]]
    held = document["game"]["hand"]
    tile = next(
        t for t in (f"{max(number, p)}-{min(number, p)}" for p in range(7)) if t not in held
    )
    events = [{**e, "tile": tile} if e is play else e for e in frame["events"]]
    found.append(("the tile is not in the hand", document, {**frame, "events": events}))
    # More tiles drawn than the boneyard holds.
    frame, document = first_moved(frames, lambda f: any(e["type"] == "drew" for e in f["events"]))
    draw = next(e for e in frame["events"] if e["type"] == "drew")
    more = document["game"]["boneyard"] + 1
    events = [{**e, "count": more} if e is draw else e for e in frame["events"]]
    found.append(("more drawn than the boneyard holds", document, {**frame, "events": events}))
    # A frame of moves to a room with no game (the room before the deal).
    waiting = next(f for f in frames if f["type"] == "snapshot")
    found.append(("no game", waiting["state"], {**frame, "seq": waiting["seq"] + 1}))
    return found


def test_a_moved_frame_that_does_not_fit_asks_for_a_resync_and_keeps_the_document(
    page: WebDriver, matches: list[RoomHarness]
) -> None:
    cases = misfits(matches[0])
    assert [what for what, _, _ in cases] == [
        "the end is not open",
        "a lead",
        "the tile does not match the end",
        "the tile is not in the hand",
        "more drawn than the boneyard holds",
        "no game",
    ]
    for what, document, frame in cases:
        snapshot = {"type": "snapshot", "seq": frame["seq"] - 1, "state": document}
        # Python's definition refuses it too: it does not fit, it is no bad frame.
        state = ClientState()
        state.on_snapshot(msgspec.convert(snapshot, msg.Snapshot))
        moved = msgspec.convert(frame, msg.Moved)
        with pytest.raises(GapDetected):
            state.on_patch(moved)
        result = call(
            page, "unit.feed(a[0])", [snapshot, frame, {**frame, "seq": frame["seq"] + 1}]
        )
        assert result["sent"] == [[], [{"type": "resync"}], []], what
        assert result["mending"], what
        assert result["seq"] == snapshot["seq"], what
        assert result["doc"] == document, what
        # The page's movedOps throws on it: no operation of it is applied.
        thrown = call(
            page,
            "(() => { try { unit.moved.movedOps(a[0], a[1]); } catch (e) { return e.name; } })()",
            document,
            frame,
        )
        assert thrown == "MovedError", what
    # What Python's types refuse as it decodes (a count that is no whole number), the page's
    # movedOps refuses too: a string "1" once made a hand count "11".
    frame, document = first_moved(frames_of(matches[0], "ann"), lambda f: len(plays_of(f)) == 1)
    play = plays_of(frame)[0]
    draws = [{**play, "type": "drew", "count": "1"}, {**play, "type": "drew", "count": 0}]
    for wrong in [play, {**play, "total": "10"}, {**play, "points": -5}, *draws]:
        events = [wrong if e is play else e for e in frame["events"]]
        thrown = call(
            page,
            "(() => { try { unit.moved.movedOps(a[0], a[1]); return null; } catch (e) { return e.name; } })()",
            document,
            {**frame, "events": events},
        )
        assert thrown == (None if wrong is play else "MovedError"), wrong
