"""Names compared as people read them: look-alike names fold to one key.

A name at a table must not pass for another one: "Ann" written with a Cyrillic "А", "B0b" beside
"Bob", "ｂｏｔ:" for "bot:". `name_key` folds a name the way Unicode's confusables data (UTS #39,
through the `confusable-homoglyphs` package) says its characters are read: each character is
replaced by the prototype it is confusable with, after compatibility forms are folded (NFKC), and
case and spaces are ignored. Two names with the same key are the same name to a player.

Before that, a name must be one a reader can see whole (`name_problem`), a rule equivalent to
what the PRECIS Nickname profile (RFC 8266) refuses, written with `unicodedata`:

- no default-ignorable code point (Unicode's Default_Ignorable_Code_Point: the combining
  grapheme joiner U+034F, variation selectors U+FE00-FE0F and U+E0100-E01EF, the Mongolian
  free variation selectors U+180B-180F, the Hangul fillers U+115F, U+1160, U+3164, U+FFA0, the
  Khmer inherent vowels U+17B4-17B5, zero-width spaces and joiners, bidi marks, tags...), nor
  a blank that is not a space (the braille blank U+2800);
- no combining mark without a base: a mark first, or after a space or a punctuation mark, or
  more than `MAX_MARKS` on one letter;
- nothing that reads as a bot's name (`bot_like`): "bot" followed by anything that is not a
  letter or a digit ("bot:", "bot\u05c3easy", "bot.hard"), however it is written.

And the key drops what a reader can miss: combining marks (so "Zedjbź", written precomposed or
not, is "Zedjbz"'s name; "Bořek" and "Borek" are one name) and any default-ignorable left.

The confusables data leaves some look-alikes apart because it keeps case: a small capital
("ʙ", "ᴀ") is confusable there with a capital, not with the small letter a case-blind key compares,
and a Cyrillic "т" reads as the small capital "ᴛ". And a letter with a stroke or a bar ("ø", "ł",
"ƀ") has no decomposition to drop a mark from. So the key also reads each small capital as its
letter and each letter with a stroke or a bar as the letter under it (`_letters`, built from the
characters' Unicode names in the Latin, Greek and Cyrillic blocks), and folds again until nothing
changes: "ʙot:", "bøt:" and "boт:" read as "bot:", "ᴀnna" as "Anna".

The fold is a few lookups a character (a name holds at most 24), so it costs nothing to compare.
"""

from __future__ import annotations

import functools
import importlib.resources
import re
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
    takes a noticeable time, which a program that only imports the protocol (a client starting)
    should not pay. The package's data file is read here rather than through its `confusables`
    module, which would keep all of it for the life of the process, and whose loader
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


#: The blocks that hold the Latin, Greek and Cyrillic letters, small capitals and letters with
#: strokes (Basic Latin to Armenian, Phonetic Extensions to Latin Extended Additional, Latin
#: Extended-C, -D and -E, Latin Extended-F and -G).
LETTER_BLOCKS: tuple[tuple[int, int], ...] = (
    (0x0000, 0x058F),
    (0x1D00, 0x1EFF),
    (0x2C60, 0x2C7F),
    (0xA720, 0xA7FF),
    (0xAB30, 0xAB6F),
    (0x10780, 0x107BF),
    (0x1DF00, 0x1DFFF),
)
_SMALL_CAPITAL = re.compile(r"(LATIN|GREEK|CYRILLIC) LETTER SMALL CAPITAL (.+)")
_STROKED = re.compile(
    r"(LATIN|GREEK|CYRILLIC) (SMALL|CAPITAL) LETTER (.+?) WITH .*\b(STROKE|BAR)\b.*"
)


@functools.cache
def _letters() -> dict[str, str]:
    """Each small capital's letter, and each letter with a stroke or a bar's letter under it
    ("ᴀ" is "a", "ø" is "o", "ᴌ" is "ł", which is "l"), by the characters' Unicode names."""
    table: dict[str, str] = {}
    for low, high in LETTER_BLOCKS:
        for code in range(low, high + 1):
            char = chr(code)
            name = unicodedata.name(char, "")
            if small := _SMALL_CAPITAL.fullmatch(name):
                letter = f"{small[1]} SMALL LETTER {small[2]}"
            elif stroked := _STROKED.fullmatch(name):
                letter = f"{stroked[1]} {stroked[2]} LETTER {stroked[3]}"
            else:
                continue
            try:
                table[char] = unicodedata.lookup(letter)
            except KeyError:
                continue  # no such letter without the stroke ("LATIN SMALL LETTER BARRED B")
    return table


