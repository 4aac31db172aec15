"""A room that has not started, as the table shows it: its rules in words, each seat, and the
line friends type to join."""

from __future__ import annotations

import textwrap

from rich.cells import cell_len
from rich.style import Style
from rich.text import Text

from clients.cli import words
from clients.cli.fold import fold
from clients.cli.i18n import _, ngettext
from clients.cli.state import display_names
from clients.cli.styles import DULL
from protocol.views import RoomView


def waiting_rows(view: RoomView, join_line: str | None, width: int) -> list[Text]:
    """The seats of a room that has not started, and the line friends type to join. What is
    read whole (the rules, the command to type, the link) folds at spaces to `width`; a seat's
    row is cut."""
    names = display_names(view)
    said = _("Room {code}: {rules}").format(code=view.code, rules=_rules_words(view))
    rows = _folded(said, Style(bold=True), width)
    if view.rules.is_rated and not view.rules.public:
        rows += _folded(
            _("Rated: this private room's results show on the public ladder."), DULL, width
        )
    for index, seat in enumerate(view.seats):
        line = Text("   " + words.seat_word(index) + "  ")
        if seat is None:
            line.append(_("free"), DULL)
        else:
            line.append(names[index], Style(bold=True))
            if seat.kind == "bot":
                line.append("  " + _level_bot(seat.level), DULL)
            if index == view.you:
                line.append("  " + _("(you)"), DULL)
            if index == view.host:
                line.append("  " + _("host"), DULL)
        rows.append(line)
    if join_line:
        # The command to type, then (when there is one) the link to open in a browser.
        command, _newline, link = join_line.partition("\n")
        labels = [_("Friends join with:"), _("or in a browser:")]
        room = max(len(label) for label in labels) + 2
        rows.append(Text(" "))
        rows += _labelled(f" {labels[0]:<{room}}", command, width)
        if link:
            rows += _labelled(f" {labels[1]:<{room}}", link, width)
    for row in rows:
        row.truncate(width)
    return rows


def _folded(text: str, style: Style | str, width: int, indent: str = " ") -> list[Text]:
    """`text` as rows of at most `width` cells, each after `indent`, folded at spaces."""
    return [Text(indent + part, style) for part in fold(text, max(1, width - cell_len(indent)))]


def _labelled(label: str, value: str, width: int) -> list[Text]:
    """A label and what to type or open: one row where it fits; else the label, then the value
    on rows of its own, folded at its spaces, and a word longer than a row broken (never cut:
    it is copied as it is)."""
    style = Style(bold=True, color="cyan")
    if cell_len(label) + cell_len(value) <= width:
        return [Text.assemble(label, (value, style))]
    parts = textwrap.wrap(value, max(1, width - 1), break_on_hyphens=False) or [value]
    return [Text(label.rstrip()), *(Text(" " + part, style) for part in parts)]


def _rules_words(view: RoomView) -> str:
    rules = view.rules
    said = [
        ngettext("{count} player", "{count} players", rules.players).format(count=rules.players)
    ]
    if rules.partnership:
        said.append(_("two teams"))
    said.append(_("first to {target}").format(target=rules.target_score))
    if rules.hand_size != "standard":
        count = rules.tiles_per_hand
        said.append(ngettext("{count} tile each", "{count} tiles each", count).format(count=count))
    if rules.end_scoring == "penalty":
        said.append(_("own pips lost at the end"))
    if rules.reserve:
        count = rules.reserve
        said.append(
            ngettext("{count} tile never drawn", "{count} tiles never drawn", count).format(
                count=count
            )
        )
    if rules.turn_seconds:
        said.append(_("{seconds} s a turn").format(seconds=rules.turn_seconds))
    said.append(_("listed") if rules.public else _("private"))
    said.append(_("rated") if rules.is_rated else _("unrated"))
    if view.tournament_table:  # its seats are the tournament's: nobody joins
        said.append(_("a tournament's table, for watching"))
    return ", ".join(said)


def _level_bot(level: str | None) -> str:
    """ "easy bot" (one message per level: the adjective agrees with the noun)."""
    if level == "easy":
        return _("easy bot")
    if level == "hard":
        return _("hard bot")
    return _("normal bot")
