"""Shared pytest fixtures: a real redis-server started on a free port."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest
from redis_server import RedisServer, start_for_test


@pytest.fixture
def redis_server(request: pytest.FixtureRequest, tmp_path: Path) -> Iterator[RedisServer]:
    """A fresh redis-server for one test (AOF on; indirect-parametrize with RedisServer options)."""
    server = start_for_test(tmp_path / "redis", **getattr(request, "param", {}))
    try:
        yield server
    finally:
        server.stop()


@pytest.fixture(scope="session")
def redis_server_session(tmp_path_factory: pytest.TempPathFactory) -> Iterator[RedisServer]:
    """One redis-server shared by the whole run: use keys of your own and never stop it."""
    server = start_for_test(tmp_path_factory.mktemp("redis-session"))
    try:
        yield server
    finally:
        server.stop()
