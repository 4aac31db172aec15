"""The browser table's model and geometry, run in headless Chromium.

The page's modules are loaded by a test page (tests/clients/web/unit_page/unit.html) that puts them on
`window.unit`; these tests call them through selenium and check what they return. Here: the last
hand's layout drawn as the engine places it (docs/rules.md's worked examples), the table model
(playable tiles, the server's totals, gold, teams, the end-of-hand summary, the layout in words) and where each domino is drawn. The
page's room state (patches, the log) is in tests/clients/web/test_web_state.py.
"""

from __future__ import annotations

import json
import random
from collections.abc import Iterator
from typing import Any

import protocol_session
import pytest
from client_helpers import embedded_config
from msgspec import to_builtins
from protocol_helpers import follow
from selenium.webdriver.remote.webdriver import WebDriver
from unit_page_helpers import call, unit_page
from ws_client_helpers import Client, play_out, seat_players

from bridge import convert
from engine import Move
from engine.layout import layout_from
from server.app import run_server

pytestmark = pytest.mark.browser


@pytest.fixture(scope="module")
def page() -> Iterator[WebDriver]:
    """One Chromium on the test page, for every test here."""
    with unit_page() as driver:
        yield driver


def readme_document() -> dict[str, Any]:
    """Ann's document at the end of the README's session (a fresh copy each time)."""
    return protocol_session.final_document(protocol_session.readme_session())


def layouts_of(client: Client) -> Iterator[dict[str, Any]]:
    """Every layout a client's frames held along the way."""
    document: dict[str, Any] | None = None
    for frame in client.frames:
        data = json.loads(frame)
        if data["type"] == "snapshot":
            document = data["state"]
        elif data["type"] in ("patch", "moved") and document is not None:
            document = follow(document, data)
        if document is not None and document.get("game"):
            yield document["game"]["layout"]


def test_the_table_model_shows_playable_tiles_and_each_ends_total(page: WebDriver) -> None:
    doc = readme_document()
    # A position set on the README's document: Ann to play, spinner 5-5 with 5-0 west, 5-3 east
    # and 5-1 north: west 0, east 3, north 1, south 5.
    doc["game"]["layout"] = {
        "line": [[0, 5], [5, 5], [5, 3]],
        "spinner": 1,
        "north": [[5, 1]],
        "south": [],
    }
    doc["game"]["ends"] = {"west": 0, "east": 3, "north": 1, "south": 5}
    doc["game"]["total"], doc["game"]["scores"], doc["game"]["turn"] = 4, [10, 0], 0
    doc["game"]["hand"] = ["6-4", "3-2", "6-6", "4-1", "2-0", "1-1", "6-3"]
    doc["game"]["hand"].append("5-0")
    # The legal list as the server would send it there, totals and points included.
    layout, _ = layout_from("lead 5-5; 5-0 west; 5-3 east; 5-1 north")
    plays = [Move.parse(text) for text in ("3-2 east", "1-1 north", "2-0 west", "6-3 east")]
    plays += [Move.parse("5-0 west"), Move.parse("5-0 south")]
    doc["game"]["legal"] = to_builtins(convert.legal_specs(plays, layout))
    assert doc["game"]["legal"][0] == {"tile": "3-2", "total": 3}
    model = call(page, "unit.model.tableModel(a[0])", doc)
    game = model["game"]
    assert game["total"] == 4 and not game["gold"] and game["myTurn"]
    tiles = {tile["tile"]: tile for tile in game["hand"]}
    assert not tiles["6-4"]["playable"] and tiles["3-2"]["playable"]
    # 3-2 on east (3): west 0 + east 2 + north 1 = 3.
    assert tiles["3-2"]["options"] == [{"end": None, "total": 3, "scores": False}]
    # 5-0 on west (0): 5 + 3 + 1 = 9; on south (5): 0 + 3 + 1 + 0 = 4.
    assert tiles["5-0"]["options"] == [
        {"end": "west", "total": 9, "scores": False},
        {"end": "south", "total": 4, "scores": False},
    ]
    # 6-3 on east: 0 + 6 + 1 = 7; 2-0 on west: 2 + 3 + 1 = 6 (the engine's numbers, as sent).
    assert tiles["6-3"]["options"] == [{"end": None, "total": 7, "scores": False}]
    # The page shows what the server says and counts nothing: a play said to score 20 shows 20,
    # gold; a total the server did not send (or sent wrong) shows none.
    doc["game"]["legal"][0] = {"tile": "3-2", "total": 20, "points": 20}
    doc["game"]["legal"][1] = {"tile": "1-1", "total": "<b>7</b>"}
    tiles = {t["tile"]: t for t in call(page, "unit.model.tableModel(a[0])", doc)["game"]["hand"]}
    assert tiles["3-2"]["options"] == [{"end": None, "total": 20, "scores": True}]
    assert tiles["1-1"]["options"] == [{"end": None, "total": None, "scores": False}]
    assert [seat["name"] for seat in model["seats"]] == ["Ann", "Bot 2"]
    assert [side["score"] for side in game["sides"]] == [10, 0]
    doc["game"]["turn"] = 1
    assert not any(
        t["playable"] for t in call(page, "unit.model.tableModel(a[0])", doc)["game"]["hand"]
    )
    watcher = {**doc, "you": None, "game": {**doc["game"], "hand": None, "legal": []}}
    assert call(page, "unit.model.tableModel(a[0])", watcher)["game"]["spectator"] is True


