"""Plain mode's sentences for what the server sent: the open ends, a legal move, the scores.

Each is said as a screen reader reads it well ("west 5, east 3", "6-4 on the west end, total
10, scores 10"); the figures are the server's, none is worked out here.
"""

from __future__ import annotations

from collections.abc import Sequence

from clients.cli import words
from clients.cli.i18n import _
from clients.cli.scoreboard import side_names
from clients.cli.status import only_end
from protocol.tiles import END_NAMES
from protocol.views import GameView, MoveSpec, RoomView


def ends_words(game: GameView) -> str:
    """The open ends as the server sent them, those that count first: "west 5, east 3, north 6";
    a spinner's arm open with no tile yet counts nothing (docs/rules.md 6.3) and is said apart:
    "west 0, east 3; open, counting nothing yet: north 4, south 4"."""
    ends, layout = game.ends, game.layout
    numbers = (ends.west, ends.east, ends.north, ends.south)
    empty = {"north": not layout.north, "south": not layout.south}
    said = [
        (f"{words.end_word(end)} {number}", empty.get(end, False))
        for end, number in zip(END_NAMES, numbers, strict=True)
        if number is not None
    ]
    counted = ", ".join(part for part, idle in said if not idle)
    idle = ", ".join(part for part, idle in said if idle)
    if not idle:
        return counted
    return _("{counted}; open, counting nothing yet: {idle}").format(counted=counted, idle=idle)


def move_words(game: GameView, spec: MoveSpec) -> str:
    """A legal move with what it makes, as the server sent it: "6-4 on the west end,
    total 10, scores 10"."""
    if spec.pass_ or spec.tile is None:
        return _("pass: no tile fits")
    end = spec.end if spec.end is not None else only_end(game, spec.tile)
    if not game.layout.line:
        said = _("lead {tile}").format(tile=spec.tile)
    elif end is None:
        said = spec.tile
    else:
        said = _("{tile} on the {end} end").format(tile=spec.tile, end=words.end_word(end))
    if spec.total is not None:
        said = _("{move}, total {total}").format(move=said, total=spec.total)
    if spec.points:
        said += _(", scores {points}").format(points=spec.points)
    return said


def scores_words(view: RoomView, names: Sequence[str], game: GameView) -> str:
    """ "Ann 15, Bot 1 0" (per team with partnerships)."""
    sides = side_names(names, view.rules)
    return ", ".join(f"{side} {score}" for side, score in zip(sides, game.scores, strict=False))
