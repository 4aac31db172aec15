"""The table's styles, shared by `render` and `status`: colours that also read without colour."""

from __future__ import annotations

from collections.abc import Iterable

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


#: Rows folded by `wrap` go on this far in past the indent of the row they continue.
HANGING = 3
#: Narrower than this, a folded row is not indented.
NARROWEST = 10


def wrap(rows: Iterable[Text], width: int, hanging: int = HANGING) -> list[Text]:
    """Rows folded at spaces to fit `width`, never cut: a row too long goes on in the rows
    under it, indented `hanging` columns past its own indent (a word longer than a row is
    folded inside)."""
    out: list[Text] = []
    for row in rows:
        plain = row.plain
        if row.cell_len <= width:
            out.append(row)
            continue
        pad = len(plain) - len(plain.lstrip(" ")) + hanging
        if width - pad < NARROWEST:
            pad = 0
        start, first = 0, True
        while start < len(plain):
            room = max(1, width if first else width - pad)
            end = min(len(plain), start + room)
            if end < len(plain):
                space = plain.rfind(" ", start + 1, end + 1)
                if space > start:
                    end = space
            piece = row[start:end]
            piece.rstrip()
            if not first:
                piece = Text(" " * pad) + piece
            piece.truncate(width)
            out.append(piece)
            start, first = end, False
            while start < len(plain) and plain[start] == " ":
                start += 1
    return out
