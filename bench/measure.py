"""What the load benchmarks share: server processes, their CPU and memory, `name: value` lines."""

from __future__ import annotations

import contextlib
import os
import signal
import subprocess
import sys
import urllib.request
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent


def start_process(
    arguments: list[str], env: dict[str, str] | None = None
) -> tuple[subprocess.Popen[str], str]:
    """Start a server process (in `env`, else this one's environment) and read the URL it
    prints."""
    process = subprocess.Popen(
        [sys.executable, *arguments], cwd=ROOT, stdout=subprocess.PIPE, text=True, env=env
    )
    assert process.stdout is not None
    line = process.stdout.readline()
    if "ws://" not in line:
        process.kill()
        raise RuntimeError(f"the server did not start: {line!r}")
    return process, line.split()[-1]


def descendants(pid: int) -> set[int]:
    """Every live process started by `pid`, and by those, and so on (read from /proc)."""
    parents: dict[int, int] = {}
    for entry in Path("/proc").iterdir():
        if entry.name.isdigit():
            try:
                fields = (entry / "stat").read_bytes().rsplit(b")", 1)[1].split()
            except OSError:
                continue
            parents[int(entry.name)] = int(fields[1])
    found: set[int] = set()
    frontier = {pid}
    while frontier:
        frontier = {child for child, parent in parents.items() if parent in frontier} - found
        found |= frontier
    return found


def stop_after(seconds: float, script: str) -> None:
    """End this benchmark by itself after `seconds`, whatever stalls (a server, its clients):
    every process it started is killed, one line says so, and it exits with status 3."""

    def expired(signum: int, frame: object) -> None:
        print(
            f"{script}: no end after {seconds:.0f} s (a server or its clients stalled): stopped",
            file=sys.stderr,
            flush=True,
        )
        for child in descendants(os.getpid()):
            with contextlib.suppress(ProcessLookupError):
                os.kill(child, signal.SIGKILL)
        os._exit(3)

    signal.signal(signal.SIGALRM, expired)
    signal.alarm(max(1, int(seconds)))


def collector(url: str) -> tuple[int, float, float]:
    """A server's garbage collector so far, from its /metrics page: passes, seconds in them,
    the longest pass (seconds)."""
    page = "http" + url.removeprefix("ws").rstrip("/") + "/metrics"
    with urllib.request.urlopen(page, timeout=30) as response:
        lines = response.read().decode().splitlines()
    values = dict(line.rsplit(" ", 1) for line in lines if line and not line.startswith("#"))
    passes = sum(
        int(float(v)) for k, v in values.items() if k.startswith("allfives_gc_passes_total")
    )
    took = sum(float(v) for k, v in values.items() if k.startswith("allfives_gc_seconds_total"))
    return passes, took, float(values.get("allfives_gc_longest_seconds", 0.0))


def report_collector(prefix: str, before: tuple[int, float, float], url: str) -> None:
    """Print what the server's collector did since `before` (`collector`)."""
    passes, took, longest = collector(url)
    report(f"{prefix} server gc passes", passes - before[0])
    report(f"{prefix} server gc ms", 1000 * (took - before[1]))
    report(f"{prefix} server gc longest ms (set-up included)", 1000 * longest)


def resident_kib(pid: int) -> int:
    """A process's resident memory in KiB."""
    for line in Path(f"/proc/{pid}/status").read_text().splitlines():
        if line.startswith("VmRSS:"):
            return int(line.split()[1])
    return 0


def cpu_seconds(pid: int) -> float:
    """User and system CPU time a process has used."""
    fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


def percentile(values: list[float], fraction: float) -> float:
    """The value below which `fraction` of the values lie."""
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(fraction * len(ordered)))]


def report(name: str, value: float | int | str) -> None:
    """Print one figure."""
    shown = f"{value:.2f}" if isinstance(value, float) else str(value)
    print(f"{name}: {shown}", flush=True)


class CpuCap:
    """A CPU limit on processes: each one put in a cgroup of its own, capped at `share` of a core.

    For bench/cluster.py on a small machine: with every server process capped alike, each stands
    for a server on a core of its own, and the load clients keep the rest of the machine in
    every layout. Uses the cgroup v2 `cpu.max` where the cpu controller is there, else the v1
    cpu controller's CFS quota; needs root. The period is 10 ms, so a capped process waits at
    most that long for its share.
    """

    PERIOD_US = 10_000

    def __init__(self, share: float) -> None:
        v2 = Path("/sys/fs/cgroup")
        controllers = v2 / "cgroup.controllers"
        if controllers.exists() and "cpu" in controllers.read_text().split():
            self.root, self.v2 = v2, True
        else:
            self.root, self.v2 = v2 / "cpu", False
        if not (self.root / "cgroup.procs").exists() or not os.access(self.root, os.W_OK):
            raise SystemExit(f"--server-cpu needs a writable cgroup cpu controller ({self.root})")
        self.quota = max(1_000, int(share * self.PERIOD_US))
        self.groups: list[Path] = []

    def add(self, pid: int) -> None:
        """Cap one process (in a new cgroup of its own)."""
        group = self.root / f"allfives-bench-{os.getpid()}-{len(self.groups)}"
        group.mkdir()
        self.groups.append(group)
        if self.v2:
            (group / "cpu.max").write_text(f"{self.quota} {self.PERIOD_US}")
        else:
            (group / "cpu.cfs_period_us").write_text(str(self.PERIOD_US))
            (group / "cpu.cfs_quota_us").write_text(str(self.quota))
        (group / "cgroup.procs").write_text(str(pid))

    def remove(self) -> None:
        """Remove the cgroups (their processes must have ended)."""
        for group in self.groups:
            group.rmdir()
        self.groups.clear()
