"""The documents' links lead somewhere: every relative link in the repository's markdown names a
file of the repository (and a heading of it, when it names one), never a file outside it.

Links are read from the text outside code (fenced blocks and `inline code` are examples, not
links); a heading's anchor is made as GitHub makes it (lower case, punctuation dropped, spaces to
hyphens, `-1`, `-2` after a repeated heading).
"""

from __future__ import annotations

import re
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
#: Folders whose markdown is not the project's own (environments, vendored code, tools' caches).
SKIPPED = {".venv", "node_modules", "vendor", ".git", ".pytest_cache", ".mypy_cache", ".ruff_cache"}

FENCE = re.compile(r"^(```|~~~).*?^\1[^\n]*$", re.MULTILINE | re.DOTALL)
INLINE_CODE = re.compile(r"(`+)(?:(?!\1).)+?\1", re.DOTALL)
LINK = re.compile(r"!?\[(?:[^\[\]]|\[[^\]]*\])*\]\(\s*<?([^)\s>]+)>?(?:\s+\"[^\"]*\")?\s*\)")
HEADING = re.compile(r"^#{1,6}\s+(.*?)\s*#*\s*$", re.MULTILINE)


def documents() -> list[Path]:
    found = [
        path
        for path in ROOT.rglob("*.md")
        if not SKIPPED.intersection(path.relative_to(ROOT).parts)
    ]
    return sorted(found)


def prose(text: str) -> str:
    """The text without its code: fenced blocks and inline code spans."""
    return INLINE_CODE.sub("", FENCE.sub("", text))


def links(text: str) -> list[str]:
    """The targets of the inline links in the text's prose."""
    return LINK.findall(prose(text))


def slug(heading: str) -> str:
    """A heading's anchor as GitHub makes it."""
    words = re.sub(r"[*_`]|\[([^\]]*)\]\([^)]*\)", r"\1", heading).strip().lower()
    return re.sub(r"[^\w\- ]", "", words).replace(" ", "-")


def anchors(path: Path) -> set[str]:
    seen: dict[str, int] = {}
    found = set()
    for heading in HEADING.findall(FENCE.sub("", path.read_text(encoding="utf-8"))):
        base = slug(heading)
        count = seen.get(base, 0)
        seen[base] = count + 1
        found.add(base if count == 0 else f"{base}-{count}")
    return found


def broken(document: Path, root: Path = ROOT) -> list[str]:
    """What is wrong with each relative link of `document` (a file under `root`), one line each."""
    problems = []
    for target in links(document.read_text(encoding="utf-8")):
        if re.match(r"^[a-z][a-z0-9+.-]*:", target, re.IGNORECASE) or target.startswith("//"):
            continue  # an absolute URL (https:, mailto:): not a file of the repository
        name, _, anchor = target.partition("#")
        file = (document.parent / name).resolve() if name else document
        if not file.is_relative_to(root):
            problems.append(f"{target}: outside the repository")
            continue
        relative = file.relative_to(root).as_posix()
        if not file.exists():
            problems.append(f"{target}: no such file ({relative})")
            continue
        if anchor and file.suffix == ".md" and anchor not in anchors(file):
            problems.append(f"{target}: no heading #{anchor} in {relative}")
    return problems


@pytest.mark.parametrize(
    "document", documents(), ids=lambda path: path.relative_to(ROOT).as_posix()
)
def test_every_relative_link_resolves_inside_the_repository(document: Path) -> None:
    assert broken(document) == []


def test_the_check_finds_a_missing_file_a_missing_heading_and_a_way_out(tmp_path: Path) -> None:
    (tmp_path / "docs").mkdir()
    (tmp_path / "docs" / "rules.md").write_text("# 1. Equipment and players\n", encoding="utf-8")
    (tmp_path / "secret.md").write_text("# Secret\n", encoding="utf-8")
    doc = tmp_path / "docs" / "example.md"
    text = (
        "# Top\n\n## A heading's words\n\n"
        "[ok](#top) [ok](#a-headings-words) [ok](rules.md#1-equipment-and-players)\n"
        "[gone](nowhere.md) [no heading](#missing) [out](../secret.md)\n"
        "[web](https://example.org/x.md) `[code](not-a-link.md)`\n"
        "```\n[fenced](not-a-link-either.md)\n```\n"
    )
    doc.write_text(text, encoding="utf-8")
    assert broken(doc, root=tmp_path / "docs") == [
        "nowhere.md: no such file (nowhere.md)",
        "#missing: no heading #missing in example.md",
        "../secret.md: outside the repository",
    ]


def test_anchors_follow_githubs_rules() -> None:
    assert slug("The engine's refusals") == "the-engines-refusals"
    assert slug("5. The layout and the spinner") == "5-the-layout-and-the-spinner"
    assert slug("`allfives serve`: options") == "allfives-serve-options"
