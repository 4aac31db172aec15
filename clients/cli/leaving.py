"""Leaving the terminal table by the player's own wish: the question asked first when quitting
ends a match (or a room others are in), its answer, and the line said as the table is left.

`quit_asked` is what /quit, Ctrl-C and Ctrl-D do; `answered` reads the line typed after the
question; `farewell` says how to come back to a match left in its middle. The `App` runs them
(the prompt's words for the question are `clients.cli.prompt_words`).
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from rich.text import Text

from clients.cli.fold import fold_keeping
from clients.cli.i18n import _
from clients.cli.safe import safe_text

if TYPE_CHECKING:
    from clients.cli.app import App


def needs_asking(app: App) -> bool:
    """Whether quitting now ends a match or a room others are in (the host's server stops)."""
    view = app.state.view
    if not app.mode.hosting or view is None or app.connection.fatal is not None:
        return False
    if app.mode.against_bots:
        return view.phase == "playing"
    others = any(
        seat is not None and seat.kind == "human" and index != view.you
        for index, seat in enumerate(view.seats)
    )
    return others or (view.phase == "playing" and view.spectators > 0)


def quit_asked(app: App) -> bool:
    """The player asked to quit (/quit, Ctrl-C, Ctrl-D): True to go now, False to ask first."""
    if app.confirming or not needs_asking(app):
        return True
    app.confirming = True
    if app.mode.against_bots:
        app.state.say(_("Quitting ends this match: y ends it (Ctrl-C too), n plays on"), "error")
    else:
        app.state.say(
            _("Quitting ends the match for everyone: y closes the room (Ctrl-C too), n stays"),
            "error",
        )
    app.request_redraw()
    return False


def answered(app: App, line: str) -> bool:
    """The line typed after the question: True to go (y), else the table stays (said)."""
    app.confirming = False
    if line.strip().lower() in ("y", "yes", "/quit", "/q", _("y"), _("yes")):
        return True
    app.state.say(_("The match goes on") if app.mode.against_bots else _("The room stays open"))
    app.request_redraw()
    return False


def farewell(app: App) -> None:
    """As the table is left in a match's middle (a remote room): how to come back, below it."""
    view = app.state.view
    if app.connection.fatal is not None:
        return
    if view is None or view.you is None:  # a watcher leaves no seat behind
        return
    if app.mode.remote and view.phase == "playing" and app.state.room:
        command = app.connection.come_back()
        said = _(
            "You left room {code} during a match: a bot plays your seat until "
            "you come back with: {command}"
        ).format(code=view.code, command=command)
        for row in fold_keeping(said, command, app.console.width - 1):
            app.console.print(safe_text(Text(row, style="dim")), no_wrap=True, crop=False)
