"""The layers keep their one-way imports: clients -> protocol <- bridge -> engine, server -> bridge.

engine/ and protocol/ import nothing of the project's other layers, but for one module: the engine
plays by protocol's one Rules type (`protocol.rules`, which imports nothing of the project), so a
variant is written once and nothing copies rules between two types; bridge/ (engine values as
wire and record values) imports only those two; the server imports engine, protocol and bridge,
never a client; clients import protocol, and more only where they run it inside themselves (a
server for `play` and `host`, the review of a record for `/review` when the server has none). The offline commands `allfives replay`
and `allfives analyze` reach nothing of the server. Read from the source with `ast`, so an import
inside a function counts too.
"""

from __future__ import annotations

import ast
import functools
import re
from collections.abc import Collection
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

#: Single modules of another layer that a whole layer may import: the one Rules type, pure (only
#: msgspec) and the same value for the engine, the wire and the records.
SHARED_MODULES: dict[str, set[str]] = {"engine": {"protocol.rules"}}


def parsed(path: Path) -> ast.Module:
    """A module's syntax tree (parsed once for each text: many checks read the same files)."""
    return _parse(path.read_text(), str(path))


@functools.cache
def _parse(text: str, name: str) -> ast.Module:
    return ast.parse(text, name)


def imported_names(path: Path) -> frozenset[str]:
    """Every module name a module imports, anywhere in it (`from a import b` gives a and a.b)."""
    return _imported_names(parsed(path))


@functools.cache
def _imported_names(tree: ast.Module) -> frozenset[str]:
    found: set[str] = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            found |= {alias.name for alias in node.names}
        elif isinstance(node, ast.ImportFrom) and node.level == 0 and node.module:
            found.add(node.module)
            found |= {f"{node.module}.{alias.name}" for alias in node.names}
    return frozenset(found)


def project_imports(path: Path, shared: Collection[str] = ()) -> set[str]:
    """The project's layers a module imports, anywhere in it, leaving out the `shared` modules."""
    names = imported_names(path)
    names -= {name for name in names if name in shared or name.rsplit(".", 1)[0] in shared}
    return {name.split(".")[0] for name in names} & set(LAYERS)


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
    wrong = project_imports(path, SHARED_MODULES.get(layer, set())) - allowed
    assert not wrong, f"{relative} imports {sorted(wrong)}; {layer} may import {sorted(allowed)}"


def test_the_shared_rules_module_imports_nothing_of_the_project() -> None:
    for module in set().union(*SHARED_MODULES.values()):
        path = module_file(module)
        assert path is not None
        assert not project_imports(path), f"{module} imports {sorted(project_imports(path))}"


def test_the_shared_module_is_the_only_exception(tmp_path: Path) -> None:
    module = tmp_path / "m.py"
    module.write_text("from protocol.rules import Rules\nfrom protocol.views import GameView\n")
    assert project_imports(module, {"protocol.rules"}) == {"protocol"}
    module.write_text("from protocol.rules import Rules, RulesError\nimport protocol.rules\n")
    assert project_imports(module, {"protocol.rules"}) == set()


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
#: metrics); `server.app` wires them all together and `server.serve` runs it. The room knows no
#: store, no connection and no network limit; a store keeps bytes and reads no room (the moves
#: Redis logs are made again by whoever loads the room: `server.play.live.stored_state`).
SERVER_PACKAGES: dict[str, set[str]] = {
    "rooms": set(),
    "storage": set(),
    "play": {"rooms", "storage"},
    "cluster": {"rooms", "storage", "play"},
    "edge": {"rooms", "storage", "play", "desk"},
    "tournaments": set(),
    "desk": {"rooms", "storage", "tournaments"},
}
#: Beside the packages: the wiring, the settings (their groups, how each is declared and read, and
#: their generated reference), the counters, `allfives serve`, the operator's `allfives admin`,
#: and the garbage collector's schedule of a serving process (docs/architecture.md).
SERVER_TOP = {
    "__init__",
    "admin",
    "app",
    "collector",
    "config",
    "metrics",
    "reference",
    "serve",
    "settings",
}
#: Server packages that are pure cores: of the project they import only these (not even the
#: server's config or metrics), and no module of the standard library that does I/O, keeps time
#: or draws at random, so the same commands give the same state (docs/tournaments.md).
PURE_PACKAGES: dict[str, set[str]] = {"tournaments": {"protocol"}}
IMPURE_MODULES = {
    "asyncio",
    "datetime",
    "io",
    "logging",
    "os",
    "pathlib",
    "random",
    "secrets",
    "selectors",
    "socket",
    "sqlite3",
    "subprocess",
    "threading",
    "time",
    "uuid",
}


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

    visit(parsed(path))
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


def pure_package_problems(path: Path, allowed: set[str]) -> list[str]:
    """What a module of a pure package imports that it may not: a layer not in `allowed`, any
    other module of the server, or a module of `IMPURE_MODULES`."""
    package = path.parent.name
    problems = []
    for name in sorted(imported_names(path)):
        top, _, rest = name.partition(".")
        other_server_part = top == "server" and rest.split(".")[0] != package
        other_layer = top in LAYERS and top not in allowed | {"server"}
        if other_server_part or other_layer or top in IMPURE_MODULES:
            problems.append(name)
    return problems


