"""Shared helpers for the terminal client's tests: room views on paper, an embedded server."""

from __future__ import annotations

import asyncio
import contextlib
import io
import os
import re
import shlex
import shutil
import subprocess
import sys
import uuid
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import pytest
from server_helpers import fast_config
from waiting import until, until_sync
from websockets.asyncio.client import ClientConnection, connect

from clients.cli.connection import Connection
from clients.cli.render import render
from clients.cli.state import TableState
from protocol import messages as msg
from protocol.rules import RoomRules
from protocol.views import Ends, GameView, Layout, MoveSpec, Phase, RoomView, SeatInfo
from server.app import Config

TIMEOUT = 20.0
#: A Console's tab stops.
TAB_SIZE = 8
ROOT = Path(__file__).resolve().parent.parent


def embedded_config(**changes: Any) -> Config:
    """An embedded server: the test server's settings, on the loopback address."""
    return fast_config(**{"host": "127.0.0.1", **changes})


async def send(socket: ClientConnection, message: msg.ClientMessage) -> None:
    await socket.send(msg.encode(message).decode())


async def receive(socket: ClientConnection) -> msg.AnyServerMessage:
    return msg.decode_server(await asyncio.wait_for(socket.recv(), TIMEOUT))


async def host_room(url: str, players: int = 3) -> tuple[ClientConnection, str]:
    """A waiting public room opened by a scripted host ("Bob" at seat 0)."""
    socket = await connect(url)
    await send(socket, msg.Hello(version=msg.PROTOCOL_VERSION, name="Bob"))
    await send(socket, msg.CreateRoom(rules=RoomRules(players=players), seat=0))
    while not isinstance(joined := await receive(socket), msg.Joined):
        pass
    return socket, joined.room


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
    )


async def play_to_the_end(connection: Connection, timeout: float) -> None:
    """Play the first legal move whenever it is this seat's turn, until the match is over."""
    state = connection.state
    asked: int | None = None

    async def over() -> bool:
        nonlocal asked
        if (view := state.view) is not None and view.phase == "finished":
            return True
        game = state.game
        if state.my_turn() and game is not None and asked != state.seq:
            asked = state.seq
            move = game.legal[0]
            if move.pass_ or move.tile is None:
                await connection.send(msg.Pass())
            else:
                await connection.send(msg.Play(tile=move.tile, end=move.end))
        return False

    await until(over, timeout, "the match to end")


def against_easy_bots(
    players: int = 2, seat: int | None = None, **rules: Any
) -> list[msg.ClientMessage]:
    """The first messages of a match against easy bots: a room (private unless `rules` say
    otherwise) whose other seats are bots, and its start."""
    rules.setdefault("public", False)
    return [
        msg.CreateRoom(rules=RoomRules(players=players, **rules), seat=seat),
        *[msg.AddBot(level="easy") for _ in range(players - 1)],
        msg.Start(),
    ]


async def play_first_legal(
    connection: Connection, state: TableState, answered: int | None
) -> int | None:
    """On this client's turn, if its `seq` is not `answered` yet, send the first legal move;
    the `seq` answered last (this one once its move is sent)."""
    view = state.view
    game = view.game if view is not None else None
    seq = state.seq
    if not state.my_turn() or game is None or seq == answered:
        return answered
    spec = game.legal[0]
    assert spec.pass_ or spec.tile is not None
    await connection.send(
        msg.Pass() if spec.tile is None else msg.Play(tile=spec.tile, end=spec.end)
    )
    return seq


async def finished_between_two(url: str) -> tuple[Connection, Connection, list[asyncio.Task[None]]]:
    """Ann hosts a private room of two to 15 points, Bořek joins, and both play it to the end:
    the two connections and their running tasks (`close_all` ends them)."""
    rules = RoomRules(players=2, target=15, public=False)
    host = Connection(url, "Ann", TableState())
    hosting = asyncio.create_task(host.run([msg.CreateRoom(rules=rules)]))
    room = await until(lambda: host.state.room)
    guest = Connection(url, "Bořek", TableState())
    joining = asyncio.create_task(guest.run([msg.Join(room=room)]))
    await until(lambda: (v := host.state.view) is not None and all(v.seats))
    await host.send(msg.Start())
    await asyncio.gather(play_to_the_end(host, TIMEOUT * 3), play_to_the_end(guest, TIMEOUT * 3))
    return host, guest, [hosting, joining]


