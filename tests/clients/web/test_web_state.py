"""The browser table's room state, run in headless Chromium: patches and moves' frames, the log,
what it sends.

The page's modules are loaded by a test page (tests/clients/web/unit_page/unit.html) that puts them on
`window.unit`; these tests call them through selenium and check what they return, as the
terminal client's state tests check clients/cli/state.py. Where Python has the same job
(protocol.patch) the two must agree. Here: patches, `moved` frames and resyncs, the
document kept over a reload, the log in words, and what the page sends and shows (the create
form, room codes, server text, the socket's URL). The table model and its geometry are in
tests/clients/web/test_web_model.py.
"""

from __future__ import annotations

import asyncio
import json
import random
import re
from collections.abc import Iterator
from typing import Any

import protocol_session
import pytest
from client_helpers import embedded_config
from i18n_helpers import web_words
from protocol_helpers import LOOK_ALIKES, follow, frame_events, frame_ops
from selenium.webdriver.remote.webdriver import WebDriver
from unit_page_helpers import call, unit_page
from ws_client_helpers import play_out, seat_players

from engine import End
from engine.layout import layout_from
from protocol import messages as msg
from protocol import views
from protocol.names import INVISIBLE, LOOSE_MARK, name_problem
from server.app import run_server

pytestmark = pytest.mark.browser


@pytest.fixture(scope="module")
def page() -> Iterator[WebDriver]:
    """One Chromium on the test page, for every test here."""
    with unit_page() as driver:
        yield driver


#: The page's log of the README's example session (tests/protocol_session.py plays it).
SESSION_LOG = [
    "Hand 1: Ann leads",
    "Ann led 1-3: total 4",
    "Bot 2 played 4-3 east: total 5, scores 5",
    "Ann played 6-1 west: total 10, scores 10",
    "Ann is away",
    "Bot 2 played 6-5 west: total 9",
    "Ann is back",
]


#: The frames that change the document held: a patch, or moves told by their events.
CHANGES = ("patch", "moved")


def readme_frames() -> list[dict[str, Any]]:
    """The server frames of the example session in protocol/README.md, in order."""
    return [json.loads(frame) for side, frame in protocol_session.readme_session() if side == "S"]


def test_the_readme_session_applies_to_the_documented_view(page: WebDriver) -> None:
    frames = [f for f in readme_frames() if f["type"] in ("joined", "snapshot", *CHANGES)]
    # The session drops and resumes after seq 6: the second `joined` is that resume.
    result = call(page, "unit.feed(a[0])", frames)
    held: dict[str, Any] | None = None
    for frame in frames:
        if frame["type"] == "snapshot":
            held = frame["state"]
        elif frame["type"] in CHANGES:
            assert held is not None
            held = follow(held, frame)
    assert result["seq"] == 9
    assert result["doc"] == held
    assert result["doc"]["game"]["total"] == 9
    assert all(sent == [] for sent in result["sent"])
    assert [line["text"] for line in result["log"]] == SESSION_LOG


def test_a_gap_asks_for_a_resync_and_waits_for_the_snapshot(page: WebDriver) -> None:
    frames = readme_frames()
    snapshot = next(f for f in frames if f["type"] == "snapshot")
    patches = [f for f in frames if f["type"] in CHANGES]
    assert patches[0]["type"] == "patch"
    # seq 1, then seq 3 (2 is missing): one resync, then patches are ignored until a snapshot.
    result = call(page, "unit.feed(a[0])", [snapshot, patches[1], patches[2], snapshot])
    assert result["sent"] == [[], [{"type": "resync"}], [], []]
    assert result["seq"] == 1 and not result["mending"]
    # An old patch is ignored; one that does not apply is a gap too.
    broken = {**patches[0], "ops": [{"op": "remove", "path": "/game/hand/7"}]}
    result = call(page, "unit.feed(a[0])", [snapshot, patches[0], patches[0], {**broken, "seq": 3}])
    assert result["sent"] == [[], [], [], [{"type": "resync"}]]
    assert result["seq"] == 2 and result["mending"]


def names_of(document: dict[str, Any]) -> list[str]:
    """The page's name per seat: people by name, bots as "Bot 3", free seats "(free)"."""
    return [
        "(free)" if seat is None else f"Bot {i + 1}" if seat["kind"] == "bot" else seat["name"]
        for i, seat in enumerate(document["seats"])
    ]


