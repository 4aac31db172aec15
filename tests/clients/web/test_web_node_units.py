"""The page's pure modules under Node's own test runner: tests/clients/web/web_unit/*.test.mjs.

Each file there imports modules of clients/web/js/ as the page does (ES modules, no build step)
and checks them with `node:test`, with no browser: the room state (state.js), the words
(i18n.js, text.js, limits.js) and the other pure parts (connection, lobby, key, pages, geometry,
results). A failing Node test fails its file's test here. Without `node` on PATH these skip,
except under CI=true, where they fail (.ci/run installs Debian's nodejs).
"""

from __future__ import annotations

import re
import shutil
import subprocess
from pathlib import Path

import pytest
from redis_server import unavailable

UNITS = Path(__file__).resolve().parent / "web_unit"
FILES = sorted(UNITS.glob("*.test.mjs"))
#: A file's tests run in well under a second; this bounds a hung one.
TIMEOUT = 120


def node() -> str:
    """Node's path; the test skips without it (fails under CI=true)."""
    found = shutil.which("node") or shutil.which("nodejs")
    if found is None:
        unavailable(
            "node is not on PATH: tests/clients/web/web_unit needs Node (Debian's nodejs package)"
        )
    return found


def run_units(files: list[Path]) -> str:
    """Run Node's test runner on `files`; its TAP report, or an AssertionError holding it when
    a test failed, none ran, or the runner did not finish."""
    command = [node(), "--test", "--test-reporter=tap", *(str(f) for f in files)]
    done = subprocess.run(command, capture_output=True, text=True, timeout=TIMEOUT, cwd=UNITS)
    report = done.stdout + done.stderr
    failed = re.search(r"^# fail (\d+)$", report, re.M)
    assert done.returncode == 0 and failed is not None and failed[1] == "0", report
    # A file with no test in it is reported as one passing test named after the file.
    ran = [
        name for name in re.findall(r"^# Subtest: (.*)$", report, re.M) if not name.endswith(".mjs")
    ]
    assert ran, "no Node test ran:\n" + report
    return report


def test_every_unit_file_is_run() -> None:
    assert [f.name for f in FILES] == ["parts.test.mjs", "state.test.mjs", "words.test.mjs"]


@pytest.mark.parametrize("path", FILES, ids=[f.name for f in FILES])
def test_the_pages_modules_pass_their_node_tests(path: Path) -> None:
    run_units([path])


def test_a_failing_node_test_fails_here(tmp_path: Path) -> None:
    node()
    failing = tmp_path / "failing.test.mjs"
    failing.write_text(
        'import { test } from "node:test";\nimport assert from "node:assert/strict";\n'
        'test("one that fails", () => assert.equal(1 + 1, 3));\n'
    )
    with pytest.raises(AssertionError, match="one that fails"):
        run_units([failing])
    empty = tmp_path / "empty.test.mjs"
    empty.write_text("// no tests\n")
    with pytest.raises(AssertionError, match="no Node test ran"):
        run_units([empty])


def test_without_node_the_units_skip_here_and_fail_under_ci(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("PATH", str(tmp_path))
    monkeypatch.setenv("CI", "true")
    with pytest.raises(pytest.fail.Exception, match="node is not on PATH"):
        node()
    monkeypatch.setenv("CI", "")
    with pytest.raises(pytest.skip.Exception, match="node is not on PATH"):
        node()
