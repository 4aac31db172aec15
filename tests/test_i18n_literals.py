"""No word a player reads is written outside the catalogs (docs/i18n.md): a check over every
source file of both clients, found by pattern so that files added later are checked too.

Python (clients/cli/**.py and the `allfives` command): a string literal that holds words (two
words, or a capitalised word) must be the argument of `_`, `N_` or `ngettext`, or be a
docstring. Browser (clients/web/js/**.js): a string or template literal that holds words must
not appear outside `t(...)` keys; the page's HTML holds no words outside <noscript> (whose
message is in every language) and <title> (the game's name, set again from the catalog).
A literal that is no player's word (a key's name, a typed command) says why on its line:
`# i18n: not shown`, `# i18n: a command` (`//` in scripts). Every `t("key")` the page calls is in the catalog.
"""

from __future__ import annotations

import ast
import re
from html.parser import HTMLParser
from pathlib import Path

from i18n_helpers import ROOT, web_catalog

PYTHON_SOURCES = [
    *sorted((ROOT / "clients" / "cli").rglob("*.py")),
    ROOT / "allfives" / "cli.py",
    ROOT / "allfives" / "replay.py",
]
JS_SOURCES = sorted((ROOT / "clients" / "web" / "js").rglob("*.js"))
HTML_PAGES = [ROOT / "clients" / "web" / "index.html"]
#: A line that says why its literal is no player's word: `# i18n: not shown`, `# i18n: a command`.
MARK = re.compile(r"(?:#|//) i18n: ")
#: What the terminal shows as typed commands (the program's name and its subcommands).
COMMAND = re.compile(r"(?:uv run )?allfives(?: [a-z]+)?:? ?")
#: A rich style ("bold red"), never shown as text.
STYLE = re.compile(r"(?:(?:bold|dim|italic|underline|red|green|cyan|yellow|on)\s*)+")
#: Words in a literal: two words of letters apart, or a capitalised word ("Send", "Boneyard").
WORDS = re.compile(r"[^\W\d_]{2,}[,.:;!?'’)]*\s+[(\"'“„]*[^\W\d_]{2,}|(?<![\w-])[A-Z][a-z]{2,}")
#: In a piece of an f-string or template literal: a word beside a space (" played ", "turn ").
PIECE_WORDS = re.compile(r"\s[^\W\d_]{3,}|[^\W\d_]{3,}\s")
#: A literal that is an attribute never shown (class, id, data-*...) in `h("tag", {...})`.
NOT_SHOWN_ATTRIBUTE = re.compile(
    r"(?:\b(?:class|id|type|name|role|autocomplete|autocapitalize|value|href|rel|target|method)"
    r"|\"(?:data-[\w-]+|aria-(?:describedby|live|labelledby|hidden|pressed|invalid)|text-anchor)\")"
    r"\s*:\s*$"
)
CATALOG_CALLS = {"_", "N_", "ngettext"}


def python_literals(source: str) -> list[tuple[int, str]]:
    """(line, text) of every string literal with words that is not a docstring, not the
    argument of a catalog call, and not on a line marked `# i18n: not shown`."""
    tree = ast.parse(source)
    lines = source.splitlines()
    exempt: set[int] = set()
    for node in ast.walk(tree):
        body = getattr(node, "body", None)
        if (
            isinstance(body, list)
            and body
            and isinstance(body[0], ast.Expr)
            and isinstance(body[0].value, ast.Constant)
        ):
            exempt.add(id(body[0].value))
        if (
            isinstance(node, ast.Call)
            and isinstance(node.func, ast.Name)
            and node.func.id in CATALOG_CALLS
        ):
            exempt.update(id(arg) for arg in node.args)
    pieces = {
        id(part)
        for node in ast.walk(tree)
        if isinstance(node, ast.JoinedStr)
        for part in node.values
        if isinstance(part, ast.Constant)
    }
    found = []
    for node in ast.walk(tree):
        if not (isinstance(node, ast.Constant) and isinstance(node.value, str)):
            continue
        if id(node) in exempt or MARK.search(lines[node.lineno - 1]):
            continue
        if COMMAND.fullmatch(node.value) or STYLE.fullmatch(node.value):
            continue
        if WORDS.search(node.value) or (id(node) in pieces and PIECE_WORDS.search(node.value)):
            found.append((node.lineno, node.value))
    return sorted(found)


