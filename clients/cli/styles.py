"""The table's styles, shared by `render` and `status`: colours that also read without colour."""

from __future__ import annotations

from rich.style import Style
from rich.text import Text

GOLD = Style(bold=True, color="yellow")
PLAYABLE = Style(bold=True, color="green")
HINTED = Style(bold=True, color="magenta", underline=True)
DULL = Style(dim=True)
RULE = Style(dim=True)
LOG_STYLES = {
    "play": Style(),
    "score": Style(color="yellow"),
    "hand": Style(bold=True),
    "match": Style(bold=True, color="green"),
    "chat": Style(color="cyan"),
    "info": Style(dim=True, italic=True),
    "error": Style(color="red"),
}
NOTICE_STYLES = {
    "info": Style(color="cyan"),
    "error": Style(bold=True, color="red"),
    "hint": Style(bold=True, color="magenta"),
}


def rule(width: int, title: str = "") -> Text:
    """A thin line across, with a short title at its left."""
    if not title:
        return Text("─" * width, RULE)
    return Text.assemble(
        ("── ", RULE),
        (title, Style(dim=True, bold=True)),
        (" " + "─" * max(0, width - len(title) - 4), RULE),
    )
