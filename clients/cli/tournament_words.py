"""A tournament told in the player's language: its rows for a screen of a given width.

Pure: `tournament_rows(view, width, you)` looks only at the tournament's public view
(`protocol.tournaments.TournamentView`), a server's and so untrusted: every name is shown
through `clients.cli.safe.visible`, and an entrant number that names nobody shows as "?".
`allfives tournament show` prints these rows once; the tournament screen draws them again at
every change.
"""

from __future__ import annotations

from collections.abc import Sequence

from rich import box
from rich.cells import cell_len
from rich.console import Console
from rich.table import Table
from rich.text import Text

from clients.cli.i18n import N_, _, ngettext
from clients.cli.safe import visible
from protocol.tournaments import RoundView, TableView, TournamentView

FORMAT_WORDS = {
    "round_robin": N_("round robin"),
    "swiss": N_("Swiss"),
    "elimination": N_("single elimination"),
}
PHASE_WORDS = {
    "open": N_("open for entrants"),
    "playing": N_("playing"),
    "finished": N_("finished"),
}
PARTNER_WORDS = {"fixed": N_("fixed partners"), "rotating": N_("rotating partners")}
#: A name that no entrant has (a server that numbers past its entrants).
UNKNOWN = "?"


def format_word(format: str) -> str:
    """ "round robin", "Swiss", "single elimination" (a format this client does not know: as sent)."""
    return _(FORMAT_WORDS[format]) if format in FORMAT_WORDS else visible(format)


def entrant_name(view: TournamentView, entrant: int) -> str:
    """An entrant's name as shown (made visible)."""
    if 0 <= entrant < len(view.entrants):
        return visible(view.entrants[entrant].name)
    return UNKNOWN


def unit_name(view: TournamentView, unit: int) -> str:
    """A unit's name: its entrant's, or a team's "Ann & Bea"."""
    if 0 <= unit < len(view.units):
        return " & ".join(entrant_name(view, entrant) for entrant in view.units[unit])
    return entrant_name(view, unit) if not view.units else UNKNOWN


def table_names(view: TournamentView, table: TableView) -> str:
    """Who sits at a table: "Ann – Bea", and for fixed partners "Ann & Cid – Bea & Dan"."""
    seats = [entrant_name(view, entrant) for entrant in table.seats]
    if view.rules.partnership and len(seats) == 4:
        return f"{seats[0]} & {seats[2]} – {seats[1]} & {seats[3]}"
    return " – ".join(seats)


def table_result(view: TournamentView, table: TableView) -> str:
    """A table's scores ("100 : 65"), its room while it plays, or that it waits for one."""
    if table.scores is not None:
        shown = table.scores
        if view.rules.partnership and len(shown) == 4:
            shown = shown[:2]  # partners carry their side's score
        return " : ".join(str(score) for score in shown)
    if table.room is not None:
        return _("playing in room {room}").format(room=visible(table.room))
    return _("waiting for its room")


def summary_row(view: TournamentView) -> str:
    """ "round robin, tables of 2, first to 100, host Ann" (and the partners, rounds, clock)."""
    rules = view.rules
    parts = [format_word(view.format)]
    size = _("tables of {count}").format(count=rules.players)
    if rules.partnership:
        size += " " + _("(teams)")
    parts.append(size)
    if view.partners in PARTNER_WORDS:
        parts.append(_(PARTNER_WORDS[view.partners]))
    parts.append(_("first to {target}").format(target=rules.target_score))
    if view.turn_seconds is not None:
        parts.append(_("{seconds} s a turn").format(seconds=view.turn_seconds))
    if not view.public:
        parts.append(_("private"))
    parts.append(_("host {name}").format(name=visible(view.host)))
    return ", ".join(parts)


def phase_row(view: TournamentView) -> str:
    """Where it stands: open, round 2 of 3, finished."""
    if view.phase == "playing" and view.rounds:
        said = _("round {number} of {planned}")
        return said.format(number=len(view.rounds), planned=view.rounds_planned or "?")
    return _(PHASE_WORDS[view.phase]) if view.phase in PHASE_WORDS else visible(view.phase)


