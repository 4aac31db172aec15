"""A stored tournament as its followers see it (protocol/tournaments.py): the public view, which
entrant a player is and the room of their table. Pure, like the rest of the package.

The view holds no player ids (a player's key's id is the server's own): entrants by the names
they joined under, the host by the name given. A table's `room` is as the desk opened it: for a
private tournament `CODE-INVITE`, shown only to those who found the tournament with its invite.
A table's `game` is its archived game's id, shown to whoever may open that game: anyone, unless
the games are private (a private tournament's unrated matches, as the archive keeps a private
room's), then only to the table's own entrants.
"""

from __future__ import annotations

from typing import TypedDict

from protocol.api import TournamentSummary
from protocol.rules import Rules, TurnSeconds
from protocol.tournaments import (
    EntrantView,
    Format,
    Partners,
    Phase,
    RoundView,
    StandingView,
    TableView,
    TournamentName,
    TournamentView,
)
from server.tournaments.standings import Standing
from server.tournaments.stored import (
    Tournament,
    champion,
    current_standings,
    fixed_teams,
    went_out,
)


class Described(TypedDict):
    """What the public view and the API's list (`summary`) both say of a tournament."""

    code: str
    name: TournamentName
    format: Format
    rules: Rules
    partners: Partners | None
    turn_seconds: TurnSeconds | None
    host: str
    phase: Phase
    rounds_planned: int


def described(tournament: Tournament, *, code: str, host: str) -> Described:
    """The tournament's code, name, format, rules, partners, clock, host's name, phase and
    planned rounds: `code` its letters alone, `host` the host's name."""
    return Described(
        code=code,
        name=tournament.name,
        format=tournament.format,
        rules=tournament.rules,
        partners=tournament.partners,
        turn_seconds=tournament.turn_seconds,
        host=host,
        phase=tournament.phase,
        rounds_planned=tournament.planned,
    )


def summary(tournament: Tournament, *, code: str, host: str) -> TournamentSummary:
    """The tournament's line in the API's list of public tournaments."""
    return TournamentSummary(
        **described(tournament, code=code, host=host),
        entrants=len(tournament.entrants),
        rounds_begun=len(tournament.rounds),
    )


def public_view(
    tournament: Tournament,
    *,
    code: str,
    version: int,
    host: str,
    private_games: bool,
    viewer: int | None = None,
) -> TournamentView:
    """The tournament as anyone who may see it sees it: `code` its letters alone, `version` as
    stored, `host` the host's name; with `private_games`, a table's game only to `viewer` (an
    entrant number) if it sat there."""
    started = tournament.phase != "open"
    out = went_out(tournament)
    return TournamentView(
        **described(tournament, code=code, host=host),
        public=tournament.public,
        version=version,
        entrants=[
            EntrantView(name=entrant.name, bot=entrant.bot) for entrant in tournament.entrants
        ],
        units=units_shown(tournament),
        rounds=[
            RoundView(
                tables=[
                    TableView(
                        seats=list(table.seats),
                        room=table.room,
                        scores=None if table.scores is None else list(table.scores),
                        game=table.game if not private_games or viewer in table.seats else None,
                    )
                    for table in played.tables
                ],
                byes=list(played.byes),
            )
            for played in tournament.rounds
        ],
        standings=[
            StandingView(
                unit=line.unit,
                match_points=line.match_points,
                buchholz=line.buchholz,
                score=line.score,
                played=line.played,
                byes=line.byes,
                out_in_round=out.get(line.unit),
            )
            for line in (standing_order(tournament, out) if started else [])
        ],
        champion=champion(tournament),
    )


def units_shown(tournament: Tournament) -> list[list[int]]:
    """The units: set at the start; before it, fixed partners' teams as they stand (the last
    one alone while it waits for a partner), and none in the other kinds."""
    if tournament.phase == "open":
        return fixed_teams(len(tournament.entrants)) if tournament.partners == "fixed" else []
    return [list(members) for members in tournament.units]


def standing_order(tournament: Tournament, out: dict[int, int]) -> list[Standing]:
    """The standings, best first; in elimination the units still in come first, then those who
    went out, the later the higher (docs/tournaments.md, "Standings")."""
    lines = current_standings(tournament)
    if tournament.format != "elimination":
        return lines
    return sorted(lines, key=lambda line: -out.get(line.unit, len(tournament.rounds) + 1))


def entrant_of(tournament: Tournament, player: str | None) -> int | None:
    """The entrant number of the person with this player id, or None."""
    if player is None:
        return None
    found = [n for n, entrant in enumerate(tournament.entrants) if entrant.player == player]
    return found[0] if found else None


def table_of(tournament: Tournament, entrant: int | None) -> str | None:
    """The room of the entrant's table in the round being played, while it plays there (None:
    no round being played, a bye, the table not opened yet or finished)."""
    if entrant is None or tournament.phase != "playing" or not tournament.rounds:
        return None
    for table in tournament.rounds[-1].tables:
        if entrant in table.seats and table.scores is None:
            return table.room
    return None
