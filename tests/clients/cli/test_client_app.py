"""The table's own behaviour against a real server: the bell on your turn (not with --quiet),
/save writing a record `allfives replay` reads, and /rematch dealing at once in `play`."""

from __future__ import annotations

import asyncio
import io
from pathlib import Path
from typing import Any

from client_helpers import (
    TIMEOUT,
    against_easy_bots,
    close_all,
    finished_between_two,
    play_to_the_end,
)
from rich.console import Console
from waiting import until

from clients.cli import local
from clients.cli.app import BELL, App
from clients.cli.connection import Connection
from clients.cli.mode import Mode
from clients.cli.render import render
from clients.cli.state import TableState, display_names
from clients.cli.status import result_rows
from clients.cli.status import status as status_line
from protocol import messages as msg
from protocol.records import check_record, decode_record
from server.app import Server

OPENING = against_easy_bots(target=15)


def terminal_app(
    connection: Connection, mode: Mode = Mode.HOST, **options: Any
) -> tuple[App, io.StringIO]:
    screen = io.StringIO()
    app = App(connection, mode, output=screen, **options)
    app.console = Console(file=screen, force_terminal=True, width=80, height=24)
    return app, screen


async def test_the_bell_rings_once_when_the_turn_comes_and_never_when_quiet(
    server: Server,
) -> None:
    for quiet in (False, True):
        connection = Connection(server.url, "Ann", TableState())
        running = asyncio.create_task(connection.run(OPENING))
        await until(connection.state.my_turn)
        app, screen = terminal_app(connection, quiet=quiet)
        app.paint()
        app.paint()
        assert screen.getvalue().count(BELL) == (0 if quiet else 1)
        await connection.close()
        await asyncio.wait_for(running, TIMEOUT)


async def test_save_writes_the_match_record_and_rematch_deals_at_once_in_play(
    server: Server,
    tmp_path: Path,
) -> None:
    connection = Connection(server.url, "Ann", TableState())
    running = asyncio.create_task(connection.run(OPENING))
    await until(lambda: connection.ready.is_set())
    app, _ = terminal_app(connection, Mode.PLAY)
    await play_to_the_end(connection, TIMEOUT * 3)
    target = tmp_path / "match.json"
    assert await app.handle(f"/save {target}")
    notice = connection.state.notice
    assert notice is not None and notice.text.startswith("Saved the match record to")
    # The command to paste, as allfives runs here (`uv run allfives` in a source checkout).
    assert notice.text.endswith(f": {local.command()} replay {target}")
    assert local.command() == "uv run allfives"
    record = decode_record(target.read_bytes())
    check_record(record)
    assert record.rules.target == 15 and record.hands
    assert await app.handle("/rematch")
    await until(lambda: (v := connection.state.view) is not None and v.phase == "playing")
    await connection.close()
    await asyncio.wait_for(running, TIMEOUT)


async def test_in_play_the_bots_wait_while_a_hands_result_is_on_screen(
    server: Server,
) -> None:
    held = server.bots_may_play

    def hold(shown: bool) -> None:
        (held.clear if shown else held.set)()

    opening = against_easy_bots(players=3, target=500)
    connection = Connection(server.url, "Ann", TableState())
    running = asyncio.create_task(connection.run(opening))
    app, _ = terminal_app(connection, Mode.PLAY, on_result=hold)
    state = connection.state

    asked: int | None = None

    async def a_hand_ended() -> bool:
        nonlocal asked
        if state.result is not None:
            return True
        game = state.game
        if state.my_turn() and game is not None and asked != state.seq:
            asked = state.seq
            move = game.legal[0]
            assert move.tile is not None
            await connection.send(msg.Play(tile=move.tile, end=move.end))
        return False

    await until(a_hand_ended, TIMEOUT, "a hand to end")
    app.paint()
    assert not held.is_set()
    game = state.game
    assert game is not None
    if game.turn == 0:  # Ann's turn in the next hand: after her move it is a bot's turn
        # (She may lead it, or the bots may have played before the result was first drawn.)
        await until(lambda: bool(state.game and state.game.legal))
        move = state.game.legal[0] if state.game else None
        assert move is not None and move.tile is not None
        await connection.send(msg.Play(tile=move.tile, end=move.end))
        # A bot's turn next: seat 1's, or seat 2's if seat 1 could neither play nor draw.
        await until(lambda: state.game is not None and state.game.turn not in (0, None))
    seq = state.seq
    assert state.game is not None and state.game.turn != 0 and held.is_set() is False
    assert await app.handle("")
    assert held.is_set() and state.result is None
    await until(lambda: state.seq != seq)
    await connection.close()
    await asyncio.wait_for(running, TIMEOUT)