def entrant_rows(view: TournamentView, you: int | None = None) -> list[str]:
    """ "Entrants (3): 1 Ann, 2 Bea (you), 3 bot:easy"."""
    said = ngettext("Entrants ({count}):", "Entrants ({count}):", len(view.entrants))
    names = ", ".join(
        f"{number} {visible(entrant.name)}" + (" " + _("(you)") if number - 1 == you else "")
        for number, entrant in enumerate(view.entrants, 1)
    )
    return [said.format(count=len(view.entrants)) + (" " + names if names else "")]


def team_rows(view: TournamentView) -> list[str]:
    """Before the start of a tournament of fixed partners, the teams as they stand (the
    server's units: the 1st and 2nd to enter, the 3rd and 4th, ...; docs/tournaments.md)."""
    if view.phase != "open" or view.partners != "fixed" or not view.units:
        return []
    teams = [
        unit_name(view, unit)
        if len(members) > 1
        else _("{name} waits for a partner").format(name=unit_name(view, unit))
        for unit, members in enumerate(view.units)
    ]
    said = _("Teams as they stand (partners in order of entry): {teams}")
    return [said.format(teams="; ".join(teams))]


def replay_rows(command: str, game: str, width: int) -> list[str]:
    """The command that replays a table's game (`command` then the id, as `allfives history`
    prints it): one row if it fits `width`, else the id whole on a row of its own after the
    shell's line continuation, so that no fold cuts it."""
    shown = visible(game)
    if cell_len(f"    {command} {shown}") <= width:
        return [f"    {command} {shown}"]
    return [f"    {command} \\", f"      {shown}"]


def round_rows(
    view: TournamentView,
    number: int,
    played: RoundView,
    replay: str | None = None,
    width: int = 80,
) -> list[str]:
    """A round: each table, who sits at it and its result (and with `replay`, the command
    that replays a finished table's game, under it); who sits it out."""
    rows = [_("Round {number}").format(number=number)]
    for index, table in enumerate(played.tables, start=1):
        said = _("Table {number}: {names}: {result}")
        names, result = table_names(view, table), table_result(view, table)
        rows.append("  " + said.format(number=index, names=names, result=result))
        if replay is not None and table.scores is not None and table.game is not None:
            rows += replay_rows(replay, table.game, width)
    if played.byes:
        byes = ", ".join(unit_name(view, unit) for unit in played.byes)
        rows.append("  " + _("Sits this round out: {names}").format(names=byes))
    return rows


def standings_table(view: TournamentView, width: int, plain: bool = False) -> Table:
    """The standings, best first, with their tie-break columns, in `width` columns: the figures
    keep their width and the entrants' names fold (`plain`: no box drawing)."""
    table = Table(
        title=Text(_("Standings")),
        title_justify="left",
        padding=(0, 1),
        pad_edge=False,
        box=None if plain else box.SIMPLE_HEAD,
        show_edge=False,
        # Two columns apart, not three (a padding each side and the box's gap): at 60 columns
        # "bot:easy 2" stays whole.
        collapse_padding=not plain,
    )
    headings, lines = standing_columns(view)
    widths = [
        max(cell_len(heading), *(cell_len(line[index]) for line in lines))
        for index, heading in enumerate(headings)
    ]
    # What the name's column has left: the others, and two columns between each two.
    left = width - (sum(widths) - widths[1]) - 2 * (len(headings) - 1)
    for index, heading in enumerate(headings):
        if index == 1:
            table.add_column(heading, overflow="fold", max_width=max(4, left))
        else:
            table.add_column(heading, justify="right", min_width=widths[index], no_wrap=True)
    for line in lines:
        table.add_row(*line[:1], Text(line[1]), *line[2:])
    return table


