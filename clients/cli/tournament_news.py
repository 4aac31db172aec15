"""What changed in a tournament since it was last told, as plain lines (`--plain`).

The tournament's screen tells the whole tournament once; after that a screen reader hears only
the news: the entrants as they come, a new round's pairings, a table's result, the standings'
top lines once a round is complete, the champion. `/standings` (or Enter) tells the whole again.
Pure, like `clients.cli.tournament_words`, whose words it uses.
"""

from __future__ import annotations

from clients.cli.i18n import _
from clients.cli.tournament_words import (
    entrant_rows,
    phase_row,
    rendered,
    round_rows,
    standings_table,
    table_names,
    table_result,
    unit_name,
    where_you_are,
)
from protocol.tournaments import RoundView, TournamentView

#: The standings' lines told after a round (the whole with /standings).
TOP_LINES = 3


def complete_rounds(view: TournamentView) -> int:
    """How many rounds have every table's result."""
    return sum(1 for played in view.rounds if _complete(played))


def _complete(played: RoundView) -> bool:
    return all(table.scores is not None for table in played.tables)


def standings_top(view: TournamentView, width: int) -> list[str]:
    """The standings' title, headings and first `TOP_LINES` lines (and how to hear them all)."""
    rows = [row.plain for row in rendered([standings_table(view, width, plain=True)], width)]
    rows = [row for row in rows if row.strip()]
    shown = rows[: 2 + TOP_LINES]
    if len(view.standings) > TOP_LINES:
        shown.append(_("(/standings says them all)"))
    return shown


def news(before: TournamentView, now: TournamentView, you: int | None, width: int) -> list[str]:
    """The lines that say what changed from `before` to `now`, in the order it happened."""
    said: list[str] = []
    if [e.name for e in before.entrants] != [e.name for e in now.entrants]:
        said += entrant_rows(now, you)
    if before.phase != now.phase and now.phase != "playing":
        said.append(phase_row(now))
    for number, played in enumerate(now.rounds[: len(before.rounds)], start=1):
        was = before.rounds[number - 1]
        for index, table in enumerate(played.tables, start=1):
            old = was.tables[index - 1] if index <= len(was.tables) else None
            result = table_result(now, table)
            if old is None or table_result(before, old) != result:
                line = _("Round {round}, table {number}: {names}: {result}")
                names = table_names(now, table)
                said.append(line.format(round=number, number=index, names=names, result=result))
    if complete_rounds(now) > complete_rounds(before) and now.standings:
        said += standings_top(now, width)
    for number, played in enumerate(now.rounds[len(before.rounds) :], start=len(before.rounds) + 1):
        said += round_rows(now, number, played)
    if now.champion is not None and now.champion != before.champion:
        said.append(_("Champion: {name}").format(name=unit_name(now, now.champion)))
    yours = where_you_are(now, you)
    if yours is not None and yours != where_you_are(before, you):
        said.append(yours)
    return said