@pytest.mark.parametrize("package", sorted(PURE_PACKAGES))
def test_a_pure_server_package_imports_no_other_part_of_the_server_and_no_io(package: str) -> None:
    paths = sorted((ROOT / "server" / package).rglob("*.py"))
    assert paths
    for path in paths:
        problems = pure_package_problems(path, PURE_PACKAGES[package])
        assert not problems, f"{path.relative_to(ROOT)} imports {problems}"


def test_the_pure_check_sees_the_server_engine_a_client_and_io(tmp_path: Path) -> None:
    module = tmp_path / "tournaments" / "m.py"
    module.parent.mkdir()
    module.write_text(
        "from server.tournaments import pairing\nfrom protocol.rules import Rules\n"
        "import networkx\n"
        "def f():\n    from server.config import Config\n    import engine.bots\n"
        "    import clients.cli\n    import asyncio\n    from time import monotonic\n"
    )
    assert pure_package_problems(module, {"protocol"}) == [
        "asyncio",
        "clients.cli",
        "engine.bots",
        "server.config",
        "server.config.Config",
        "time",
        "time.monotonic",
    ]


#: Arrows between the server's packages that stay out whatever the table above comes to allow:
#: a store keeps bytes and reads no room; the room knows nothing of the network.
NEVER: tuple[tuple[str, str], ...] = (("storage", "rooms"), ("rooms", "edge"))
#: Libraries of the network, which only the edge (and the wiring) import.
NETWORK = {"websockets", "wsproto"}


@pytest.mark.parametrize(("package", "never"), NEVER, ids=lambda name: str(name))
def test_an_arrow_that_never_comes_back(package: str, never: str) -> None:
    assert never not in SERVER_PACKAGES[package]
    for name, path in server_modules().items():
        if name.startswith(f"server.{package}."):
            wrong = {n for n in imported_names(path) if n.startswith(f"server.{never}.")}
            assert not wrong, f"{name} imports {sorted(wrong)}"


def test_the_room_imports_no_network_library() -> None:
    for name, path in server_modules().items():
        if name.startswith("server.rooms."):
            wrong = {n for n in imported_names(path) if n.split(".")[0] in NETWORK}
            assert not wrong, f"{name} imports {sorted(wrong)}: the network's limits are the edge's"


#: The one module that takes a room's lock (`LiveRoom.exclusive`): every change and every read
#: that must see a room as stored goes through it.
LOCK_TAKER = "server/play/live.py"


def locks_taken(path: Path) -> list[int]:
    """The lines where a module takes an asyncio lock held in an attribute (`async with
    x.lock:`; a thread's lock, `with`, guards a store's connection, not a room)."""
    lines = []
    for node in ast.walk(parsed(path)):
        if isinstance(node, ast.AsyncWith):
            for item in node.items:
                held = item.context_expr
                if isinstance(held, ast.Attribute) and held.attr.lstrip("_").endswith("lock"):
                    lines.append(node.lineno)
    return lines


def test_a_rooms_lock_is_taken_in_one_place() -> None:
    takers = {
        path.relative_to(ROOT).as_posix() for path in server_modules().values() if locks_taken(path)
    }
    assert takers == {LOCK_TAKER}, f"a lock is taken outside {LOCK_TAKER}: {sorted(takers)}"


def test_the_lock_check_sees_a_lock_taken_by_attribute(tmp_path: Path) -> None:
    module = tmp_path / "m.py"
    module.write_text(
        "async def f(live, locks):\n"
        "    async with live.lock:\n        pass\n"
        "    async with live._lock:\n        pass\n"
        "    async with locks.setdefault(1, None):\n        pass\n"
        "    async with live.exclusive():\n        pass\n"
        "    with store._lock:\n        pass\n"
    )
    assert locks_taken(module) == [2, 4]


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
    graph = {
        name: set(imported_names(path) & set(modules)) - {name} for name, path in modules.items()
    }
    found = circles(graph)
    assert not found, [sorted(group) for group in found]


# -- clients hold no rule (docs/architecture.md) ------------------------------------------------
#
# What a client shows after a hand (its final layout, each side's pips and their rounding), who
# is whose partner and every replay position is the server's. A client module that rounds to
# five, adds up pips, places a tile on a layout or works out a team or a partner from a seat
# holds a rule of its own.

