"""Shared pytest fixtures: a real redis-server started on a free port, an embedded server."""

from __future__ import annotations

# ruff: noqa: E402 (the two lines below must come before the project's modules are imported)
import os
import sys

# With PYTHONDONTWRITEBYTECODE set, every run compiled the project and rewrote the test modules
# again (about half of collecting them), and so did each of the many `allfives` processes the
# tests start (about a quarter of its start). The compiled files go to `__pycache__/`, which git
# ignores; the variable is dropped for the processes the tests start too.
os.environ.pop("PYTHONDONTWRITEBYTECODE", None)
sys.dont_write_bytecode = False

import itertools
import json
import shutil
import tempfile
from collections.abc import AsyncIterator, Iterator
from pathlib import Path
from typing import Any

import pytest
from client_helpers import embedded_config
from feed_oracle import reference_document
from hypothesis import settings
from redis_server import REDIS, RedisServer, start_for_test
from restart_helpers import Keeping, keeping_of
from server_helpers import fast_config
from tmux_helpers import Terminal
from ws_client_helpers import References
from xdist.remote import Producer
from xdist.scheduler import LoadScopeScheduling
from xdist.workermanage import WorkerController

from clients.cli import i18n
from server.app import Server, run_server
from server.rooms.feed import Feed, Frames
from server.storage.redis_store import RedisStore
from server.storage.sqlite_store import SqliteStore
from server.storage.store import MemoryStore, Store

# The clients speak English in the tests unless a test asks for a language (docs/i18n.md): the
# developer's own LANG, LC_ALL... must not change what the terminal says, here or in the
# programs the tests start.
for _variable in ("LANGUAGE", "LC_ALL", "LC_MESSAGES"):
    os.environ.pop(_variable, None)
os.environ["LANG"] = "C.UTF-8"
i18n.set_language("en")

# Hypothesis profiles (docs/development.md, "The tests"). "ci", under CI=true: every property
# test runs its full count of examples. "dev", elsewhere: a quarter of each count
# (`protocol_helpers.examples`), so that the fast loop stays fast; `--hypothesis-profile=ci` runs
# the full counts here too. Neither has a deadline: on a loaded machine an example's time says
# nothing about the code, and a deadline missed only made a run fail at random.
settings.register_profile("ci", max_examples=100, deadline=None)
settings.register_profile("dev", max_examples=25, deadline=None)
settings.load_profile("ci" if os.environ.get("CI") == "true" else "dev")


def require_marker(request: pytest.FixtureRequest, marker: str) -> None:
    """Fail a test that starts a tool (tmux, a redis-server) without the marker that names it:
    `-m "not terminal"`, `-m "not redis"` must leave out every test that needs one
    (pyproject.toml registers the markers; docs/development.md)."""
    if request.node.get_closest_marker(marker) is None:
        pytest.fail(
            f"{request.node.nodeid} starts what the `{marker}` marker stands for: mark it "
            f"(`pytestmark = pytest.mark.{marker}` in its module, or on the test)",
            pytrace=False,
        )


@pytest.fixture
def terminal(request: pytest.FixtureRequest) -> Iterator[Terminal]:
    """A tmux terminal of the test's own, 80x24 unless the test asks another size (indirect
    parametrize with `(width, height)`)."""
    require_marker(request, "terminal")
    width, height = getattr(request, "param", (80, 24))
    running = Terminal(width, height)
    try:
        yield running
    finally:
        running.close()


@pytest.fixture
def redis_server(request: pytest.FixtureRequest, tmp_path: Path) -> Iterator[RedisServer]:
    """A fresh redis-server for one test (AOF on; indirect-parametrize with RedisServer options)."""
    require_marker(request, "redis")
    server = start_for_test(tmp_path / "redis", **getattr(request, "param", {}))
    try:
        yield server
    finally:
        server.stop()


@pytest.fixture
async def store(redis_server: RedisServer) -> AsyncIterator[RedisStore]:
    """A RedisStore on the test's redis-server, for looking at what a server stored."""
    opened = RedisStore(redis_server.url)
    yield opened
    await opened.close()


