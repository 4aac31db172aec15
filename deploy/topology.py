"""docker-compose.yml's topology from Debian's packages on this machine: Redis, servers, nginx.

`Topology(directory).start()` runs, every file under `directory` and every port a free one:

- redis-server with the compose file's settings (`--appendonly yes --save "" --maxmemory-policy
  noeviction`) on 127.0.0.1;
- `servers` processes of `allfives serve --redis URL` on 127.0.0.1 (loopback only), each taking
  X-Real-IP only from nginx's address (`--trust-proxy 127.0.0.2`): a client reaching a server
  directly, even from this machine, is counted as the address it comes from;
- nginx with deploy/nginx.conf.template rendered for this machine (`deploy.nginx_conf.local`),
  checked with `nginx -t` first, its sockets to the servers from 127.0.0.2 (`proxy_bind`).

Every wait is bounded and says what it waited for; `stop()` ends what was started (nginx,
then the servers, then Redis), which runs in sessions of its own so that a Ctrl-C reaches only the
caller and the stop keeps that order. deploy/local.sh runs it from the command line until Ctrl-C;
tests/deploy/test_deploy_nginx.py and `bench/cluster.py --through-nginx` use it.
"""

from __future__ import annotations

import argparse
import contextlib
import ctypes
import os
import select
import shutil
import signal
import socket
import subprocess
import sys
import tempfile
import time
import urllib.error
import urllib.request
from pathlib import Path
from types import TracebackType

from deploy import nginx_conf

ROOT = Path(__file__).resolve().parent.parent
HOST = "127.0.0.1"
#: prctl(2): the signal a process gets when the thread that started it ends.
PR_SET_PDEATHSIG = 1


def _dies_with_topology() -> None:
    """In a child, before it runs (Popen's `preexec_fn`): SIGTERM once the topology's process is
    gone, so a `kill -9` of deploy/local.sh's PID stops its servers, Redis and nginx as Ctrl-C
    does (SIGTERM, not SIGKILL: nginx's workers outlive a master killed outright). Children are
    started from the topology's main thread, whose end is what the signal follows."""
    if sys.platform.startswith("linux"):
        with contextlib.suppress(OSError, AttributeError):
            ctypes.CDLL(None, use_errno=True).prctl(PR_SET_PDEATHSIG, signal.SIGTERM)


LISTENING = "allfives server listening on "
#: Redis as docker-compose.yml runs it.
REDIS_SETTINGS = ["--appendonly", "yes", "--save", "", "--maxmemory-policy", "noeviction"]


class TopologyError(RuntimeError):
    """A part of the topology could not be found, started or reached in time."""


def free_port() -> int:
    """A TCP port on the loopback address that nothing listens on right now."""
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as probe:
        probe.bind((HOST, 0))
        port: int = probe.getsockname()[1]
        return port


def find_nginx() -> str | None:
    """nginx from $ALLFIVES_NGINX, PATH or /usr/sbin (Debian's, off a user's PATH)."""
    return (
        os.environ.get("ALLFIVES_NGINX")
        or shutil.which("nginx")
        or shutil.which("nginx", path="/usr/sbin:/sbin")
    )


def find_redis() -> str | None:
    """redis-server from $ALLFIVES_REDIS_SERVER or PATH."""
    return os.environ.get("ALLFIVES_REDIS_SERVER") or shutil.which("redis-server")


def get(url: str, timeout: float = 2.0) -> tuple[int, str]:
    """An HTTP GET: the status and the body (an error status too)."""
    try:
        with urllib.request.urlopen(url, timeout=timeout) as response:
            return response.status, response.read().decode(errors="replace")
    except urllib.error.HTTPError as error:
        return error.code, error.read().decode(errors="replace")


def _tail(path: Path, chars: int = 2000) -> str:
    return path.read_text(errors="replace")[-chars:] if path.exists() else "(nothing)"


