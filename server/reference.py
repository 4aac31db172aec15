"""The reference of the server's settings (docs/reference/config.md), made from their declarations.

Run `uv run python -m server.reference` after changing a setting; a test fails while the file
and the declarations disagree.
"""

from __future__ import annotations

import inspect
import sys
from pathlib import Path

from server.config import GROUPS, SETTINGS

#: Where the reference is kept, from the repository's top.
PATH = Path(__file__).resolve().parent.parent / "docs" / "reference" / "config.md"

INTRODUCTION = """\
# Server settings

Every setting of `allfives serve`, by group. Each is an option (`--max-size 4096`) and an
environment variable (`ALLFIVES_MAX_SIZE=4096`); the option wins over the variable, and the
variable over the default. A yes-or-no setting takes yes/no, true/false, on/off or 1/0; `off`
turns off a setting that can be off. Settings that contradict each other (`--certfile` without
`--keyfile`, `--redis` with `--data`, a per-address bound above the whole server's) stop the
server at start with one line saying which.

In Python, `Config.of(port=0, max_size=4096)` (`server.config`) takes the same names. This page
is generated from the settings' declarations in `server/config.py`: run
`uv run python -m server.reference` after changing one.
"""

LOGGING = """\
## Logging

| option | variable | default | what it does |
|---|---|---|---|
| `--log-level LEVEL` | `ALLFIVES_LOG_LEVEL` | `INFO` | how much the server logs to stderr: DEBUG, INFO, WARNING, ERROR or CRITICAL |
"""


def _cell(text: str) -> str:
    return text.replace("|", "\\|")


def markdown() -> str:
    """The reference as it should read."""
    parts = [INTRODUCTION]
    for group, kind in GROUPS.items():
        summary = inspect.cleandoc(kind.__doc__ or "").splitlines()[0]
        rows = [
            f"| `{_cell(item.option)} {_cell(item.metavar)}` | `{item.variable}` "
            f"| `{_cell(item.shown_default)}` | {_cell(item.help)} |"
            for item in SETTINGS
            if item.group == group
        ]
        parts.append(
            f"## {group.capitalize()}\n\n`Config.{group}`: {summary}\n\n"
            "| option | variable | default | what it does |\n|---|---|---|---|\n"
            + "\n".join(rows)
            + "\n"
        )
    parts.append(LOGGING)
    return "\n".join(parts)


def main() -> int:
    """Write the reference."""
    PATH.parent.mkdir(parents=True, exist_ok=True)
    PATH.write_text(markdown())
    print(f"wrote {PATH}", file=sys.stderr)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