def warm() -> None:
    """Build the tables now (a server, before its first client) rather than on the first name."""
    _prototypes()
    _letters()


def skeleton(text: str) -> str:
    """`text` with each character replaced by its confusables prototype."""
    prototypes = _prototypes()
    return "".join(prototypes.get(char, char) for char in text)


#: How many times a name is folded at most: a fold's result is folded again until it no longer
#: changes (one pass or two for any name; the bound only stops a cycle in the data).
MAX_FOLDS = 8


#: Which `name_key` this is: a ledger written under another folds its names again at start.
FOLD_RULE = "3"
#: Unicode's Default_Ignorable_Code_Point (DerivedCoreProperties.txt, Unicode 15), as ranges.
IGNORABLE_RANGES: tuple[tuple[int, int], ...] = (
    (0x00AD, 0x00AD),
    (0x034F, 0x034F),
    (0x061C, 0x061C),
    (0x115F, 0x1160),
    (0x17B4, 0x17B5),
    (0x180B, 0x180F),
    (0x200B, 0x200F),
    (0x202A, 0x202E),
    (0x2060, 0x206F),
    (0x3164, 0x3164),
    (0xFE00, 0xFE0F),
    (0xFEFF, 0xFEFF),
    (0xFFA0, 0xFFA0),
    (0xFFF0, 0xFFF8),
    (0x1BCA0, 0x1BCA3),
    (0x1D173, 0x1D17A),
    (0xE0000, 0xE0FFF),
)
#: Characters that print as nothing without being a space or default-ignorable.
BLANKS = frozenset({"\u2800"})
#: The most combining marks one letter may carry (Vietnamese needs two).
MAX_MARKS = 2
#: Why a name is refused (`name_problem`), for a client to say in its own words.
INVISIBLE = "invisible"
LOOSE_MARK = "loose_mark"
BOT_LIKE = "bot_like"


def hidden(char: str) -> bool:
    """Whether `char` prints as nothing: default-ignorable, or a blank that is not a space."""
    code = ord(char)
    if char in BLANKS:
        return True
    return any(low <= code <= high for low, high in IGNORABLE_RANGES)


def _is_mark(char: str) -> bool:
    return unicodedata.category(char).startswith("M")


def _read(name: str, marks: bool = False) -> str:
    """The characters a reader takes `name` for: compatibility forms, confusables, case, small
    capitals, strokes, spaces, invisible characters and (unless `marks`) combining marks folded,
    again until nothing changes."""
    letters = _letters()
    read = name
    for _ in range(MAX_FOLDS):
        folded = skeleton(unicodedata.normalize("NFKC", read)).casefold()
        folded = unicodedata.normalize("NFD", folded)
        kept = (letters.get(char, char) for char in folded if marks or not _is_mark(char))
        folded = "".join(char for char in kept if not hidden(char) and not char.isspace())
        if folded == read:
            break
        read = folded
    return read


def bot_like(name: str) -> bool:
    """Whether `name` reads as a bot's: "bot" then anything but a letter or a digit (a mark
    after the "t" too; marks on the "b" and the "o" are read past)."""
    read = _read(name, marks=True)
    letters = [at for at, char in enumerate(read) if not _is_mark(char)]
    if "".join(read[at] for at in letters[:3]) != "bot" or letters[2] == len(read) - 1:
        return False
    return unicodedata.category(read[letters[2] + 1]) not in _WORD


#: What may follow "bot" in a person's name ("Bottle", "Bot2"): letters (not modifier letters,
#: some of which read as a colon) and digits.
_WORD = frozenset({"Lu", "Ll", "Lt", "Lo", "Nd", "Nl", "No"})


def name_problem(name: str) -> str | None:
    """Why a reader could not see `name` whole (`INVISIBLE`, `LOOSE_MARK`, `BOT_LIKE`), or None."""
    if any(hidden(char) for char in name):
        return INVISIBLE
    marks = 0
    previous = " "
    for char in unicodedata.normalize("NFD", name):
        if _is_mark(char):
            marks += 1
            if marks > MAX_MARKS or unicodedata.category(previous)[0] not in "LN":
                return LOOSE_MARK
            continue
        marks, previous = 0, char
    if bot_like(name):
        return BOT_LIKE
    return None


def name_key(name: str) -> str:
    """What two names must differ in to be told apart: look-alikes, case, small capitals,
    strokes, spaces, marks and invisible characters folded (`_read`)."""
    return _read(name)
