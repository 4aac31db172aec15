"""HTTP probes on the game port: liveness (`/healthz`) and readiness (`/readyz`).

- `GET /healthz` answers 200 `ok` whenever the process answers HTTP at all: restart it if not.
- `GET /readyz` answers 200 `ready` only while the server accepts WebSocket connections (it is
  neither starting nor stopping) and its store answers a ping within `PING_SECONDS` (with several
  processes, also while its room notices arrive); otherwise 503 with the reasons, one a line.
  Send it no players then: docker-compose.yml, the Dockerfile and deploy/nginx.conf follow it.
"""

from __future__ import annotations

import asyncio
from http import HTTPStatus
from typing import TYPE_CHECKING

from websockets.datastructures import Headers
from websockets.http11 import Response

from server.store import StoreUnavailable

if TYPE_CHECKING:
    from server.app import Server

LIVENESS = "/healthz"
READINESS = "/readyz"
PATHS = frozenset({LIVENESS, READINESS})
#: How long readiness waits for the store's answer.
PING_SECONDS = 1.0


async def answer(server: Server, path: str) -> Response:
    """The response to a probe at `path` (one of PATHS)."""
    if path == LIVENESS:
        return text_response(HTTPStatus.OK, "ok\n")
    reasons = await not_ready(server)
    if reasons:
        return text_response(HTTPStatus.SERVICE_UNAVAILABLE, "".join(f"{r}\n" for r in reasons))
    return text_response(HTTPStatus.OK, "ready\n")


async def not_ready(server: Server) -> list[str]:
    """Why the server should get no players now (nothing: it is ready)."""
    reasons = []
    if server.starting:
        reasons.append("starting")
    if server.closing:
        reasons.append("stopping")
    listening = server.websocket_server
    if listening is None or not listening.is_serving():
        reasons.append("not accepting connections")
    try:
        await asyncio.wait_for(server.store.ping(), PING_SECONDS)
    except StoreUnavailable as error:
        reasons.append(f"store unavailable: {error}")
    except TimeoutError:
        reasons.append(f"store unavailable: no answer within {PING_SECONDS:g}s")
    reasons.extend(server.committer.problems())
    return reasons


def text_response(status: HTTPStatus, text: str) -> Response:
    """A plain-text HTTP response."""
    body = text.encode()
    headers = Headers(
        [
            ("Content-Type", "text/plain; charset=utf-8"),
            ("Content-Length", str(len(body))),
            ("Cache-Control", "no-store"),
        ]
    )
    return Response(status.value, status.phrase, headers, body)
