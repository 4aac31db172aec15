"""The game server serves the browser table over plain HTTP on its WebSocket port.

The page at / and /r/CODE, its files under /web/, nothing outside clients/web, the security
headers on every answer, and the WebSocket still answered on the same path.
"""

from __future__ import annotations

import asyncio
import re
import urllib.error
import urllib.request
from email.message import Message

from ws_client_helpers import Client

from protocol import messages as msg
from server.app import Config, run_server
from server.edge.web import WEB_ROOT


def get(url: str) -> tuple[int, Message, bytes]:
    """Status, headers and body of a GET (error statuses too)."""
    try:
        with urllib.request.urlopen(url, timeout=5) as response:
            return response.status, response.headers, response.read()
    except urllib.error.HTTPError as error:
        return error.code, error.headers, error.read()


async def test_the_page_and_its_files_are_served_with_security_headers() -> None:
    async with run_server(Config.of(host="127.0.0.1", port=0)) as server:
        base = f"http://127.0.0.1:{server.port}"
        index = (WEB_ROOT / "index.html").read_bytes()
        for path in ("/", "/r/KXQP", "/r/kxqp/", "/?from=link", "/r/KXQP-BCDFGHJKMN"):
            status, headers, body = await asyncio.to_thread(get, base + path)
            assert (status, body) == (200, index), path
            assert headers["Content-Type"] == "text/html; charset=utf-8"
            policy = headers["Content-Security-Policy"]
            assert "script-src 'self'" in policy and "default-src 'none'" in policy
            assert "frame-ancestors 'none'" in policy
            # No origin but this one: no http(s) URL, no wildcard, no inline script.
            assert not re.search(r"https?://|\*|unsafe-inline|unsafe-eval", policy), policy
            assert f"connect-src 'self' ws://127.0.0.1:{server.port}" in policy
            assert headers["X-Content-Type-Options"] == "nosniff"
            assert headers["X-Frame-Options"] == "DENY"
            assert headers["Referrer-Policy"] == "no-referrer"

        status, headers, body = await asyncio.to_thread(get, base + "/web/js/main.js")
        assert status == 200 and headers["Content-Type"].startswith("text/javascript")
        assert body == (WEB_ROOT / "js" / "main.js").read_bytes()
        status, headers, _ = await asyncio.to_thread(
            get, base + "/web/vendor/fast-json-patch/core.mjs"
        )
        assert status == 200 and headers["Content-Type"].startswith("text/javascript")
        assert headers["Content-Security-Policy"]

        for path in (
            "/web/../../server/app.py",
            "/web/%2e%2e/%2e%2e/server/app.py",
            "/web/js/../../../pyproject.toml",
            "/web/nothing.js",
            "/web/js",
            "/web/.hidden.js",
            "/r/../healthz",
        ):
            status, headers, body = await asyncio.to_thread(get, base + path)
            assert status in (404, 426), path
            assert b"[project]" not in body and b"import" not in body, path

        # The probes and the game are still there on the same port.
        status, _, body = await asyncio.to_thread(get, base + "/healthz")
        assert (status, body) == (200, b"ok\n")
        client = await Client.open(server.url, "Ann")
        reply = await client.request("list_rooms")
        assert isinstance(reply, msg.Rooms)
        await client.close()


def test_the_page_has_no_inline_script_and_no_third_party_origin() -> None:
    for path in WEB_ROOT.rglob("*"):
        if path.suffix not in (".html", ".js", ".mjs", ".css"):
            continue
        text = path.read_text()
        if path.suffix == ".html":
            for tag in re.findall(r"<script\b[^>]*>", text):
                assert "src=" in tag, (path, tag)
            assert not re.search(r"\son[a-z]+=", text), path
        if "vendor" not in path.parts:
            assert not re.search(r"https?://(?!www\.w3\.org/2000/svg)", text), path
            assert "innerHTML" not in text and "insertAdjacentHTML" not in text, path
            assert "eval(" not in text, path
