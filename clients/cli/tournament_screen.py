"""The tournament's screen: the lobby (entrants), then each round's tables and the standings,
until the tournament is finished (the final standings and the champion: status 0).

When a round gives you a table (the `tournament` message's `table`), the screen steps aside and
the table `allfives join` uses takes the terminal (`join.plan`, `plain.table`: the same code),
joined to that room, where the server keeps your seat; once the match is over the finished
table stays in sight a while (`clients.cli.linger`: a countdown, Enter goes at once) and this
screen comes back with the standings and the next round. Drawn, the screen is redrawn from the
top at every change, a prompt below; `--plain`, it is told whole once and then only what changed
(`clients.cli.tournament_news`). Typed here: `/start` (the host), `/standings` or Enter (the
whole again), `/help`, `/quit`.
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import shutil
import sys
from typing import TextIO

from prompt_toolkit import PromptSession
from prompt_toolkit.application import run_in_terminal
from rich.console import Console
from rich.text import Text

from clients.cli import join, local, plain, plain_input
from clients.cli.bindings import prompt_output
from clients.cli.fold import fold_keeping
from clients.cli.i18n import _
from clients.cli.keys import KeyStore
from clients.cli.linger import linger_seconds
from clients.cli.mode import Mode
from clients.cli.safe import safe_text, visible
from clients.cli.state import TableState
from clients.cli.tournament_link import TournamentLink
from clients.cli.tournament_news import news
from clients.cli.tournament_words import rendered, tournament_rows, where_you_are
from protocol import messages as msg
from protocol.tournaments import StartTournament, TournamentUpdate, TournamentView

#: Seconds the drawn screen shows the standings and pairings before moving to the table (plain
#: lines stay where they were said).
TABLE_PAUSE = 3.0
#: Plain lines are never folded (a screen reader reads each whole).
PLAIN_WIDTH = 1000
#: Put in the lines' queue when the prompt steps aside for a table (no typed line is a NUL).
ASIDE = "\x00"


def match_over(state: TableState) -> bool:
    """Whether the table's match is over: the table is left for the tournament's screen."""
    view = state.view
    return view is not None and view.phase == "finished"


def table_to_play(update: TournamentUpdate | None, played: set[str]) -> str | None:
    """The room of your table in the round being played, unless its match is over or was
    played here already."""
    if update is None or update.table is None or update.table in played:
        return None
    if update.state.phase != "playing":
        return None
    for round_ in update.state.rounds[-1:]:
        for table in round_.tables:
            if table.room == update.table and table.scores is not None:
                return None
    return update.table


class TournamentScreen:
    """See the module docstring."""

    def __init__(
        self,
        link: TournamentLink,
        args: argparse.Namespace,
        keys: KeyStore,
        output: TextIO | None = None,
    ) -> None:
        self.link = link
        self.args = args
        self.keys = keys
        self.plain = plain.wanted(args)
        self.console = Console(file=output or sys.stdout, highlight=False, soft_wrap=True)
        self.changed = asyncio.Event()
        self.lines: asyncio.Queue[str | None] = asyncio.Queue()
        #: The rooms whose match was played from here.
        self.played: set[str] = set()
        self._told: tuple[object, ...] | None = None
        #: Plain lines: the tournament as last told (then only what changed is said), the
        #: hints last said, and whether the whole is asked for again (/standings, Enter).
        self._told_view: TournamentView | None = None
        self._told_hints: list[str] = []
        self._whole = True
        self._notice: str | None = None
        self._session: PromptSession[str] | None = None
        self._prompting: asyncio.Task[None] | None = None
        self._painting: asyncio.Future[None] | None = None

    # -- the loop --------------------------------------------------------------------------

    async def run(self, first: list[msg.ClientMessage]) -> int:
        """Follow the tournament to its end (0), until /quit (0), or until the link fails (1)."""
        self.link.on_change = self.changed.set
        link = asyncio.get_running_loop().create_task(self.link.run(first))
        try:
            self._listen()
            return await self._follow(link)
        finally:
            await self._stop_listening()
            await self.link.close()
            if not link.done():
                link.cancel()
            with contextlib.suppress(asyncio.CancelledError):
                await link

    async def _follow(self, link: asyncio.Task[None]) -> int:
        while True:
            typed = asyncio.get_running_loop().create_task(self.lines.get())
            changed = asyncio.get_running_loop().create_task(self.changed.wait())
            await asyncio.wait({typed, changed, link}, return_when=asyncio.FIRST_COMPLETED)
            changed.cancel()
            line: str | None = ASIDE
            if typed.done():
                line = typed.result()
            else:
                typed.cancel()
            self.changed.clear()
            if self.link.fatal is not None:
                return await self._end(
                    1, f"allfives tournament: {self.link.fatal}"
                )  # i18n: a command
            update = self.link.update
            room = table_to_play(update, self.played)
            if room is not None:
                self.show()  # the standings and the pairings first, then to the table
                if not self.plain:
                    await asyncio.sleep(TABLE_PAUSE)
                status = await self._play(room)
                if status is not None:
                    return status
                continue
            if update is not None and update.state.phase == "finished":
                await self._stop_listening()
                self.show(force=True)
                return 0
            if link.done():
                return await self._end(0)
            if line is None or (line != ASIDE and not await self._typed(line)):
                return await self._end(0, self._come_back(), self._join_again())
            self.show()

    async def _end(self, status: int, said: str | None = None, command: str = "") -> int:
        """The prompt gone, a last line said (`command` in it kept whole): `status`."""
        await self._stop_listening()
        if said is not None:
            self.say(said, command)
        return status

    async def _typed(self, line: str) -> bool:
        """A line typed on this screen; False to leave."""
        word = line.strip().lower()
        if word in ("/quit", "/q", "/exit"):  # i18n: a command
            return False
        if word in ("", "/standings", "/s"):  # i18n: a command
            self._whole = True
        if word == "/start":  # i18n: a command
            if self.link.code is not None:
                self.link.typed = True
                await self.link.send(StartTournament(tournament=self.link.code))
        elif word in ("/help", "/h", "/?"):  # i18n: a command
            self._notice = _(
                "/start starts the tournament (its host); /standings (or Enter) shows it all "
                "again; /quit leaves this screen (you stay entered: come back with the same "
                "command)"
            )
        elif word:
            self._notice = _("{typed} is no command here: /start, /help or /quit").format(
                typed=repr(visible(line.strip()[:24]))
            )
        self._told = None
        return True

    async def _play(self, room: str) -> int | None:
        """Step aside for the table of `room` until its match is over (None: back to the
        tournament), or the player left it (the status to end with)."""
        await self._stop_listening()
        update = self.link.update
        number = len(update.state.rounds) if update is not None else 0
        self.say(_("Round {number}: to your table, room {room}").format(number=number, room=room))
        connection, first, resume = join.plan(
            self.link.url, room, self.link.player or self.link.name, keys=self.keys
        )
        # Leaving the table mid-match, the way back is the tournament's, not the room's own.
        connection.back_with = self._join_again()
        table = plain.table(self.args)(
            connection,
            Mode.JOIN,
            quiet=getattr(self.args, "quiet", False),
            leave_when=match_over,
            linger=linger_seconds(),
        )
        status = await table.run(first, resume=resume)
        self.played.add(room)
        if not match_over(connection.state):
            # Left during the match (a bot plays the seat), or the link failed.
            await self._stop_listening()
            self.say(self._come_back(), self._join_again())
            return status
        self._told = None
        self._listen()
        self.changed.set()
        return None

    # -- output ----------------------------------------------------------------------------

    def show(self, force: bool = False) -> None:
        """The tournament again if anything shown changed (`force`: whatever)."""
        update = self.link.update
        notice = self.link.notice or self._notice
        key = (None if update is None else update.state.version, notice, self._size())
        if key == self._told and not force:
            return
        self._told = key
        self.link.notice, self._notice = None, None
        if update is None:
            return
        columns, lines = self._size()
        width = PLAIN_WIDTH if self.plain else columns - 1
        said = self.hints(update) + ([notice] if notice else [])
        apart = [] if where_you_are(update.state, update.you) is not None else [Text("")]
        below = [*apart, *rendered(said, width)]
        state, you, code = update.state, update.you, update.tournament
        rows = tournament_rows(state, width, you, plain=self.plain, code=code)
        for last in (2, 1):  # too tall: the last rounds only, the others counted
            if not self.plain and len(rows) + len(below) > lines - 1:
                rows = tournament_rows(
                    state, width, you, last_rounds=last, code=code, show_all=self._show_all()
                )
        rows += below
        if self.plain:
            self._tell(update, said, rows)
            return
        shown = rows[-(lines - 1) :] if len(rows) > lines - 1 else rows
        self._draw(shown)

    def _tell(self, update: TournamentUpdate, below: list[str], rows: list[Text]) -> None:
        """Plain lines: the whole the first time, in the lobby and when asked, else only what
        changed (and the hints when they change)."""
        before, self._told_view = self._told_view, update.state
        if before is None or self._whole or update.state.phase == "open":  # a lobby is short
            self._whole = False
            for row in rows:
                self.say(row.plain)
            self._told_hints = self.hints(update)
            return
        for line in news(before, update.state, update.you, PLAIN_WIDTH):
            self.say(line)
        hints = self.hints(update)
        fresh = [line for line in below if line not in self._told_hints]
        self._told_hints = hints
        for line in fresh:
            self.say(line)

    def hints(self, update: TournamentUpdate) -> list[str]:
        """What to do now: how friends enter, how to start, or what is awaited."""
        view, code = update.state, update.tournament
        url = self.link.url.rstrip("/")
        if view.phase == "open":
            enter = f"{local.command()} tournament join {url} {code}"  # i18n: a command
            said = [_("Friends enter with: {command}").format(command=enter)]
            if self.link.player is not None and view.host == self.link.player:
                start = f"{local.command()} tournament start {url} {code}"  # i18n: a command
                said.append(
                    _("Start it once everyone is in: type /start (or run {command})").format(
                        command=start
                    )
                )
            else:
                said.append(_("Waiting for the host to start it; /quit leaves this screen"))
            return said
        if view.phase == "playing" and update.you is None:
            return [_("You follow this tournament without playing in it")]
        if view.phase == "playing" and table_to_play(update, self.played) is not None:
            return []  # the move to the table is said next
        if view.phase == "playing":
            return [_("Waiting for the next round: your table comes by itself")]
        if view.phase == "finished" and update.you is None:
            return [_("This tournament is over; you did not play in it")]
        return []

    def _size(self) -> tuple[int, int]:
        size = shutil.get_terminal_size((80, 24))
        return size.columns, size.lines

    def say(self, text: str, command: str = "") -> None:
        """One line below what is shown, made visible; drawn, folded at spaces to the
        terminal's width with `command` (a part of it) whole on a row where it fits."""
        shown = visible(text)
        rows = [shown] if self.plain else fold_keeping(shown, visible(command), self._size()[0] - 1)
        self.console.file.write("".join(row + "\n" for row in rows))
        self.console.file.flush()

    def _draw(self, rows: list[Text]) -> None:
        def paint() -> None:
            console = self.console
            console.clear()
            for row in rows:
                # Made visible here, as the table's rows are: the hints carry the server's code
                # and a notice its words, besides the names the rows made visible already.
                console.print(
                    safe_text(row), no_wrap=True, overflow="crop", crop=True, highlight=False
                )

        session = self._session
        if session is not None and session.app.is_running:
            self._painting = asyncio.ensure_future(run_in_terminal(paint))
        else:
            paint()

    # -- input -----------------------------------------------------------------------------

    def _listen(self) -> None:
        """Take the typed lines: plain mode's reader, or a prompt below the drawn screen."""
        loop = asyncio.get_running_loop()
        if self.plain:
            plain_input.TYPED.listen(loop, self.lines)
            return
        self._prompting = loop.create_task(self._prompt())

    async def _prompt(self) -> None:
        self._session = PromptSession(output=prompt_output(), erase_when_done=True)
        while True:
            try:
                line = await self._session.prompt_async("› ")
            except (EOFError, KeyboardInterrupt):
                self.lines.put_nowait(None)
                return
            if line == ASIDE:
                return
            self.lines.put_nowait(line)

    async def _stop_listening(self) -> None:
        task, self._prompting = self._prompting, None
        session = self._session
        if task is not None:
            if session is not None and session.app.is_running and not session.app.is_done:
                session.app.exit(result=ASIDE)
            with contextlib.suppress(asyncio.CancelledError, Exception):
                await asyncio.wait_for(task, 2.0)
        self._session = None

    def _join_again(self) -> str:
        """The command that follows this tournament again (and takes a table's seat back)."""
        url = self.link.url.rstrip("/")
        code = self.link.code or ""
        return f"{local.command()} tournament join {url} {code}"  # i18n: a command

    def _show_all(self) -> str:
        """The command that prints the whole tournament, every round."""
        url = self.link.url.rstrip("/")
        return f"{local.command()} tournament show {url} {self.link.code or ''}"  # i18n: a command

    def _come_back(self) -> str:
        return _("You left the tournament's screen; come back with: {command}").format(
            command=self._join_again()
        )