@pytest.fixture(scope="session")
def redis_server_session(tmp_path_factory: pytest.TempPathFactory) -> Iterator[RedisServer]:
    """One redis-server shared by the whole run: use keys of your own and never stop it."""
    server = start_for_test(tmp_path_factory.mktemp("redis-session"))
    try:
        yield server
    finally:
        server.stop()


#: Each `each_store` on the session's redis-server keeps its keys under a prefix of its own.
STORE_PREFIXES = itertools.count()


@pytest.fixture(params=["memory", "sqlite", REDIS])
async def each_store(request: pytest.FixtureRequest, tmp_path: Path) -> AsyncIterator[Store]:
    """A store of each kind in turn: in memory, SQLite under the test's directory, and a real
    redis-server (the session's, under a key prefix of the test's own)."""
    opened: Store
    if request.param == "memory":
        opened = MemoryStore()
    elif request.param == "sqlite":
        opened = SqliteStore(tmp_path / "data")
    else:
        redis: RedisServer = request.getfixturevalue("redis_server_session")
        opened = RedisStore(redis.url, prefix=f"each{next(STORE_PREFIXES)}:")
    yield opened
    await opened.close()


@pytest.fixture(params=["embedded", REDIS])
async def stored_server(
    request: pytest.FixtureRequest, tmp_path: Path
) -> AsyncIterator[tuple[Server, list[str]]]:
    """A server keeping its players in a `--data` directory, or in a real Redis, and the
    options naming that store to another program (`allfives admin --data DIR`, `--redis URL`)."""
    if request.param == "embedded":
        data = str(tmp_path / "data")
        async with run_server(fast_config(data=data)) as running:
            yield running, ["--data", data]
    else:
        redis: RedisServer = request.getfixturevalue("redis_server")
        async with run_server(fast_config(store=RedisStore(redis.url))) as running:
            yield running, ["--redis", redis.url]


@pytest.fixture
async def server() -> AsyncIterator[Server]:
    """An embedded server for the client's tests (modules of the server's tests have their own)."""
    async with run_server(embedded_config()) as running:
        yield running


@pytest.fixture(params=["embedded", REDIS])
async def running(request: pytest.FixtureRequest, tmp_path: Path) -> AsyncIterator[Server]:
    """A test server (`fast_config`) on each store in turn: the embedded one (its ledger in a
    file) and a real redis-server."""
    if request.param == "embedded":
        async with run_server(fast_config(data=str(tmp_path / "data"))) as server:
            yield server
    else:
        redis: RedisServer = request.getfixturevalue("redis_server")
        async with run_server(fast_config(store=RedisStore(redis.url))) as server:
            yield server


@pytest.fixture(params=[REDIS, "data"])
async def keeping(request: pytest.FixtureRequest, tmp_path: Path) -> AsyncIterator[Keeping]:
    """Where a server process (`restart_helpers.server_process`) keeps its rooms and
    tournaments, each in turn: a real redis-server, or SQLite under `--data`."""
    kept = keeping_of(request.param, request, tmp_path / "data")
    yield kept
    await kept.store.close()


@pytest.fixture
def references(monkeypatch: pytest.MonkeyPatch) -> References:
    """Every receiver's document after every change, built the plain way from its own view."""
    kept: References = {}
    publish = Feed.publish

    def recording_publish(self: Feed, room: Any, events: list[Any]) -> Frames:
        frames = publish(self, room, events)
        for receiver in self.receivers(room):
            kept[(room.code, receiver, room.seq)] = json.dumps(
                reference_document(room, receiver), sort_keys=True
            )
        return frames

    monkeypatch.setattr(Feed, "publish", recording_publish)
    return kept


# The run on several workers (`-n auto` in pyproject.toml's addopts; docs/development.md, "The
# tests"). Each worker is handed whole test modules, the next one as it runs out, with two
# exceptions: the modules with tests that drive a browser (the `browser` marker) form one lane
# that a single worker runs one after another, as a serial run would, and so do those that drive
# a terminal (`terminal`). Those tests wait on what a person sees (a screen, a page), and each
# starts a browser or a tmux of its own: two browsers at once on a small machine made their waits
# a matter of luck. The lanes are handed out first (they are the longest pieces of work); then the
# modules that took longest last time (pytest's cache keeps each module's time), so that no long
# module runs alone at the end. Only the workers see the tests' markers: each writes the lanes'
# modules to a file the controlling process named (`pytest_configure_node`), which its scheduler
# reads.
MODULE_SECONDS = "allfives/module-seconds"
LANE_FILE = "allfives_lane_file"
#: The lanes, in the order they are handed out: a module with tests of both goes to the first.
LANES = ("browser", "terminal")
_module_seconds: dict[str, float] = {}
_lane_files = pytest.StashKey[Path]()


