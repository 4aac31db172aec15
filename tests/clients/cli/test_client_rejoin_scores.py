"""A window that comes back to a match it did not see from its first hand: its scoreboard is
the server's (the room's scores while the match is played, the finished match's record once it
is over), never the hands this window happened to see."""

from __future__ import annotations

import asyncio
import io
import re

from client_helpers import TIMEOUT, embedded_config
from engine_helpers import RULES as ANY_RULES
from engine_helpers import finished_match
from hypothesis import given, settings
from hypothesis import strategies as st
from waiting import until

from bridge.records import record_of
from clients.cli.connection import Connection
from clients.cli.mode import Mode
from clients.cli.plain import PlainApp
from clients.cli.scoreboard import Scoreboard
from clients.cli.state import TableState, display_names
from clients.cli.status import result_rows
from engine import Rules as EngineRules
from protocol import messages as msg
from protocol.rules import RoomRules
from server.app import run_server

#: A hand of the plain scoreboard: "Hand 2: Kai 20, Bot 2 50; Bot 2 went out." (the log's
#: "Hand 3: Bot 2 leads" is not one).
SCOREBOARD_LINE = re.compile(r"Hand (\d+): .*; ")
#: Enough points for several hands between an easy bot and the stand-in.
RULES = RoomRules(players=2, target=100, public=False)
#: Long enough to come back in the middle of it.
LONG = RoomRules(players=2, target=250, public=False)


async def comes_back(url: str, left: TableState) -> Connection:
    """Kai's seat taken back by its token, as `allfives join` does, in a new window."""
    state = TableState()
    state.room, state.seat, state.token = left.room, left.seat, left.token
    return Connection(url, "Kai", state)


async def left_to_a_stand_in(url: str) -> tuple[TableState, Connection, asyncio.Task[None]]:
    """Kai starts a match to 250 against a bot and leaves (away: a stand-in plays his turns)
    while someone watches: Kai's state as he left it, and the watcher with its task."""
    kai = Connection(url, "Kai", TableState())
    # To 250: a match to 100 can end in its first hand (a random deal), and then there is no
    # other hand to show.
    running = asyncio.create_task(kai.run([msg.CreateRoom(rules=LONG), msg.AddBot()]))
    await until(lambda: (v := kai.state.view) is not None and all(v.seats))
    await kai.send(msg.Start())
    await until(lambda: kai.state.game is not None)
    room = kai.state.room
    assert room is not None
    # Someone watches (a room nobody is in waits): the match goes on without Kai.
    watcher = Connection(url, "", TableState())
    watching = asyncio.create_task(watcher.run([msg.Spectate(room=room)]))
    await until(lambda: watcher.state.view is not None)
    left = kai.state
    await kai.close()
    await asyncio.wait_for(running, TIMEOUT)
    return left, watcher, watching


def _told_every_hand(transcript: str, hands: list[int]) -> list[str] | None:
    """The transcript's lines once it has said each of `hands` in order, after the match's end."""
    lines = transcript.splitlines()
    told = [int(found.group(1)) for line in lines if (found := SCOREBOARD_LINE.match(line))]
    return lines if told == hands else None


