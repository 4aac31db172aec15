"""The catalogs as the tests read them (docs/i18n.md): the browser's JSON catalogs and the
terminal's gettext catalogs, their messages worded here as the clients word them, the checks
every catalog must pass, and the English words a page or screen in another language must not
show.
"""

from __future__ import annotations

import json
import re
from collections.abc import Iterable, Mapping
from functools import cache
from pathlib import Path
from typing import Any

from babel.messages.catalog import Catalog
from babel.messages.pofile import read_po

ROOT = Path(__file__).resolve().parent.parent
WEB_CATALOGS = ROOT / "clients" / "web" / "i18n"
LOCALE_DIR = ROOT / "clients" / "cli" / "locale"
TEMPLATE = LOCALE_DIR / "allfives.pot"

#: The languages, as the browser names them; their gettext names; a browser's tag for each.
LANGUAGES = ("en", "cs", "sr-Latn", "et")
TRANSLATED = ("cs", "sr-Latn", "et")
GETTEXT_NAMES = {"en": "en", "cs": "cs", "sr-Latn": "sr_Latn", "et": "et"}
BROWSER_TAGS = {"en": "en-US", "cs": "cs-CZ", "sr-Latn": "sr-Latn-RS", "et": "et-EE"}
#: The plural categories whole numbers fall in, by language (CLDR, as Intl.PluralRules has them).
PLURAL_CATEGORIES = {
    "en": ("one", "other"),
    "cs": ("one", "few", "other"),
    "sr-Latn": ("one", "few", "other"),
    "et": ("one", "other"),
}
#: Placeholders: {name} in both clients' messages, %(name)s and %s in argparse's own.
PLACEHOLDER = re.compile(r"\{\w*\}|%\(\w+\)[rsd]|%[rsd]")
WORD = re.compile(r"[^\W\d_]{4,}")
#: Words every language shows as they are: the game's name, the languages' own names, the
#: Enter key (the rules page lists the keys).
SAME_IN_EVERY_LANGUAGE = {"fives", "english", "čeština", "srpski", "eesti", "enter"}


def plural_category(language: str, count: int) -> str:
    """The CLDR plural category of a whole number (what Intl.PluralRules.select says)."""
    if language == "cs":
        return "one" if count == 1 else "few" if 2 <= count <= 4 else "other"
    if language == "sr-Latn":
        if count % 10 == 1 and count % 100 != 11:
            return "one"
        if 2 <= count % 10 <= 4 and not 12 <= count % 100 <= 14:
            return "few"
        return "other"
    return "one" if count == 1 else "other"


def placeholders(text: str) -> set[str]:
    """The placeholders a message holds."""
    return set(PLACEHOLDER.findall(text))


@cache
def web_catalog(language: str) -> dict[str, Any]:
    """A browser catalog: key -> message, or for a counted message category -> message."""
    loaded: dict[str, Any] = json.loads((WEB_CATALOGS / f"{language}.json").read_text("utf-8"))
    return loaded


def web_words(language: str, key: str, **params: Any) -> str:
    """A browser message as i18n.js `t` words it (placeholders left unfilled stay as they are)."""
    entry = web_catalog(language)[key]
    if isinstance(entry, dict):
        entry = entry.get(plural_category(language, int(params.get("count", 0))), entry["other"])
    return re.sub(r"\{(\w+)\}", lambda m: str(params.get(m.group(1), m.group(0))), str(entry))


def web_prefix(language: str, key: str, **params: Any) -> str:
    """A browser message up to its first placeholder not given (for "starts with" checks)."""
    said = web_words(language, key, **params)
    return said.split("{", 1)[0]


def tile_words(language: str, tile: str | list[int]) -> str:
    """A tile as the page names it for screen readers ("five-three", "double six")."""
    a, b = (int(n) for n in tile.split("-")) if isinstance(tile, str) else tile
    if a == b:
        return web_words(language, "a11y.double", pips=web_words(language, f"a11y.pips.{a}"))
    first, second = (web_words(language, f"a11y.pips.{n}") for n in (a, b))
    return web_words(language, "a11y.tile", first=first, second=second)


