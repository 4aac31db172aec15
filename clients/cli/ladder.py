"""`allfives ladder URL`: a server's ladders (two players, three, partnerships), best first,
with the bot levels among the players (`GET /api/ladder`)."""

from __future__ import annotations

import argparse
import sys

from rich.console import Console
from rich.table import Table
from rich.text import Text

from clients.cli import local, words
from clients.cli.api import Api, ApiError
from clients.cli.i18n import _, ngettext
from clients.cli.keys import KeyStore
from clients.cli.safe import visible
from clients.cli.seats import normalize_url
from protocol.api import LadderAnswer


def add_arguments(parser: argparse.ArgumentParser) -> None:
    """Options of `allfives ladder`."""
    parser.add_argument(
        "url", type=local.server_url, help=_("the server, e.g. ws://192.168.1.20:8765")
    )


def player_name(name: str) -> str:
    """A rated name as people read it: "bot:hard" is the hard bot."""
    if name in words.BOT_PLAYER_WORDS:
        return _(words.BOT_PLAYER_WORDS[name])
    return visible(name)


def run(args: argparse.Namespace) -> int:
    """Print the ladders; returns the exit status."""
    url = normalize_url(args.url)
    known = KeyStore().existing(url)
    api = Api(url, known[1] if known is not None else None)
    try:
        answer = api.get(api.ladder_path(), LadderAnswer, "ladder")
    except ApiError as error:
        print(visible(f"allfives ladder: {error.text}"), file=sys.stderr)  # i18n: a command
        return 1
    print_ladders(answer, Console())
    return 0


def print_ladders(answer: LadderAnswer, console: Console) -> None:
    """Each ladder as a table."""
    for ladder in answer.ladders:
        title = words.ladder_word(ladder.ladder) if ladder.ladder in words.LADDER_WORDS else ""
        title = title or visible(ladder.ladder)
        if not ladder.entries:
            console.print(
                Text(_("{ladder}: nobody rated yet").format(ladder=title)), highlight=False
            )
            continue
        table = Table(title=Text(title), title_justify="left")
        table.add_column("#", justify="right", no_wrap=True)
        table.add_column(_("player"), justify="left")
        table.add_column(_("rating"), justify="right", no_wrap=True)
        table.add_column(_("games"), justify="right")
        table.add_column(_("wins"), justify="right")
        for rank, entry in enumerate(ladder.entries, start=1):
            table.add_row(
                str(rank),
                player_name(entry.name),
                words.rating_figure(entry.rating.rating, entry.provisional),
                str(entry.games),
                str(entry.wins),
            )
        console.print(table)
        if ladder.total > len(ladder.entries):
            said = ngettext(
                "({count} rated player in all)", "({count} rated players in all)", ladder.total
            )
            console.print(Text(said.format(count=ladder.total)), highlight=False)
    if any(entry.provisional for ladder in answer.ladders for entry in ladder.entries):
        console.print(Text(words.provisional_note()), highlight=False)