async def test_a_real_match_builds_the_servers_document_and_its_log_in_words(
    page: WebDriver,
) -> None:
    config = embedded_config()
    async with run_server(config) as server:
        players = await seat_players(server.url, 4, 2, bots="easy", target=150)
        host, friend = players
        await host.request("start")
        await friend.until(lambda m: isinstance(m, msg.Patch) and m.seq >= (host.state.seq or 0))
        rng = random.Random(13)
        await asyncio.gather(play_out(host, rng), play_out(friend, random.Random(31)))
        final = await friend.request("resync")
        assert isinstance(final, msg.Snapshot)
    frames = [json.loads(frame) for frame in friend.frames]
    result = call(page, "unit.feed(a[0])", frames)
    assert result["seq"] == final.seq
    assert result["doc"] == json.loads(msg.encode(final))["state"]

    # The log tells every event, in order, in the page's words for it with the names the
    # document had then (seat changes aside; the words themselves are checked below), and
    # between hands the page keeps the ended hand's table: every tile of it, its last total.
    to_tell: list[tuple[dict[str, Any], list[str], bool]] = []
    document: dict[str, Any] | None = None
    hand_plays: list[dict[str, Any]] = []
    endings = 0
    for index, frame in enumerate(frames):
        if frame["type"] == "snapshot":
            document = frame["state"]
        if frame["type"] not in CHANGES or document is None:
            continue
        document = follow(document, frame)
        teams = document["rules"]["players"] == 4 and document["rules"]["teams"]
        # A patch's events are the values it appends to the history and the chat; a `moved`
        # frame's are its own.
        events = frame_events(frame)
        for event in events:
            if event["type"] != "chat":
                to_tell.append((event, names_of(document), teams))
        kinds = [event["type"] for event in events]
        if "hand_ended" in kinds and "hand_started" in kinds:
            endings += 1
            kept = result["finals"][index]
            placed = len(kept["line"]) + len(kept["north"]) + len(kept["south"])
            ended = [e for e in events[: kinds.index("hand_ended")] if e["type"] == "played"]
            plays = hand_plays + ended
            assert placed == len(plays)
            # The kept table is the engine's layout of the hand's plays, drawn west to east.
            steps = [
                f"lead {p['tile']}" if p["end"] is None else f"{p['tile']} {p['end']}"
                for p in plays
            ]
            engine_layout, totals = layout_from("; ".join(steps))
            assert totals[-1] == plays[-1]["total"]
            assert kept["line"] == engine_layout.line()[0]
            assert kept["north"] == [list(t) for t in engine_layout.chains[End.NORTH]]
            assert kept["south"] == [list(t) for t in engine_layout.chains[End.SOUTH]]
        for event in events:
            if event["type"] == "hand_started":
                hand_plays = []
            elif event["type"] == "played":
                hand_plays.append(event)
    assert endings >= 1
    assert sum(frame["type"] == "moved" for frame in frames) > 10
    told = call(
        page, "a[0].map(([e, names, teams]) => unit.describe.describe(e, names, teams))", to_tell
    )
    assert [line["text"] for line in result["log"] if line["kind"] != "info"] == told
    assert told[-1].endswith("wins the match")


#: What the page says for test_events_read_as_sentences' events, with the sides named as a
#: match without teams or with them names them.
SENTENCES = [
    "Ann led 5-5: total 10, scores 10",
    "Bot 2 played 5-3 east: total 13",
    "Cid drew 1 tile",
    "Cid drew 3 tiles",
    "Dee passed",
    "Ann went out: {ann_side} scores 15. Pips left: 0 (Ann), 3 (Bot 2), 4 (Cid), 8 (Dee)",
    "The hand is blocked: nobody scores. Pips left: 2 (Ann), 3 (Bot 2), 4 (Cid), 8 (Dee)",
    "Bot 2 reached the target. Pips left: 2 (Ann), 3 (Bot 2), 4 (Cid), 8 (Dee)",
    "Hand 2: Dee leads",
    "{bot_side} wins the match",
    "Ann and Cid share the win",
    "The match ended without a winner",
]