async def close_all(connections: Sequence[Connection], tasks: Sequence[asyncio.Task[None]]) -> None:
    """Close each connection and wait for its task to end."""
    for connection in connections:
        await connection.close()
    await asyncio.gather(*(asyncio.wait_for(task, TIMEOUT) for task in tasks))


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


#: Tests that drive the terminal in tmux: skipped where tmux is missing, but not in CI, where
#: `.ci/run` installs it (a missing tmux fails them there).
NEEDS_TMUX = pytest.mark.skipif(
    shutil.which("tmux") is None and os.environ.get("CI") != "true",
    reason="tmux is not installed",
)


#: The environment of `allfives` in a test's terminal: bots that play at once, this checkout's
#: code.
QUICK_ENV = {"ALLFIVES_BOT_DELAY": "0.05", "TERM": "xterm-256color", "PYTHONPATH": str(ROOT)}


class Terminal:
    """A tmux server of our own (its own socket) with windows of one size running commands."""

    def __init__(self, width: int = 80, height: int = 24) -> None:
        self.socket = f"allfives-test-{uuid.uuid4().hex[:10]}"
        self.started = False
        self.width, self.height = width, height

    def tmux(self, *args: str) -> str:
        done = subprocess.run(
            ["tmux", "-L", self.socket, "-f", "/dev/null", *args],
            capture_output=True,
            text=True,
            check=True,
        )
        return done.stdout

    def start(self, command: list[str], env: dict[str, str], window: str = "t") -> None:
        """Run a command in a new window (the first one creates the tmux server)."""
        assigned = [f"{key}={value}" for key, value in env.items()]
        line = f"cd {shlex.quote(str(ROOT))} && env {shlex.join(assigned + command)}"
        line += "; echo EXITED $?; sleep 600"
        if not self.started:
            size = ["-x", str(self.width), "-y", str(self.height)]
            self.tmux("new-session", "-d", "-s", "e2e", "-n", window, *size, line)
            self.started = True
        else:
            self.tmux("new-window", "-d", "-t", "e2e", "-n", window, line)

    def start_allfives(self, args: Sequence[str], config: Path, window: str = "t") -> None:
        """`allfives ARGS` in a new window (`QUICK_ENV`), its settings under `config`."""
        env = {**QUICK_ENV, "XDG_CONFIG_HOME": str(config)}
        self.start([sys.executable, "-m", "allfives.cli", *args], env, window)

    def screen(self, window: str = "t") -> list[str]:
        """What the window shows, once two looks in a row agree (never a half-drawn table)."""
        target = f"e2e:{window}"
        seen: list[str | None] = [None]

        def settled() -> tuple[str] | None:
            again = self.tmux("capture-pane", "-p", "-t", target)
            if again == seen[0]:
                return (again,)
            seen[0] = again
            return None

        (shown,) = until_sync(settled, TIMEOUT, "the screen to stay the same", every=0.03)
        return shown.splitlines()

    def type(self, text: str, window: str = "t") -> None:
        """Type `text` and press Enter."""
        self.tmux("send-keys", "-t", f"e2e:{window}", "-l", text)
        self.tmux("send-keys", "-t", f"e2e:{window}", "Enter")

    def keys(self, *keys: str, window: str = "t") -> None:
        """Press keys by tmux's names (C-l, C-u, Enter...); `-l TEXT` types TEXT as it is."""
        self.tmux("send-keys", "-t", f"e2e:{window}", *keys)

    def scribble(self, text: str, window: str = "t") -> None:
        """Write to the window's terminal from outside the program (as another program might)."""
        tty = self.tmux("display-message", "-p", "-t", f"e2e:{window}", "#{pane_tty}").strip()
        with open(tty, "w") as device:
            device.write(text)

    def scrolled(self, window: str = "t") -> int:
        """Rows that have scrolled off the top of the window since it opened (tmux's history):
        a table redrawn in place never adds any."""
        return int(self.tmux("display-message", "-p", "-t", f"e2e:{window}", "#{history_size}"))

    def wait_for(self, pattern: str, timeout: float = 20.0, window: str = "t") -> list[str]:
        """The screen, once `pattern` is on it (else an AssertionError showing the screen)."""
        rows: list[str] = []

        def shown() -> list[str] | None:
            rows[:] = self.screen(window)
            return rows if re.search(pattern, "\n".join(rows)) else None

        try:
            return until_sync(shown, timeout, f"{pattern!r} on the screen")
        except AssertionError:
            raise AssertionError(f"no {pattern!r} on the screen:\n" + "\n".join(rows)) from None

    def changed(
        self, before: list[str] | None, timeout: float = 20.0, window: str = "t"
    ) -> list[str]:
        """The screen, once it is not `before` (else an AssertionError showing the screen)."""
        rows: list[str] = []

        def other() -> list[str] | None:
            rows[:] = self.screen(window)
            return rows if rows != before else None

        try:
            return until_sync(other, max(timeout, 0.0), "the screen to change")
        except AssertionError:
            raise AssertionError("the screen stayed:\n" + "\n".join(rows)) from None

    def close(self) -> None:
        subprocess.run(["tmux", "-L", self.socket, "kill-server"], capture_output=True)


