"""Only the wiring reads the whole `Config`: every other part of the server is handed the groups
of settings it reads (`Network`, `Limits`, `Storage`, `Bots`, `Timing`), a few values, and the live
objects it uses (docs/architecture.md). Read from the source with `ast`, so an import inside a
function or under `TYPE_CHECKING` counts too."""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent

#: The modules that may name `Config`: the wiring, and `allfives serve`, which builds one.
WIRING = {"server/app.py", "server/serve.py"}
#: The modules `Config` can be imported from.
CONFIG_HOMES = {"server.config", "server.app"}


def config_uses(path: Path) -> list[int]:
    """The lines where a module imports `Config` or reads it off a module it imported."""
    tree = ast.parse(path.read_text(), str(path))
    aliases: set[str] = set()
    lines: list[int] = []
    for node in ast.walk(tree):
        if isinstance(node, ast.ImportFrom) and node.level == 0 and node.module:
            if node.module in CONFIG_HOMES:
                lines += [node.lineno for alias in node.names if alias.name in ("Config", "*")]
            elif node.module == "server":
                aliases |= {a.asname or a.name for a in node.names if a.name in ("config", "app")}
        elif isinstance(node, ast.Import):
            for alias in node.names:
                if alias.name in CONFIG_HOMES:
                    aliases.add(alias.asname or alias.name)
    for node in ast.walk(tree):
        if not isinstance(node, ast.Attribute) or node.attr != "Config":
            continue
        if ast.unparse(node.value) in aliases:
            lines.append(node.lineno)
    return sorted(lines)


def server_modules() -> list[Path]:
    return sorted((ROOT / "server").rglob("*.py"))


@pytest.mark.parametrize("path", server_modules(), ids=lambda p: str(p.relative_to(ROOT)))
def test_only_the_wiring_takes_the_whole_config(path: Path) -> None:
    relative = path.relative_to(ROOT).as_posix()
    if relative in WIRING:
        return
    lines = config_uses(path)
    assert not lines, (
        f"{relative} names Config (lines {lines}): give it the groups or values it reads, "
        "in server/app.py"
    )


def test_the_wiring_does_take_it() -> None:
    for relative in WIRING:
        assert config_uses(ROOT / relative), relative


@pytest.mark.parametrize(
    "source",
    [
        "from server.config import Config\n",
        "from server.config import Limits, Config as Settings\n",
        "from server.app import Config\n",
        "from typing import TYPE_CHECKING\nif TYPE_CHECKING:\n    from server.config import Config\n",
        "def f():\n    from server.config import *\n",
        "import server.config\nx: server.config.Config\n",
        "import server.app as wiring\ndef f(c: 'x') -> None:\n    wiring.Config()\n",
        "from server import config\nc = config.Config()\n",
    ],
)
def test_the_check_sees_config_however_it_is_reached(tmp_path: Path, source: str) -> None:
    module = tmp_path / "m.py"
    module.write_text(source)
    assert config_uses(module), source


def test_the_check_lets_the_groups_and_the_clock_through(tmp_path: Path) -> None:
    module = tmp_path / "m.py"
    module.write_text(
        "from server.config import Clock, Limits, Network, Timing\n"
        "import server.config\n"
        "x: server.config.Storage\n"
        "class Config: ...\n"
    )
    assert config_uses(module) == []
