"""The layers keep their one-way imports: clients -> protocol <- bridge -> engine, server -> bridge.

engine/ and protocol/ import nothing of the project's other layers; bridge/ (engine values as
wire and record values) imports only those two; the server imports engine, protocol and bridge,
never a client; clients import protocol, and more only where they run it inside themselves (a
server for `play` and `host`, the review of a record for `/review` when the server has none). The offline commands `allfives replay`
and `allfives analyze` reach nothing of the server. Read from the source with `ast`, so an import
inside a function counts too.
"""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
LAYERS = ("engine", "protocol", "bridge", "server", "clients", "allfives")

#: What each layer may import of the others.
ALLOWED: dict[str, set[str]] = {
    "engine": set(),
    "protocol": set(),
    "bridge": {"engine", "protocol"},
    "server": {"engine", "protocol", "bridge"},
    "clients": {"protocol"},
    "allfives": {"engine", "protocol", "bridge", "server", "clients"},
}
#: Client modules that run more of the project in the client's own process: a server in the
#: embedded modes (`play`, `host`), and the hard bot's review of a record (`bridge.reviews`) for
#: `/review` when the server has none to give.
IN_PROCESS: dict[str, set[str]] = {
    "clients/cli/host.py": {"server"},
    "clients/cli/play.py": {"server"},
    "clients/cli/review.py": {"bridge"},
}


def imported_names(path: Path) -> set[str]:
    """Every module name a module imports, anywhere in it (`from a import b` gives a and a.b)."""
    found: set[str] = set()
    for node in ast.walk(ast.parse(path.read_text(), str(path))):
        if isinstance(node, ast.Import):
            found |= {alias.name for alias in node.names}
        elif isinstance(node, ast.ImportFrom) and node.level == 0 and node.module:
            found.add(node.module)
            found |= {f"{node.module}.{alias.name}" for alias in node.names}
    return found


def project_imports(path: Path) -> set[str]:
    """The project's layers a module imports, anywhere in it."""
    return {name.split(".")[0] for name in imported_names(path)} & set(LAYERS)


def module_file(name: str, root: Path = ROOT) -> Path | None:
    """The source file of a module of the project, or None (not the project's, or not a module)."""
    base = root.joinpath(*name.split("."))
    for path in (base.with_suffix(".py"), base / "__init__.py"):
        if path.is_file():
            return path
    return None


def reachable(start: str, root: Path = ROOT) -> set[str]:
    """The project's modules that importing `start` and running it may load, its packages too."""
    seen: set[str] = set()
    todo = [start]
    while todo:
        name = todo.pop()
        parts = name.split(".")
        for module in (".".join(parts[:n]) for n in range(1, len(parts) + 1)):
            if module in seen or (path := module_file(module, root)) is None:
                continue
            seen.add(module)
            todo.extend(imported_names(path))
    return seen


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


@pytest.mark.parametrize("command", ["allfives.replay", "allfives.analyze"])
def test_the_offline_commands_load_nothing_of_the_server(command: str) -> None:
    loaded = reachable(command)
    assert "bridge.records" in loaded
    server = sorted(m for m in loaded if m == "server" or m.startswith("server."))
    assert not server, f"{command} reaches {server}"


def test_the_reach_follows_a_chain_of_imports(tmp_path: Path) -> None:
    for name, text in {
        "a/__init__.py": "",
        "a/top.py": "from a import middle\n",
        "a/middle.py": "def f():\n    import server.room\n",
        "server/__init__.py": "",
        "server/room.py": "",
    }.items():
        (tmp_path / name).parent.mkdir(exist_ok=True)
        (tmp_path / name).write_text(text)
    assert reachable("a.top", tmp_path) == {"a", "a.top", "a.middle", "server", "server.room"}


#: The server's packages, each importing only those listed (and the top modules config and
#: metrics); `server.app` wires them all together and `server.serve` runs it.
SERVER_PACKAGES: dict[str, set[str]] = {
    "rooms": set(),
    "storage": {"rooms"},
    "play": {"rooms", "storage"},
    "cluster": {"rooms", "storage", "play"},
    "edge": {"rooms", "storage", "play"},
}
#: Beside the packages: the wiring, the settings, the counters, `allfives serve`, the operator's
#: `allfives admin`, and the garbage collector's schedule of a serving process
#: (docs/architecture.md).
SERVER_TOP = {"__init__", "admin", "app", "collector", "config", "metrics", "serve"}


