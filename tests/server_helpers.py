"""A test server: its settings (`fast_config`), a real server run by an event loop in a thread
(`ServerThread`), and what it answers over HTTP: the API asked as a key's holder (`api_get`,
`new_key`) and its `/metrics` page (`metrics_of`). Used across tests/ and by bench/.

Scripted WebSocket clients are in tests/ws_client_helpers.py; what a server keeps (stored rooms,
archived games and their reviews) in tests/storage_helpers.py; several servers on one Redis in
tests/cluster_helpers.py.
"""

from __future__ import annotations

import asyncio
import base64
import json
import secrets
import threading
import urllib.error
import urllib.request
from dataclasses import dataclass
from typing import Any

from prometheus_client.parser import text_string_to_metric_families

from server.app import Config, Server

#: How long a test waits for a server's answer (or a scripted client for its next frame).
TIMEOUT = 10.0


def fast_config(**changes: Any) -> Config:
    """A test server: ephemeral port, no pause between bot moves, a quick hard bot."""
    options: dict[str, Any] = {
        "port": 0,
        "bot_delay": 0.0,
        "hard_budget_ms": 5.0,
        "bot_processes": False,
        "rate": 1000.0,
        "burst": 1000,
        "room_chat_rate": 1000.0,
        "room_chat_burst": 1000,
    }
    options.update(changes)
    return Config.of(**options)


def http_get(url: str) -> tuple[int, str]:
    """Status and body of a GET (an error status included)."""
    try:
        with urllib.request.urlopen(url, timeout=5) as response:
            return response.status, response.read().decode()
    except urllib.error.HTTPError as error:
        return error.code, error.read().decode()


def samples_of(page: str) -> dict[str, float]:
    """A Prometheus text page's values, each by its sample's name and labels as the page writes
    them (`allfives_errors_total{code="invalid"}`), read with prometheus_client's own parser."""
    values = {}
    for family in text_string_to_metric_families(page):
        for sample in family.samples:
            labels = ",".join(f'{key}="{value}"' for key, value in sample.labels.items())
            values[f"{sample.name}{{{labels}}}" if labels else sample.name] = sample.value
    return values


async def metrics_of(server: Server) -> dict[str, float]:
    """A server's `/metrics` page: each sample's value by its name (labels included)."""
    status, page = await asyncio.to_thread(http_get, f"http://127.0.0.1:{server.port}/metrics")
    assert status == 200, page
    return samples_of(page)


class ServerThread:
    """A real allfives server on an ephemeral loopback port, run by an event loop in a thread."""

    def __init__(self, **config: Any) -> None:
        options: dict[str, Any] = {
            "host": "127.0.0.1",
            "port": 0,
            "bot_delay": 0.05,
            "hard_budget_ms": 5.0,
            "bot_processes": False,
            "rate": 1000.0,
            "burst": 1000,
        }
        options.update(config)
        self.config = Config.of(**options)
        self.loop = asyncio.new_event_loop()
        self.server = Server(self.config)
        self.thread = threading.Thread(target=self.loop.run_forever, daemon=True)

    def __enter__(self) -> ServerThread:
        self.thread.start()
        self.call(self.server.start())
        return self

    def __exit__(self, *exc: object) -> None:
        self.call(self.server.stop())
        self.loop.call_soon_threadsafe(self.loop.stop)
        self.thread.join(timeout=10)
        self.loop.close()

    def call(self, coroutine: Any, timeout: float = 2 * TIMEOUT) -> Any:
        """Run a coroutine on the server's loop and wait for its result."""
        return asyncio.run_coroutine_threadsafe(coroutine, self.loop).result(timeout=timeout)

    def drop(self, name: str) -> int:
        """Cut the connections of the player called `name` without a close frame, as a lost
        network would; returns how many were cut."""

        async def cut() -> int:
            found = [c for c in self.server.connections if c.name == name]
            for connection in found:
                connection.wire.abort()
            return len(found)

        dropped: int = self.call(cut())
        return dropped

    @property
    def base(self) -> str:
        """http://127.0.0.1:PORT"""
        return f"http://127.0.0.1:{self.server.port}"


def new_key() -> str:
    """A player key as the clients make it: 32 random bytes, URL-safe base64 without padding."""
    return base64.urlsafe_b64encode(secrets.token_bytes(32)).rstrip(b"=").decode()


@dataclass
class ApiAnswer:
    """One answer of the HTTP API: status, headers (lower-case names), body and its JSON."""

    status: int
    headers: dict[str, str]
    body: bytes

    @property
    def json(self) -> Any:
        return json.loads(self.body)


async def api_get(url: str, path: str, key: str | None = None, method: str = "GET") -> ApiAnswer:
    """GET `path` from the server at `url` (its ws:// URL), as `Authorization: Key` with `key`
    (or another `method`: any path answers HTTP)."""
    base = url.replace("ws://", "http://", 1).rstrip("/")
    headers = {"Authorization": f"Key {key}"} if key is not None else {}

    def fetch() -> ApiAnswer:
        request = urllib.request.Request(base + path, headers=headers, method=method)
        try:
            with urllib.request.urlopen(request, timeout=TIMEOUT) as response:
                found = {name.lower(): value for name, value in response.headers.items()}
                return ApiAnswer(response.status, found, response.read())
        except urllib.error.HTTPError as error:
            found = {name.lower(): value for name, value in error.headers.items()}
            return ApiAnswer(error.code, found, error.read())

    return await asyncio.to_thread(fetch)
