"""The words of Python's argparse that a player meets (usage, help, refused options), so that
they are in the catalogs too: argparse asks `gettext` for them, and `i18n.words_for_argparse`
points it at this project's catalog. Marked only; argparse formats them with `%`.
"""

from __future__ import annotations

import argparse

from clients.cli.i18n import N_, _

ARGPARSE_WORDS = (
    N_("usage: "),
    N_("positional arguments"),
    N_("options"),
    N_("show this help message and exit"),
    N_("show program's version number and exit"),
    N_("argument %(argument_name)s: %(message)s"),
    N_("invalid choice: %(value)r (choose from %(choices)s)"),
    N_("invalid %(type)s value: %(value)r"),
    N_("the following arguments are required: %s"),
    N_("unrecognized arguments: %s"),
    N_("expected one argument"),
    N_("expected at least one argument"),
    N_("expected at most one argument"),
    N_("ambiguous option: %(option)s could match %(matches)s"),
    N_("ignored explicit argument %r"),
    N_("not allowed with argument %s"),
    N_("one of the arguments %s is required"),
)

#: The placeholders of the options and arguments (argparse's default is the dest, upper-case
#: for an option), in the player's language: "--target CÍL", "url" as "adresa".
PLACEHOLDERS = {
    "TARGET": N_("TARGET"),
    "TURN_SECONDS": N_("TURN_SECONDS"),
    "NAME": N_("NAME"),
    "TITLE": N_("TITLE"),
    "PORT": N_("PORT"),
    "URL": N_("URL"),
    "CODE": N_("CODE"),
    "LANG": N_("LANG"),
    "LIMIT": N_("LIMIT"),
    "OFFSET": N_("OFFSET"),
    "COMMAND": N_("COMMAND"),
    "ACTION": N_("ACTION"),
    "ROUNDS": N_("ROUNDS"),
    "LEVEL[,LEVEL...]": N_("LEVEL[,LEVEL...]"),
    "url": N_("url"),
    "room": N_("room"),
    "name": N_("name"),
    "game": N_("game"),
    "file": N_("file"),
    "code": N_("code"),
}


def word_placeholders(parser: argparse.ArgumentParser) -> None:
    """Give each option and argument of `parser` its placeholder in the player's language
    (usage, help and refusals then show it); choices and typed values stay as typed."""
    for action in parser._actions:
        if action.choices is not None and not isinstance(action.choices, dict):
            continue
        if not action.option_strings and isinstance(action.choices, dict):
            shown = action.metavar  # the subcommands: "COMMAND"
        elif action.nargs == 0:
            continue  # a flag takes no value
        else:
            shown = action.metavar or (
                action.dest.upper() if action.option_strings else action.dest
            )
        if isinstance(shown, str) and shown in PLACEHOLDERS:
            action.metavar = _(PLACEHOLDERS[shown])