def run_time_imports(path: Path) -> set[str]:
    """The modules a module imports when it runs (anywhere but under `if TYPE_CHECKING:`)."""
    found: set[str] = set()

    def visit(node: ast.AST) -> None:
        for child in ast.iter_child_nodes(node):
            if isinstance(child, ast.If) and "TYPE_CHECKING" in ast.unparse(child.test):
                continue
            if isinstance(child, ast.Import):
                found.update(alias.name for alias in child.names)
            elif isinstance(child, ast.ImportFrom) and child.level == 0 and child.module:
                found.add(child.module)
                found.update(f"{child.module}.{alias.name}" for alias in child.names)
            visit(child)

    visit(ast.parse(path.read_text(), str(path)))
    return found


def server_modules() -> dict[str, Path]:
    named = {}
    for path in (ROOT / "server").rglob("*.py"):
        parts = path.relative_to(ROOT).with_suffix("").parts
        named[".".join(parts[:-1] if parts[-1] == "__init__" else parts)] = path
    return named


def test_the_server_is_a_few_packages_and_a_few_top_modules() -> None:
    top = {path.stem for path in (ROOT / "server").glob("*.py")}
    assert top == SERVER_TOP, top
    packages = {path.parent.name for path in (ROOT / "server").glob("*/__init__.py")}
    assert packages == set(SERVER_PACKAGES)
    for package in packages:
        assert ast.get_docstring(ast.parse((ROOT / "server" / package / "__init__.py").read_text()))


@pytest.mark.parametrize("package", sorted(SERVER_PACKAGES))
def test_a_server_package_imports_only_the_packages_below_it(package: str) -> None:
    allowed = SERVER_PACKAGES[package] | {package}
    for name, path in server_modules().items():
        if not name.startswith(f"server.{package}."):
            continue
        for imported in imported_names(path):
            parts = imported.split(".")
            if parts[0] != "server" or len(parts) < 2 or parts[1] in {"config", "metrics"}:
                continue
            assert parts[1] in allowed, f"{name} imports {imported}"


def test_no_import_circle_in_the_server_at_run_time() -> None:
    modules = server_modules()
    graph = {name: run_time_imports(path) & set(modules) - {name} for name, path in modules.items()}

    def circle_from(start: str) -> list[str] | None:
        path, seen = [start], {start}

        def walk(node: str) -> list[str] | None:
            for nxt in sorted(graph[node]):
                if nxt == start:
                    return [*path, start]
                if nxt not in seen:
                    seen.add(nxt)
                    path.append(nxt)
                    found = walk(nxt)
                    if found:
                        return found
                    path.pop()
            return None

        return walk(start)

    circles = [circle for name in graph if (circle := circle_from(name))]
    assert not circles, circles[0]


def circles(graph: dict[str, set[str]]) -> list[set[str]]:
    """The groups of modules that import one another round a circle (strongly connected)."""
    reaches = {name: reach_in(graph, name) for name in graph}
    found: list[set[str]] = []
    for name in sorted(graph):
        group = {other for other in reaches[name] if name in reaches[other]}
        if name in group and group not in found:
            found.append(group)
    return found


def reach_in(graph: dict[str, set[str]], start: str) -> set[str]:
    """The modules `start` imports, directly or through others (itself if round a circle)."""
    seen: set[str] = set()
    todo = list(graph[start])
    while todo:
        name = todo.pop()
        if name not in seen:
            seen.add(name)
            todo.extend(graph.get(name, ()))
    return seen


def test_the_circle_check_finds_a_circle_of_three() -> None:
    graph = {"a": {"b"}, "b": {"c"}, "c": {"a", "d"}, "d": set(), "e": {"e2"}, "e2": set()}
    assert circles(graph) == [{"a", "b", "c"}]


def test_no_import_circle_in_the_server_even_type_only() -> None:
    modules = server_modules()
    graph = {name: imported_names(path) & set(modules) - {name} for name, path in modules.items()}
    found = circles(graph)
    assert not found, [sorted(group) for group in found]