def test_events_read_as_sentences(page: WebDriver) -> None:
    names = ["Ann", "Bot 2", "Cid", "Dee"]
    events: list[views.AnyEvent] = [
        views.Played(seat=0, tile="5-5", end=None, total=10, points=10),
        views.Played(seat=1, tile="5-3", end="east", total=13, points=0),
        views.Drew(seat=2, count=1),
        views.Drew(seat=2, count=3),
        views.Passed(seat=3),
        views.HandEnded(kind="domino", by=0, points=[15, 0], pips=[0, 3, 4, 8]),
        views.HandEnded(kind="blocked", by=None, points=[0, 0], pips=[2, 3, 4, 8]),
        views.HandEnded(kind="won", by=1, points=[0, -5], pips=[2, 3, 4, 8]),
        views.HandStarted(number=2, leader=3),
        views.MatchEnded(winner=1),
        views.MatchEnded(winner=[0, 2]),
        views.MatchEnded(winner=None),
    ]
    for teams in (False, True):
        as_json = [json.loads(msg.encode(e)) for e in events]  # type: ignore[arg-type]
        got = call(
            page, "a[0].map((e) => unit.describe.describe(e, a[1], a[2]))", as_json, names, teams
        )
        sides = (
            {"ann_side": "team A (Ann & Cid)", "bot_side": "Team B (Bot 2 & Dee)"}
            if teams
            else {"ann_side": "Ann", "bot_side": "Bot 2"}
        )
        assert got == [sentence.format(**sides) for sentence in SENTENCES]


def test_the_create_form_asks_for_every_rule_variant(page: WebDriver) -> None:
    form = {
        "players": "4",
        "teams": "on",
        "hand_size": "seven-five",
        "target": "150",
        "end_scoring": "penalty",
        "reserve": "3",
        "turn_seconds": "30",
        "public": "on",
        "rated": "on",
        "seat": "2",
        "bot_0": "hard",
        "bot_1": "",
        "bot_2": "easy",
        "bot_3": "easy",
    }
    request = call(page, "unit.lobby.createRequest(a[0])", form)
    assert request == {
        "rules": {
            "players": 4,
            "teams": True,
            "hand_size": "seven-five",
            "target": 150,
            "end_scoring": "penalty",
            "reserve": 3,
            "turn_seconds": 30,
            "public": True,
            "rated": True,
        },
        "seat": 2,
        "bots": [{"seat": 0, "level": "hard"}, {"seat": 3, "level": "easy"}],
    }
    msg.decode_client(json.dumps({"type": "create_room", **request, "bots": None}))
    plain = call(
        page,
        "unit.lobby.createRequest(a[0])",
        {"players": "2", "target": "", "turn_seconds": "", "reserve": "0"},
    )
    assert plain["rules"] == {
        "players": 2,
        "teams": True,
        "hand_size": "standard",
        "target": None,
        "end_scoring": "opponents",
        "reserve": 0,
        "turn_seconds": None,
        "public": False,
        "rated": False,
    }
    assert plain["bots"] == []


def test_the_end_of_a_match_says_why_a_rating_moved_less(page: WebDriver) -> None:
    def change(counted: float | None) -> dict[str, Any]:
        rating = {"mu": 25.0, "sigma": 8.0, "rating": 1.0}
        found: dict[str, Any] = {"seat": 0, "name": "Ann", "ladder": "2p", "before": rating}
        found["after"] = rating
        if counted is not None:
            found["counted"] = counted
        return found

    notes = [
        call(page, "unit.model.ratingNote(a[0], 0)", [change(counted)])
        for counted in (None, 1.0, 0.0, 1 / 30)
    ]
    assert notes[:2] == [None, None]  # counted fully (or a server that does not say)
    assert notes[2] is None  # nothing moved: the rating's line says it in one sentence
    text = call(page, "unit.model.ratingText(a[0], 0)", [change(0.0)])
    assert text == web_words("en", "rating.provisional")  # another player was provisional
    assert notes[3] == web_words("en", "rating.counted", share="3")
    assert call(page, "unit.model.ratingNote(a[0], 1)", [change(0.0)]) is None  # not yours


def test_room_codes_come_from_a_code_or_a_link(page: WebDriver) -> None:
    got = call(
        page,
        "a[0].map(unit.lobby.roomCode)",
        ["kxqp", " KXQP ", "http://h:1/r/abcd", "/r/ZZ/", "", "a b!", "/r/kxqp-bcdfghjkmn"],
    )
    # A private room's link carries its invite: CODE-INVITE.
    assert got == ["KXQP", "KXQP", "ABCD", "ZZ", None, None, "KXQP-BCDFGHJKMN"]