def web_catalog_problems(
    english: Mapping[str, Any], other: Mapping[str, Any], categories: Iterable[str]
) -> list[str]:
    """What is wrong with a browser catalog against the English one: a missing or extra key, a
    placeholder that differs, a counted message without a form for one of `categories`."""
    wanted = tuple(categories)
    problems = [f"missing {key}" for key in english if key not in other]
    problems += [f"extra {key}" for key in other if key not in english]
    for key, source in english.items():
        if key not in other:
            continue
        said = other[key]
        source_text = source["other"] if isinstance(source, dict) else source
        if isinstance(source, dict) != isinstance(said, dict):
            problems.append(f"{key}: counted in one catalog only")
            continue
        forms = said if isinstance(said, dict) else {"other": said}
        if isinstance(said, dict):
            problems += [f"{key}: no {c!r} form" for c in wanted if c not in said]
            problems += [f"{key}: stray {c!r} form" for c in said if c not in (*wanted, "many")]
        for form, text in forms.items():
            if not isinstance(text, str):
                problems.append(f"{key} ({form}): not text")
            elif placeholders(text) != placeholders(source_text):
                problems.append(f"{key} ({form}): placeholders {sorted(placeholders(text))}")
    return problems


@cache
def template() -> Catalog:
    """The extracted template, clients/cli/locale/allfives.pot."""
    with TEMPLATE.open("rb") as file:
        return read_po(file)


@cache
def po_catalog(language: str) -> Catalog:
    """A terminal catalog (`language` as the browser names it)."""
    path = LOCALE_DIR / GETTEXT_NAMES[language] / "LC_MESSAGES" / "allfives.po"
    with path.open("rb") as file:
        return read_po(file)


def texts_of(value: object) -> list[str]:
    """A message id or string as a list of texts (one, or one per plural form)."""
    if isinstance(value, tuple | list):
        return [str(item) for item in value]
    return [str(value)] if value else []


def po_catalog_problems(source: Catalog, other: Catalog) -> list[str]:
    """What is wrong with a gettext catalog against the template: a missing, extra or empty
    message, a placeholder that differs, the wrong number of plural forms."""
    ids = {message.id for message in source if message.id}
    problems = [f"missing {key!r}" for key in ids if other.get(key) is None]
    problems += [f"extra {m.id!r}" for m in other if m.id and m.id not in ids]
    for message in other:
        if not message.id or message.id not in ids:
            continue
        plural = isinstance(message.id, tuple | list)
        wanted = placeholders(texts_of(message.id)[-1])
        forms = texts_of(message.string) or [""]
        if plural and len(forms) != other.num_plurals:
            problems.append(f"{message.id!r}: {len(forms)} forms, not {other.num_plurals}")
        for form in forms:
            if not form:
                problems.append(f"{message.id!r}: not translated")
            elif placeholders(form) != wanted:
                problems.append(f"{message.id!r}: placeholders {sorted(placeholders(form))}")
    return problems


def _words(texts: Iterable[str]) -> set[str]:
    return {word.lower() for text in texts for word in WORD.findall(text)}


def _web_texts(language: str) -> list[str]:
    texts: list[str] = []
    for entry in web_catalog(language).values():
        texts += list(entry.values()) if isinstance(entry, dict) else [entry]
    return texts


@cache
def english_only_web_words(language: str) -> frozenset[str]:
    """Words of the English browser catalog that `language`'s catalog never uses."""
    english = _words(_web_texts("en"))
    return frozenset(english - _words(_web_texts(language)) - SAME_IN_EVERY_LANGUAGE)


@cache
def english_only_cli_words(language: str) -> frozenset[str]:
    """Words of the terminal's English messages that `language`'s catalog never uses."""
    source: list[str] = []
    for message in template():
        if message.id:
            source += texts_of(message.id)
    said: list[str] = []
    for message in po_catalog(language):
        if message.id:
            said += texts_of(message.string)
    return frozenset(_words(source) - _words(said) - SAME_IN_EVERY_LANGUAGE)


def english_leaks(text: str, english_only: Iterable[str]) -> list[str]:
    """The English-only words a page or screen shows."""
    shown = {word.lower() for word in WORD.findall(text)}
    return sorted(shown & set(english_only))


def cli_words(language: str, message: str) -> str:
    """A terminal message in `language`, as the shipped catalog has it (not yet formatted)."""
    import gettext

    catalog = gettext.translation(
        "allfives", LOCALE_DIR, languages=[GETTEXT_NAMES[language]], fallback=True
    )
    return catalog.gettext(message)
