"""The read-only HTTP API: `GET /api/...`, JSON answers of `protocol.api` (protocol/README.md).

`Api.answer` is called by `server.edge.http` for every path under `/api/`, with the route the
port's table found for it (`server.edge.routes`; `Api.handlers` answers each): the asker's address
is charged one request (per address, `api_burst` at once then `api_per_second`, an IPv6 /64
counting as one: `rate_limited` past them), the asker's key is read from `Authorization: Key
<key>` (hashed at once, never kept, logged or answered), the route reads its query strictly
(`server.edge.query`: only its own parameters, each once), and answers from the ledger
(`server.storage.archive`) or, for tournaments, from `store.tournaments`
(`server.edge.tournaments_api`). A private room's game is answered only to a player who sat in it:
anyone else gets the very answer a missing game gets; a private tournament only to one who gives
its invite. Every answer carries the page's security
headers (`server.edge.web`) and `Cache-Control: no-store`.
"""

from __future__ import annotations

import re
import time
from collections.abc import Awaitable, Callable
from http import HTTPStatus
from urllib.parse import unquote, urlsplit

import msgspec
from websockets.datastructures import Headers
from websockets.http11 import Request, Response

from bridge.positions import positions_of
from protocol import api
from protocol.messages import KEY_PATTERN, MAX_NAME_LENGTH
from protocol.names import name_key
from protocol.positions import Position
from protocol.ratings import BOT_PLAYERS, GAME_ID_PATTERN, LADDERS
from protocol.rules import Rules
from protocol.tournaments import TournamentView
from server.edge.query import BadQuery, number, read_query
from server.edge.tournaments_api import public_tournaments, tournament_view
from server.edge.web import security_headers
from server.play.budgets import AddressBuckets
from server.play.ratings import MU, SIGMA, Standing
from server.play.weighting import established
from server.storage.archive import Archived, Ledger, StoredRating, key_hash
from server.storage.store import StoreUnavailable
from server.storage.tournaments import TournamentStore

#: The longest request target served (path and query).
MAX_TARGET = 512
MAX_OFFSET = 100_000
#: What the games of a player and the tournaments may be asked with; the other routes take no
#: query.
GAMES_QUERY = ("offset", "limit")
TOURNAMENTS_QUERY = ("offset", "limit")
_KEY = re.compile(f"Key ({KEY_PATTERN})")
_GAME = re.compile(GAME_ID_PATTERN)

#: An API route's handler (`Api.handlers`): the query parameters it takes, and its answer to
#: the request and the path's segments.
ApiHandler = tuple[tuple[str, ...], Callable[["Asked", list[str]], Awaitable[api.AnyApiAnswer]]]


class ApiRefusal(Exception):
    """A request answered with an `ApiError`."""

    def __init__(self, code: str, message: str, retry_after: float | None = None) -> None:
        super().__init__(message)
        self.code = code
        self.message = message
        self.retry_after = retry_after


NOT_FOUND_GAME = ApiRefusal(api.NOT_FOUND, "no such game")
#: A missing tournament's answer, and a private one's asked without its invite.
NOT_FOUND_TOURNAMENT = ApiRefusal(api.NOT_FOUND, "no such tournament")


def authorization_key(request: Request) -> str | None:
    """The player key of `Authorization: Key <key>` (never logged), None without the header;
    ApiRefusal `bad_request` for one that does not hold a key."""
    given = request.headers.get("Authorization")
    if given is None:
        return None
    found = _KEY.fullmatch(given.strip())
    if found is None:
        raise ApiRefusal(api.BAD_REQUEST, 'Authorization: "Key " and the player key')
    return found.group(1)


class Asked:
    """One request: its path parts, its query (read by the route: `read`), and the asker's
    player id (None: anyone)."""

    def __init__(self, parts: list[str], asker: str | None, query: str = "") -> None:
        self.parts = parts
        self.asker = asker
        self.query = query
        self.fields: dict[str, str] = {}

    def read(self, *allowed: str) -> None:
        """Read the query, which may hold only `allowed` (`bad_request` otherwise)."""
        try:
            self.fields = read_query(self.query, allowed)
        except BadQuery as bad:
            raise ApiRefusal(api.BAD_REQUEST, bad.message) from None

    def number(self, name: str, default: int, least: int, most: int) -> int:
        """A query parameter as a number from `least` to `most` (`bad_request` otherwise)."""
        try:
            return number(self.fields, name, default, least, most)
        except BadQuery as bad:
            raise ApiRefusal(api.BAD_REQUEST, bad.message) from None


