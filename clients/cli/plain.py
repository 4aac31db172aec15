"""`--plain` (or ALLFIVES_PLAIN=1): the table told as lines of text, for screen readers and
braille displays.

Nothing is redrawn: each thing that happens is one more line at the bottom, in order (a move
with the open ends and the total the server sent after it, a hand's result, the match's, chat
and seat changes), and on your turn your tiles and the legal moves the server sent, numbered,
then the prompt. No colour, no box drawing, no cursor movement: no escape sequence at all (what
the server sends is made visible first). Input is read a line at a time, as the terminal's own
line editing gives it: a move's number plays that move; everything else is read as at the
drawn table (`clients.cli.commands`). `PlainApp` is the drawn `App` with its output and input
replaced: what a typed line does is the same code. The sentences for the ends, a move and the
scores are `clients.cli.plain_words`; the one reader of the typed lines is
`clients.cli.plain_input`.
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import os
import signal
from collections.abc import Sequence

from rich.console import Console

from clients.cli import local, words
from clients.cli.app import App
from clients.cli.connection import Fatal
from clients.cli.i18n import _, ngettext
from clients.cli.log_lines import LogLine
from clients.cli.plain_input import INTERRUPT, TYPED
from clients.cli.plain_words import ends_words, move_words, scores_words
from clients.cli.safe import visible
from clients.cli.scoreboard import Scoreboard, explain_hand, hand_numbers, side_names
from clients.cli.state import Notice
from clients.cli.status import rating_note, rating_text, status
from clients.cli.waiting_room import waiting_rows
from protocol import messages as msg
from protocol.views import GameView, HandEnded, MatchEnded, Played, RoomView

#: The environment variable that asks for plain mode (any value but "", "0").
ENVIRONMENT = "ALLFIVES_PLAIN"


def plain_help() -> str:
    """What is typed in plain mode, before the table's help."""
    return _(
        "Plain mode: on your turn, type a move's number from the list; an empty line (Enter) "
        "says again where the match stands. A tile (5-3, 5-3 n) and the commands below work too."
    )


def add_argument(parser: argparse.ArgumentParser) -> None:
    """--plain."""
    parser.add_argument(
        "--plain",
        action="store_true",
        help=_(
            "plain lines for screen readers and braille displays: what happens, in order, "
            "no redrawing, no colours (also ALLFIVES_PLAIN=1)"
        ),
    )


def wanted(args: argparse.Namespace) -> bool:
    """Whether plain mode is asked for, by --plain or ALLFIVES_PLAIN."""
    return bool(getattr(args, "plain", False)) or os.environ.get(ENVIRONMENT, "") not in ("", "0")


def table(args: argparse.Namespace) -> type[App]:
    """The table a command shows: plain lines or the drawn frame."""
    return PlainApp if wanted(args) else App


def _progress(notice: Notice) -> bool:
    """Whether a notice is `/review`'s progress (said once, not at every move reviewed)."""
    said = _("Reviewing your moves with the hard bot: {done} of {total}")
    return notice.text.startswith(said.split("{done}")[0])


