"""The terminal table's prompt: the words before the cursor and the grey placeholder after it.

The words ask what the table waits for (which end, or whether to quit); the placeholder says
what can be typed now, short enough for the terminal's width. Both are read from the `App`
each time prompt_toolkit draws the prompt.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from prompt_toolkit.formatted_text import FormattedText

from clients.cli import words
from clients.cli.i18n import _

if TYPE_CHECKING:
    from clients.cli.app import App

#: Below this many columns the prompt's placeholder is cut to "/help" (never wrapped).
NARROW = 64


def prompt_text(app: App) -> str:
    """The words before the cursor: a question being asked, else the bare prompt."""
    if app.confirming:
        if app.mode.against_bots:
            return _("end this match (y/n)?") + " › "
        return _("close the room for everyone (y/n)?") + " › "
    if app.pending is not None:
        letters = "/".join(end[0] for end in app.pending.ends)
        return _("which end ({letters})?").format(letters=letters) + " › "
    return "› "


def placeholder(app: App) -> FormattedText:
    """The grey hint on an empty prompt: what can be typed at this moment of the match."""
    if app.confirming:
        return FormattedText([("fg:ansibrightblack", _("y or n"))])
    if app.pending is not None:
        letters = words.either([end[0] for end in app.pending.ends])
        hint = _("{letters}; Enter alone cancels").format(letters=letters)
        return FormattedText([("fg:ansibrightblack", hint)])
    view = app.state.view
    narrow = app.size[0] < NARROW
    if app.lingering():  # a finished tournament table's countdown back
        return FormattedText([("fg:ansibrightblack", app.linger.words())])
    if app._hand_hidden():  # why a tile typed now is not played (short: any width)
        return FormattedText([("fg:ansibrightblack", _("(too small to play)"))])
    if view is not None and view.you is not None and view.phase == "finished":
        said = _("/scores or /quit")
        if view.you == view.host and app.state.everyone_stayed():
            said = _("/rematch, /scores or /quit")
        # Short enough for any width; in brackets where narrow, as "(type /help)" is.
        return FormattedText([("fg:ansibrightblack", f"({said})" if narrow else said)])
    if narrow:  # in brackets: never read as typed text, even without colour
        return FormattedText([("fg:ansibrightblack", _("(type /help)"))])
    if view is not None and view.phase == "waiting":
        said = _("/start, /bots fill, /chat TEXT, or /help")
        if view.you != view.host:
            said = _("/chat TEXT, or /help") if app.connection.name else _("(type /help)")
        return FormattedText([("fg:ansibrightblack", said)])
    if view is not None and view.you is None and not app.connection.name:
        return FormattedText([("fg:ansibrightblack", _("watching: /scores, /quit"))])
    if view is not None and view.you is None:
        said = _("watching: /chat TEXT, /scores, /quit")
        return FormattedText([("fg:ansibrightblack", said)])
    said = _("a tile number, a tile like 5-3, or /help")
    return FormattedText([("fg:ansibrightblack", said)])