async def test_after_a_rematch_the_scores_are_the_new_matchs_alone(server: Server) -> None:
    connection = Connection(server.url, "Ann", TableState())
    running = asyncio.create_task(connection.run(OPENING))
    await until(lambda: connection.ready.is_set())
    app, _ = terminal_app(connection, Mode.PLAY)
    await play_to_the_end(connection, TIMEOUT * 3)
    assert await app.handle("/rematch")
    await until(lambda: (v := connection.state.view) is not None and v.phase == "playing")
    await play_to_the_end(connection, TIMEOUT * 3)
    game = connection.state.game
    assert game is not None
    assert await app.handle("/scores")
    rows = [row.plain for row in app.extra]
    totals = next(row for row in rows if row.lstrip().startswith("total"))
    assert [int(cell) for cell in totals.split()[1:]] == game.scores
    numbers = [int(row.split()[0]) for row in rows if row.split()[0].isdigit()]
    assert numbers == list(range(1, game.hand_number + 1))
    await connection.close()
    await asyncio.wait_for(running, TIMEOUT)


async def test_a_finished_match_keeps_its_names_when_players_leave_and_offers_no_rematch(
    server: Server,
) -> None:
    host, guest, tasks = await finished_between_two(server.url)
    app, _ = terminal_app(guest, Mode.JOIN)
    await host.send(msg.Leave())
    await until(lambda: (v := guest.state.view) is not None and v.seats[0] is None)
    view = guest.state.view
    assert view is not None
    shown = "\n".join(row.plain for part in render(guest.state, 79, 23) for row in part)
    assert "(free)" not in shown
    assert "Ann" in shown and "left the table" in shown
    said = status_line(view, guest.state, None, 79).plain
    assert "wins the match" in said and "Ann" in said and "/rematch" not in said
    assert await app.handle("/scores")
    assert not any("(free)" in row.plain for row in app.extra)
    await close_all([host, guest], tasks)


async def test_after_the_match_the_prompt_offers_what_makes_sense_and_a_rematch_is_marked(
    server: Server,
) -> None:
    connection = Connection(server.url, "Ann", TableState())
    running = asyncio.create_task(connection.run(OPENING))
    await until(lambda: connection.ready.is_set())
    app, _ = terminal_app(connection, Mode.PLAY)
    app.size = (80, 24)
    await play_to_the_end(connection, TIMEOUT * 3)
    offered = "".join(text for _style, text, *_ in app._placeholder())
    assert offered == "/rematch, /scores or /quit"
    app.size = (60, 20)  # narrow: in brackets, but still what makes sense after the match
    offered = "".join(text for _style, text, *_ in app._placeholder())
    assert offered == "(/rematch, /scores or /quit)"
    app.size = (80, 24)
    assert await app.handle("/rematch")
    await until(lambda: (v := connection.state.view) is not None and v.phase == "playing")
    lines = [line.text for line in connection.state.log]
    ended = max(index for index, line in enumerate(lines) if "wins the match: Ann " in line)
    marks = [index for index, line in enumerate(lines) if "A new match" in line]
    assert len(marks) == 1 and marks[0] > ended, lines
    assert any(line.startswith("Hand 1:") for line in lines[marks[0] :]), lines
    offered = "".join(text for _style, text, *_ in app._placeholder())
    assert offered == "a tile number, a tile like 5-3, or /help"
    await connection.close()
    await asyncio.wait_for(running, TIMEOUT)