def test_the_corner_total_is_gold_when_the_server_says_its_play_scored(page: WebDriver) -> None:
    def gold(history: list[dict[str, Any]]) -> bool:
        doc = readme_document()
        doc["game"]["history"] = history
        return bool(call(page, "unit.model.tableModel(a[0]).game.gold", doc))

    def played(total: int, points: Any) -> dict[str, Any]:
        return {
            "type": "played",
            "seat": 1,
            "tile": "6-4",
            "end": "west",
            "total": total,
            "points": points,
        }

    assert gold([played(10, 10)]) and gold([played(3, 0), played(15, 15)])
    assert not gold([]) and not gold([played(15, 15), played(13, 0)])
    # Nothing is counted here: only the play's points say it (a broken one says no).
    assert not gold([played(10, 0)]) and not gold([played(10, "10")])
    assert not gold([played(10, 10), {"type": "drew", "seat": 0, "count": 1}, played(4, 0)])


def test_teams_score_per_team(page: WebDriver) -> None:
    seats = [
        {"seat": i, "name": n, "kind": "human", "level": None, "connected": True}
        for i, n in enumerate("ABCD")
    ]
    doc = {
        "code": "X",
        "rules": {
            "players": 4,
            "teams": True,
            "hand_size": "standard",
            "target": None,
            "end_scoring": "opponents",
            "reserve": 0,
            "turn_seconds": None,
            "public": True,
        },
        "seats": seats,
        "you": 1,
        "host": 0,
        "phase": "playing",
        "sides": [0, 1, 0, 1],
        "spectators": 0,
        "chat": [],
        "game": {
            "hand_number": 1,
            "leader": 0,
            "hand": ["6-6"],
            "hand_counts": [5, 5, 5, 5],
            "boneyard": 8,
            "layout": {"line": [], "spinner": None, "north": [], "south": []},
            "ends": {"west": None, "east": None, "north": None, "south": None},
            "total": 0,
            "scores": [15, 30],
            "target": 200,
            "turn": 0,
            "legal": [],
            "history": [],
            "last_hand": None,
            "winner": None,
            "over": False,
        },
    }
    model = call(page, "unit.model.tableModel(a[0])", doc)
    assert [(s["name"], s["score"]) for s in model["game"]["sides"]] == [
        ("team A (A & C)", 15),
        ("team B (B & D)", 30),
    ]
    assert [s["team"] for s in model["seats"]] == ["A", "B", "A", "B"]
    # Which seats are partners is the room's word (`sides`), not a rule of the page's own.
    doc["sides"] = [1, 0, 1, 0]
    model = call(page, "unit.model.tableModel(a[0])", doc)
    assert [s["team"] for s in model["seats"]] == ["B", "A", "B", "A"]
    assert [s["side"] for s in model["seats"]] == [1, 0, 1, 0]


def overlapping(rects: list[dict[str, float]]) -> list[tuple[int, int]]:
    pairs = []
    for i, a in enumerate(rects):
        for j in range(i + 1, len(rects)):
            b = rects[j]
            if (
                a["x"] < b["x"] + b["w"] - 1e-9
                and b["x"] < a["x"] + a["w"] - 1e-9
                and a["y"] < b["y"] + b["h"] - 1e-9
                and b["y"] < a["y"] + a["h"] - 1e-9
            ):
                pairs.append((i, j))
    return pairs


