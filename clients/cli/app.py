"""The terminal: the table drawn with rich at the top of the screen, a prompt_toolkit prompt below.

The table is redrawn over itself (cursor home, each row, the rest erased) whenever the room
changes, inside `run_in_terminal` so the prompt and what the player is typing are kept intact.
What is typed goes through `commands.interpret`; what it asks for is sent on the `Connection`.
The prompt's words and placeholder are `clients.cli.prompt_words`, its keys
`clients.cli.bindings`, what `/save` and the boards (`/scores`, `/ends`, `/log`) do
`clients.cli.table_commands`, the question before quitting and the farewell
`clients.cli.leaving`, and a finished tournament table's countdown `clients.cli.linger`.
"""

from __future__ import annotations

import asyncio
import contextlib
import shutil
import sys
from collections.abc import Callable, Sequence
from typing import TextIO

from prompt_toolkit import PromptSession
from prompt_toolkit.application import run_in_terminal
from prompt_toolkit.buffer import Buffer
from prompt_toolkit.formatted_text import FormattedText
from prompt_toolkit.patch_stdout import patch_stdout
from rich.console import Console
from rich.control import Control
from rich.segment import ControlType
from rich.text import Text

from clients.cli import leaving, local, review
from clients.cli.bindings import prompt_output, table_keys
from clients.cli.commands import Ask, Board, Quit, Refuse, Save, Send, Show, interpret
from clients.cli.connection import Connection, Fatal
from clients.cli.i18n import _
from clients.cli.linger import Linger
from clients.cli.mode import Mode
from clients.cli.prompt_words import placeholder, prompt_text
from clients.cli.render import render
from clients.cli.safe import safe_text
from clients.cli.state import TableState
from clients.cli.status import idle_left, seconds_left
from clients.cli.table_commands import board_rows, save_record
from protocol import messages as msg

RESIZE_CHECK_SECONDS = 0.3
#: DEC private mode 2026: the terminal shows the frame only once it is whole (others ignore it).
SYNC_BEGIN = "\x1b[?2026h"
SYNC_END = "\x1b[?2026l"
BELL = "\a"
#: DECSC / DECRC: the cursor kept while the rows above the prompt are drawn.
SAVE_CURSOR = "\x1b7"
RESTORE_CURSOR = "\x1b8"
#: The clock on screen is redrawn every this many size checks (about a second).
CLOCK_TICKS = 3


