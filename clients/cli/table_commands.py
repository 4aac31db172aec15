"""What the table's own commands do in the terminal: `/save` and the boards shown in the log's place.

`save_record` asks the server for the match's record and writes it as JSON for `allfives
replay`; `board_rows` is what `/scores`, `/ends` and `/log` show. The `App` runs them when a
typed line asks for them (`clients.cli.commands` says which).
"""

from __future__ import annotations

import asyncio
import shlex
from pathlib import Path
from typing import TYPE_CHECKING

from clients.cli import local
from clients.cli.i18n import _
from clients.cli.state import display_names
from clients.cli.status import ends_rows
from protocol import messages as msg
from protocol.records import encode_record

if TYPE_CHECKING:
    from clients.cli.app import App

#: How long `/save` waits for the server's record, and how often it looks.
SAVE_WAIT = 10.0
SAVE_CHECK_SECONDS = 0.3


def board_rows(app: App, what: str) -> list[str]:
    """The rows of the board asked for: the ends, the whole log, or the scores by hand."""
    state, view = app.state, app.state.view
    if what == "ends":
        return ends_rows(state, app.size[0] - 2)
    if what == "log":
        return [line.text for line in state.log]
    if view is None or not state.scoreboard.hands:
        return [_("No hand has been played yet.")]
    names = display_names(view, state.played_names)
    scores = view.game.scores if view.game is not None else None
    return state.scoreboard.rows(names, view.rules, scores)


async def save_record(app: App, path: str) -> None:
    """Ask for the record, wait for it, write it as JSON for `allfives replay`."""
    state = app.state
    state.record = None
    if not await app.connection.send(msg.GetRecord()):
        return
    for _step in range(int(SAVE_WAIT / SAVE_CHECK_SECONDS)):
        if state.record is not None or state.notice is not None:
            break
        await asyncio.sleep(SAVE_CHECK_SECONDS)
    record = state.record
    if record is None:
        if state.notice is None:
            state.say(_("The server sent no record"), "error")
        return
    target = Path(path).expanduser()
    try:
        target.write_bytes(encode_record(record) + b"\n")
    except OSError as error:
        said = _("Cannot write {path}: {problem}")
        state.say(said.format(path=target, problem=error.strerror or error), "error")
        return
    said = _("Saved the match record to {path}: {command}")
    command = f"{local.command()} replay {shlex.quote(str(target))}"  # i18n: a command
    state.say(said.format(path=target, command=command))
