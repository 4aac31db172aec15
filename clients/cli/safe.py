"""Text from a server made safe for a terminal: `visible(text)`.

A server is untrusted: a name, a chat line, a room code or an error text may carry escape
sequences (clear the screen, set the window title, colour the rest of the table), bidi overrides
that reverse what follows, or zero-width characters that make two names look alike. `visible`
maps each such character to one visible character of its own, so the text keeps its length (and
rich's styles over it stay where they were) and nothing reaches the terminal as a command:

- C0 controls and DEL become their Unicode control pictures (ESC is `␛`, BEL is `␇`, DEL `␡`);
- C1 controls, format characters (bidi overrides and isolates, zero-width spaces and joiners,
  the byte-order mark, soft hyphen), line and paragraph separators, surrogates, private-use and
  unassigned code points become `�`;
- so does every other character that prints as nothing (`protocol.names.hidden`: the combining
  grapheme joiner, variation selectors, Hangul fillers, the braille blank...), and a combining
  mark with no letter or digit under it, or past the second on one letter: what a name may not
  hold (`protocol.names.name_problem`), so a name that tries to pass for another shows its odd
  character.

Every row the terminal client writes goes through it (`safe_text` for rich Text).
"""

from __future__ import annotations

import unicodedata
from functools import lru_cache

from rich.text import Text

from protocol.names import MAX_MARKS, hidden

REPLACEMENT = "\N{REPLACEMENT CHARACTER}"
CONTROL_PICTURES = 0x2400
DELETE_PICTURE = "\N{SYMBOL FOR DELETE}"
#: Categories never shown as they are: controls, format, separators of lines, and the unknown.
UNSAFE_CATEGORIES = frozenset({"Cc", "Cf", "Zl", "Zp", "Cs", "Co", "Cn"})


@lru_cache(maxsize=4096)
def _visible_char(char: str) -> str:
    code = ord(char)
    if code < 0x20:
        return chr(CONTROL_PICTURES + code)
    if code == 0x7F:
        return DELETE_PICTURE
    if unicodedata.category(char) in UNSAFE_CATEGORIES or hidden(char):
        return REPLACEMENT
    return char


def visible(text: str) -> str:
    """`text` with every control, format or unknown character replaced by a visible one."""
    if text.isprintable() and text.isascii():
        return text
    shown = list(map(_visible_char, text))
    marks = 0
    base = False
    for index, char in enumerate(text):
        if unicodedata.category(char).startswith("M"):
            marks += 1
            if not base or marks > MAX_MARKS:
                shown[index] = REPLACEMENT
        else:
            marks = 0
            base = unicodedata.category(char)[0] in "LN"
    return "".join(shown)


def safe_text(text: Text) -> Text:
    """A rich Text made safe in place (same length, so its styles keep their places); returns it."""
    plain = text.plain
    cleaned = visible(plain)
    if cleaned != plain:
        text.plain = cleaned
    return text