def run_allfives(
    *args: str, config: Path | None = None, columns: int = 80
) -> subprocess.CompletedProcess[str]:
    """`allfives ARGS` run in this process, as a program with no terminal attached would run
    (stdin empty, output captured, `COLUMNS` wide, its config under `config` if given): its
    status, stdout and stderr. For what a command says; a test of the process itself (a
    pseudo-terminal, a signal, its start) starts one. The language a `--lang` chose is
    English again afterwards."""
    from allfives import cli
    from clients.cli import i18n

    out, err = io.StringIO(), io.StringIO()
    changed = {"COLUMNS": str(columns)}
    if config is not None:
        changed["XDG_CONFIG_HOME"] = str(config)
    before = {name: os.environ.get(name) for name in changed}
    os.environ.update(changed)
    stdin, sys.stdin = sys.stdin, io.StringIO()
    try:
        with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
            try:
                status = cli.main(list(args))
            except SystemExit as leaving:
                code = leaving.code
                status = code if isinstance(code, int) else 0 if code is None else 1
                if isinstance(code, str):
                    print(code, file=err)
    finally:
        sys.stdin = stdin
        for name, value in before.items():
            if value is None:
                os.environ.pop(name, None)
            else:
                os.environ[name] = value
        i18n.set_language("en")
    return subprocess.CompletedProcess(["allfives", *args], status, out.getvalue(), err.getvalue())


#: Box drawing and block elements (U+2500 to U+259F): what a drawn table is made of.
BOX_DRAWING = re.compile("[\u2500-\u259f]")


def spawn_plain(
    args: Sequence[str], env: dict[str, str], width: int = 80, height: int = 24
) -> tuple[Any, io.StringIO]:
    """`allfives ARGS` in a pseudo-terminal of its own (pexpect), and everything it writes
    there, as a screen reader would be given it."""
    import pexpect  # type: ignore[import-untyped]

    child = pexpect.spawn(
        sys.executable,
        ["-m", "allfives.cli", *args],
        cwd=str(ROOT),
        env={**os.environ, "PYTHONPATH": str(ROOT), **env},
        dimensions=(height, width),
        encoding="utf-8",
        codec_errors="replace",
        timeout=TIMEOUT,
    )
    written = io.StringIO()
    child.logfile_read = written
    return child, written


#: A CSI sequence (its parameters and final letter) or a two-byte escape.
TERMINAL_CODE = re.compile(r"\x1b\[([0-?]*)[ -/]*([@-~])|\x1b.")


