"""Every catalog has every message, with the same placeholders, and the plural forms its
language needs (docs/i18n.md): the browser's JSON catalogs against the English one, the
terminal's .po files against the extracted template (which must hold every message of the
source), the shipped .mo files against their .po. Plural forms are checked at 0, 1, 2, 5 and
21 in each language, in Python (gettext) and in the page (Intl.PluralRules). The language is
taken from --lang, LC_ALL, LC_MESSAGES and LANG, and in the browser from the stored choice or
navigator.languages.
"""

from __future__ import annotations

import io
from collections.abc import Iterator

import pytest
from babel.messages.extract import extract_from_dir
from babel.messages.mofile import write_mo
from i18n_helpers import (
    GETTEXT_NAMES,
    LANGUAGES,
    LOCALE_DIR,
    PLURAL_CATEGORIES,
    ROOT,
    TRANSLATED,
    po_catalog,
    po_catalog_problems,
    template,
    web_catalog,
    web_catalog_problems,
)
from selenium.webdriver.remote.webdriver import WebDriver
from unit_page_helpers import call, unit_page

from clients.cli import i18n, words

COUNTS = (0, 1, 2, 5, 21)
#: "{count} tile(s)" at 0, 1, 2, 5 and 21, as a player must read it in each language.
TILES = {
    "en": ["0 tiles", "1 tile", "2 tiles", "5 tiles", "21 tiles"],
    "cs": ["0 kamenů", "1 kámen", "2 kameny", "5 kamenů", "21 kamenů"],
    "sr-Latn": ["0 pločica", "1 pločica", "2 pločice", "5 pločica", "21 pločica"],
    "et": ["0 kivi", "1 kivi", "2 kivi", "5 kivi", "21 kivi"],
}
#: "{count} player(s)" (the browser's room list).
PLAYERS = {
    "en": ["0 players", "1 player", "2 players", "5 players", "21 players"],
    "cs": ["0 hráčů", "1 hráč", "2 hráči", "5 hráčů", "21 hráčů"],
    "sr-Latn": ["0 igrača", "1 igrač", "2 igrača", "5 igrača", "21 igrač"],
    "et": ["0 mängijat", "1 mängija", "2 mängijat", "5 mängijat", "21 mängijat"],
}


@pytest.fixture
def english_after() -> Iterator[None]:
    """The terminal's language is put back to English after the test."""
    yield
    i18n.set_language("en")


# -- the browser's catalogs -------------------------------------------------------------------


@pytest.mark.parametrize("language", TRANSLATED)
def test_every_browser_catalog_has_every_message_with_its_placeholders(language: str) -> None:
    problems = web_catalog_problems(
        web_catalog("en"), web_catalog(language), PLURAL_CATEGORIES[language]
    )
    assert problems == []


def test_the_browser_catalog_check_finds_each_kind_of_problem() -> None:
    english = {"a": "A {who}", "b": "B", "c": {"one": "{count} c", "other": "{count} cs"}}
    broken = {"a": "A {whom}", "x": "X", "c": {"one": "{count} c"}}
    assert web_catalog_problems(english, broken, ("one", "few", "other")) == [
        "missing b",
        "extra x",
        "a (other): placeholders ['{whom}']",
        "c: no 'few' form",
        "c: no 'other' form",
    ]


# -- the terminal's catalogs ------------------------------------------------------------------


def test_the_template_holds_every_message_of_the_source() -> None:
    """`pybabel extract` (docs/i18n.md) was run after the last message was added."""
    method_map = [
        ("clients/cli/**.py", "python"),
        ("allfives/cli.py", "python"),
        ("allfives/replay.py", "python"),
    ]
    found = {message for _, _, message, _, _ in extract_from_dir(ROOT, method_map)}
    held = {message.id for message in template() if message.id}
    assert found - held == set(), "run pybabel extract (docs/i18n.md)"
    assert held - found == set(), "run pybabel extract (docs/i18n.md)"


@pytest.mark.parametrize("language", TRANSLATED)
def test_every_po_has_every_message_with_its_placeholders(language: str) -> None:
    assert po_catalog_problems(template(), po_catalog(language)) == []


def test_the_po_check_finds_each_kind_of_problem() -> None:
    from babel.messages.catalog import Catalog

    source = Catalog(locale="cs")
    for message in ("{who} passed", "gone", "kept"):
        source.add(message)
    source.add(("{count} tile", "{count} tiles"))
    other = Catalog(locale="cs")
    other.add("{who} passed", "{kdo} pasuje")
    other.add("kept", "")
    other.add("stray", "navíc")
    other.add(("{count} tile", "{count} tiles"), ("{count} kámen", "{count} kameny"))
    assert sorted(po_catalog_problems(source, other)) == sorted(
        [
            "missing 'gone'",
            "extra 'stray'",
            "'{who} passed': placeholders ['{kdo}']",
            "'kept': not translated",
            "('{count} tile', '{count} tiles'): 2 forms, not 3",
        ]
    )


@pytest.mark.parametrize("language", TRANSLATED)
def test_the_shipped_mo_matches_its_po(language: str) -> None:
    """The .mo in the repository is what `pybabel compile` makes of the .po beside it."""
    folder = LOCALE_DIR / GETTEXT_NAMES[language] / "LC_MESSAGES"
    compiled = io.BytesIO()
    write_mo(compiled, po_catalog(language))
    assert (folder / "allfives.mo").read_bytes() == compiled.getvalue(), (
        "run pybabel compile (docs/i18n.md)"
    )


@pytest.mark.parametrize("language", LANGUAGES)
def test_python_plural_forms_at_0_1_2_5_and_21(language: str, english_after: None) -> None:
    i18n.set_language(GETTEXT_NAMES[language])
    assert [words.tiles_word(count) for count in COUNTS] == TILES[language]