_JS_TOKEN = re.compile(
    r"//[^\n]*|/\*.*?\*/|`(?:\\.|[^`\\])*`|\"(?:\\.|[^\"\\\n])*\"|'(?:\\.|[^'\\\n])*'",
    re.DOTALL,
)


def js_literals(source: str) -> list[tuple[int, str]]:
    """(line, text) of every string or template literal with words in a script, comments left
    out, the substitutions of a template left out, lines marked `// i18n: not shown` left out."""
    lines = source.splitlines()
    found = []
    for token in _JS_TOKEN.finditer(source):
        text = token.group(0)
        if text.startswith(("//", "/*")):
            continue
        line = source.count("\n", 0, token.start()) + 1
        if MARK.search(lines[line - 1]):
            continue
        if NOT_SHOWN_ATTRIBUTE.search(source[max(0, token.start() - 40) : token.start()]):
            continue
        inner = text[1:-1]
        if text.startswith("`"):
            inner = re.sub(r"\$\{[^}]*\}", "\x00", inner)
            pieces = inner.split("\x00")
            if len(pieces) > 1 and any(PIECE_WORDS.search(piece) for piece in pieces):
                found.append((line, inner.replace("\x00", "…")))
                continue
        if WORDS.search(inner):
            found.append((line, inner))
    return found


def without_comments(source: str) -> str:
    """A script with its comments blanked (literals kept)."""
    return _JS_TOKEN.sub(
        lambda m: " " if m.group(0).startswith(("//", "/*")) else m.group(0), source
    )


class _PageText(HTMLParser):
    """The text of an HTML page outside <noscript>, <title>, <script> and <style>."""

    SKIPPED = frozenset({"noscript", "title", "script", "style"})

    def __init__(self) -> None:
        super().__init__()
        self.inside: list[str] = []
        self.text: list[str] = []

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        if tag in self.SKIPPED:
            self.inside.append(tag)

    def handle_endtag(self, tag: str) -> None:
        if self.inside and self.inside[-1] == tag:
            self.inside.pop()

    def handle_data(self, data: str) -> None:
        if not self.inside and data.strip():
            self.text.append(data.strip())


def page_words(html: str) -> list[str]:
    """The words an HTML page shows outside <noscript> and <title>."""
    parser = _PageText()
    parser.feed(html)
    return parser.text


def shown(path: Path, found: list[tuple[int, str]]) -> list[str]:
    return [f"{path.relative_to(ROOT)}:{line}: {text!r}" for line, text in found]


def test_the_terminal_and_the_allfives_command_have_no_words_outside_the_catalog() -> None:
    assert len(PYTHON_SOURCES) > 20
    found = []
    for path in PYTHON_SOURCES:
        found += shown(path, python_literals(path.read_text("utf-8")))
    assert found == []


def test_the_page_scripts_have_no_words_outside_the_catalog() -> None:
    assert len(JS_SOURCES) > 10
    found = []
    for path in JS_SOURCES:
        found += shown(path, js_literals(path.read_text("utf-8")))
    assert found == []


def test_the_page_html_has_no_words_outside_noscript() -> None:
    for path in HTML_PAGES:
        assert page_words(path.read_text("utf-8")) == [], path


def test_the_checks_find_words_written_in_place() -> None:
    python = '''
"""A docstring is fine."""
from clients.cli.i18n import _
ok = _("Your turn")
log_format = "%(asctime)s %(message)s"  # i18n: not shown
said = f"{who} played {tile}"
button = "Leave"
'''
    assert [text for _, text in python_literals(python)] == [" played ", "Leave"]
    script = """
// A comment is fine.
const ok = t("dock.hint");
const key = event.key === "Escape"; // i18n: not shown
const said = `${who}'s turn`;
h("button", {}, "Send");
h("p", {}, 'Waiting for the host');
"""
    assert [text for _, text in js_literals(script)] == [
        "…'s turn",
        "Send",
        "Waiting for the host",
    ]
    assert page_words("<p>Loading…</p><noscript>Needs JavaScript</noscript>") == ["Loading…"]


def test_every_key_the_page_asks_for_is_in_the_catalog() -> None:
    english = web_catalog("en")
    called = re.compile(r"""\b(?:t|plural)\(\s*["']([\w.]+)["']""")
    missing = []
    for path in JS_SOURCES:
        for key in called.findall(without_comments(path.read_text("utf-8"))):
            if key not in english:
                missing.append(f"{path.name}: {key}")
    assert missing == []
