"""Every HTTP answer of the port carries the security headers; a bad query is a 400, not a
500; refused requests are counted in /metrics and logged once per address per interval."""

from __future__ import annotations

import asyncio
import logging

import pytest
from server_helpers import ApiAnswer, api_get, fast_config, metrics_of

from server.app import run_server
from server.edge.probes import Probes

pytestmark = pytest.mark.asyncio

HEADERS = {
    "content-security-policy": "default-src 'none'",
    "x-content-type-options": "nosniff",
    "x-frame-options": "DENY",
    "referrer-policy": "no-referrer",
}


def assert_secured(answer: ApiAnswer, what: str) -> None:
    for name, value in HEADERS.items():
        assert value in answer.headers.get(name, ""), (what, name, answer.headers)


async def test_a_query_with_nine_fields_is_a_400_with_the_headers(
    caplog: pytest.LogCaptureFixture,
) -> None:
    caplog.set_level(logging.INFO)
    query = "&".join(f"k{i}=1" for i in range(9))
    async with run_server(fast_config()) as server:
        for _ in range(3):
            answer = await api_get(server.url, f"/api/players/bot:easy/games?{query}")
            assert answer.status == 400 and answer.json["error"] == "bad_request", answer
            assert "at most 8 fields" in answer.json["message"]
            assert_secured(answer, "nine fields")
        eight = "&".join(f"k{i}=1" for i in range(8))
        unknown = await api_get(server.url, f"/api/players/bot:easy/games?{eight}")
        assert unknown.status == 400 and "unknown query parameter 'k0'" in unknown.json["message"]
        known = await api_get(server.url, "/api/players/bot:easy/games?offset=0&limit=1")
        assert known.status == 200
    assert not [r for r in caplog.records if r.levelno >= logging.WARNING]


async def test_every_answer_carries_the_security_headers() -> None:
    async with run_server(fast_config(max_connections_per_ip=2)) as server:
        for path, method, status in [
            ("/healthz", "GET", 200),
            ("/healthz", "HEAD", 200),
            ("/readyz", "GET", 200),
            ("/metrics", "GET", 200),
            ("/nothing/here", "GET", 404),
            ("/healthz", "POST", 405),
            ("/api/ladder", "DELETE", 405),
            ("/", "GET", 200),
            ("/api/nothing", "GET", 404),
        ]:
            answer = await api_get(server.url, path, method=method)
            assert answer.status == status, (path, method, answer)
            assert_secured(answer, f"{method} {path}")
        # An upgrade websockets itself refuses (no Sec-WebSocket-Key).
        reader, writer = await asyncio.open_connection("127.0.0.1", server.port)
        writer.write(
            b"GET / HTTP/1.1\r\nHost: x\r\nUpgrade: websocket\r\nConnection: Upgrade\r\n\r\n"
        )
        head = (await asyncio.wait_for(reader.readuntil(b"\r\n\r\n"), 5.0)).decode().lower()
        writer.close()
        assert head.startswith("http/1.1 400") and "x-content-type-options: nosniff" in head
        # A socket over the address's limit, turned away at accept.
        held = [await asyncio.open_connection("127.0.0.1", server.port) for _ in range(2)]
        reader, writer = await asyncio.open_connection("127.0.0.1", server.port)
        head = (await asyncio.wait_for(reader.readuntil(b"\r\n\r\n"), 5.0)).decode().lower()
        assert head.startswith("http/1.1 429") and "x-frame-options: deny" in head, head
        assert "content-security-policy: default-src 'none'" in head
        for _, other in [*held, (reader, writer)]:
            other.close()


async def test_a_request_the_server_fails_on_is_a_500_with_the_headers_logged_once(
    caplog: pytest.LogCaptureFixture, monkeypatch: pytest.MonkeyPatch
) -> None:
    def broken(self: Probes, path: str) -> None:
        raise RuntimeError("a bug")

    monkeypatch.setattr(Probes, "answer", broken)
    async with run_server(fast_config()) as server:
        for _ in range(5):
            answer = await api_get(server.url, "/healthz")
            assert answer.status == 500 and answer.body == b"internal error\n"
            assert_secured(answer, "500")
    failures = [r for r in caplog.records if r.levelno >= logging.ERROR]
    assert len(failures) == 1 and failures[0].exc_info is not None, failures


async def test_refused_requests_are_counted_and_logged_once_per_address(
    caplog: pytest.LogCaptureFixture,
) -> None:
    caplog.set_level(logging.INFO)
    async with run_server(fast_config(api_burst=2, api_per_second=0.01)) as server:
        answers = [await api_get(server.url, "/api/ladder") for _ in range(40)]
        assert [a.status for a in answers] == [200] * 2 + [429] * 38
        assert_secured(answers[-1], "429")
        page = await metrics_of(server)
        assert page['allfives_http_refused_total{status="429"}'] == 38
    texts = [r.getMessage() for r in caplog.records]
    assert not [t for t in texts if "429" in t and "HTTP response sent" in t]
    refused = [t for t in texts if t.startswith("refused ")]
    assert len(refused) == 1 and "127.0.0.1" in refused[0] and "429" in refused[0], refused
    # Lines about answered requests are still there.
    assert len([t for t in texts if "HTTP response sent (200" in t]) >= 2


async def test_an_answer_slower_than_the_requests_deadline_is_still_sent(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    # The deadline bounds how long a request may take to arrive; a request that has arrived is
    # answered however long its answer takes (a review on a busy server took more than 10 s, and
    # the browser got an empty response).
    from server.edge import wire
    from server.storage.archive import Archived
    from server.storage.archive_local import LocalLedger

    monkeypatch.setattr(wire, "OPEN_SECONDS", 0.2)
    asked = asyncio.Event()

    class SlowLedger(LocalLedger):
        async def game(self, id: str) -> Archived | None:
            asked.set()
            # Past the deadline of the request's arrival: the case under test.
            await asyncio.sleep(wire.OPEN_SECONDS * 3)
            return await super().game(id)

    async with run_server(fast_config(ledger=SlowLedger())) as server:
        answer = await api_get(server.url, "/api/games/AAAAAAAAAAAAAAAAAAAA")
        assert asked.is_set()
        assert answer.status == 404 and b"not_found" in answer.body
