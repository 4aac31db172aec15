"""Around all HTTP handling: HEAD gets headers alone, and a request that makes the handler fail
gets a plain 500.

`guarded(handler)` wraps the server's `process_request` hook (which methods each path takes, and
the 405 for the others, are the route table's: `server.edge.routes`): a response to HEAD keeps
its headers (Content-Length included) but loses its body, and an exception in the handler is
answered 500 "internal error" (the server's own response, which `server.edge.http` gives the
security headers like every other) and logged with its traceback once a minute per kind of
failure (`server.edge.refusals.Throttle`), never once per request.
"""

from __future__ import annotations

import dataclasses
import logging
from collections.abc import Awaitable, Callable
from http import HTTPStatus

from websockets.datastructures import Headers
from websockets.http11 import Request, Response

from server.edge.refusals import Throttle
from server.edge.wire import Wire

log = logging.getLogger("allfives.http")

#: A `process_request` hook: a response now, one to come (`/readyz` asks the store), or None.
Handler = Callable[[Wire, Request], Response | Awaitable[Response] | None]


def guarded(handler: Handler, throttle: Throttle | None = None) -> Handler:
    """`handler`, answering HEAD without a body, and 500 when it fails."""
    failures = throttle or Throttle()

    def process_request(wire: Wire, request: Request) -> Response | Awaitable[Response] | None:
        try:
            response = handler(wire, request)
        except Exception as error:
            return failed(error, failures)
        if isinstance(response, Awaitable):
            return _finished(response, request.method == "HEAD", failures)
        if response is None or request.method != "HEAD":
            return response
        return dataclasses.replace(response, body=b"")

    return process_request


async def _finished(pending: Awaitable[Response], head: bool, failures: Throttle) -> Response:
    try:
        response = await pending
    except Exception as error:
        response = failed(error, failures)
    return dataclasses.replace(response, body=b"") if head else response


def failed(error: Exception, failures: Throttle) -> Response:
    """500 for a request the handler failed on; logged with its traceback once an interval."""
    kind = type(error).__name__
    unlogged = failures.due(kind)
    if unlogged is not None:
        log.error(
            "an HTTP request failed (%s; %d more since the last line, the next in %g s)",
            kind,
            unlogged,
            failures.seconds,
            exc_info=error,
        )
    return plain(HTTPStatus.INTERNAL_SERVER_ERROR, "internal error\n")


def plain(status: HTTPStatus, text: str) -> Response:
    """A plain-text answer, never cached."""
    body = text.encode()
    headers = Headers(
        [
            ("Content-Type", "text/plain; charset=utf-8"),
            ("Content-Length", str(len(body))),
            ("Cache-Control", "no-store"),
        ]
    )
    return Response(status.value, status.phrase, headers, body)
