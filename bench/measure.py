"""What the load benchmarks share: server processes, their CPU and memory, `name: value` lines."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent


def start_process(arguments: list[str]) -> tuple[subprocess.Popen[str], str]:
    """Start a server process and read the URL it prints."""
    process = subprocess.Popen(
        [sys.executable, *arguments], cwd=ROOT, stdout=subprocess.PIPE, text=True
    )
    assert process.stdout is not None
    line = process.stdout.readline()
    if "ws://" not in line:
        process.kill()
        raise RuntimeError(f"the server did not start: {line!r}")
    return process, line.split()[-1]


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
