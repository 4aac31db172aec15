"""A stored tournament as its followers see it (protocol/tournaments.py): the public view, which
entrant a player is and the room of their table. Pure, like the rest of the package.

The view holds no player ids (a player's key's id is the server's own): entrants by the names
they joined under, the host by the name given. A table's `room` is as the desk opened it: for a
private tournament `CODE-INVITE`, shown only to those who found the tournament with its invite.
"""

from __future__ import annotations

from protocol.tournaments import (
    EntrantView,
    RoundView,
    StandingView,
    TableView,
    TournamentView,
)
from server.tournaments.stored import Tournament, champion, current_standings


def public_view(tournament: Tournament, *, code: str, version: int, host: str) -> TournamentView:
    """The tournament as anyone who may see it sees it: `code` its letters alone, `version` as
    stored, `host` the host's name."""
    started = tournament.phase != "open"
    return TournamentView(
        code=code,
        name=tournament.name,
        format=tournament.format,
        rules=tournament.rules,
        partners=tournament.partners,
        rounds_planned=tournament.planned,
        public=tournament.public,
        turn_seconds=tournament.turn_seconds,
        host=host,
        phase=tournament.phase,
        version=version,
        entrants=[
            EntrantView(name=entrant.name, bot=entrant.bot) for entrant in tournament.entrants
        ],
        units=[list(members) for members in tournament.units],
        rounds=[
            RoundView(
                tables=[
                    TableView(
                        seats=list(table.seats),
                        room=table.room,
                        scores=None if table.scores is None else list(table.scores),
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
            )
            for line in (current_standings(tournament) if started else [])
        ],
        champion=champion(tournament),
    )


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
