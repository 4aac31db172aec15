"""A line said below a screen, folded at spaces to the terminal's width, with the command it
names kept whole on a row of its own where it fits (a terminal's own wrap cuts mid-word)."""

from __future__ import annotations

import textwrap

from rich.cells import cell_len

#: What stays glued to a command's end: a closing bracket, a full stop.
GLUED = ")].,;:!?"


def fold(text: str, width: int) -> list[str]:
    """`text` in rows of at most `width` cells, broken at spaces only (a word longer than a
    row keeps a row of its own)."""
    if cell_len(text) <= width:
        return [text]
    return textwrap.wrap(text, max(1, width), break_long_words=False, break_on_hyphens=False) or [
        ""
    ]


def fold_keeping(text: str, command: str, width: int) -> list[str]:
    """`text` folded at spaces to `width` cells, `command` (a part of it) whole: after the
    words before it if it fits there, else on a row of its own (with what is glued to its
    end, such as a closing bracket), else folded at its own spaces."""
    at = _word_start(text, command)
    if at < 0 or cell_len(text) <= width:
        return fold(text, width)
    head, tail = text[:at].rstrip(), text[at + len(command) :]
    glued = len(tail) - len(tail.lstrip(GLUED))
    whole, rest = command + tail[:glued], tail[glued:].strip()
    rows = fold(head, width) if head else []
    if rows and cell_len(f"{rows[-1]} {whole}") <= width:
        rows[-1] = f"{rows[-1]} {whole}"
    elif cell_len(whole) <= width:
        rows.append(whole)
    else:
        rows += fold(whole, width)
    return rows + (fold(rest, width) if rest else [])


def _word_start(text: str, command: str) -> int:
    """Where `command` stands in `text` as whole words (-1: nowhere)."""
    at = text.find(command) if command else -1
    while at >= 0:
        end = at + len(command)
        if (at == 0 or text[at - 1].isspace()) and text[end:].lstrip(GLUED)[:1] in ("", " "):
            return at
        at = text.find(command, at + 1)
    return at
