"""The log's words for seats that change hands: who took, left or came back to which seat."""

from __future__ import annotations

from collections.abc import Sequence

from clients.cli import words
from clients.cli.i18n import _
from protocol.views import RoomView


def seat_changes(
    before: RoomView, after: RoomView, old_names: Sequence[str], new_names: Sequence[str]
) -> list[str]:
    """Sentences for the seats that changed between two views of a room (each view's seats
    named by `old_names` and `new_names`); the reader's own seat emptying is left unsaid."""
    lines = []
    for index, (old, new) in enumerate(zip(before.seats, after.seats, strict=False)):
        if old == new:
            continue
        number = words.seat_number(index)
        if old is None and new is not None and new.kind == "bot" and after.you == after.host:
            continue  # the host seated it and sees it in the seat list
        if old is None and new is not None:
            if new.kind == "bot":
                line = _bot_took(new.level).format(seat=number)
            else:
                line = _("{who} took seat {seat}").format(who=new_names[index], seat=number)
            lines.append(line)
        elif old is not None and new is None:
            if index == before.you:
                continue  # the player's own leaving: they know it, and it is no other's news
            lines.append(_("{who} left seat {seat}").format(who=old_names[index], seat=number))
        elif old is not None and new is not None and old.kind != new.kind:
            if new.kind == "bot":
                line = _bot_took_from(new.level)
            else:
                line = _("{who} took {old}'s seat {seat}")
            lines.append(line.format(who=new_names[index], old=old_names[index], seat=number))
        elif old is not None and new is not None and old.connected != new.connected:
            said = _("{who} is back") if new.connected else _("{who} is away")
            lines.append(said.format(who=new_names[index]))
    return lines


def _bot_took(level: str | None) -> str:
    """ "an easy bot took seat {seat}" (the level is part of the sentence: articles differ)."""
    if level == "easy":
        return _("an easy bot took seat {seat}")
    if level == "hard":
        return _("a hard bot took seat {seat}")
    return _("a normal bot took seat {seat}")


def _bot_took_from(level: str | None) -> str:
    """ "an easy bot took {old}'s seat {seat}"."""
    if level == "easy":
        return _("an easy bot took {old}'s seat {seat}")
    if level == "hard":
        return _("a hard bot took {old}'s seat {seat}")
    return _("a normal bot took {old}'s seat {seat}")
