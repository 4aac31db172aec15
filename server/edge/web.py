"""The browser table's static files, served over plain HTTP on the WebSocket port.

`GET /` and `GET /r/CODE` (the link `allfives host` prints) answer the page; `GET /web/...`
answers the files under `clients/web/` (scripts, styles, the vendored JSON Patch library).
A request that asks for a WebSocket upgrade is left to the game server. Every answer carries the
security headers: a Content-Security-Policy that allows only this origin (no inline script, no
third-party origins), nosniff, no framing, no referrer.

The files are found next to the `server` package (`clients/web/`), in a checkout as in a wheel.
"""

from __future__ import annotations

import re
from http import HTTPStatus
from pathlib import Path

from websockets.datastructures import Headers
from websockets.http11 import Request, Response

#: Where the page's files live: `clients/web` beside this package.
WEB_ROOT = Path(__file__).resolve().parents[2] / "clients" / "web"
#: The URL prefix of the page's files.
ASSETS = "/web/"
CONTENT_TYPES = {
    ".html": "text/html; charset=utf-8",
    ".js": "text/javascript; charset=utf-8",
    ".mjs": "text/javascript; charset=utf-8",
    ".css": "text/css; charset=utf-8",
    ".svg": "image/svg+xml",
    ".txt": "text/plain; charset=utf-8",
    ".md": "text/plain; charset=utf-8",
    ".json": "application/json; charset=utf-8",
}
_ROOM_LINK = re.compile(r"/r/[A-Za-z0-9-]{1,24}/?")
_ASSET = re.compile(r"[A-Za-z0-9_-][A-Za-z0-9_.-]*(/[A-Za-z0-9_-][A-Za-z0-9_.-]*)*")
#: A Host header fit to name this origin in connect-src (else 'self' alone is relied on).
_HOST = re.compile(r"[A-Za-z0-9.-]+(:[0-9]{1,5})?|\[[0-9A-Fa-f:.]+\](:[0-9]{1,5})?")


def content_security_policy(host: str | None) -> str:
    """The page's policy: scripts, styles and images from this origin only; sockets to it."""
    sockets = "'self'"
    if host and _HOST.fullmatch(host):
        sockets += f" ws://{host} wss://{host}"
    return "; ".join(
        [
            "default-src 'none'",
            "script-src 'self'",
            "style-src 'self'",
            "img-src 'self'",
            f"connect-src {sockets}",
            "base-uri 'none'",
            "form-action 'none'",
            "frame-ancestors 'none'",
        ]
    )


def security_headers(host: str | None) -> list[tuple[str, str]]:
    """The headers every page answer carries."""
    return [
        ("Content-Security-Policy", content_security_policy(host)),
        ("X-Content-Type-Options", "nosniff"),
        ("X-Frame-Options", "DENY"),
        ("Referrer-Policy", "no-referrer"),
        ("Cross-Origin-Opener-Policy", "same-origin"),
        ("Cross-Origin-Resource-Policy", "same-origin"),
        ("Permissions-Policy", "camera=(), microphone=(), geolocation=()"),
        ("Cache-Control", "no-cache"),
    ]


class WebFiles:
    """Answers the page's HTTP requests from a directory; read once, then kept in memory."""

    def __init__(self, root: Path = WEB_ROOT) -> None:
        self.root = root.resolve()
        self._cache: dict[str, bytes] = {}

    def response(self, request: Request) -> Response | None:
        """The answer to a plain GET for the page or its files; None for WebSocket upgrades and
        paths that are not the page's (left to the caller)."""
        if "websocket" in request.headers.get("Upgrade", "").lower():
            return None
        path = request.path.split("?", 1)[0].split("#", 1)[0]
        host = request.headers.get("Host")
        if path == "/" or _ROOM_LINK.fullmatch(path):
            return self._file("index.html", host)
        if path.startswith(ASSETS):
            return self._file(path[len(ASSETS) :], host)
        if path == "/favicon.ico":
            return self._file("icon.svg", host)
        return None

    def _file(self, name: str, host: str | None) -> Response:
        suffix = Path(name).suffix
        if not _ASSET.fullmatch(name) or ".." in name or suffix not in CONTENT_TYPES:
            return _answer(HTTPStatus.NOT_FOUND, b"not found\n", "text/plain; charset=utf-8", host)
        body = self._cache.get(name)
        if body is None:
            path = (self.root / name).resolve()
            if not path.is_relative_to(self.root) or not path.is_file():
                return _answer(
                    HTTPStatus.NOT_FOUND, b"not found\n", "text/plain; charset=utf-8", host
                )
            body = path.read_bytes()
            self._cache[name] = body
        return _answer(HTTPStatus.OK, body, CONTENT_TYPES[suffix], host)


def _answer(status: HTTPStatus, body: bytes, kind: str, host: str | None) -> Response:
    headers = Headers(
        [("Content-Type", kind), ("Content-Length", str(len(body))), *security_headers(host)]
    )
    return Response(status.value, status.phrase, headers, body)


__all__ = ["WEB_ROOT", "WebFiles", "content_security_policy", "security_headers"]