class Api:
    """Answers `/api/...` (module docstring)."""

    def __init__(
        self,
        ledger: Ledger,
        tournaments: TournamentStore,
        burst: int = 30,
        per_second: float = 5.0,
    ) -> None:
        self.ledger = ledger
        self.tournaments = tournaments
        self.budget = AddressBuckets(burst, per_second)
        self.answered = 0
        self.refused = 0

    def handlers(self) -> dict[str, ApiHandler]:
        """What answers each of the API's routes (`server.edge.routes.ROUTES`, by name): the
        query it takes and the answer, given the request and the path's segments (unquoted)."""
        return {
            "api.ladder": ((), lambda asked, _: self.ladder()),
            "api.player": ((), lambda asked, found: self.player(asked, found[0])),
            "api.games": (GAMES_QUERY, lambda asked, found: self.games(asked, found[0])),
            "api.game": ((), lambda asked, found: self.game(asked, found[0])),
            "api.positions": ((), lambda asked, found: self.positions(asked, found[0])),
            "api.tournaments": (TOURNAMENTS_QUERY, lambda asked, _: self.tournament_list(asked)),
            "api.tournament": ((), lambda asked, found: self.tournament(found[0], asked.asker)),
        }

    async def answer(
        self, request: Request, address: str, route: str = "api.other", found: tuple[str, ...] = ()
    ) -> Response:
        """The response to one API request, to the route `route` (`server.edge.routes`) with
        the path's segments `found` as written (any other name: the API's `not_found`)."""
        host = request.headers.get("Host")
        try:
            wait = self.charge(address)
            if wait is not None:
                raise ApiRefusal(
                    api.RATE_LIMITED, "too many requests from your address", retry_after=wait
                )
            body = await self._route(request, route, found)
        except ApiRefusal as refusal:
            self.refused += 1
            return _json(
                api.API_STATUS[refusal.code],
                api.encode_answer(api.ApiError(error=refusal.code, message=refusal.message)),
                host,
                refusal.retry_after,
            )
        except StoreUnavailable:
            self.refused += 1
            error = api.ApiError(error=api.UNAVAILABLE, message="the store cannot be reached")
            return _json(503, api.encode_answer(error), host)
        self.answered += 1
        return _json(200, api.encode_answer(body), host)

    def charge(self, address: str) -> float | None:
        """Charge one request to an address's budget: None, or the seconds to wait (over it;
        nothing charged). The review and the WebSocket's archived games are charged here too."""
        now = time.monotonic()
        if self.budget.take(address, now):
            return None
        return max(1.0, self.budget.wait(address, now))

    async def _route(
        self, request: Request, route: str, found: tuple[str, ...]
    ) -> api.AnyApiAnswer:
        if len(request.path) > MAX_TARGET:
            raise ApiRefusal(api.BAD_REQUEST, f"a request target has at most {MAX_TARGET} bytes")
        target = urlsplit(request.path)
        try:
            parts = [unquote(part, errors="strict") for part in target.path.split("/")[2:]]
        except UnicodeDecodeError:
            raise ApiRefusal(api.BAD_REQUEST, "the path is not UTF-8") from None
        asker = await self.asker(authorization_key(request))
        asked = Asked(parts, asker, target.query)
        handler = self.handlers().get(route)
        if handler is None:
            raise ApiRefusal(api.NOT_FOUND, "no such API path")
        query, answer = handler
        asked.read(*query)
        return await answer(asked, [unquote(segment, errors="strict") for segment in found])

    async def asker(self, key: str | None) -> str | None:
        """The id of the player whose key the asker gave (`authorization_key`), or None (no
        key, or one no player holds: asked as anyone)."""
        if key is None:
            return None
        player = await self.ledger.player_of_key(key_hash(key))
        return None if player is None else player.id

    # -- the routes --------------------------------------------------------------------------

    async def ladder(self) -> api.LadderAnswer:
        """Every ladder, best first, with the bot levels."""
        ladders = []
        for ladder in LADDERS:
            total, rows = await self.ledger.ladder(ladder, api.MAX_LADDER_ENTRIES)
            shown = {id for id, _ in rows}
            missing = [bot for bot in BOT_PLAYERS if bot not in shown]
            found = await self.ledger.ratings(ladder, missing) if missing else {}
            for bot in missing:
                held = found.get(bot)
                rows.append((bot, held[0] if held else StoredRating(MU, SIGMA)))
            rows.sort(key=lambda row: (-_standing(row[1]).ordinal, row[0]))
            names = await self.ledger.names([id for id, _ in rows if id not in BOT_PLAYERS])
            entries = [
                api.LadderEntry(
                    name=id if id in BOT_PLAYERS else names.get(id, "?"),
                    rating=_standing(held).wire(),
                    games=held.games,
                    wins=held.wins,
                    bot=id in BOT_PLAYERS,
                    provisional=not established(id, _standing(held)),
                )
                for id, held in rows
            ]
            ladders.append(api.Ladder(ladder=ladder, entries=entries, total=total))
        return api.LadderAnswer(ladders=ladders)

    async def player(self, asked: Asked, name: str) -> api.PlayerAnswer:
        """A player's ratings, counts and rating history."""
        id, shown = await self._find(name)
        everything = asked.asker == id
        games, wins = await self.ledger.counts(id, everything)
        standings = await self.ledger.standings(id)
        history = await self.ledger.history(id, everything)
        return api.PlayerAnswer(
            name=shown,
            bot=id in BOT_PLAYERS,
            ratings=[
                api.PlayerRating(
                    ladder=ladder,
                    rating=_standing(held).wire(),
                    games=held.games,
                    wins=held.wins,
                    provisional=not established(id, _standing(held)),
                )
                for ladder, held in standings.items()
            ],
            games=games,
            wins=wins,
            history=history[-api.MAX_HISTORY_POINTS :],
            you=everything,
        )

    async def games(self, asked: Asked, name: str) -> api.GamesPage:
        """A page of a player's games, newest first."""
        id, shown = await self._find(name)
        offset = asked.number("offset", 0, 0, MAX_OFFSET)
        limit = asked.number("limit", api.DEFAULT_GAMES_PAGE, 1, api.MAX_GAMES_PAGE)
        total, found = await self.ledger.games_of(id, asked.asker == id, offset, limit)
        return api.GamesPage(
            name=shown,
            offset=offset,
            limit=limit,
            total=total,
            games=[_summary(game) for game in found],
        )

    async def game(self, asked: Asked, id: str) -> api.GameDetail:
        """One game with its record; a private room's only for its players."""
        if not _GAME.fullmatch(id):
            raise NOT_FOUND_GAME
        found = await self.ledger.game(id)
        if found is None or not _may_see(found, asked.asker):
            raise NOT_FOUND_GAME
        return _with_sides(found.detail)

    async def positions(self, asked: Asked, id: str) -> api.GamePositions:
        """The table after each step of one game, as its replay draws it (the game's access)."""
        detail, positions = await self.replay(asked, id)
        return api.GamePositions(id=detail.id, positions=positions)

    async def replay(self, asked: Asked, id: str) -> tuple[api.GameDetail, list[Position]]:
        """One game and the table after each of its steps (`positions` over HTTP, `record`
        with `game` on the WebSocket)."""
        detail = await self.game(asked, id)
        return detail, positions_of(detail.record)

    async def tournament_list(self, asked: Asked) -> api.TournamentsPage:
        """A page of the public tournaments (`server.edge.tournaments_api`)."""
        offset = asked.number("offset", 0, 0, MAX_OFFSET)
        limit = asked.number("limit", api.DEFAULT_TOURNAMENTS_PAGE, 1, api.MAX_TOURNAMENTS_PAGE)
        total, found = await public_tournaments(self.tournaments, offset, limit)
        return api.TournamentsPage(offset=offset, limit=limit, total=total, tournaments=found)

    async def tournament(self, id: str, asker: str | None = None) -> TournamentView:
        """One tournament's public view; a private one only with its invite in `id`, and its
        private games only to the `asker` who played them."""
        view = await tournament_view(self.tournaments, id, asker)
        if view is None:
            raise NOT_FOUND_TOURNAMENT
        return view

    async def _find(self, name: str) -> tuple[str, str]:
        """The id and name of the player (or bot level) a name in a URL reads as."""
        cleaned = name.strip()
        if cleaned in BOT_PLAYERS:
            return cleaned, cleaned
        if not cleaned or len(cleaned) > MAX_NAME_LENGTH or not cleaned.isprintable():
            raise ApiRefusal(api.BAD_REQUEST, f"a name has 1 to {MAX_NAME_LENGTH} characters")
        player = await self.ledger.player_named(name_key(cleaned))
        if player is None:
            raise ApiRefusal(api.NOT_FOUND, "no such player")
        return player.id, player.name


