"""The tournaments in the HTTP API (`server.edge.api` routes to these): `GET /api/tournaments`,
a page of the public ones, and `GET /api/tournaments/ID`, one tournament's public view, the very
`TournamentView` the desk sends its followers (`server.desk.kept.view_of`).

A private tournament is never listed, and is answered only when `ID` carries its invite
(`CODE-INVITE`, as the desk gives it to its host): asked without it, or with a wrong one, it gets
the very answer a missing tournament gets, so nobody learns that it exists.

The list loads every stored tournament (`store.tournaments`, bounded by `--max-tournaments`) to
keep the public ones; its order is documented in protocol/README.md ("HTTP API").
"""

from __future__ import annotations

from protocol import api
from protocol.tournaments import TournamentView
from server.desk.kept import CODE_LENGTH, decode, opens, split, summary_of, view_of
from server.storage.tournaments import TournamentStore

#: The list's order: open tournaments first (they take entrants), then those playing, then the
#: finished; by code within each.
PHASE_ORDER = {"open": 0, "playing": 1, "finished": 2}


async def public_tournaments(store: TournamentStore) -> list[api.TournamentSummary]:
    """Every public tournament stored, in the list's order (PHASE_ORDER)."""
    found = []
    for code in await store.codes():
        stored = await store.load(code)
        if stored is None:  # deleted since the codes were read
            continue
        kept = decode(stored.state)
        if kept.tournament.public:
            found.append(summary_of(code, kept))
    found.sort(key=lambda summary: (PHASE_ORDER[summary.phase], summary.code))
    return found


async def tournament_view(store: TournamentStore, id: str) -> TournamentView | None:
    """The public view of the tournament `id` finds (`CODE`, or `CODE-INVITE` for a private
    one), or None when it finds none the asker may see."""
    code, invite = split(id)
    if len(code) != CODE_LENGTH or not code.isalpha():
        return None
    stored = await store.load(code)
    if stored is None:
        return None
    kept = decode(stored.state)
    if not opens(kept, invite):
        return None
    return view_of(code, kept, stored.version)