class Server:
    """One `allfives serve` process of the topology."""

    def __init__(self, index: int, redis_url: str, directory: Path, extra: list[str]) -> None:
        self.index = index
        self.log = directory / f"server{index}.log"
        self.command = [
            sys.executable, "-m", "allfives.cli", "serve", "--host", HOST, "--port", "0",
            "--redis", redis_url, "--trust-proxy", nginx_conf.PROXY_ADDRESS, *extra,
        ]  # fmt: skip
        self.process: subprocess.Popen[bytes] | None = None
        self.port = 0

    @property
    def url(self) -> str:
        """The server's own ws:// URL (straight to it, not through nginx)."""
        return f"ws://{HOST}:{self.port}/"

    @property
    def pid(self) -> int:
        assert self.process is not None
        return self.process.pid

    def launch(self) -> None:
        """Start the process (its log in the topology's directory)."""
        with self.log.open("ab") as log:
            self.process = subprocess.Popen(
                self.command,
                cwd=ROOT,
                stdin=subprocess.DEVNULL,
                stdout=subprocess.PIPE,
                stderr=log,
                start_new_session=True,
                preexec_fn=_dies_with_topology,
            )

    def wait_listening(self, deadline: float) -> None:
        """Read the "listening" line and the port in it, by `deadline`."""
        assert self.process is not None and self.process.stdout is not None
        output = self.process.stdout
        line = b""
        while not line.endswith(b"\n"):
            left = deadline - time.monotonic()
            if left <= 0 or self.process.poll() is not None:
                break
            if select.select([output], [], [], min(left, 0.2))[0]:
                chunk = os.read(output.fileno(), 4096)
                if not chunk:
                    break
                line += chunk
        text = line.decode(errors="replace")
        if not text.startswith(LISTENING):
            state = "exited" if self.process.poll() is not None else "did not say it listens"
            raise TopologyError(f"server {self.index} {state} ({text!r}); log:\n{_tail(self.log)}")
        self.port = int(text.removeprefix(LISTENING).strip().rstrip("/").rsplit(":", 1)[1])

    def end(self, sig: signal.Signals = signal.SIGTERM, timeout: float = 15.0) -> None:
        """Send `sig` and wait (SIGKILL after `timeout`)."""
        if self.process is None:
            return
        if self.process.poll() is None:
            self.process.send_signal(sig)
            try:
                self.process.wait(timeout)
            except subprocess.TimeoutExpired:
                self.process.kill()
                self.process.wait()
        if self.process.stdout is not None:
            self.process.stdout.close()


class Topology:
    """Redis, `servers` allfives processes and nginx in front, under `directory` (see module)."""

    def __init__(
        self,
        directory: Path,
        *,
        servers: int = 2,
        port: int = 0,
        server_options: list[str] | None = None,
        timeout: float = 30.0,
    ) -> None:
        self.directory = Path(directory)
        self.count = servers
        self.port = port or free_port()
        self.server_options = server_options or []
        self.timeout = timeout
        self.redis: subprocess.Popen[bytes] | None = None
        self.redis_port = 0
        self.servers: list[Server] = []
        self.nginx: subprocess.Popen[bytes] | None = None
        self.conf = self.directory / "nginx" / "nginx.conf"

    @property
    def url(self) -> str:
        """Where players connect: ws:// through nginx."""
        return f"ws://{HOST}:{self.port}/"

    @property
    def page(self) -> str:
        """The browser's table through nginx."""
        return f"http://{HOST}:{self.port}/"

    @property
    def redis_url(self) -> str:
        return f"redis://{HOST}:{self.redis_port}/0"

    def __enter__(self) -> Topology:
        self.start()
        return self

    def __exit__(
        self,
        kind: type[BaseException] | None,
        error: BaseException | None,
        tb: TracebackType | None,
    ) -> None:
        self.stop()

    def start(self) -> None:
        """Start everything and wait until nginx passes requests to ready servers."""
        nginx = find_nginx()
        if nginx is None:
            raise TopologyError("no nginx found: install it (apt-get install nginx)")
        self.directory.mkdir(parents=True, exist_ok=True)
        try:
            self._start_redis()
            self._start_servers()
            self._start_nginx(nginx)
        except BaseException:
            self.stop()
            raise

    def _deadline(self) -> float:
        return time.monotonic() + self.timeout

    def _start_redis(self) -> None:
        binary = find_redis()
        if binary is None:
            raise TopologyError("no redis-server found: install it (apt-get install redis-server)")
        data = self.directory / "redis"
        data.mkdir(exist_ok=True)
        self.redis_port = free_port()
        command = [
            binary, "--port", str(self.redis_port), "--bind", HOST, "--dir", str(data),
            *REDIS_SETTINGS, "--daemonize", "no", "--logfile", str(data / "redis.log"),
        ]  # fmt: skip
        self.redis = subprocess.Popen(
            command,
            stdin=subprocess.DEVNULL,
            stdout=subprocess.DEVNULL,
            stderr=subprocess.DEVNULL,
            start_new_session=True,
            preexec_fn=_dies_with_topology,
        )
        deadline = self._deadline()
        while time.monotonic() < deadline and self.redis.poll() is None:
            with (
                contextlib.suppress(OSError),
                socket.create_connection((HOST, self.redis_port), timeout=0.25) as probe,
            ):
                probe.sendall(b"PING\r\n")
                if probe.recv(16).startswith(b"+PONG"):
                    return
            time.sleep(0.05)
        raise TopologyError(
            f"redis-server on port {self.redis_port} did not answer PING within "
            f"{self.timeout:.0f}s; log:\n{_tail(data / 'redis.log')}"
        )

    def _start_servers(self) -> None:
        self.servers = [
            Server(index + 1, self.redis_url, self.directory, self.server_options)
            for index in range(self.count)
        ]
        for server in self.servers:
            server.launch()
        deadline = self._deadline()
        for server in self.servers:
            server.wait_listening(deadline)
        for server in self.servers:
            self._wait_for(
                f"http://{HOST}:{server.port}/readyz", f"server {server.index}", deadline
            )

    def _start_nginx(self, nginx: str) -> None:
        files = self.conf.parent
        files.mkdir(exist_ok=True)
        if os.geteuid() == 0:  # nginx's workers run as another user: let them in
            self.directory.chmod(0o711)
            files.chmod(0o755)
        self.conf.write_text(
            nginx_conf.local(files, self.port, [server.port for server in self.servers])
        )
        base = [nginx, "-p", str(files), "-c", str(self.conf), "-e", str(files / "error.log")]
        checked = subprocess.run([*base, "-t"], capture_output=True, text=True, timeout=30)
        if checked.returncode != 0:
            raise TopologyError(f"nginx -t refused {self.conf}:\n{checked.stderr}")
        with (files / "nginx.stderr").open("ab") as log:
            self.nginx = subprocess.Popen(
                base,
                stdin=subprocess.DEVNULL,
                stdout=log,
                stderr=log,
                start_new_session=True,
                preexec_fn=_dies_with_topology,
            )
        self._wait_for(f"{self.page}readyz", "nginx", self._deadline())

    def _wait_for(self, url: str, what: str, deadline: float) -> None:
        """Wait until `url` answers 200 (a process that exits ends the wait at once)."""
        last = "no answer"
        while time.monotonic() < deadline:
            self._check_alive(what)
            try:
                status, body = get(url, timeout=1.0)
            except OSError as error:
                last = str(error)
            else:
                if status == 200:
                    return
                last = f"{status} {body.strip()}"
            time.sleep(0.05)
        raise TopologyError(f"{what} not ready at {url} within {self.timeout:.0f}s: {last}")

    def _check_alive(self, what: str) -> None:
        ended = self.ended()
        if ended:
            raise TopologyError(
                f"{ended} exited while waiting for {what}; files in {self.directory}"
            )

    def ended(self) -> str:
        """The first part that has exited, or ""."""
        if self.redis is not None and self.redis.poll() is not None:
            return "redis-server"
        for server in self.servers:
            if server.process is not None and server.process.poll() is not None:
                return f"server {server.index} (log: {server.log})"
        if self.nginx is not None and self.nginx.poll() is not None:
            return f"nginx (log: {self.conf.parent / 'error.log'})"
        return ""

    def stop(self) -> None:
        """Stop nginx (players' connections end with it), the servers, then Redis; each waited
        for, killed if it hangs."""
        _end(self.nginx)
        for server in self.servers:
            if server.process is not None and server.process.poll() is None:
                server.process.send_signal(signal.SIGTERM)
        for server in self.servers:
            server.end()
        _end(self.redis)