class App:
    """The interactive table for one connection (see the module docstring)."""

    def __init__(
        self,
        connection: Connection,
        mode: Mode = Mode.JOIN,
        *,
        join_url: str | None = None,
        output: TextIO | None = None,
        quiet: bool = False,
        on_result: Callable[[bool], None] | None = None,
        leave_when: Callable[[TableState], bool] | None = None,
        linger: float = 0.0,
    ) -> None:
        self.connection = connection
        #: Where the room lives: hosted here, `play` against bots, or joined (`clients.cli.mode`).
        self.mode = mode
        #: The player asked to quit and is asked to confirm.
        self.confirming = False
        #: No bell on your turn.
        self.quiet = quiet
        self._was_my_turn = False
        self.scroll_rows = 0
        #: Told True when a result goes up and False when it is dismissed (`play` holds its bots).
        self.on_result = on_result
        self._result_shown = False
        self.state: TableState = connection.state
        self.join_url = join_url
        self.console = Console(file=output or sys.stdout, highlight=False, soft_wrap=False)
        self.pending: Ask | None = None
        self.extra: list[Text] = []
        #: Whether the last frame was the "too small" screen: no move is made on a hidden table.
        self.table_hidden = False
        self.session: PromptSession[str] | None = None
        self.size = self._terminal_size()
        self._redraw_due = False
        self._cleared = False
        self._tasks: set[asyncio.Task[None]] = set()
        #: Ctrl-C while connecting: `run` ends as Ctrl-C before the table does (KeyboardInterrupt).
        self.stopped = False
        self._leave_asked = False
        #: Lines typed (Enter) and not yet handled.
        self._lines: asyncio.Queue[str] = asyncio.Queue()
        #: Once `leave_when` holds of the table (a tournament's match over), it stays `linger`
        #: seconds (Enter: at once), then is left by itself (the tournament's screen comes back).
        self.linger = Linger(linger, self.leave, leave_when)
        connection.on_change = self._changed
        #: The address another device joins at (a /link code's command names it).
        self.state.server_url = join_url or self.state.server_url

    def _changed(self) -> None:
        """The table changed: show it, and leave it if `leave_when` says so."""
        self.request_redraw()
        if self.linger.changed(self.state):
            self.lingers()

    def lingers(self) -> None:
        """The finished table stays a while: the countdown is on the prompt's row."""

    def lingering(self) -> bool:
        """Whether the finished table counts down to leaving (Enter leaves at once)."""
        return self.linger.started

    # -- drawing ---------------------------------------------------------------------------

    @staticmethod
    def _terminal_size() -> tuple[int, int]:
        size = shutil.get_terminal_size((80, 24))
        return size.columns, size.lines

    def request_redraw(self) -> None:
        """Redraw the table soon (several changes in a row make one redraw)."""
        if self._redraw_due:
            return
        self._redraw_due = True
        task = asyncio.get_running_loop().create_task(self._redraw())
        self._tasks.add(task)
        task.add_done_callback(self._tasks.discard)

    async def _redraw(self) -> None:
        await asyncio.sleep(0)
        self._redraw_due = False
        session = self.session
        running = session is not None and session.app.is_running and not session.app.is_done
        if running and session is not None and self._around_prompt():
            # The rows above the prompt, drawn around it: the prompt (and what is being typed)
            # stays on its row, never erased and drawn again (run_in_terminal would blank it
            # between the two, where a screen read then sees no prompt).
            self.paint(keep_cursor=True)
            session.app.invalidate()  # the prompt's own words may have changed (which end?)
            return
        await run_in_terminal(self.paint)

    def _around_prompt(self) -> bool:
        """Whether the next frame can be drawn around the prompt: a terminal, the screen
        cleared once already and of the same size (else the prompt is drawn again too)."""
        return self.console.is_terminal and self._cleared and self._terminal_size() == self.size

    def paint(self, keep_cursor: bool = False) -> None:
        """Draw the table from the top of the screen; the prompt comes on the last row (with
        `keep_cursor`, the cursor is put back where the prompt had it)."""
        columns, lines = self.size = self._terminal_size()
        width = max(20, columns - 1)
        join_line = None
        table = (
            self.state.view is not None and self.state.view.tournament_table
        )  # for watching only
        if self.join_url is not None and self.state.room is not None and not table:
            join_line = (
                f"{local.command()} join {self.join_url} {self.state.room}"  # i18n: a command
            )
            if self.join_url.startswith("ws"):  # the browser table at the same address
                join_line += f"\nhttp{self.join_url[2:]}/r/{self.state.room}"  # i18n: a link
        body, footer = render(
            self.state, width, lines - 1, self.pending, join_line, self.extra, self.scroll_rows
        )
        # Only the "too small" screen has no footer: a table always has its status row.
        self.table_hidden = self.state.view is not None and not footer
        body = body[: max(0, lines - 1 - len(footer))]
        rows = [*body, *([Text()] * (lines - 1 - len(body) - len(footer))), *footer]
        console = self.console
        erase = Control((ControlType.ERASE_IN_LINE, 0))
        with console.capture() as frame:
            if not self._cleared:
                console.clear()
                self._cleared = True
            console.control(Control.home())
            for row in rows:
                console.print(safe_text(row), end="", no_wrap=True, overflow="crop", crop=True)
                console.control(erase)
                console.out("")
        # One write, inside the terminal's synchronized-update brackets: never a torn frame.
        text = frame.get()
        my_turn = self.state.my_turn()
        if my_turn and not self._was_my_turn and not self.quiet and console.is_terminal:
            text += BELL
        self._was_my_turn = my_turn
        self._tell_result()
        if keep_cursor:
            text = SAVE_CURSOR + text + RESTORE_CURSOR
        if console.is_terminal:
            text = SYNC_BEGIN + text + SYNC_END
        console.file.write(text)
        console.file.flush()

    def _tell_result(self) -> None:
        shown = self.state.result is not None or self.state.match_over
        if shown != self._result_shown:
            self._result_shown = shown
            if self.on_result is not None:
                self.on_result(shown)

    async def _watch_size(self) -> None:
        """Redraw on a resize, and every second while a clock counts down on screen."""
        ticks = 0
        while True:
            await asyncio.sleep(RESIZE_CHECK_SECONDS)
            ticks += 1
            if self._terminal_size() != self.size:
                self._cleared = False
                self.request_redraw()
            elif ticks % CLOCK_TICKS == 0 and self._clock_running():
                self.request_redraw()

    def _clock_running(self) -> bool:
        view = self.state.view
        if self.lingering():
            return True
        return view is not None and (
            seconds_left(self.state, view) is not None or idle_left(view) is not None
        )

    def scroll(self, pages: int) -> None:
        """PageUp (+1) / PageDown (-1): scroll the whole log (shown in the log's place)."""
        if not self.extra:
            self.extra = [Text(" " + line.text) for line in self.state.log]
            self.scroll_rows = 0
        page = max(1, self.size[1] // 3)
        self.scroll_rows = max(0, min(len(self.extra), self.scroll_rows + pages * page))
        self.request_redraw()

    # -- input -----------------------------------------------------------------------------

    def _prompt(self) -> str:
        return prompt_text(self)

    def _placeholder(self) -> FormattedText:
        return placeholder(self)

    def quit_asked(self) -> bool:
        """The player asked to quit (/quit, Ctrl-C, Ctrl-D): True to go now, False to ask first
        (`clients.cli.leaving`)."""
        return leaving.quit_asked(self)

    def _hand_hidden(self) -> bool:
        """Whether this player's tiles in a match being played are out of sight (the "too
        small" screen is shown instead of the table)."""
        view = self.state.view
        return (
            self.table_hidden
            and view is not None
            and view.phase == "playing"
            and view.you is not None
        )

    @staticmethod
    def _is_a_move(action: object) -> bool:
        """Whether a typed line's action plays or passes, or asks which end to play on."""
        if isinstance(action, Ask):
            return True
        moves = (msg.Play, msg.Pass)
        return isinstance(action, Send) and any(isinstance(m, moves) for m in action.messages)

    async def handle(self, line: str) -> bool:
        """Act on one typed line; False when the player leaves."""
        if self.confirming:
            return not leaving.answered(self, line)
        if self.lingering() and not line.strip():
            return False  # Enter: on to where the program goes next, without waiting
        self.extra, self.scroll_rows = [], 0
        dismissed = self.state.dismiss_result()
        self._tell_result()
        if dismissed and not line.strip():
            self.request_redraw()
            return True
        if line.strip() and self.state.notice is not None and self.state.notice.kind != "hint":
            self.state.notice = None
        if review.wanted(line):
            return await review.run(self)
        numbers = self.state.tile_numbered() if self.state.numbers else None
        action = interpret(line, self.state.view, self.pending, numbers)
        if isinstance(action, Send) and self._nameless_chat(action.messages):
            action = Refuse(self._no_name_to_chat())
        # A hidden hand is not judged either: a tile's number, a tile or an end letter typed
        # there is refused for what it is, not for a rule of a table the player cannot see.
        typed = line.strip()
        typed_a_move = self._hand_hidden() and bool(typed) and not typed.startswith("/")
        if self.table_hidden and (self._is_a_move(action) or typed_a_move):
            action = Refuse(_("The table is out of sight: make the terminal bigger to play"))
        self.pending = None
        match action:
            case Quit():
                return not self.quit_asked()
            case Send(messages=messages):
                if self.mode.deal_at_once and any(isinstance(m, msg.Rematch) for m in messages):
                    messages = (*messages, msg.Start())
                for message in messages:
                    await self.connection.send(message)
            case Ask(problem=problem):
                self.pending = action
                if problem is not None:
                    self.state.say(problem, "error")
            case Refuse(reason=reason):
                self.state.say(reason, "error")
            case Show(text=text):
                self.extra = [Text(" " + row) for row in text.splitlines()]
            case Board(what=what):
                self.extra = [Text(" " + row) for row in board_rows(self, what)]
            case Save(path=path):
                await save_record(self, path)
        self.request_redraw()
        return True

    def _nameless_chat(self, messages: Sequence[msg.ClientMessage]) -> bool:
        """A chat line from a connection that said hello without a name (a watcher with no
        --name and no key kept): the server takes no chat from it."""
        return not self.connection.name and any(isinstance(m, msg.Chat) for m in messages)

    def _no_name_to_chat(self) -> str:
        url, room = self.connection.url.rstrip("/"), self.state.room or "ROOM"
        command = f"{local.command()} watch {url} {room} --name NAME"  # i18n: a command
        return _("You watch without a name, and chat needs one: watch with {command}").format(
            command=command
        )

    async def run(self, first: Sequence[msg.ClientMessage] = (), resume: bool = False) -> int:
        """Play until the player quits (0) or the connection cannot go on (1); Ctrl-C while
        still connecting raises KeyboardInterrupt (`allfives.cli.main` says it: status 130).

        The prompt runs once for the whole session: Enter hands the line over and clears it
        without ending the prompt, so the screen never moves (a prompt that ended would step
        to a new line, scrolling the table up by one row until the next frame)."""
        self.session = PromptSession(
            output=prompt_output(),
            placeholder=self._placeholder,
            key_bindings=table_keys(self),
            wrap_lines=False,  # a long line scrolls sideways on the prompt row, never over the table
            erase_when_done=True,
        )
        # Whatever accepts the line (Enter, or a key of prompt_toolkit's own such as Alt-Enter)
        # hands it over as Enter does: only leaving ends the prompt, never a key by the way.
        self.session.default_buffer.accept_handler = self._accepted
        link = asyncio.get_running_loop().create_task(self.connection.run(first, resume))
        watcher = asyncio.get_running_loop().create_task(self._watch_size())
        reader = asyncio.get_running_loop().create_task(self._read_lines())
        link.add_done_callback(self._on_link_done)
        try:
            with patch_stdout(raw=True):
                self.request_redraw()
                if not link.done():
                    try:
                        await self.session.prompt_async(self._prompt, pre_run=self._left_early)
                    except EOFError:
                        pass
                    except KeyboardInterrupt:  # a SIGINT as the prompt took the terminal
                        self.stopped = self.state.view is None
        finally:
            self.linger.stop()
            watcher.cancel()
            reader.cancel()
            status = await self._closed(link)
        if self.stopped:
            raise KeyboardInterrupt
        self._farewell()
        return status

    async def _closed(self, link: asyncio.Task[None]) -> int:
        """Close the connection as the table is left: 1 when the link ended on a fatal error
        (said), else 0; any other failure of the link is raised."""
        await self.connection.close()
        if not link.done():
            link.cancel()
            with contextlib.suppress(asyncio.CancelledError, Fatal):
                await link
            return 0
        error = link.exception()
        if isinstance(error, Fatal):
            self.say_fatal(error)
            return 1
        if error is not None:
            raise error
        return 0

    def _buffer_text(self) -> str:
        session = self.session
        return session.default_buffer.text if session is not None else ""

    def _accepted(self, buffer: Buffer) -> bool:
        """The line accepted by prompt_toolkit: handled as typed; False: the buffer is emptied."""
        self._lines.put_nowait(buffer.text)
        return False

    def typed(self, buffer: Buffer) -> None:
        """Enter: the line goes to be handled (in order), the prompt row is emptied in place."""
        line = buffer.text
        buffer.reset(append_to_history=bool(line.strip()))
        self._lines.put_nowait(line)

    async def _read_lines(self) -> None:
        """Handle the typed lines one after the other; leave when one says so."""
        while True:
            line = await self._lines.get()
            if not await self.handle(line):
                self.leave()
                return

    def interrupted(self, buffer: Buffer) -> None:
        """Ctrl-C: cancel what is being typed, or the question asked; else ask to leave."""
        if buffer.text:
            buffer.reset()
            return
        if self.pending is not None:
            self.state.say(_("{tile} not played").format(tile=self.pending.tile))
            self.pending = None
            self.request_redraw()
            return
        if self.confirming:  # Ctrl-C again at "are you sure?": yes
            self.leave()
            return
        if self.state.view is None:  # still connecting: stopped, as Ctrl-C before the table
            self.stopped = True
            self.leave()
            return
        self.leave_asked()

    def leave_asked(self) -> None:
        """Ctrl-D (or Ctrl-C): leave now, or ask first when leaving ends a match."""
        if self.quit_asked():
            self.leave()

    def leave(self) -> None:
        """End the prompt: `run` then closes the connection and says goodbye."""
        session = self.session
        if session is not None and session.app.is_running and not session.app.is_done:
            session.app.exit()
        else:
            self._leave_asked = True  # before the prompt runs: it ends as soon as it starts

    def _left_early(self) -> None:
        """The prompt starts: end it at once if leaving was asked before it ran."""
        if self._leave_asked and self.session is not None:
            with contextlib.suppress(Exception):  # it ended meanwhile
                self.session.app.exit()

    def redraw_all(self) -> None:
        """Ctrl-L: the whole screen drawn afresh, the table and the prompt (each row of the
        frame is written whole and erased to its end, so whatever was there goes)."""
        self._cleared = False  # the prompt's row too: something may have written over it
        self.request_redraw()

    def say_fatal(self, error: Fatal) -> None:
        """Why the table ended (a server's words made visible), below the table."""
        # One line, however long (the terminal folds it; nothing is cut or split).
        self.console.print(safe_text(Text(f"allfives: {error}", style="bold red")), soft_wrap=True)

    def _on_link_done(self, task: asyncio.Task[None]) -> None:
        """The connection ended by itself: stop the prompt so `run` can report why."""
        self.leave()

    def _farewell(self) -> None:
        """The line said as the table is left (`clients.cli.leaving`)."""
        leaving.farewell(self)
