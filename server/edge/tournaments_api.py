"""The tournaments in the HTTP API (`server.edge.api` routes to these): `GET /api/tournaments`,
a page of the public ones, and `GET /api/tournaments/ID`, one tournament's public view, the very
`TournamentView` the desk sends its followers (`server.desk.kept.view_of`).

A private tournament is never listed, and is answered only when `ID` carries its invite
(`CODE-INVITE`, as the desk gives it to its host): asked without it, or with a wrong one, it gets
the very answer a missing tournament gets, so nobody learns that it exists.

The list reads one page: the store's index of the public tournaments gives the page's codes,
newest first (`TournamentStore.public_page`), and only those are loaded; its order is documented
in protocol/README.md ("HTTP API").
"""

from __future__ import annotations

from protocol import api
from protocol.tournaments import TournamentView
from server.desk.kept import CODE_LENGTH, decode, opens, split, summary_of, view_of
from server.storage.tournaments import TournamentStore


async def public_tournaments(
    store: TournamentStore, offset: int, limit: int
) -> tuple[int, list[api.TournamentSummary]]:
    """How many public tournaments are stored, and a page of them: `limit` from `offset`,
    newest first."""
    total, page = await store.public_page(offset, limit)
    found = []
    for code in page:
        stored = await store.load(code)
        if stored is not None:  # deleted since the page was read
            found.append(summary_of(code, decode(stored.state)))
    return total, found


async def tournament_view(
    store: TournamentStore, id: str, asker: str | None = None
) -> TournamentView | None:
    """The public view of the tournament `id` finds (`CODE`, or `CODE-INVITE` for a private
    one), or None when it finds none the asker may see; a private tournament's games are shown
    only to the `asker` (a player id) who sat at their tables, as the archive answers them."""
    code, invite = split(id)
    if len(code) != CODE_LENGTH or not code.isalpha():
        return None
    stored = await store.load(code)
    if stored is None:
        return None
    kept = decode(stored.state)
    if not opens(kept, invite):
        return None
    return view_of(code, kept, stored.version, asker)