class PlainApp(App):
    """The table as lines of text (see the module docstring)."""

    def __init__(self, *args: object, **kwargs: object) -> None:
        super().__init__(*args, **kwargs)  # type: ignore[arg-type]
        output = self.console.file
        self.console = Console(
            file=output, color_system=None, force_terminal=False, highlight=False, soft_wrap=True
        )
        self._told_line: LogLine | None = None
        self._told_notice: Notice | None = None
        self._told_status: str | None = None
        self._told_turn: object = None
        self._told_ask: object = None
        self._told_room: str | None = None
        self._told_rating: str | None = None
        #: The match summary's scoreboard waits for the record's hands (a late window).
        self._board_owed = False
        self._inputs: asyncio.Queue[str | None] = asyncio.Queue()
        #: Told to leave by the program (`leave_when`), not by the player.
        self._leaving = False

    # -- output ----------------------------------------------------------------------------

    def out(self, text: str, indented: bool = False) -> None:
        """One line, made visible (no control character or escape reaches the terminal); an
        `indented` line keeps its leading spaces (a column of a table)."""
        self.console.file.write(visible(text.rstrip() if indented else text.strip()) + "\n")
        self.console.file.flush()

    def request_redraw(self) -> None:
        """Tell what is new since the last time, now (nothing is drawn over anything)."""
        self.tell()

    def paint(self, keep_cursor: bool = False) -> None:
        """Plain mode draws no frame: it tells."""
        self.tell()

    def lingers(self) -> None:
        """The finished table stays a while: said once, not each second."""
        self.out(self.linger.words())

    def tell(self) -> None:
        """Print what happened since the last call, then what happens now."""
        state, view = self.state, self.state.view
        if view is not None and view.code != self._told_room:
            self._told_room = view.code
            self._tell_room(view)
        self._tell_log()
        if self._board_owed and not state.board_pending and view is not None:
            self._board_owed = False
            self._tell_scoreboard(view, state.names())
        notice = state.notice
        if notice is not None and notice is not self._told_notice:
            told, self._told_notice = self._told_notice, notice
            if not (told is not None and _progress(told) and _progress(notice)):
                self.out(self._notice_words(notice))  # a review's progress is said once
        if self.extra:
            for row in self.extra:  # each row is set off by one space, as the table has it
                if row.plain.strip():
                    self.out(row.plain.removeprefix(" "), indented=True)
            self.extra, self.scroll_rows = [], 0
        if view is not None:
            self._tell_rating(view)
            self._tell_now(view)

    def _tell_rating(self, view: RoomView) -> None:
        """The rating change, once the finished match is rated."""
        said = rating_text(view) if view.phase == "finished" else None
        if said is not None and said != self._told_rating:
            self._told_rating = said
            self.out(said)
            note = rating_note(view)
            if note is not None:
                self.out(note)

    def _tell_room(self, view: RoomView) -> None:
        """The room, its rules and seats (and how friends join) when it waits; with a match
        under way, the room and the scores."""
        join_line = None
        table = view.tournament_table  # for watching only
        if self.join_url is not None and self.state.room is not None and not table:
            join_line = (
                f"{local.command()} join {self.join_url} {self.state.room}"  # i18n: a command
            )
            if self.join_url.startswith("ws"):  # the browser table at the same address
                join_line += f"\nhttp{self.join_url[2:]}/r/{self.state.room}"  # i18n: a link
        rows = [" ".join(row.plain.split()) for row in waiting_rows(view, join_line, 1000)]
        if view.phase != "waiting" or self.mode.deal_at_once:
            rows = rows[:1]  # the room's line alone: nobody to wait for
        for row in rows:
            if row:
                self.out(row)
        game = view.game
        if game is not None and view.phase == "playing":
            scores = scores_words(view, self.state.names(), game)
            self.out(_("Scores: {scores}").format(scores=scores))

    def _tell_log(self) -> None:
        log = list(self.state.log)
        start = 0
        if self._told_line is not None:
            start = next(
                (i + 1 for i in range(len(log) - 1, -1, -1) if log[i] is self._told_line), 0
            )
        new = log[start:]
        if not new:
            return
        self._told_line = new[-1]
        view, game = self.state.view, self.state.game
        last_play = next((line for line in reversed(new) if isinstance(line.event, Played)), None)
        names = self.state.names()
        ended = any(isinstance(line.event, HandEnded) for line in new)
        for line in new:
            if isinstance(line.event, HandEnded) and view is not None:
                self._tell_hand(view, line.event, names)
            elif isinstance(line.event, MatchEnded) and view is not None:
                self._tell_match(view, names)
            elif line is last_play and game is not None and view is not None and not ended:
                self.out(line.text + self._after_play(view, game, line.event))
            else:
                self.out(line.text)
        if self.state.result is not None or self.state.match_over:
            self.state.dismiss_result()  # told once as lines: there is nothing to dismiss

    def _after_play(self, view: RoomView, game: GameView, event: object) -> str:
        """The open ends after a play, when the view is the one right after it."""
        history = [item for item in game.history if isinstance(item, Played)]
        if not history or history[-1] != event:
            return ""  # the hand ended with it (its ends are gone), or more came after it
        said = ". " + _("Open ends: {ends}").format(ends=ends_words(game))
        if isinstance(event, Played) and event.points:
            scores = scores_words(view, self.state.names(), game)
            said += ". " + _("Scores: {scores}").format(scores=scores)
        return said

    def _tell_hand(self, view: RoomView, event: HandEnded, names: Sequence[str]) -> None:
        number = self.state.result_hand if self.state.result_hand is not None else "?"
        self.out(_("Result of hand {number}:").format(number=number))
        for row in explain_hand(event, names, view.rules):
            self.out(row)

    def _tell_match(self, view: RoomView, names: Sequence[str]) -> None:
        game = view.game
        self.out(_("The match is over."))
        if game is not None:
            teams = view.rules.partnership
            verdict = words.describe_winner(game.winner, names, teams)
            self.out(f"{verdict}: {scores_words(view, names, game)}.")
            yours = words.verdict_for(game.winner, teams, view.you)
            if yours:
                self.out(yours)
        if self.state.board_pending:
            self._board_owed = True  # told once the record's hands are here
        else:
            self._tell_scoreboard(view, names)

    def _tell_scoreboard(self, view: RoomView, names: Sequence[str]) -> None:
        """The points hand by hand, a sentence a hand (a table's columns read badly aloud)."""
        board = self.state.scoreboard
        sides = side_names(names, view.rules)
        scores = view.game.scores if view.game is not None else None
        earlier = board.earlier(scores, len(sides))
        unseen = board.unseen()
        told_unseen = earlier is None
        for line in board.hands:
            if not told_unseen and earlier is not None and line.number > unseen[0]:
                told_unseen = True  # hands this window did not see: the server's figures
                points = ", ".join(f"{s} {p}" for s, p in zip(sides, earlier, strict=False))
                said = ngettext(
                    "Hand {hands}, as the server counts it: {points}.",
                    "Hands {hands}, as the server counts them: {points}.",
                    len(unseen),
                )
                self.out(said.format(hands=hand_numbers(unseen), points=points))
            points = ", ".join(f"{s} {p}" for s, p in zip(sides, line.points, strict=False))
            how = Scoreboard._how(line, names)
            said = _("Hand {number}: {points}; {how}.")
            self.out(said.format(number=line.number, points=points, how=how))
        if board.biggest is not None:
            scored, seat, tile, hand = board.biggest
            said = _("Biggest play: {who}, {tile} for {points} in hand {number}")
            self.out(said.format(who=names[seat], tile=tile, points=scored, number=hand))

    def _notice_words(self, notice: Notice) -> str:
        hint, game = self.state.hint, self.state.game
        if notice.kind == "hint" and hint is not None and game is not None:
            for number, spec in enumerate(game.legal, start=1):
                if spec.tile == hint.tile and (hint.end is None or spec.end in (hint.end, None)):
                    said = _("Hint: the hard bot would {move} (move {number})")
                    return said.format(move=words.describe_move(hint), number=number)
        return notice.text

    def _tell_now(self, view: RoomView) -> None:
        """Whose turn it is and what to type, once each time it changes."""
        state, game = self.state, view.game
        if self.pending is not None:
            asked = (self.pending.tile, self.pending.ends, self.pending.problem)
            if asked != self._told_ask:
                self._told_ask = asked
                self.out(status(view, state, self.pending).plain)
            return
        self._told_ask = None
        key: object
        if state.my_turn() and game is not None:
            key = (game.hand_number, len(game.history), game.turn)
            if key != self._told_turn:
                self._told_turn = key
                self._tell_my_turn(game)
                self._told_status = None
            return
        said = status(view, state, None).plain.strip()
        if view.phase == "waiting" and self.mode.deal_at_once:
            return  # `play` deals at once: nobody to wait for
        if game is not None and view.phase == "playing" and game.turn is not None:
            key = (game.hand_number, len(game.history), game.turn)
        else:
            key = said
        if key != self._told_turn and said:
            self._told_turn = key
            if said != self._told_status:
                self.out(said)
            self._told_status = said

    def _tell_my_turn(self, game: GameView) -> None:
        tiles = ", ".join(tile for _number, tile in self.state.numbered_hand())
        self.out(_("Your turn. Your tiles: {tiles}.").format(tiles=tiles))
        if game.layout.line:
            self.out(
                _("Open ends: {ends}; total {total}.").format(
                    ends=ends_words(game), total=game.total
                )
            )
        for number, spec in enumerate(game.legal, start=1):
            self.out(_("Move {number}: {move}").format(number=number, move=move_words(game, spec)))
        last = len(game.legal)
        if last == 1:
            self.out(_("Type 1 to make it, or /help."))
        else:
            self.out(_("Type a move's number, 1 to {last}, or /help.").format(last=last))

    # -- input -----------------------------------------------------------------------------

    async def handle(self, line: str) -> bool:
        """A move's number plays that move; an empty line tells where things stand again;
        anything else is read as at the drawn table."""
        text = line.strip()
        game = self.state.game
        if not self.confirming and self.pending is None:
            if not text and self.lingering():
                return False  # Enter: on without waiting
            if not text:
                self._told_turn = self._told_status = None
                self.tell()
                return True
            if text.isdigit() and game is not None and self.state.view is not None:
                if self.state.view.phase != "playing":
                    return await super().handle(line)
                return await self._numbered(int(text), game)
            if text.lower() in ("/help", "/h", "/?"):  # i18n: a command
                self.out(plain_help())
            if text.lower() == "/ends" and game is not None and self.state.my_turn():
                self._told_turn = None
                self.tell()
                return True
        return await super().handle(line)

    async def _numbered(self, number: int, game: GameView) -> bool:
        if not self.state.my_turn():
            self.state.say(_("it is not your turn"), "error")
        elif not 1 <= number <= len(game.legal):
            said = _("there is no move {number}: type 1 to {last}")
            self.state.say(said.format(number=number, last=len(game.legal)), "error")
        else:
            spec = game.legal[number - 1]
            played: msg.ClientMessage = (
                msg.Pass()
                if spec.pass_ or spec.tile is None
                else msg.Play(tile=spec.tile, end=spec.end)
            )
            await self.connection.send(played)
        self.tell()
        return True

    async def run(self, first: Sequence[msg.ClientMessage] = (), resume: bool = False) -> int:
        """Tell the table and read lines until the player quits (0) or the connection cannot go
        on (1)."""
        loop = asyncio.get_running_loop()
        link = loop.create_task(self.connection.run(first, resume))
        TYPED.listen(loop, self._inputs)
        with contextlib.suppress(NotImplementedError, RuntimeError):  # Ctrl-C asks, as drawn
            loop.add_signal_handler(signal.SIGINT, self._inputs.put_nowait, INTERRUPT)
        try:
            while not link.done():
                typed = loop.create_task(self._inputs.get())
                await asyncio.wait({typed, link}, return_when=asyncio.FIRST_COMPLETED)
                if not typed.done():
                    typed.cancel()
                    break
                line = typed.result()
                if line is None:  # Ctrl-D: leave (asking first when that ends a match)
                    if self._leaving or self.quit_asked():
                        break
                    continue
                if line == INTERRUPT:
                    if self._interrupted():
                        break
                    continue
                if not await self.handle(line):
                    break
        finally:
            self.linger.stop()
            with contextlib.suppress(NotImplementedError, RuntimeError):
                loop.remove_signal_handler(signal.SIGINT)
            status_code = await self._closed(link)
        self._farewell()
        return status_code

    def leave(self) -> None:
        """End the table (the match is over and the program goes on elsewhere)."""
        self._leaving = True
        self._inputs.put_nowait(None)

    def _interrupted(self) -> bool:
        """Ctrl-C: cancel the question asked, else leave (asking first, as the drawn table
        does; Ctrl-C again at the question leaves). True to leave now."""
        if self.pending is not None:
            self.state.say(_("{tile} not played").format(tile=self.pending.tile))
            self.pending = None
            self.tell()
            return False
        return self.confirming or self.quit_asked()

    def say_fatal(self, error: Fatal) -> None:
        """Why the table ended, as a line."""
        self.out(f"allfives: {error}")

    def _farewell(self) -> None:
        with self.console.capture() as said:
            super()._farewell()
        for row in said.get().splitlines():
            if row.strip():
                self.out(row)
