"""`/review`: after a match, the player's points lost and costliest moves, by the hard bot.

The client downloads the finished match with the protocol's `record` message and analyses it
here, in its own process (the server runs no analyses for clients). The analysis is the one
behind `allfives analyze`, reached through its narrow public function
`allfives.analyze.review_record`: that brings the engine into the client, which otherwise knows
only the protocol, so it is imported only when a review is asked for. The record comes from the
server and is checked like a file before anything is analysed.
"""

from __future__ import annotations

import asyncio
from collections.abc import Callable
from typing import TYPE_CHECKING

from rich.text import Text

from clients.cli import words
from clients.cli.connection import Connection
from clients.cli.i18n import _, language, ngettext
from clients.cli.state import TableState
from protocol import messages as msg
from protocol.records import Record

if TYPE_CHECKING:
    from allfives.analyze import MoveLine, PlayerLine
    from clients.cli.app import App

#: Search per decision: the same as `allfives analyze` by default.
BUDGET_MS = 200.0
#: How long to wait for the server's record.
WAIT_SECONDS = 15.0

Progress = Callable[[int, int], None]


def wanted(line: str) -> bool:
    """Whether a typed line asks for a review."""
    return line.strip().lower() == "/review"


def refusal(state: TableState) -> str | None:
    """Why there is nothing to review now (None: a finished match this client played in)."""
    view = state.view
    if view is None:
        return _("not in a room yet")
    if view.phase != "finished":
        return _("a review is for a finished match: /review once it is over")
    if view.you is None:
        return _("only a seated player has moves to review")
    return None


async def run(app: App) -> bool:
    """`/review` at the table: the rows take the log's place until the next line is typed."""
    state = app.state
    app.extra = []
    app.pending = None
    loop = asyncio.get_running_loop()

    def progress(done: int, total: int) -> None:
        def show() -> None:
            said = _("Reviewing your moves with the hard bot: {done} of {total}")
            state.say(said.format(done=done, total=total))
            app.request_redraw()

        loop.call_soon_threadsafe(show)

    outcome = await review(app.connection, state, progress)
    if isinstance(outcome, str):
        state.say(outcome, "error")
    else:
        app.extra = outcome
        state.say(_("Review done: what each costly move gave up, by the hard bot's search"))
    app.request_redraw()
    return True


async def review(
    connection: Connection, state: TableState, progress: Progress | None = None
) -> list[Text] | str:
    """The player's review as rows, or why there is none (in words)."""
    refused = refusal(state)
    if refused is not None:
        return refused
    seat = state.view.you if state.view is not None else None
    assert seat is not None
    record = await fetch(connection, state)
    if isinstance(record, str):
        return record
    from allfives.analyze import AnalysisError, review_record

    try:
        report = await asyncio.to_thread(review_record, record, [seat], BUDGET_MS, 0, progress)
    except AnalysisError as error:
        return _("the server's record cannot be reviewed: {reason}").format(reason=error)
    rows = [Text(" " + _("Review of your moves (the hard bot's search, from what you could see)"))]
    for player in report.players:
        rows += summary_rows(player)
    return rows


def summary_rows(player: PlayerLine) -> list[Text]:
    """A player's points lost per hand and costliest moves (as `allfives analyze` says them,
    in the player's language)."""
    head = Text("  " + _("{who} (seat {seat}):").format(who=player.name, seat=player.seat) + " ")
    lost = f"{player.lost_per_hand:.1f}"
    head.append(_("{points} points lost per hand").format(points=lost), style="bold")
    hands = ngettext("{count} hand", "{count} hands", player.hands).format(count=player.hands)
    decisions = ngettext("{count} decision", "{count} decisions", player.decisions).format(
        count=player.decisions
    )
    costly = ngettext(
        "{count} move cost 10 or more", "{count} moves cost 10 or more", player.costly
    ).format(count=player.costly)
    said = _("({points} over {hands}, {decisions}); {costly}")
    head.append(
        " "
        + said.format(points=f"{player.lost:.1f}", hands=hands, decisions=decisions, costly=costly)
    )
    rows: list[Text] = [head]
    if player.costliest:
        rows.append(Text("    " + _("costliest moves:")))
        rows += [move_row(line) for line in player.costliest]
    return rows


def move_row(line: MoveLine) -> Text:
    """One decision: where, what was played, what was best and what it cost."""
    where = _("hand {hand} move {move}").format(hand=f"{line.hand:>2}", move=f"{line.move:>2}")
    played = _("played {move}").format(move=_move_words(line.played))
    text = Text(f"      {where}  {played:<17}")
    if line.lost == 0:
        return text.append(" " + _("best move"), style="green")
    best = _("best {move}").format(move=_move_words(line.best))
    text.append(f" {best:<15} " + _("lost {points}").format(points=f"{line.lost:5.1f}"))
    text.append(" ??" if line.costly else "   ", style="bold red")
    if line.reason and language() == "en":  # the engine's reasons are in English only
        text.append(f"  {line.reason}", style="dim")
    return text


def _move_words(move: str) -> str:
    """A move as the analysis writes it ("5-3 east", "pass", "draw") in the player's words."""
    tile, _space, end = move.partition(" ")
    if tile == "pass":
        return _("pass")
    if tile == "draw":
        return _("draw")
    return f"{tile} {words.end_word(end)}".rstrip() if end else tile


async def fetch(connection: Connection, state: TableState) -> Record | str:
    """Ask the server for the finished match's record and wait for it (or for its refusal)."""
    got = asyncio.Event()
    notice = state.notice
    state.record = None
    previous = connection.on_change

    def changed() -> None:
        previous()
        now = state.notice
        refused = now is not None and now is not notice and now.kind == "error"
        if state.record is not None or refused:
            got.set()

    connection.on_change = changed
    try:
        if not await connection.send(msg.GetRecord()):
            return _("not connected: the record could not be asked for")
        await asyncio.wait_for(got.wait(), WAIT_SECONDS)
    except TimeoutError:
        return _("the server did not send the match's record")
    finally:
        connection.on_change = previous
    if state.record is None:
        assert state.notice is not None
        return state.notice.text
    return state.record