def _module_of(nodeid: str) -> str:
    return nodeid.split("::", 1)[0]


def _lanes_of(items: list[pytest.Item]) -> dict[str, str]:
    """Each module with tests of a lane, and its lane."""
    lanes: dict[str, str] = {}
    for lane in reversed(LANES):
        lanes.update(
            {_module_of(item.nodeid): lane for item in items if item.get_closest_marker(lane)}
        )
    return lanes


def pytest_collection_modifyitems(config: pytest.Config, items: list[pytest.Item]) -> None:
    """On an xdist worker: the lanes' modules noted for the scheduler and handed out first; then
    the modules that took longest last time (a module never timed first of all), each module's
    tests in their own order."""
    workerinput = getattr(config, "workerinput", None)
    if workerinput is None:
        return
    lanes = _lanes_of(items)
    written = Path(workerinput[LANE_FILE])
    written.with_suffix(".part").write_text(json.dumps(lanes))
    written.with_suffix(".part").replace(written)
    cache = getattr(config, "cache", None)  # None with `-p no:cacheprovider`
    noted: dict[str, float] = cache.get(MODULE_SECONDS, {}) if cache is not None else {}
    first = {lane: index for index, lane in enumerate(LANES)}

    def order(item: pytest.Item) -> tuple[int, float]:
        module = _module_of(item.nodeid)
        lane = lanes.get(module)
        return (len(LANES) if lane is None else first[lane], -noted.get(module, float("inf")))

    items.sort(key=order)


def pytest_configure_node(node: WorkerController) -> None:
    """Name the file in which the worker about to start notes the lane's modules."""
    config = node.config
    if _lane_files not in config.stash:
        config.stash[_lane_files] = Path(tempfile.mkdtemp(prefix="allfives-lane-"))
    node.workerinput[LANE_FILE] = str(config.stash[_lane_files] / f"{node.gateway.id}.json")


def pytest_unconfigure(config: pytest.Config) -> None:
    if _lane_files in config.stash:
        shutil.rmtree(config.stash[_lane_files], ignore_errors=True)


class _ModulesAndLanes(LoadScopeScheduling):  # type: ignore[misc] # xdist has no types
    """xdist's scheduling by module (`--dist loadfile`: module-scoped servers start once, a
    module's tests keep their order), where each lane's modules are one piece of work."""

    def __init__(self, config: pytest.Config, log: Producer) -> None:
        super().__init__(config, log)
        self._config = config
        self._lanes: dict[str, str] | None = None

    def _split_scope(self, nodeid: str) -> str:
        if self._lanes is None:  # first asked once every worker has collected (and written)
            self._lanes = {}
            for written in self._config.stash[_lane_files].glob("*.json"):
                self._lanes.update(json.loads(written.read_text()))
        module = _module_of(nodeid)
        return self._lanes.get(module, module)


def pytest_xdist_make_scheduler(config: pytest.Config, log: Producer) -> LoadScopeScheduling:
    return _ModulesAndLanes(config, log)


def pytest_runtest_logreport(report: pytest.TestReport) -> None:
    """Add up each module's time (setup, call and teardown)."""
    module = _module_of(report.nodeid)
    _module_seconds[module] = _module_seconds.get(module, 0.0) + report.duration


def pytest_sessionfinish(session: pytest.Session) -> None:
    """Note the modules' times in the cache, from the run's one controlling process."""
    config = session.config
    cache = getattr(config, "cache", None)
    if hasattr(config, "workerinput") or cache is None or not _module_seconds:
        return
    noted: dict[str, float] = cache.get(MODULE_SECONDS, {})
    noted.update({module: round(seconds, 3) for module, seconds in _module_seconds.items()})
    cache.set(MODULE_SECONDS, noted)
