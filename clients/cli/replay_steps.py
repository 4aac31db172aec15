"""A finished match's record as the steps a replay shows (`allfives show`): pure, no terminal.

The same steps as the browser's viewer (clients/web/js/replay_model.js): for each hand its deal,
one step after each move and one for its result; each step holds every seat's tiles then, the
boneyard left, the layout as the table draws it (`clients.cli.placing.place`), the move and the
scores. Every total and point is the record's (the server's): nothing is counted here.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Literal

from clients.cli.i18n import _
from clients.cli.placing import copy_layout, place
from protocol.records import HandResult, Record, RecordMove
from protocol.views import Layout

StepKind = Literal["deal", "played", "passed", "hand_ended"]


@dataclass(frozen=True)
class Step:
    """What the table looked like after one step (see the module docstring)."""

    hand: int
    move: int
    kind: StepKind
    seat: int | None
    tiles: list[list[str]]
    boneyard: int
    layout: Layout
    scores: list[int]
    tile: str | None = None
    end: str | None = None
    drew: int = 0
    total: int = 0
    points: int = 0
    result: HandResult | None = None


@dataclass
class Replay:
    """The steps of a record, and what they share."""

    names: list[str]
    teams: bool
    sides: int
    hands: int
    steps: list[Step] = field(default_factory=list)


def open_ends(layout: Layout) -> dict[str, int | None]:
    """The number open at each end of a drawn layout (None where nothing may be played)."""
    line = layout.line
    if not line:
        return dict.fromkeys(("west", "east", "north", "south"))
    spinner = layout.spinner
    arms_open = spinner is not None and 0 < spinner < len(line) - 1

    def arm(tiles: list[list[int]]) -> int | None:
        if not arms_open or spinner is None:
            return None
        return tiles[-1][1] if tiles else line[spinner][0]

    return {
        "west": line[0][0],
        "east": line[-1][1],
        "north": arm(layout.north),
        "south": arm(layout.south),
    }


def end_of(layout: Layout, move: RecordMove) -> str | None:
    """The end a play went to: as written, else the open end its tile fits (east first)."""
    if not layout.line:
        return None
    if move.end is not None:
        return move.end
    assert move.tile is not None
    pips = {int(move.tile[0]), int(move.tile[-1])}
    ends = open_ends(layout)
    return next((end for end in ("east", "west", "north", "south") if ends[end] in pips), "east")


def _same_tile(held: str, written: str) -> bool:
    return held == written or held == written[::-1]


def replay_of(record: Record) -> Replay:
    """The replay of a (checked) record."""
    rules = record.rules
    teams = rules.partnership
    sides = rules.sides
    names = [
        (record.names[seat] if seat < len(record.names) else "")
        or _("seat {seat}").format(seat=seat + 1)  # seats count from 1 on screen
        for seat in range(rules.players)
    ]
    scores = [0] * sides
    replay = Replay(names=names, teams=teams, sides=sides, hands=len(record.hands))
    for number, hand in enumerate(record.hands, start=1):
        tiles = [list(seat) for seat in hand.deal]
        drawn = 0
        layout = Layout()

        def step(kind: StepKind, move: int, seat: int | None, **more: object) -> Step:
            return Step(
                hand=number,  # noqa: B023 - called at once, in this hand's loop
                move=move,
                kind=kind,
                seat=seat,
                tiles=[list(t) for t in tiles],  # noqa: B023
                boneyard=len(hand.boneyard) - drawn,  # noqa: B023
                layout=copy_layout(layout),  # noqa: B023
                scores=list(scores),
                **more,  # type: ignore[arg-type]
            )

        replay.steps.append(step("deal", 0, hand.leader))
        for at, move in enumerate(hand.moves, start=1):
            seat = move.seat
            drew = move.drew or 0
            for _draw in range(drew):
                if drawn < len(hand.boneyard):
                    tiles[seat].append(hand.boneyard[drawn])
                    drawn += 1
            if move.pass_ or move.tile is None:
                replay.steps.append(step("passed", at, seat, drew=drew))
                continue
            end = end_of(layout, move)
            place(layout, move.tile, end)
            held = tiles[seat]
            found = next((i for i, t in enumerate(held) if _same_tile(t, move.tile)), None)
            if found is not None:
                del held[found]
            points = move.points or 0
            scores[seat % 2 if teams else seat] += points
            replay.steps.append(
                step(
                    "played",
                    at,
                    seat,
                    tile=move.tile,
                    end=end,
                    drew=drew,
                    total=move.total or 0,
                    points=points,
                )
            )
        if hand.result is not None:
            for side, points in enumerate(hand.result.points[:sides]):
                scores[side] += points
            replay.steps.append(step("hand_ended", len(hand.moves) + 1, None, result=hand.result))
    return replay
