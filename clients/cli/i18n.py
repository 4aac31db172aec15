"""The terminal's words in the player's language: gettext catalogs made with Babel (docs/i18n.md).

Every sentence the terminal client (and the `allfives` commands a player runs) shows is written
in English inside `_()` (or `ngettext()` when it counts something, `N_()` where it is only
marked and translated where it is shown); `pybabel extract` collects them into
`locale/allfives.pot`, translators fill `locale/LANG/LC_MESSAGES/allfives.po`, and
`pybabel compile` makes the `.mo` files read here (they are in the repository, and a test checks
that they match their `.po`). Placeholders are named, `{who}`, filled with `str.format`.

The language: `--lang`, else the environment as gettext reads it (LANGUAGE, LC_ALL,
LC_MESSAGES, LANG), else English. `sr` means Serbian in Latin script (`sr_Latn`), the only
Serbian there is here.
"""

from __future__ import annotations

import gettext
import os
from collections.abc import Mapping
from pathlib import Path

#: Where the catalogs are: locale/LANG/LC_MESSAGES/allfives.mo beside this module.
LOCALE_DIR = Path(__file__).resolve().parent / "locale"
DOMAIN = "allfives"
#: The languages there are catalogs for (gettext's names), English first (the source text).
LANGUAGES: tuple[str, ...] = ("en", "cs", "sr_Latn", "et")
#: The environment variables that name the language, in gettext's order.
LANGUAGE_VARIABLES = ("LANGUAGE", "LC_ALL", "LC_MESSAGES", "LANG")

_current: gettext.NullTranslations = gettext.NullTranslations()
_language = "en"


def known_language(text: str | None) -> str | None:
    """The catalog for a language name such as "cs", "cs_CZ.UTF-8", "sr-Latn", "sr_RS@latin",
    "et-EE" (None when there is none; "C" and "POSIX" are English)."""
    if not text:
        return None
    name = text.strip().split(".")[0].replace("-", "_")
    name, _at, modifier = name.partition("@")
    parts = [part for part in name.split("_") if part]
    if not parts:
        return None
    first = parts[0].lower()
    if first in ("c", "posix", "en"):
        return "en"
    if first == "sr":
        # Latin script is the only Serbian here (sr@latin, sr_Latn, sr_RS and sr alike).
        return "sr_Latn" if modifier.lower() in ("", "latin") else None
    return first if first in LANGUAGES else None


def language_from(option: str | None, environ: Mapping[str, str] = os.environ) -> str:
    """The language to use: the option, else the first known one the environment names."""
    if option:
        return known_language(option) or "en"
    for variable in LANGUAGE_VARIABLES:
        value = environ.get(variable, "")
        # LANGUAGE may list several ("cs:en"); the others hold one.
        for item in value.split(":"):
            found = known_language(item)
            if found is not None:
                return found
        if value and variable != "LANGUAGE":
            return "en"  # the first of LC_ALL/LC_MESSAGES/LANG that is set decides
    return "en"


def set_language(language: str) -> None:
    """Use `language`'s catalog from now on (English for an unknown one)."""
    global _current, _language
    known = known_language(language) or "en"
    _language = known
    if known == "en":
        _current = gettext.NullTranslations()
        return
    _current = gettext.translation(DOMAIN, LOCALE_DIR, languages=[known], fallback=True)


def language() -> str:
    """The language in use (gettext's name: "en", "cs", "sr_Latn", "et")."""
    return _language


def _(message: str) -> str:
    """`message` in the player's language."""
    return _current.gettext(message)


def ngettext(singular: str, plural: str, count: int) -> str:
    """The form of a counted message for `count` in the player's language (then `.format`)."""
    return _current.ngettext(singular, plural, count)


def words_for_argparse() -> None:
    """Let argparse's own words (usage, options, refusals: `argparse_words`) come from this
    catalog: argparse looks up its module-level `_` and `ngettext` when it speaks."""
    import argparse

    argparse._ = _  # type: ignore[attr-defined]
    argparse.ngettext = ngettext  # type: ignore[attr-defined]


def N_(message: str) -> str:
    """Mark `message` for the catalog without translating it (it is translated where shown)."""
    return message


set_language(language_from(None))