def written_lines(output: str) -> list[str]:
    """The non-blank lines a reader finds in what a program wrote to a terminal, each line
    as the cursor left it: `\\r` and cursor moves left or right write over what was there,
    erasing to the end of the line or screen removes it, other codes show nothing."""
    lines: list[str] = []
    row: list[str] = []
    column = 0
    position = 0
    for code in TERMINAL_CODE.finditer(output + "\x1b[0m"):
        for char in output[position : code.start()]:
            if char == "\n":
                lines.append("".join(row))
                row, column = [], 0
            elif char == "\r":
                column = 0
            elif char.isprintable():
                row[column : column + 1] = [char]
                column += 1
        position = code.end()
        final, parameters = code.group(2), code.group(1) or ""
        count = int(parameters) if parameters.isdigit() else 1
        if final == "D":
            column = max(0, column - count)
        elif final == "C":
            row.extend(" " * max(0, column + count - len(row)))
            column += count
        elif final in ("K", "J") and parameters in ("", "0"):
            del row[column:]
    lines.append("".join(row))
    return [line.rstrip() for line in lines if line.strip()]


async def played_tournament(
    server: Any,
    code: str,
    people: Sequence[str],
    bots: Sequence[str] = (),
    finished_rounds: int = 1,
    name: str = "Friday cup",
    format: str = "round_robin",
) -> None:
    """A round robin (or another `format`) at tables of two stored on `server` as `code` (the
    pure core's own commands: made, entered by `people` and `bots`, started), with the tables
    of its first `finished_rounds` rounds played: the first seat wins each by 100 to a score
    that grows."""
    from server.desk.kept import Kept, encode
    from server.tournaments import state

    host = "host-player"
    tournament = state.apply(
        None,
        state.Create(
            name=name,
            format=format,  # type: ignore[arg-type]
            table_size=2,
            rules=RoomRules(players=2),
            host=host,
        ),
    )
    for index, person in enumerate(people):
        tournament = state.apply(tournament, state.Join(by=f"player-{index}", name=person))
    for level in bots:
        tournament = state.apply(tournament, state.Join(by=host, bot=level))  # type: ignore[arg-type]
    tournament = state.apply(tournament, state.Start(by=host))
    rooms = iter(f"R{number:03d}" for number in range(1000))
    for round_index in range(finished_rounds):
        played = tournament.rounds[round_index]
        for table_index, table in enumerate(played.tables):
            opened = state.TableOpened(round=round_index, table=table_index, room=next(rooms))
            tournament = state.apply(tournament, opened)
            scores = [100, 40 + 5 * table_index][: len(table.seats)]
            done = state.TableFinished(round=round_index, table=table_index, scores=scores)
            tournament = state.apply(tournament, done)
    kept = Kept(tournament=tournament, host_name=people[0] if people else "Host")
    await server.store.tournaments.save(code, 1, encode(kept))


async def bots_tournament_with_games(url: str, bots: int = 3) -> Any:
    """A round robin of `bots` bots at tables of two (to 50) made by a player on the server at
    `url`, played out by its bots: its public view (`TournamentView`) once it is finished and
    every table names its archived game."""
    from server_helpers import api_get
    from tournament_helpers import bots_tournament_started

    from protocol import api
    from protocol.tournaments import TournamentView

    started = await bots_tournament_started(url, bots, target=50)

    async def played() -> TournamentView | None:
        answer = await api_get(url, f"/api/tournaments/{started.tournament}")
        view = api.decode_answer(answer.body, TournamentView)
        tables = [table for played in view.rounds for table in played.tables]
        done = view.phase == "finished" and all(table.game for table in tables)
        return view if done else None

    return await until(played, 120, "the bots' tournament played, every game noted", every=0.2)


def keep_player_key(config: Path, url: str, name: str, key: str | None = None) -> None:
    """A key for `name` on the server at `url` (a fresh one unless given), kept as the terminal
    client keeps it under the config folder `config` (`clients.cli.keys`): that player is the
    one this device plays as."""
    import base64
    import json
    import secrets

    key = key or base64.urlsafe_b64encode(secrets.token_bytes(32)).rstrip(b"=").decode()
    folder = config / "allfives"
    folder.mkdir(parents=True, exist_ok=True)
    (folder / "keys.json").write_text(json.dumps({url: {"keys": {name: key}, "last": name}}))
