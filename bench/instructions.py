"""What one move costs in CPU instructions, counted by valgrind: a figure a busy machine leaves alone.

Times on a machine shared with other work move by a third from one run to the next; the
instructions a process executes do not. This runs `bench/hotpath.py` (the sans-I/O calls of a
move) and `bench/roompath.py` (the room's whole path in a server, no sockets) under valgrind's
cachegrind, each twice: with `--small` moves and with `--large` moves, and prints the
difference over the extra moves, so start-up and imports cancel out. The hash seed is fixed,
so two runs of the same code give the same count within a fraction of a per cent; compare two
checkouts by running this in each, or from one with `--root` naming the other.

Needs valgrind. Each run takes about a minute (the interpreter runs some 50 times slower
under it).

Usage: uv run python bench/instructions.py [--small 300] [--large 1300] [--root CHECKOUT]
Prints `name: value` lines.
"""

from __future__ import annotations

import argparse
import os
import re
import shutil
import subprocess
import sys
from pathlib import Path

HERE = Path(__file__).resolve().parent
#: The scripts measured, and the name of each figure.
SCRIPTS = {"hotpath": "sans-I/O", "roompath": "room path"}


def instructions(root: Path, script: str, moves: int) -> int:
    """The instructions valgrind counts for a whole run of `root`'s `script` making `moves`
    moves (with `root`'s own interpreter where it has one)."""
    python = root / ".venv" / "bin" / "python"
    command = [
        "valgrind",
        "--tool=cachegrind",
        "--cache-sim=no",
        "--cachegrind-out-file=/dev/null",
        str(python) if python.exists() else sys.executable,
        str(root / "bench" / f"{script}.py"),
        "--moves",
        str(moves),
        "--alloc-moves",
        "0",
    ]
    env = {**os.environ, "PYTHONHASHSEED": "0"}
    done = subprocess.run(command, capture_output=True, text=True, env=env, check=True)
    found = re.search(r"I\s+refs:\s+([\d,]+)", done.stderr)
    if found is None:
        raise SystemExit(f"valgrind printed no count for {script}:\n{done.stderr[-2000:]}")
    return int(found.group(1).replace(",", ""))


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--small", type=int, default=300)
    parser.add_argument("--large", type=int, default=1300)
    parser.add_argument(
        "--root", type=Path, default=HERE.parent, help="the checkout whose scripts are run"
    )
    options = parser.parse_args()
    if shutil.which("valgrind") is None:
        raise SystemExit("valgrind is needed (apt-get install valgrind)")
    extra = options.large - options.small
    for script, name in SCRIPTS.items():
        small = instructions(options.root, script, options.small)
        large = instructions(options.root, script, options.large)
        print(f"{name} instructions per move: {(large - small) / extra:.0f}")


if __name__ == "__main__":
    main()
