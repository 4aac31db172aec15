"""`/review`: after a match, the player's points lost and costliest moves, by the hard bot.

The server's review comes first: when the room names the finished match's archived game
(`game_id`), it is asked for with `GET /api/games/ID/review` (`clients.cli.api`), worked out
once on the server and kept. A busy server says when to ask again. A server with no review to
give (an older one, or no archived game) leaves it to this process: the client downloads the
match with the protocol's `record` message and reviews it itself with `bridge.reviews` (the
review `allfives analyze` runs), imported only then: it brings the engine into the client, which
otherwise knows only the protocol. Either way the record or review comes from the server and is
checked before anything is shown; the words are `clients.cli.review_words`.
"""

from __future__ import annotations

import asyncio
from collections.abc import Callable
from typing import TYPE_CHECKING

from rich.text import Text

from clients.cli.api import Api, ApiError
from clients.cli.connection import Connection
from clients.cli.i18n import _, ngettext
from clients.cli.review_words import names_of, summary_text
from clients.cli.state import TableState
from protocol import messages as msg
from protocol.api import GamesPage
from protocol.records import Record
from protocol.review import REVIEW_VERSION, Review

if TYPE_CHECKING:
    from clients.cli.app import App

#: Search per decision: the same as `allfives analyze` by default.
BUDGET_MS = 200.0
#: How long to wait for the server's record.
WAIT_SECONDS = 15.0

Progress = Callable[[int, int], None]


def wanted(line: str) -> bool:
    """Whether a typed line asks for a review."""
    return line.strip().lower() == "/review"


def refusal(state: TableState) -> str | None:
    """Why there is nothing to review now (None: a finished match this client played in)."""
    view = state.view
    if view is None:
        return _("not in a room yet")
    if view.phase != "finished":
        return _("a review is for a finished match: /review once it is over")
    if view.you is None:
        return _("only a seated player has moves to review")
    return None


async def run(app: App) -> bool:
    """`/review` at the table: the rows take the log's place until the next line is typed."""
    state = app.state
    app.extra = []
    app.pending = None
    loop = asyncio.get_running_loop()

    def progress(done: int, total: int) -> None:
        def show() -> None:
            said = _("Reviewing your moves with the hard bot: {done} of {total}")
            state.say(said.format(done=done, total=total))
            app.request_redraw()

        loop.call_soon_threadsafe(show)

    outcome = await review(app.connection, state, progress)
    if isinstance(outcome, str):
        state.say(outcome, "error")
    else:
        app.extra = outcome
        state.say(_("Review done: what each costly move gave up, by the hard bot's search"))
    app.request_redraw()
    return True


async def review(
    connection: Connection, state: TableState, progress: Progress | None = None
) -> list[Text] | str:
    """The player's review as rows, or why there is none (in words)."""
    refused = refusal(state)
    if refused is not None:
        return refused
    seat = state.view.you if state.view is not None else None
    assert seat is not None
    served = await from_server(connection, state, seat)
    if served is not None:
        return served
    record = await fetch(connection, state)
    if isinstance(record, str):
        return record
    from bridge.reviews import AnalysisError, review_record

    try:
        report = await asyncio.to_thread(review_record, record, [seat], BUDGET_MS, 0, progress)
    except AnalysisError as error:
        return _("the server's record cannot be reviewed: {reason}").format(reason=error)
    rows = [Text(" " + _("Review of your moves (the hard bot's search, from what you could see)"))]
    for player in report.players:
        rows += summary_text(player, record.names)
    return rows


async def from_server(
    connection: Connection, state: TableState, seat: int
) -> list[Text] | str | None:
    """The server's review of the finished match as rows, why it cannot give one now (busy),
    or None when it has none to give (the client then reviews the record itself)."""
    api = Api(connection.url, connection.key)
    game = getattr(state.view, "game_id", None)
    if not isinstance(game, str) or not game:
        game = await archived_game(api, state)
    if game is None:
        return None
    try:
        report = await asyncio.to_thread(api.get, api.review_path(game), Review, "review")
    except ApiError as error:
        if error.status == 503 and error.code == "busy":
            if error.retry:
                said = ngettext(
                    "the server is busy with other reviews: /review again in {count} second",
                    "the server is busy with other reviews: /review again in {count} seconds",
                    error.retry,
                )
                return said.format(count=error.retry)
            return _("the server is busy with other reviews: /review again in a few seconds")
        return None
    if report.version < REVIEW_VERSION:
        return None  # an older server's review, in other points: worked out here instead
    names = names_of(report, len(state.view.seats) if state.view is not None else 0)
    rows = [Text(" " + _("Review of your moves (the server's hard bot, from what you could see)"))]
    for player in report.players:
        if player.seat == seat:
            rows += summary_text(player, names)
    return rows


async def archived_game(api: Api, state: TableState) -> str | None:
    """The id of the room's finished match in the server's archive, found among this player's
    latest games (the same players, hands and scores as the room's record), or None."""
    if state.player is None or connection_key_missing(api):
        return None
    record = state.record
    view = state.view
    if view is None or view.game is None:
        return None
    names = [seat.name if seat is not None else "" for seat in view.seats]
    try:
        page = await asyncio.to_thread(
            api.get,
            api.games_path(state.player, 0, 5),
            GamesPage,
            "games list",  # i18n: not shown
        )
    except ApiError:
        return None
    for game in page.games:
        same_players = [p.name for p in sorted(game.players, key=lambda p: p.seat)] == names
        same_scores = game.scores == list(view.game.scores)
        same_hands = record is None or game.hands == len(record.hands)
        if same_players and same_scores and same_hands:
            return game.id
    return None


def connection_key_missing(api: Api) -> bool:
    """Without a key the asker is a guest: its games are in nobody's list."""
    return api.key is None


async def fetch(connection: Connection, state: TableState) -> Record | str:
    """Ask the server for the finished match's record and wait for it (or for its refusal)."""
    got = asyncio.Event()
    notice = state.notice
    state.record = None
    previous = connection.on_change

    def changed() -> None:
        previous()
        now = state.notice
        refused = now is not None and now is not notice and now.kind == "error"
        if state.record is not None or refused:
            got.set()

    connection.on_change = changed
    try:
        if not await connection.send(msg.GetRecord()):
            return _("not connected: the record could not be asked for")
        await asyncio.wait_for(got.wait(), WAIT_SECONDS)
    except TimeoutError:
        return _("the server did not send the match's record")
    finally:
        connection.on_change = previous
    if state.record is None:
        assert state.notice is not None
        return state.notice.text
    return state.record
