"""The HTTP side of the one port: the browser table, probes, metrics, and who may upgrade.

`process_request` is the server's `process_request` hook (wrapped by `server.edge.http_guard`):
the browser's files (`server.edge.web`), `/healthz` and `/readyz` (`server.edge.probes`), `/metrics`, and
for `/` the checks before the WebSocket upgrade: behind a trusted proxy, the address it names
holding too many connections (429); the server starting or stopping (503). The server full and
a peer address with too many sockets are turned away before this, at accept (`server.edge.gate`).
"""

from __future__ import annotations

import contextlib
import ipaddress
from collections.abc import Awaitable
from http import HTTPStatus
from typing import TYPE_CHECKING

from websockets.asyncio.server import ServerConnection
from websockets.datastructures import Headers
from websockets.http11 import Request, Response

from server.config import Config
from server.edge import probes

if TYPE_CHECKING:
    from server.app import Server

#: The one path that upgrades to a WebSocket.
WEBSOCKET_PATH = "/"


def process_request(
    server: Server, socket: ServerConnection, request: Request
) -> Response | Awaitable[Response] | None:
    """A response for a plain HTTP request, or None to let `/` upgrade to a WebSocket."""
    page = server.web.response(request)  # the browser table (server.web)
    if page is not None:
        return page
    path = request.path.split("?", 1)[0]
    if path in probes.PATHS:
        return probes.answer(server, path)
    if path == "/metrics":
        rooms = server.registry.rooms
        playing = sum(1 for live in rooms.values() if live.room.phase == "playing")
        counters = server.metrics.text(
            len(rooms), len(server.connections), playing, server.committer.adopted()
        )
        return text_response(HTTPStatus.OK, counters, "text/plain; version=0.0.4")
    if server.closing:
        return text_response(HTTPStatus.SERVICE_UNAVAILABLE, "the server is stopping\n")
    if server.starting:
        return text_response(HTTPStatus.SERVICE_UNAVAILABLE, "the server is starting\n")
    if path != WEBSOCKET_PATH:
        return text_response(HTTPStatus.NOT_FOUND, f"nothing here: connect to {WEBSOCKET_PATH}\n")
    config = server.config
    # The sockets in all and by peer address are counted from accept (`server.edge.gate`); behind a
    # trusted proxy, the address it names is counted here.
    if config.trusts(peer_of(socket)) and server.connections_per_ip.full(
        client_address(config, socket, request)
    ):
        server.metrics.errors["too_many_connections"] += 1
        return text_response(
            HTTPStatus.TOO_MANY_REQUESTS,
            f"at most {config.max_connections_per_ip} connections per address\n",
        )
    return None


def client_address(config: Config, socket: ServerConnection, request: Request | None) -> str:
    """The client's address: the socket's peer, or from a trusted proxy the one it names."""
    peer = peer_of(socket)
    if request is not None and config.trusts(peer):
        for header in ("X-Real-IP", "X-Forwarded-For"):
            named = request.headers.get(header, "").rsplit(",", 1)[-1].strip()
            with contextlib.suppress(ValueError):
                return str(ipaddress.ip_address(named))  # anything else is ignored
    return peer


def peer_of(socket: ServerConnection) -> str:
    """The address the socket comes from."""
    remote = socket.remote_address
    return str(remote[0]) if remote else "unknown"


def text_response(status: HTTPStatus, text: str, kind: str = "text/plain") -> Response:
    """A plain-text response."""
    body = text.encode()
    headers = Headers(
        [("Content-Type", f"{kind}; charset=utf-8"), ("Content-Length", str(len(body)))]
    )
    return Response(status.value, status.phrase, headers, body)