async def test_no_two_dominoes_overlap_on_a_phone_or_a_laptop(page: WebDriver) -> None:
    config = embedded_config()
    layouts: list[dict[str, Any]] = []
    async with run_server(config) as server:
        for players, seed in ((2, 1), (3, 2), (4, 3)):
            (client,) = await seat_players(server.url, players, 1, bots="easy", target=150)
            await client.request("start")
            await play_out(client, random.Random(seed))
            layouts += list(layouts_of(client))
    distinct = list({json.dumps(layout, sort_keys=True): layout for layout in layouts}.values())
    assert max(len(layout["line"]) for layout in distinct) >= 8
    for width in (340, 1000):
        placed = call(
            page,
            "a[0].map((l) => unit.geometry.placeLayout(l, unit.render_half(a[1]), null))",
            distinct,
            width,
        )
        for layout, result in zip(distinct, placed, strict=True):
            tiles = result["tiles"]
            count = len(layout["line"]) + len(layout["north"]) + len(layout["south"])
            assert len(tiles) == count
            assert overlapping(tiles) == [], layout
            # Each open end's ghost tile (where a tap target goes) is clear of the tiles.
            for info in result["ends"].values():
                assert overlapping([*tiles, info["ghost"]]) == [], layout


def test_the_end_of_hand_summary_names_who_went_out_and_the_points(page: WebDriver) -> None:
    doc = readme_document()
    doc["game"]["hand_number"] = 2
    doc["game"]["last_hand"] = {"kind": "domino", "by": 1, "points": [0, 15], "pips": [13, 0]}
    summary = call(page, "unit.model.tableModel(a[0]).game.summary", doc)
    assert summary["hand"] == 1
    assert summary["text"] == "Bot 2 went out: Bot 2 scores 15. Pips left: 13 (Ann), 0 (Bot 2)"


def test_the_layout_is_told_in_words_for_screen_readers(page: WebDriver) -> None:
    layout = {"line": [[0, 5], [5, 5], [5, 3]], "spinner": 1, "north": [[5, 1]], "south": []}
    ends = {"west": 0, "east": 3, "north": 1, "south": 5}
    assert call(page, "unit.model.describeLayout(a[0], a[1])", layout, ends) == (
        "Line, west to east: 0-5, 5-5 (spinner), 5-3. North arm: 5-1. "
        "Open ends: west 0, east 3, north 1, south 5."
    )
    empty: dict[str, Any] = {"line": [], "spinner": None, "north": [], "south": []}
    assert call(page, "unit.model.describeLayout(a[0], a[1])", empty, {}) == "No tiles down yet."


def test_each_tile_is_drawn_with_its_matching_half_toward_the_middle(page: WebDriver) -> None:
    layout = {"line": [[0, 5], [5, 5], [5, 3]], "spinner": 1, "north": [[5, 1]], "south": []}
    placed = call(page, "unit.geometry.placeLayout(a[0], 8, null)", layout)
    drawn = {
        (t["arm"], t["pos"]): (t["x"], t["y"], t["w"], t["h"], t["a"], t["b"])
        for t in placed["tiles"]
    }
    assert drawn == {
        ("center", 0): (-0.5, -1, 1, 2, 5, 5),  # the spinner across the line
        ("west", 0): (-2.5, -0.5, 2, 1, 0, 5),  # 0 outward (left), 5 against the spinner
        ("east", 0): (0.5, -0.5, 2, 1, 5, 3),
        ("north", 0): (-0.5, -3, 1, 2, 1, 5),  # up the arm: 1 on top, 5 against the spinner
    }
    # A long east arm turns down at the edge: the turned tiles stand upright, inner half on top.
    line = [[6, 6], [6, 1], [1, 2], [2, 3], [3, 4], [4, 4], [4, 0]]
    placed = call(
        page,
        "unit.geometry.placeLayout(a[0], 4, 0)",
        {**layout, "line": line, "spinner": 0, "north": []},
    )
    east = [t for t in placed["tiles"] if t["arm"] == "east"]
    assert (east[0]["x"], east[0]["w"], east[0]["h"]) == (0.5, 2, 1)  # 2.5 from the middle
    turned = east[1:]  # the next would end 4.5 from the middle: past 4
    assert all(t["y"] >= 0.5 and t["x"] + t["w"] <= 4 for t in turned)
    assert [(t["w"], t["h"]) for t in turned] == [(1, 2), (1, 2), (1, 2), (2, 1), (1, 2)]
    assert [(t["a"], t["b"]) for t in turned] == [(1, 2), (2, 3), (3, 4), (4, 4), (4, 0)]
    assert placed["ends"]["east"]["dir"] == {"dx": 0, "dy": 1}
