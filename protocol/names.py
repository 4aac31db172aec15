"""Names compared as people read them: look-alike names fold to one key.

A name at a table must not pass for another one: "Ann" written with a Cyrillic "А", "B0b" beside
"Bob", "ｂｏｔ:" for "bot:". `name_key` folds a name the way Unicode's confusables data (UTS #39,
through the `confusable-homoglyphs` package) says its characters are read: each character is
replaced by the prototype it is confusable with, after compatibility forms are folded (NFKC), and
case and spaces are ignored. Two names with the same key are the same name to a player.

The fold is one lookup a character (a name holds at most 24), so it costs nothing to compare.
"""

from __future__ import annotations

import functools
import importlib.resources
import unicodedata

import msgspec


class _Entry(msgspec.Struct):
    """One entry of the confusables data: the character a key is confusable with."""

    c: str


@functools.cache
def _prototypes() -> dict[str, str]:
    """Each confusable character's prototype (the data lists a prototype's characters under it,
    and a character's prototype under the character; a pair listed both ways keeps the smaller).

    Built on the first name compared (a server builds it at start-up: `warm`): reading the data
    takes about 20 ms, which a program that only imports the protocol (a client starting) should
    not pay. The package's data file is read here rather than through its `confusables` module,
    which would keep all of it (several MiB) for the life of the process, and whose loader
    imports urllib: only the table stays."""
    data = importlib.resources.files("confusable_homoglyphs").joinpath("confusables.json")
    confusables_data = msgspec.json.decode(data.read_bytes(), type=dict[str, list[_Entry]])

    table: dict[str, str] = {}
    for char, entries in confusables_data.items():
        if len(entries) != 1:
            continue  # a prototype: several characters look like it
        other = entries[0].c
        back = confusables_data.get(other, [])
        mutual = len(back) == 1 and back[0].c == char
        prototype = min(char, other) if mutual else other
        if prototype != char:
            table[char] = prototype
    return table


def warm() -> None:
    """Build the table now (a server, before its first client) rather than on the first name."""
    _prototypes()


def skeleton(text: str) -> str:
    """`text` with each character replaced by its confusables prototype."""
    prototypes = _prototypes()
    return "".join(prototypes.get(char, char) for char in text)


def name_key(name: str) -> str:
    """What two names must differ in to be told apart: look-alikes, case and spaces folded."""
    folded = skeleton(unicodedata.normalize("NFKC", name)).casefold()
    return "".join(skeleton(folded).split())
