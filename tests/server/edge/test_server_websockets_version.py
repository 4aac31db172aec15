"""The edge is built on websockets' Sans-I/O protocol (server.edge.wire), tested with the
versions pyproject.toml pins: an untested websockets fails here, loudly, before it fails a
player."""

from __future__ import annotations

import ast
import tomllib
from importlib.metadata import version
from pathlib import Path

from packaging.requirements import Requirement

ROOT = Path(__file__).resolve().parents[3]
#: The websockets releases the edge is tested on: the major versions of `websockets>=14,<18`.
TESTED_MAJORS = range(14, 18)


def _pinned() -> Requirement:
    project = tomllib.loads((ROOT / "pyproject.toml").read_text())["project"]
    (line,) = [d for d in project["dependencies"] if Requirement(d).name == "websockets"]
    return Requirement(line)


def test_the_installed_websockets_is_one_the_edge_was_tested_on() -> None:
    installed = version("websockets")
    major = int(installed.split(".")[0])
    assert major in TESTED_MAJORS, (
        f"websockets {installed} is not one the edge (server.edge.wire) was tested on "
        f"({TESTED_MAJORS.start} to {TESTED_MAJORS.stop - 1}): test it, then widen the range "
        "here and in pyproject.toml"
    )
    assert _pinned().specifier.contains(installed, prereleases=True)


def test_pyproject_pins_websockets_to_the_tested_majors() -> None:
    specifier = _pinned().specifier
    assert not specifier.contains(f"{TESTED_MAJORS.start - 1}.9"), "below the tested range"
    assert not specifier.contains(f"{TESTED_MAJORS.stop}.0"), "no upper bound: any release goes"
    assert all(specifier.contains(f"{major}.0") for major in TESTED_MAJORS)


def test_nothing_in_the_server_subclasses_or_patches_a_websockets_class() -> None:
    """A subclass of a websockets class, or a websockets object's attribute replaced, depends on
    the library's internals, which a release may change without a word."""
    found = []
    for path in sorted((ROOT / "server").rglob("*.py")):
        tree = ast.parse(path.read_text())
        imported = {
            alias.asname or alias.name
            for node in ast.walk(tree)
            if isinstance(node, ast.ImportFrom) and (node.module or "").startswith("websockets")
            for alias in node.names
        }
        for node in ast.walk(tree):
            if isinstance(node, ast.ClassDef):
                bases = {b.id for b in node.bases if isinstance(b, ast.Name)}
                if bases & imported:
                    found.append(f"{path.relative_to(ROOT)}: class {node.name}")
            if isinstance(node, ast.Assign):
                for target in node.targets:
                    if (
                        isinstance(target, ast.Attribute)
                        and isinstance(target.value, ast.Name)
                        and target.value.id in imported
                    ):
                        found.append(f"{path.relative_to(ROOT)}:{node.lineno} patches")
    assert not found, found
