"""The log's lines: an event (a patch's, or an entry of a hand's history) told in words.

`told` is the text the log shows for an event, with the seats' names as the client knows them;
`line_kind` is what kind of news it is (for its colour); `LogLine` is one line of the log
(`clients.cli.state.TableState.log`).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Literal

from clients.cli import words
from clients.cli.i18n import _
from clients.cli.scoreboard import side_names
from protocol.views import AnyEvent, ChatLine, HandEnded, MatchEnded, Played, RoomView

LineKind = Literal["play", "score", "hand", "match", "chat", "info", "error"]


@dataclass(frozen=True)
class LogLine:
    """One line of the log: its text and what kind of news it is (for its colour)."""

    text: str
    kind: LineKind = "play"
    #: The event the line tells, if it tells one (plain mode adds what followed it).
    event: AnyEvent | None = None
    #: Told before the finished match's names were known (told again once they are).
    unnamed: bool = False


def line_kind(event: AnyEvent) -> LineKind:
    """How an event's log line is shown."""
    match event:
        case Played(points=points) if points > 0:
            return "score"
        case HandEnded():
            return "hand"
        case MatchEnded():
            return "match"
        case ChatLine():
            return "chat"
    return "play"


def told(event: AnyEvent, view: RoomView | None, names: list[str]) -> str:
    """An event's log line, with the seats' `names` as they are known now: what the event
    says, the final scores after a match's end, and whether a stand-in bot made the move."""
    line = _describe(event, names, view is not None and view.rules.partnership)
    if isinstance(event, MatchEnded) and view is not None and view.game is not None:
        scores = zip(side_names(names, view.rules), view.game.scores, strict=False)
        line += ": " + ", ".join(f"{side} {score}" for side, score in scores) + "."
    if view is not None and _stood_in(event, view):
        if isinstance(event, Played) and event.seat == view.you:
            line += _(" (a bot, standing in for you)")
        else:
            line += _(" (a bot, standing in while they are away)")
    return line


def _describe(event: AnyEvent, names: list[str], teams: bool) -> str:
    """The log line for an event: "Team A" written alike everywhere, and no pips claimed as
    counted when the match was won mid-hand."""
    if isinstance(event, HandEnded) and event.kind == "won":
        by = names[event.by] if event.by is not None and event.by < len(names) else "?"
        return _(
            "{who} reached the target: the match ends here (pips left are not counted)"
        ).format(who=by)
    if isinstance(event, ChatLine) and event.seat is None:
        return _("{who} (watching): {text}").format(who=event.name, text=event.text)
    return words.describe(event, names, teams)


def _stood_in(event: AnyEvent, view: RoomView) -> bool:
    """Whether a move was made by the server's bot for an away player: the server says so on
    the move (`stand_in`, kept with it), not whether its player is away now (a history told
    again after they left, or after a server restart, would mark every move of theirs)."""
    if not isinstance(event, Played) or not event.stand_in:
        return False
    seat = view.seats[event.seat] if 0 <= event.seat < len(view.seats) else None
    return seat is not None and seat.kind == "human"