def test_the_terminal_language_comes_from_the_option_then_the_environment() -> None:
    assert i18n.language_from("cs") == "cs"
    assert i18n.language_from("sr-Latn", {"LANG": "et_EE.UTF-8"}) == "sr_Latn"
    assert i18n.language_from(None, {"LANG": "et_EE.UTF-8"}) == "et"
    assert i18n.language_from(None, {"LC_MESSAGES": "cs_CZ.UTF-8", "LANG": "et_EE"}) == "cs"
    assert i18n.language_from(None, {"LC_ALL": "sr_RS@latin", "LC_MESSAGES": "cs_CZ"}) == (
        "sr_Latn"
    )
    assert i18n.language_from(None, {"LC_ALL": "C", "LANG": "cs_CZ.UTF-8"}) == "en"
    assert i18n.language_from(None, {"LANGUAGE": "de:et", "LANG": "cs_CZ"}) == "et"
    assert i18n.language_from(None, {"LANG": "de_DE.UTF-8"}) == "en"
    assert i18n.language_from(None, {}) == "en"
    assert i18n.known_language("sr_RS@cyrillic") is None


def test_allfives_lang_words_the_usage_error(capsys: pytest.CaptureFixture[str]) -> None:
    from allfives.cli import main

    try:
        for option in (["--lang", "cs"], ["--lang=et"]):
            with pytest.raises(SystemExit):
                main([*option, "play", "--players", "7"])
        said = capsys.readouterr().err.splitlines()
    finally:
        i18n.set_language("en")
    assert said == [
        "allfives play: volba --players: neplatná volba: 7 (na výběr je 2, 3, 4) "
        "(viz allfives play --help)",
        "allfives play: valik --players: vigane valik: 7 (vali nende seast: 2, 3, 4) "
        "(vt allfives play --help)",
    ]


# -- the page's plural forms and language choice ------------------------------------------


@pytest.fixture(scope="module")
def page() -> Iterator[WebDriver]:
    with unit_page() as driver:
        yield driver


@pytest.mark.browser
@pytest.mark.parametrize("language", LANGUAGES)
def test_page_plural_forms_at_0_1_2_5_and_21(page: WebDriver, language: str) -> None:
    page.execute_async_script(
        "const done = arguments[arguments.length - 1];"
        "unit.i18n.load(arguments[0]).then(done, (e) => done(String(e)));",
        language,
    )
    try:
        assert call(page, "unit.i18n.currentLanguage()") == language
        shown = call(page, "a[0].map((n) => unit.i18n.plural('seat.tiles', n))", list(COUNTS))
        players = call(
            page, "a[0].map((n) => unit.i18n.plural('lobby.room_players', n))", list(COUNTS)
        )
        html = call(page, "document.documentElement.lang")
    finally:
        page.execute_async_script(
            "const done = arguments[arguments.length - 1]; unit.i18n.load('en').then(done);"
        )
    assert shown == TILES[language]
    assert players == PLAYERS[language]
    assert html == language


@pytest.mark.browser
def test_the_page_takes_the_stored_choice_then_the_browser_languages(page: WebDriver) -> None:
    pick = "unit.i18n.pickLanguage(a[0], a[1])"
    assert call(page, pick, ["de-DE", "cs-CZ", "en"], None) == "cs"
    assert call(page, pick, ["sr-Latn-RS"], None) == "sr-Latn"
    assert call(page, pick, ["sr"], None) == "sr-Latn"
    assert call(page, pick, ["et-EE"], "cs") == "cs"  # the choice made in the page wins
    assert call(page, pick, ["et-EE"], "xx") == "et"  # a stored value that is no language
    assert call(page, pick, ["de", "fr"], None) == "en"


@pytest.mark.browser
@pytest.mark.parametrize(
    ("language", "reason", "code"),
    [
        (
            "en",
            "someone at this table already goes by that name: choose another",
            "it is not your turn",
        ),
        ("cs", "u stolu už někdo má toto jméno: zvolte jiné", "nejste na tahu"),
        ("et", "laua taga on juba keegi selle nimega: vali teine", "praegu pole sinu käik"),
    ],
)
def test_the_page_words_an_error_from_its_reason_then_its_code(
    page: WebDriver, language: str, reason: str, code: str
) -> None:
    """The server's English `message` is shown only for a code the page does not know."""
    page.execute_async_script(
        "const done = arguments[arguments.length - 1]; unit.i18n.load(arguments[0]).then(done);",
        language,
    )
    words = "unit.describe.errorWords(a[0])"
    try:
        taken = {"code": "invalid", "reason": "name_taken", "message": "name: Ann is here"}
        turn = {"code": "not_your_turn", "message": "it is seat 1's turn"}
        newer = {"code": "from_a_newer_server", "message": "the server's own words"}
        unknown_reason = {"code": "not_your_turn", "reason": "newer", "message": "x"}
        said = [call(page, words, m) for m in (taken, turn, newer, unknown_reason)]
    finally:
        page.execute_async_script(
            "const done = arguments[arguments.length - 1]; unit.i18n.load('en').then(done);"
        )
    assert said == [reason, code, "the server's own words", code]


@pytest.mark.browser
def test_the_page_shows_what_the_server_put_in_a_message_as_visible_text(page: WebDriver) -> None:
    # A placeholder's value comes from the server (a name, a code): controls and direction
    # overrides are shown, never obeyed.
    said = call(page, "unit.i18n.t('api.refused', {code: a[0]})", "x\u0007\u202ey\n")
    assert said == "The server refused (x\u2407\ufffdy\u240a)."