def test_server_text_is_shown_with_control_characters_visible(page: WebDriver) -> None:
    got = call(page, "unit.text.visible(a[0])", "a\x1b[31mb\u202ec\x00<b>")
    assert got == "a\u241b[31mb\ufffdc\u2400<b>"
    # What a name may not hold (protocol/names.py) shows: a look-alike never reads as the owner.
    shown = call(page, "a[0].map((name) => unit.text.visible(name))", list(LOOK_ALIKES))
    for name, seen in zip(LOOK_ALIKES, shown, strict=True):
        if name_problem(name) in (INVISIBLE, LOOSE_MARK):
            assert "\ufffd" in seen, ascii(name)
    marks = ["\u0301Ann", "a \u0301", "z\u0301\u0301\u0301", "Nguye\u0302\u0303n"]
    assert call(page, "a[0].map((text) => unit.text.visible(text))", marks) == [
        "\ufffdAnn",
        "a \ufffd",
        "z\u0301\u0301\ufffd",
        "Nguye\u0302\u0303n",
    ]
    node = call(page, "unit.text.h('p', {}, '<img src=x onerror=alert(1)>').outerHTML", None)
    assert node == "<p>&lt;img src=x onerror=alert(1)&gt;</p>"


def test_the_socket_url_follows_the_page(page: WebDriver) -> None:
    got = call(
        page,
        "[unit.connection.socketUrl({protocol: 'http:', host: 'h:8765'}), unit.connection.socketUrl({protocol: 'https:', host: 'games.example'})]",
    )
    assert got == ["ws://h:8765/", "wss://games.example/"]
    assert re.fullmatch(
        r"ws://127\.0\.0\.1:\d+/", call(page, "unit.connection.socketUrl(location)")
    )


def test_a_kept_document_takes_up_the_patches_missed_after_a_reload(page: WebDriver) -> None:
    frames = readme_frames()
    doc: dict[str, Any] | None = None
    patches = []
    for frame in frames:
        if frame["type"] == "snapshot":
            doc = frame["state"]
        elif frame["type"] in CHANGES:
            if frame["seq"] <= 6:
                assert doc is not None
                doc = follow(doc, frame)
            else:
                patches.append(frame)
    kept = {"token": "TOKEN", "seat": 0, "seq": 6, "doc": doc}
    script = """
      const a = arguments;
      const room = new unit.state.RoomState();
      room.restore("KXQP", a[0]);
      const sent = a[1].map((m) => room.receive(m));
      return JSON.parse(JSON.stringify({doc: room.doc, seq: room.seq, sent, log: room.log, snapshots: room.snapshots}));
    """
    joined = {"type": "joined", "room": "KXQP", "seat": 0, "seat_token": kept["token"], "id": 1}
    result = page.execute_script(script, kept, [joined, *patches])
    expected = doc
    assert expected is not None
    for frame in patches:
        expected = follow(expected, frame)
    assert result["seq"] == 9 and result["snapshots"] == 0
    assert result["doc"] == expected
    assert all(sent == [] for sent in result["sent"])
    assert [line["text"] for line in result["log"]] == SESSION_LOG


def test_a_move_told_by_a_moved_frame_reads_in_the_log_as_its_patch_does(
    page: WebDriver,
) -> None:
    # The README's session as the server sent it (its moves within a hand as `moved` frames),
    # and the same session with each `moved` frame sent as the patch it stands for: the same
    # document and the same log in words.
    frames = [f for f in readme_frames() if f["type"] in ("joined", "snapshot", "patch", "moved")]
    told = [e for f in frames if f["type"] == "moved" for e in f["events"]]
    assert {
        "type": "played",
        "seat": 1,
        "tile": "4-3",
        "end": "east",
        "total": 5,
        "points": 5,
    } in told
    assert any(e["seat"] == 0 for e in told)
    document: dict[str, Any] | None = None
    as_patches: list[dict[str, Any]] = []
    for frame in frames:
        if frame["type"] == "snapshot":
            document = frame["state"]
        elif frame["type"] in ("patch", "moved") and document is not None:
            ops = frame_ops(document, frame)
            document = follow(document, frame)
            frame = {"type": "patch", "seq": frame["seq"], "ops": ops}
        as_patches.append(frame)
    for sent in (frames, as_patches):
        result = call(page, "unit.feed(a[0])", sent)
        assert result["doc"] == document
        assert [line["text"] for line in result["log"]] == SESSION_LOG
    assert "Bot 2 played 4-3 east: total 5, scores 5" in SESSION_LOG