#: Functions that place tiles or work out where they went: the names the clients once had.
PLACING_NAMES = {"place", "final_layout", "finalLayout", "open_ends", "openEnds", "end_of", "endOf"}
PLACING_NAMES |= {"round5", "roundFive", "round_5"}
#: A layout's tile lists: a client that appends to one places a tile.
LAYOUT_LISTS = {"line", "north", "south"}
#: Counting and placing in the browser's modules, each with what it is.
JS_RULES: tuple[tuple[str, str], ...] = (
    (r"%\s*5\b", "a number taken modulo 5 (rounding or scoring)"),
    (r"\(\s*[\w.]+\s*\+\s*2\s*\)\s*%\s*4", "a partner worked out from a seat"),
    (r"\b(?:seat|index|turn|you|by)\s*%\s*2\b", "a team worked out from a seat"),
    (r"\bpips\s*\[[^\]]*\]\s*\+=|\+=\s*pips\s*\[", "pips added up"),
    (r"\breduce\([^;]*\+\s*pips\s*\[", "pips added up"),
    (r"\.(?:line|north|south)\.(?:push|unshift|splice)\(", "a tile put on a layout"),
    (r"\b(?:arm|line)\.(?:push|unshift)\(\[", "a tile put on a layout"),
    (
        r"\bfunction\s+(?:" + "|".join(sorted(PLACING_NAMES)) + r")\b",
        "a placing or rounding function",
    ),
)


#: Options a client checks as the server would, before it starts a server of its own: `allfives
#: play --target` refuses a target that is not a multiple of five (clients/cli/local.py).
OPTION_CHECKS = {"clients/cli/local.py": "modulo 5"}


def python_rules(path: Path) -> list[str]:
    """The rules a client's Python module holds: each as line and what it is."""
    found: list[str] = []
    for node in ast.walk(parsed(path)):
        line = getattr(node, "lineno", 0)
        if (
            isinstance(node, ast.BinOp)
            and isinstance(node.op, ast.Mod)
            and isinstance(node.right, ast.Constant)
            and node.right.value == 5
        ):
            found.append(f"{line}: a number taken modulo 5 (rounding or scoring)")
        elif (
            isinstance(node, ast.BinOp)
            and isinstance(node.op, ast.Mod)
            and isinstance(node.right, ast.Constant)
            and node.right.value == 2
        ):
            found.append(f"{line}: a team worked out from a seat")
        elif isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef) and node.name in (
            PLACING_NAMES
        ):
            found.append(f"{line}: a placing or rounding function ({node.name})")
        elif isinstance(node, ast.Name | ast.alias) and (
            (node.id if isinstance(node, ast.Name) else node.name.split(".")[-1]) in PLACING_NAMES
        ):
            found.append(f"{line}: a placing or rounding function used")
        elif (
            isinstance(node, ast.Call)
            and isinstance(node.func, ast.Attribute)
            and node.func.attr in ("append", "insert")
            and isinstance(node.func.value, ast.Attribute)
            and node.func.value.attr in LAYOUT_LISTS
        ):
            found.append(f"{line}: a tile put on a layout (.{node.func.value.attr})")
        elif isinstance(node, ast.AugAssign) and "pips" in ast.unparse(node):
            found.append(f"{line}: pips added up")
    return found


def javascript_rules(path: Path) -> list[str]:
    """The rules a browser module holds: each as line and what it is."""
    found: list[str] = []
    for number, text in enumerate(path.read_text().splitlines(), start=1):
        code = text.split("//")[0]
        found += [f"{number}: {what}" for pattern, what in JS_RULES if re.search(pattern, code)]
    return found


def client_modules() -> list[Path]:
    clients = ROOT / "clients"
    return sorted([*clients.rglob("*.py"), *(clients / "web" / "js").glob("*.js")])


def rules_in(path: Path) -> list[str]:
    return python_rules(path) if path.suffix == ".py" else javascript_rules(path)


@pytest.mark.parametrize("path", client_modules(), ids=lambda p: str(p.relative_to(ROOT)))
def test_a_client_module_neither_counts_nor_places(path: Path) -> None:
    exempt = OPTION_CHECKS.get(path.relative_to(ROOT).as_posix())
    held = [said for said in rules_in(path) if exempt is None or exempt not in said]
    assert not held, f"{path.relative_to(ROOT)} holds rules of the game: {held}"


def test_the_rule_check_sees_a_client_that_places_or_counts(tmp_path: Path) -> None:
    python = tmp_path / "m.py"
    python.write_text(
        "def place(layout, tile):\n    layout.line.append(tile)\n"
        "def score(total):\n    return total if total % 5 == 0 else 0\n"
        "def held(pips, sides):\n    for seat in range(4):\n        sides[seat % 2] += pips[seat]\n"
    )
    lines = sorted(int(said.split(":")[0]) for said in python_rules(python))
    assert lines == [1, 2, 4, 7, 7]
    script = tmp_path / "m.js"
    script.write_text(
        "export function finalLayout(layout, events) {\n"
        "  line.push([inner, other(inner)]);\n"
        "  const sum = seats.reduce((added, seat) => added + pips[seat], 0);\n"
        "  const partner = (result.by + 2) % 4;\n"
        "  const team = seat % 2;\n"
        "  const rounded = x - (x % 5); // a note: x % 5 here is not code\n"
        "}\n"
    )
    lines = sorted(int(said.split(":")[0]) for said in javascript_rules(script))
    assert lines == [1, 2, 3, 4, 5, 6]
