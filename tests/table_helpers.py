"""The terminal client's table on paper: room views made by hand as the server would send them
(`make_view`; the `CROSS` position and `cross_view`), a client state holding one (`state_of`),
and the table the App draws from it as plain text rows (`screen`, `screen_of`, `status`). Used
by the terminal client's tests of what it draws and what its commands do (tests/clients/cli/).
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from clients.cli.render import render
from clients.cli.state import TableState
from protocol import messages as msg
from protocol.rules import RoomRules
from protocol.views import Ends, GameView, Layout, MoveSpec, Phase, RoomView, SeatInfo

#: A Console's tab stops.
TAB_SIZE = 8


def make_view(
    hand: Sequence[str] = ("5-3", "6-6", "4-1"),
    legal: Sequence[MoveSpec] | None = None,
    *,
    turn: int | None = 0,
    you: int | None = 0,
    host: int | None = 0,
    players: int = 2,
    phase: Phase = "playing",
    layout: Layout | None = None,
    ends: Ends | None = None,
    total: int = 0,
    scores: Sequence[int] | None = None,
    seats: Sequence[SeatInfo | None] | None = None,
    deadline: float | None = None,
    **game: Any,
) -> RoomView:
    """A room view as the server would send it to seat `you`, with a match unless waiting."""
    if seats is None:
        seats = [SeatInfo(seat=0, name="Ann", kind="human")] + [
            SeatInfo(seat=index, name="bot:normal", kind="bot", level="normal")
            for index in range(1, players)
        ]
    rules = RoomRules(players=players, target=game.pop("target", 100))
    view_game = None
    if phase != "waiting":
        view_game = GameView(
            hand_number=1,
            leader=0,
            hand=list(hand),
            hand_counts=[len(hand)] * players,
            boneyard=28 - len(hand) * players,
            layout=layout or Layout(),
            ends=ends or Ends(),
            total=total,
            scores=list(scores) if scores is not None else [0] * rules.sides,
            target=rules.target_score,
            turn=turn,
            legal=list(legal) if legal is not None else [MoveSpec(tile=tile) for tile in hand],
            **game,
        )
    # Each seat's side, as the server says it (`RoomView.sides`).
    sides = [rules.side_of(seat) for seat in range(rules.players)]
    return RoomView(
        code="ABCD",
        rules=rules,
        seats=list(seats),
        you=you,
        host=host,
        phase=phase,
        sides=sides,
        game=view_game,
        deadline=deadline,
    )


#: 6-6 spinner with 6-1 east and 6-5 west: open west 5, east 1, north 6, south 6.
CROSS = Layout(line=[[5, 6], [6, 6], [6, 1]], spinner=1)


CROSS_ENDS = Ends(west=5, east=1, north=6, south=6)


#: The legal list the server sends there, with what each play makes (tests/clients/cli/test_client_results.py
#: checks these totals against the engine).
CROSS_LEGAL = [
    MoveSpec(tile="5-1", end="west", total=2),
    MoveSpec(tile="5-1", end="east", total=10, points=10),
    MoveSpec(tile="6-3", end="north", total=9),
    MoveSpec(tile="6-3", end="south", total=9),
    MoveSpec(tile="5-4", total=5, points=5),
]


def cross_view(**changes: Any) -> RoomView:
    """A position where 5-1 fits west or east, 6-3 north or south, 5-4 only west."""
    fields: dict[str, Any] = {
        "hand": ["5-1", "5-4", "6-3", "2-2"],
        "legal": CROSS_LEGAL,
        "layout": CROSS,
        "ends": CROSS_ENDS,
        "total": 12,
    }
    fields.update(changes)
    return make_view(**fields)


def state_of(view: RoomView) -> TableState:
    """A client state holding `view` as its snapshot (its history in the log)."""
    state = TableState()
    state.receive(msg.Snapshot(seq=1, state=view))
    return state


def screen(view: RoomView, width: int = 80, height: int = 24, **options: Any) -> list[str]:
    """The table as the App draws it, as plain text rows (no colour)."""
    return screen_of(state_of(view), width, height, **options)


def screen_of(state: TableState, width: int = 80, height: int = 24, **options: Any) -> list[str]:
    """The table of a client state as the App draws it, as plain text rows (no colour)."""
    body, footer = render(state, width - 1, height - 1, **options)
    # What `Console.print(row, no_wrap=True, overflow="crop")` shows of each row (its lines,
    # tabs expanded, cut to the width), without a Console: a Console recording the rows cost as
    # much as drawing them, and some tests draw thousands of tables.
    shown: list[str] = []
    for row in [*body, *footer]:
        for line in row.split(allow_blank=True):
            if "\t" in line.plain:
                line.expand_tabs(TAB_SIZE)
            line.truncate(width, overflow="crop")
            shown.append(line.plain)
    return shown


def status(rows: list[str]) -> str:
    """The status line: the last non-empty row above the prompt."""
    return next(row for row in reversed(rows[:-1]) if row.strip()).strip()
