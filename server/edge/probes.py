"""HTTP probes on the game port: liveness (`/healthz`) and readiness (`/readyz`).

- `GET /healthz` answers 200 `ok` whenever the process answers HTTP at all: restart it if not.
- `GET /readyz` answers 200 `ready` only while the server accepts WebSocket connections (it is
  neither starting nor stopping) and its store answers (with several processes, also while its
  room notices arrive); otherwise 503 with the reasons, one a line. Send it no players then:
  docker-compose.yml, the Dockerfile and deploy/nginx.conf follow it.

A probe never waits for the store: `StoreWatch` pings it every `PING_EVERY` seconds in the
background, and readiness answers at once from what it last saw. A ping that failed, or that has
gone unanswered for `STALLED_SECONDS`, makes the server not ready until a ping succeeds again.
"""

from __future__ import annotations

import asyncio
import time
from collections.abc import Callable
from http import HTTPStatus
from typing import TYPE_CHECKING

from websockets.datastructures import Headers
from websockets.http11 import Response

from server.storage.store import Store, StoreUnavailable

if TYPE_CHECKING:
    from server.edge.door import Door

LIVENESS = "/healthz"
READINESS = "/readyz"
PATHS = frozenset({LIVENESS, READINESS})
#: How often the store is pinged, how long a ping may take, and how long one may go unanswered
#: before the store counts as unavailable.
PING_EVERY = 0.5
PING_SECONDS = 1.0
STALLED_SECONDS = 0.5


class StoreWatch:
    """The store's health as last seen by a ping in the background (see the module docstring)."""

    def __init__(self, store: Store) -> None:
        self.store = store
        self.trouble: str | None = "store not checked yet"
        self._asked: float | None = None

    async def ping(self) -> None:
        """Ping the store once and note what came of it."""
        self._asked = time.monotonic()
        try:
            await asyncio.wait_for(self.store.ping(), PING_SECONDS)
        except StoreUnavailable as error:
            self.trouble = f"store unavailable: {error}"
        except TimeoutError:
            self.trouble = f"store unavailable: no answer within {PING_SECONDS:g} s"
        else:
            self.trouble = None
        finally:
            self._asked = None

    async def run(self) -> None:
        """Ping every PING_EVERY seconds, until cancelled."""
        while True:
            await self.ping()
            await asyncio.sleep(PING_EVERY)

    def problem(self) -> str | None:
        """Why the store counts as unavailable now (None: it answered its last ping in time)."""
        asked = self._asked
        if asked is not None and time.monotonic() - asked > STALLED_SECONDS:
            return f"store unavailable: no answer for {time.monotonic() - asked:.1f} s"
        return self.trouble


class Probes:
    """The two probes, from the door, the store's watch and what storing has to say."""

    def __init__(self, door: Door, watch: StoreWatch, problems: Callable[[], list[str]]) -> None:
        self.door = door
        self.watch = watch
        self.problems = problems

    def answer(self, path: str) -> Response:
        """The response to a probe at `path` (one of PATHS), at once."""
        if path == LIVENESS:
            return text_response(HTTPStatus.OK, "ok\n")
        reasons = self.not_ready()
        if reasons:
            body = "".join(f"{reason}\n" for reason in reasons)
            return text_response(HTTPStatus.SERVICE_UNAVAILABLE, body)
        return text_response(HTTPStatus.OK, "ready\n")

    def not_ready(self) -> list[str]:
        """Why the server should get no players now (nothing: it is ready)."""
        door, reasons = self.door, []
        if door.starting:
            reasons.append("starting")
        if door.closing:
            reasons.append("stopping")
        if not door.listening():
            reasons.append("not accepting connections")
        trouble = self.watch.problem()
        if trouble is not None:
            reasons.append(trouble)
        reasons.extend(self.problems())
        return reasons


def text_response(status: HTTPStatus, text: str, kind: str = "text/plain") -> Response:
    """A plain-text HTTP response (never cached: probes and refusals say how things are now)."""
    body = text.encode()
    headers = Headers(
        [
            ("Content-Type", f"{kind}; charset=utf-8"),
            ("Content-Length", str(len(body))),
            ("Cache-Control", "no-store"),
        ]
    )
    return Response(status.value, status.phrase, headers, body)