async def test_a_rejoin_after_a_stand_in_finished_the_match_shows_every_hand_of_it() -> None:
    async with run_server(embedded_config(away_seconds=0.01)) as server:
        left, watcher, watching = await left_to_a_stand_in(server.url)
        await until(
            lambda: (v := watcher.state.view) is not None and v.phase == "finished", TIMEOUT * 3
        )
        again = await comes_back(server.url, left)
        transcript = io.StringIO()
        PlainApp(again, Mode.JOIN, output=transcript)  # the screen reader's window, told as lines
        back = asyncio.create_task(again.run(resume=True))
        state = again.state
        await until(lambda: (v := state.view) is not None and v.phase == "finished")
        await until(lambda: [line.number for line in state.scoreboard.hands][:1] == [1], 5.0)
        view, game = state.view, state.game
        assert view is not None and game is not None
        hands = [line.number for line in state.scoreboard.hands]
        assert game.hand_number > 1, "the match ended in its first hand"
        assert hands == list(range(1, game.hand_number + 1))
        names = display_names(view, state.played_names)
        rows = state.scoreboard.rows(names, view.rules, game.scores)
        text = "\n".join(rows)
        assert "not seen" not in text and "earlier hands" not in text, text
        total = next(row for row in rows if row.startswith("total"))
        assert total.split()[1:] == [str(score) for score in game.scores], text
        # The same board at the end of the drawn table's match summary (the hands and totals
        # agree with the result line above them).
        state.match_over = True
        shown = " ".join(" ".join(row.plain for row in result_rows(state, view, 80)).split())
        assert " ".join(total.split()) in shown and "earlier hands" not in shown, shown
        # Plain mode tells the match's end once, then every hand from the first, as one
        # sentence each, and no "hands 1 to N" from the scores.
        lines = await until(lambda: _told_every_hand(transcript.getvalue(), hands))
        assert lines.count("The match is over.") == 1, lines
        assert not any("as the server counts them" in line for line in lines), lines
        for connection, task in ((again, back), (watcher, watching)):
            await connection.close()
            await asyncio.wait_for(task, TIMEOUT)


async def test_a_rejoin_mid_match_totals_the_rooms_scores_then_the_record_fills_the_hands() -> None:
    config = embedded_config(away_seconds=0.01, idle_seconds=0.01, bot_delay=0.01)
    async with run_server(config) as server:
        left, watcher, watching = await left_to_a_stand_in(server.url)
        await until(lambda: (g := watcher.state.game) is not None and g.hand_number >= 2)
        again = await comes_back(server.url, left)
        back = asyncio.create_task(again.run(resume=True))
        state = again.state
        await until(lambda: state.view is not None)
        view, game = state.view, state.game
        assert view is not None and game is not None
        # Hand 2 or later of a match to 250: still being played. The hands before the one this
        # window sees are a row of the room's scores, and the total is the room's.
        assert view.phase == "playing"
        rows = state.scoreboard.rows(display_names(view), view.rules, game.scores)
        before = "1" if game.hand_number == 2 else f"1–{game.hand_number - 1}"
        assert rows[1].split()[0] == before, rows
        total = next(row for row in rows if row.startswith("total"))
        assert total.split()[1:] == [str(score) for score in game.scores], rows
        assert not any("not seen" in row for row in rows), rows
        # Turns wait for nobody (a stand-in plays them): the match ends with Kai back.
        await until(lambda: (v := state.view) is not None and v.phase == "finished", TIMEOUT * 3)
        await until(lambda: [line.number for line in state.scoreboard.hands][:1] == [1], 5.0)
        game = state.game
        assert game is not None
        hands = [line.number for line in state.scoreboard.hands]
        assert hands == list(range(1, game.hand_number + 1))
        points = [sum(line.points[side] for line in state.scoreboard.hands) for side in (0, 1)]
        assert points == game.scores
        for connection, task in ((again, back), (watcher, watching)):
            await connection.close()
            await asyncio.wait_for(task, TIMEOUT)


@settings(max_examples=30, deadline=None)
@given(rules=ANY_RULES, seed=st.integers(0, 10**6))
def test_a_scoreboard_from_a_record_totals_the_records_scores_hand_by_hand(
    rules: EngineRules, seed: int
) -> None:
    match = finished_match(rules, seed)
    record = record_of(match, [f"P{seat}" for seat in range(match.players)])
    played = record.rules
    sides = [seat % 2 if played.partnership else seat for seat in range(played.players)]
    board = Scoreboard.of_record(record, sides)
    assert [line.number for line in board.hands] == list(range(1, len(record.hands) + 1))
    for line, hand in zip(board.hands, record.hands, strict=True):
        scored = [0] * played.sides
        for move in hand.moves:
            scored[sides[move.seat]] += move.points or 0
        assert hand.result is not None
        assert line.points == [a + b for a, b in zip(scored, hand.result.points, strict=True)]
    assert record.scores is not None
    names = [f"P{seat}" for seat in range(played.players)]
    rows = board.rows(names, played, record.scores)
    assert rows == board.rows(names, played)  # nothing left for a row of earlier hands
    total = next(row for row in rows if row.startswith("total"))
    assert total.split()[1:] == [str(score) for score in record.scores]
