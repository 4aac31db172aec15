"""`GET /api/games/ID/review`: the hard bot's review of a finished game, as JSON.

The game's record is found as the API finds a game (`Find`: by id, with the asker's key from
`Authorization: Key <key>` so a private room's game is found for its players only); a game not
found, or not the asker's to see, is 404 `not_found`, alike. The review comes from the review
lane (`server.play.reviews.ReviewDesk`: once per game, then kept); past its bound the answer is
503 `busy` with Retry-After. The body is `protocol.review.Review`; errors are
`{"error": code, "message": text}`; it takes no query (any is 400 `bad_request`, as in
`server.edge.query`). The request is charged to the asker's address like any
other of the API (`server.edge.api`: `rate_limited` past its budget). Every answer carries the
page's security headers and `Cache-Control: no-store`, as the API's do.
"""

from __future__ import annotations

import logging
import math
from collections.abc import Awaitable, Callable
from http import HTTPStatus
from urllib.parse import urlsplit

import msgspec
from websockets.datastructures import Headers
from websockets.http11 import Request, Response

from protocol import errors
from protocol.records import encode_record
from server.edge.api import Api, ApiRefusal, Asked, authorization_key
from server.edge.query import BadQuery, read_query
from server.edge.web import security_headers
from server.play.reviews import ReviewDesk, ReviewsBusy
from server.storage.store import StoreUnavailable

log = logging.getLogger("allfives.server")

#: Finds a game's record (JSON) by id for an asker's key (None: no key); None if not theirs.
Find = Callable[[str, str | None], Awaitable[bytes | None]]


def asker_key(request: Request) -> str | None:
    """The asker's player key (`server.edge.api.authorization_key`), or None: a header that
    holds no key asks as anyone, as no header does."""
    try:
        return authorization_key(request)
    except ApiRefusal:
        return None


class ReviewAnswers:
    """`GET /api/games/ID/review` answered from the review desk, the games found as the API
    finds them (`game_record`) and each request charged to the API's budget (`charge`)."""

    def __init__(self, desk: ReviewDesk, api: Api) -> None:
        self.desk = desk
        self.api = api

    def answer(self, request: Request, game_id: str, address: str) -> Awaitable[Response]:
        """The answer to a review request from `address` (`HttpSide`'s `review`)."""
        return answer_review(self.desk, self.game_record, request, game_id, self.charge(address))

    async def game_record(self, game_id: str, key: str | None) -> bytes | None:
        """An archived game's record (JSON) for the asker of `key` (`archived_record`)."""
        return await archived_record(self.api, await self.api.asker(key), game_id)

    def charge(self, address: str) -> float | None:
        """Charge one API request to an address: None, or the seconds to wait (over budget)."""
        return self.api.charge(address)


async def archived_record(api: Api, asker: str | None, game_id: str) -> bytes | None:
    """An archived game's record (JSON) for the player `asker` (None: a guest), as the API
    finds a game: None when there is none, or it is a private room's game the asker did not
    play. The HTTP API and the WebSocket find a game to review by it."""
    try:
        detail = await api.game(Asked([], asker), game_id)
    except ApiRefusal:
        return None
    return encode_record(detail.record)


class ReviewRefused(Exception):
    """A review the lane did not answer: `busy` (ask again in `retry_after` seconds) or
    `unavailable` (it failed), with the sentence both front ends say."""

    def __init__(self, code: str, message: str, retry_after: int | None = None) -> None:
        super().__init__(message)
        self.code = code
        self.message = message
        self.retry_after = retry_after


async def work_out_review(desk: ReviewDesk, game_id: str, record: bytes) -> bytes:
    """The review (JSON) of the archived game `game_id` whose record is `record`, from the
    review lane; ReviewRefused if it is busy or the review fails (logged). Both the HTTP API
    and the WebSocket ask the lane through it."""
    try:
        return await desk.review(game_id, record)
    except ReviewsBusy as busy:
        raise ReviewRefused(
            errors.BUSY,
            f"the server is busy with other reviews: try again in {busy.retry_after} s",
            busy.retry_after,
        ) from None
    except Exception:
        log.exception("game %s: the review failed", game_id)
        raise ReviewRefused(errors.UNAVAILABLE, "the review could not be worked out") from None


async def answer_review(
    desk: ReviewDesk, find: Find, request: Request, game_id: str, wait: float | None = None
) -> Response:
    """The answer to `GET /api/games/ID/review` (see the module docstring); `wait`: the asker's
    address is over the API's budget, to ask again in that many seconds (`rate_limited`)."""
    host = request.headers.get("Host")
    if wait is not None:
        return json_error(
            HTTPStatus.TOO_MANY_REQUESTS,
            "rate_limited",
            "too many requests from your address",
            host,
            [("Retry-After", str(math.ceil(wait)))],
        )
    try:
        read_query(urlsplit(request.path).query, ())
    except BadQuery as bad:
        return json_error(HTTPStatus.BAD_REQUEST, "bad_request", bad.message, host)
    try:
        record = await find(game_id, asker_key(request))
    except StoreUnavailable:
        return json_error(
            HTTPStatus.SERVICE_UNAVAILABLE, "unavailable", "the store cannot be reached", host
        )
    if record is None:
        return json_error(HTTPStatus.NOT_FOUND, "not_found", "no such game", host)
    try:
        review = await work_out_review(desk, game_id, record)
    except ReviewRefused as refused:
        if refused.retry_after is None:
            return json_error(HTTPStatus.INTERNAL_SERVER_ERROR, refused.code, refused.message, host)
        return json_error(
            HTTPStatus.SERVICE_UNAVAILABLE,
            refused.code,
            refused.message,
            host,
            [("Retry-After", str(refused.retry_after))],
        )
    return json_answer(HTTPStatus.OK, review, host)


def json_answer(
    status: HTTPStatus, body: bytes, host: str | None, extra: list[tuple[str, str]] | None = None
) -> Response:
    """A JSON answer with the page's security headers."""
    headers = Headers(
        [
            ("Content-Type", "application/json"),
            ("Content-Length", str(len(body))),
            *[(name, value) for name, value in security_headers(host) if name != "Cache-Control"],
            ("Cache-Control", "no-store"),
            *(extra or []),
        ]
    )
    return Response(status.value, status.phrase, headers, body)


def json_error(
    status: HTTPStatus,
    code: str,
    message: str,
    host: str | None,
    extra: list[tuple[str, str]] | None = None,
) -> Response:
    """An error as `{"error": code, "message": text}`."""
    body = msgspec.json.encode({"error": code, "message": message})
    return json_answer(status, body, host, extra)
