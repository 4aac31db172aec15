"""The layers keep their one-way imports: clients -> protocol <- server -> engine.

engine/ and protocol/ import nothing of the project's other layers; clients import protocol,
and more only where they run it inside themselves (a server for `play` and `host`, the analysis
for `/review`); server never imports a client. Read from the source with `ast`, so an import inside a function counts too.
"""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
LAYERS = ("engine", "protocol", "server", "clients", "allfives")

#: What each layer may import of the others.
ALLOWED: dict[str, set[str]] = {
    "engine": set(),
    "protocol": set(),
    "server": {"engine", "protocol"},
    "clients": {"protocol"},
    "allfives": {"engine", "protocol", "server", "clients"},
}
#: Client modules that run more of the project in the client's own process: a server in the
#: embedded modes (`play`, `host`), the hard bot's analysis for `/review` (it runs where the
#: client is, never on the server).
IN_PROCESS: dict[str, set[str]] = {
    "clients/cli/host.py": {"server"},
    "clients/cli/play.py": {"server"},
    "clients/cli/review.py": {"allfives"},
}


def project_imports(path: Path) -> set[str]:
    """The project's layers a module imports, anywhere in it."""
    found: set[str] = set()
    for node in ast.walk(ast.parse(path.read_text(), str(path))):
        if isinstance(node, ast.Import):
            names = [alias.name for alias in node.names]
        elif isinstance(node, ast.ImportFrom) and node.level == 0 and node.module:
            names = [node.module]
        else:
            continue
        found |= {name.split(".")[0] for name in names} & set(LAYERS)
    return found


def modules() -> list[Path]:
    return sorted(path for layer in LAYERS for path in (ROOT / layer).rglob("*.py"))


@pytest.mark.parametrize("path", modules(), ids=lambda p: str(p.relative_to(ROOT)))
def test_a_module_imports_only_the_layers_below_it(path: Path) -> None:
    relative = path.relative_to(ROOT).as_posix()
    layer = relative.split("/")[0]
    allowed = ALLOWED[layer] | {layer}
    allowed |= IN_PROCESS.get(relative, set())
    wrong = project_imports(path) - allowed
    assert not wrong, f"{relative} imports {sorted(wrong)}; {layer} may import {sorted(allowed)}"


def test_the_check_sees_an_import_inside_a_function(tmp_path: Path) -> None:
    module = tmp_path / "m.py"
    module.write_text("def f():\n    from server.app import Config\n    import engine.bots\n")
    assert project_imports(module) == {"server", "engine"}