def _end(process: subprocess.Popen[bytes] | None) -> None:
    """SIGTERM a process and wait for it (SIGKILL after 10 s)."""
    if process is not None and process.poll() is None:
        process.terminate()
        try:
            process.wait(10)
        except subprocess.TimeoutExpired:
            process.kill()
            process.wait()


def main() -> int:
    parser = argparse.ArgumentParser(
        description="Run docker-compose.yml's topology on this machine (Redis, allfives "
        "servers, nginx) until Ctrl-C. Options after -- go to every `allfives serve`."
    )
    parser.add_argument("--port", type=int, default=8765, help="nginx's port (0: a free one)")
    parser.add_argument("--servers", type=int, default=2, help="allfives serve processes")
    parser.add_argument("--timeout", type=float, default=30.0, help="seconds to wait for each part")
    parser.add_argument("server_options", nargs="*", help="options for `allfives serve`")
    args = parser.parse_args()
    stop = False

    def on_signal(number: int, frame: object) -> None:
        nonlocal stop
        stop = True

    signal.signal(signal.SIGTERM, on_signal)
    signal.signal(signal.SIGINT, on_signal)
    with tempfile.TemporaryDirectory(prefix="allfives-local-") as directory:
        topology = Topology(
            Path(directory),
            servers=args.servers,
            port=args.port,
            server_options=args.server_options,
            timeout=args.timeout,
        )
        try:
            topology.start()
        except TopologyError as error:
            print(f"deploy/local.sh: {error}", file=sys.stderr)
            return 1
        try:
            servers = ", ".join(f"{s.index}: {s.url} (pid {s.pid})" for s in topology.servers)
            print(f"allfives through nginx: {topology.page} (play: {topology.url})")
            print(f"servers {servers}; redis {topology.redis_url}; files in {directory}")
            print("Ctrl-C stops everything", flush=True)
            while not stop and not (ended := topology.ended()):
                time.sleep(0.2)
            if not stop:
                print(f"deploy/local.sh: {ended} exited: stopping", file=sys.stderr)
                return 1
        finally:
            topology.stop()
    print("stopped")
    return 0


if __name__ == "__main__":
    sys.exit(main())