def _may_see(archived: Archived, asker: str | None) -> bool:
    return not archived.detail.private or (asker is not None and asker in archived.members)


def _with_sides(detail: api.GameDetail) -> api.GameDetail:
    """The game with each seat's side said (games archived before `side` was kept lack it)."""
    return msgspec.structs.replace(detail, players=_sided(detail.rules, detail.players))


def _sided(rules: Rules, players: list[api.GamePlayer]) -> list[api.GamePlayer]:
    side_of = rules.side_of
    return [msgspec.structs.replace(player, side=side_of(player.seat)) for player in players]


def _summary(archived: Archived) -> api.GameSummary:
    detail = archived.detail
    return api.GameSummary(
        id=detail.id,
        finished_at=detail.finished_at,
        rules=detail.rules,
        players=_sided(detail.rules, detail.players),
        scores=detail.scores,
        winner=detail.winner,
        hands=detail.hands,
        ladder=detail.ladder,
        private=detail.private,
        changes=detail.changes,
    )


def _standing(held: StoredRating) -> Standing:
    return Standing(held.mu, held.sigma, held.games, held.wins, held.played, tuple(held.opponents))


def _json(status: int, body: bytes, host: str | None, retry_after: float | None = None) -> Response:
    phrase = HTTPStatus(status).phrase
    headers = Headers(
        [
            ("Content-Type", "application/json"),
            ("Content-Length", str(len(body))),
            *[(name, value) for name, value in security_headers(host) if name != "Cache-Control"],
            ("Cache-Control", "no-store"),
        ]
    )
    if retry_after is not None:
        headers["Retry-After"] = str(int(retry_after + 0.999))
    return Response(status, phrase, headers, body)


__all__ = ["Api", "ApiRefusal"]
