"""Before any HTTP handling: only GET and HEAD are served, and HEAD gets headers alone.

`guarded(handler)` wraps the server's `process_request` hook: other methods get 405 before the
handler sees them (probes, metrics and the WebSocket upgrade alike), and a response to HEAD
keeps its headers (Content-Length included) but loses its body.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Awaitable, Callable
from http import HTTPStatus

from websockets.asyncio.server import ServerConnection
from websockets.datastructures import Headers
from websockets.http11 import Request, Response

#: A `process_request` hook: a response now, one to come (`/readyz` asks the store), or None.
Handler = Callable[[ServerConnection, Request], Response | Awaitable[Response] | None]
METHODS = ("GET", "HEAD")


def guarded(handler: Handler) -> Handler:
    """`handler`, answering 405 to methods other than GET and HEAD, and HEAD without a body."""

    def process_request(
        socket: ServerConnection, request: Request
    ) -> Response | Awaitable[Response] | None:
        if request.method not in METHODS:
            return refusal(request.method)
        response = handler(socket, request)
        if response is None or request.method != "HEAD":
            return response
        if isinstance(response, Response):
            return dataclasses.replace(response, body=b"")
        return _without_body(response)

    return process_request


async def _without_body(pending: Awaitable[Response]) -> Response:
    return dataclasses.replace(await pending, body=b"")


def refusal(method: str) -> Response:
    """405 for a method that is not served."""
    status = HTTPStatus.METHOD_NOT_ALLOWED
    body = f"{method} is not served here: only GET and HEAD\n".encode()
    headers = Headers(
        [
            ("Content-Type", "text/plain; charset=utf-8"),
            ("Content-Length", str(len(body))),
            ("Allow", ", ".join(METHODS)),
        ]
    )
    return Response(status.value, status.phrase, headers, body)