async def test_no_move_is_made_while_the_table_is_too_small_to_be_seen(server: Server) -> None:
    connection = Connection(server.url, "Ann", TableState())
    running = asyncio.create_task(connection.run(OPENING))
    await until(connection.state.my_turn)
    app, screen = terminal_app(connection)
    size = (30, 10)
    app._terminal_size = lambda: size  # type: ignore[method-assign]
    app.paint()
    assert "The terminal is too small" in screen.getvalue()
    game = connection.state.game
    assert game is not None and game.hand is not None
    tiles, seq = len(game.hand), connection.state.seq
    numbers = {tile: number for number, tile in connection.state.numbered_hand()}
    legal = next(str(numbers[m.tile]) for m in game.legal if m.tile in numbers)
    assert await app.handle(legal)
    assert connection.state.notice is not None
    assert "out of sight" in connection.state.notice.text
    assert connection.state.my_turn() and connection.state.seq == seq and app.pending is None
    # Seen again, the same line plays (or asks which end).
    size = (80, 24)
    app.paint()
    assert await app.handle(legal)
    if app.pending is None:
        await until(lambda: (g := connection.state.game) is None or len(g.hand or []) < tiles)
    notice = connection.state.notice
    assert notice is None or "out of sight" not in notice.text
    await connection.close()
    await asyncio.wait_for(running, TIMEOUT)


async def test_the_last_match_keeps_its_names_when_a_player_leaves_after_a_rematch(
    server: Server,
) -> None:
    host, guest, tasks = await finished_between_two(server.url)
    # The host asks for a rematch (the room waits again), then leaves.
    await host.send(msg.Rematch())
    await until(lambda: (v := guest.state.view) is not None and v.phase == "waiting")
    await host.send(msg.Leave())
    await until(lambda: (v := guest.state.view) is not None and v.seats[0] is None)
    view = guest.state.view
    assert view is not None
    # The room waits for another match: the last one's cards are put away (they showed the
    # leaver as "(free)" and the new match's empty scores), and its log keeps who played it.
    card = "\n".join(row.plain for row in result_rows(guest.state, view, 79))
    assert "(free)" not in card, card
    log = [line.text for line in guest.state.log]
    assert any("wins the match" in line and "Ann" in line for line in log), log
    assert not any("(free)" in line for line in log), log
    # The waiting room itself shows the seat as it is now: free.
    assert display_names(view, None)[0] == "(free)"
    assert guest.state.names()[0] == "(free)"
    await close_all([host, guest], tasks)


async def test_a_hidden_hand_judges_no_tile_and_the_input_says_why(server: Server) -> None:
    # At 30x10 the "too small" screen hides the table: a tile that fits no open end is not
    # judged against a table the player cannot see, and the input says why nothing is played.
    connection = Connection(server.url, "Ann", TableState())
    running = asyncio.create_task(connection.run(OPENING))
    await until(connection.state.my_turn)
    app, _screen = terminal_app(connection)
    size = (30, 10)
    app._terminal_size = lambda: size  # type: ignore[method-assign]
    app.paint()
    placeholder = "".join(text for _style, text, *_rest in app._placeholder())
    assert placeholder == "(too small to play)"
    assert len("› " + placeholder) <= size[0]
    game = connection.state.game
    assert game is not None and game.hand is not None
    playable = {m.tile for m in game.legal}
    numbers = {tile: number for number, tile in connection.state.numbered_hand()}
    seq = connection.state.seq
    unplayable = [str(number) for tile, number in numbers.items() if tile not in playable]
    # A tile that fits no open end (when one is held), a tile not held, an end's letter.
    for typed in [*unplayable[:1], "9-9", "w"]:
        assert await app.handle(typed)
        notice = connection.state.notice
        assert notice is not None and "out of sight" in notice.text, (typed, notice)
        assert app.pending is None and connection.state.seq == seq
    # A command still works on the small screen.
    assert await app.handle("/scores")
    assert connection.state.notice is None or "out of sight" not in connection.state.notice.text
    size = (80, 24)
    app.paint()
    placeholder = "".join(text for _style, text, *_rest in app._placeholder())
    assert placeholder == "a tile number, a tile like 5-3, or /help"
    await connection.close()
    await asyncio.wait_for(running, TIMEOUT)