def standing_columns(view: TournamentView) -> tuple[tuple[str, ...], list[tuple[str, ...]]]:
    """The standings' headings and lines: the tie-break columns, or in a single elimination
    who is still in and the round each went out (docs/tournaments.md, "Standings")."""
    lines: list[tuple[str, ...]]
    if view.format == "elimination":
        lines = [
            (
                str(rank),
                unit_name(view, line.unit),
                bracket_status(view, line.unit, line.out_in_round),
                str(line.played),
                str(line.byes),
            )
            for rank, line in enumerate(view.standings, start=1)
        ]
        return ("#", _("entrant"), _("status"), _("played"), _("byes")), lines
    lines = [
        (
            str(rank),
            unit_name(view, line.unit),
            str(line.match_points),
            str(line.buchholz),
            str(line.score),
            str(line.played),
            str(line.byes),
        )
        for rank, line in enumerate(view.standings, start=1)
    ]
    headings = ("#", _("entrant"), _("points"), _("Buchholz"), _("score"), _("played"), _("byes"))
    return headings, lines


def bracket_status(view: TournamentView, unit: int, out_in_round: int | None) -> str:
    """ "champion", "still in" or "out in round 2"."""
    if unit == view.champion:
        return _("champion")
    if out_in_round is None:
        return _("still in")
    return _("out in round {number}").format(number=out_in_round)


def where_you_are(view: TournamentView, you: int | None) -> str | None:
    """Your part in the round being played: your table, or that you sit it out."""
    if you is None or view.phase != "playing" or not view.rounds:
        return None
    current = view.rounds[-1]
    for table in current.tables:
        if you in table.seats:
            if table.scores is not None:
                return _("Your match of this round is over: the others play on")
            return None
    mine = next((unit for unit, members in enumerate(view.units) if you in members), None)
    if mine is not None and mine in current.byes:
        return _("You sit this round out (a bye counts as a win)")
    return None


def tournament_rows(
    view: TournamentView,
    width: int,
    you: int | None = None,
    plain: bool = False,
    last_rounds: int | None = None,
    code: str | None = None,
    replay: str | None = None,
    show_all: str = "allfives tournament show",  # i18n: a command
) -> list[Text]:
    """The tournament as rows of at most `width` columns: its name and code, what it plays,
    where it stands, the entrants, each round's tables (`last_rounds`: only so many of the
    last, the others counted), the standings and the champion (`plain`: no box drawing, for
    screen readers). `code` is what finds it, shown in its title (a private one's CODE-INVITE;
    by default the letters of the view). `replay` ("allfives show URL"): each finished table
    whose game the view names gets the command that replays it, under it. `show_all` is the
    command that shows every round, named where the earlier ones are counted."""
    rows: list[str | Table] = []
    title = f"{visible(view.name)} · {visible(code or view.code)}"
    rows += [title, summary_row(view), phase_row(view)]
    rows += entrant_rows(view, you)
    rows += team_rows(view)
    shown = len(view.rounds) if last_rounds is None else max(0, last_rounds)
    earlier = len(view.rounds) - shown
    if earlier > 0:
        said = ngettext(
            "({count} earlier round: {command})",
            "({count} earlier rounds: {command})",
            earlier,
        )
        rows += ["", said.format(count=earlier, command=show_all)]
    games = any(table.game for played in view.rounds[earlier:] for table in played.tables)
    if replay is not None and games:
        rows += ["", _("Under each finished table, the command that replays its game.")]
    for number, played in enumerate(view.rounds, start=1):
        if number > earlier:
            rows.append("")
            rows += round_rows(view, number, played, replay, width)
    if view.standings and view.rounds:
        rows.append("")
        rows.append(standings_table(view, width, plain))
    if view.champion is not None:
        rows.append("")
        rows.append(_("Champion: {name}").format(name=unit_name(view, view.champion)))
    yours = where_you_are(view, you)
    if yours is not None:
        rows += ["", yours]
    return rendered(rows, width)


def rendered(rows: Sequence[str | Table], width: int) -> list[Text]:
    """Rows and tables laid out at `width` columns, one Text a screen row (long lines fold)."""
    console = Console(width=max(20, width), color_system=None, highlight=False)
    out: list[Text] = []
    for row in rows:
        shown = Text(row) if isinstance(row, str) else row
        for line in console.render_lines(shown, console.options, pad=False):
            out.append(Text("".join(segment.text for segment in line).rstrip()))
    return out
