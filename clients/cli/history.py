"""`allfives history URL [NAME]`: a player's finished games on a server, newest first (`GET
/api/players/NAME/games`), with the ids `allfives show` replays. Without NAME: your own, the
player of this user's key on that server (as its `welcome` names it)."""

from __future__ import annotations

import argparse
import asyncio
import sys
import time

from rich.console import Console
from rich.text import Text
from websockets.asyncio.client import connect
from websockets.exceptions import ConnectionClosed, InvalidHandshake, InvalidURI

from clients.cli import local, words
from clients.cli.api import Api, ApiError
from clients.cli.connection import reason
from clients.cli.i18n import _, ngettext
from clients.cli.keys import KeyStore
from clients.cli.ladder import player_name
from clients.cli.safe import visible
from clients.cli.seats import normalize_url
from protocol import messages as msg
from protocol.api import (
    DEFAULT_GAMES_PAGE,
    MAX_GAMES_PAGE,
    GamePlayer,
    GamesPage,
    GameSummary,
    PlayerAnswer,
)

TIMEOUT = 10.0


def add_arguments(parser: argparse.ArgumentParser) -> None:
    """Options of `allfives history`."""
    parser.add_argument(
        "url", type=local.server_url, help=_("the server, e.g. ws://192.168.1.20:8765")
    )
    parser.add_argument("name", nargs="?", default=None, help=_("the player (default: you)"))
    parser.add_argument("--offset", type=int, default=0, help=_("skip this many newer games"))
    parser.add_argument(
        "--limit",
        type=int,
        default=DEFAULT_GAMES_PAGE,
        help=_("games to list (at most {most}; default {default})").format(
            most=MAX_GAMES_PAGE, default=DEFAULT_GAMES_PAGE
        ),
    )


async def whoami(url: str, key: str, name: str) -> str | None:
    """The name of the player `key` is on the server (None: refused). A key the server knows
    plays under its player's name whatever the hello says; one it has forgotten claims `name`,
    the name it was kept under (as `allfives join` would)."""
    async with connect(url, open_timeout=TIMEOUT) as socket:
        hello = msg.Hello(id=1, version=msg.PROTOCOL_VERSION, name=name, key=key)
        await socket.send(msg.encode(hello).decode())
        while True:
            reply = msg.decode_server(await asyncio.wait_for(socket.recv(), TIMEOUT))
            if isinstance(reply, msg.Welcome):
                return reply.player
            if isinstance(reply, msg.Error):
                return None


def unreachable(url: str) -> str | None:
    """Why the server at `url` cannot be reached ("cannot reach URL: connection refused ..."),
    or None when it answers: asked before saying this device is no player there."""

    async def knock() -> None:
        async with connect(url, open_timeout=TIMEOUT):
            pass

    try:
        asyncio.run(knock())
    except (OSError, TimeoutError, InvalidHandshake, InvalidURI, ConnectionClosed) as error:
        return _("cannot reach {url}: {reason}").format(url=url, reason=reason(error, url))
    return None


def run(args: argparse.Namespace) -> int:
    """Print the player's ratings and games; returns the exit status."""
    url = normalize_url(args.url)
    if not 0 <= args.offset <= 100_000 or not 1 <= args.limit <= MAX_GAMES_PAGE:
        print(
            "allfives history: "  # i18n: a command
            + _("--offset 0 to 100000, --limit 1 to {most}").format(most=MAX_GAMES_PAGE),
            file=sys.stderr,
        )
        return 2
    known = KeyStore().existing(url)
    key = known[1] if known is not None else None
    name = args.name
    if name is None:
        if known is None and (down := unreachable(url)) is not None:
            print(visible(f"allfives history: {down}"), file=sys.stderr)  # i18n: a command
            return 1
        if known is None:
            print(
                "allfives history: "  # i18n: a command
                + _(
                    "this device is no player on that server yet: play a match there "
                    "(allfives join), or link it to your player (/link on the other device), "
                    "or name a player"
                ),
                file=sys.stderr,
            )
            return 1
        try:
            name = asyncio.run(whoami(url, known[1], known[0]))
        except (OSError, TimeoutError, InvalidHandshake, InvalidURI, ConnectionClosed) as error:
            said = _("cannot reach {url}: {reason}").format(url=url, reason=reason(error, url))
            print(visible(f"allfives history: {said}"), file=sys.stderr)  # i18n: a command
            return 1
        if name is None:
            print(
                "allfives history: "  # i18n: a command
                + _("the server refused this device's key: name a player"),
                file=sys.stderr,
            )
            return 1
    api = Api(url, key)
    try:
        player = api.get(api.player_path(name), PlayerAnswer, "player")
        games = api.games_path(name, args.offset, args.limit)
        page = api.get(games, GamesPage, "games list")  # i18n: not shown
    except ApiError as error:
        print(visible(f"allfives history: {error.text}"), file=sys.stderr)  # i18n: a command
        return 1
    print_history(url, player, page, Console())
    return 0


def outcome(game: GameSummary, name: str) -> str:
    """How the game went for the player: won, lost, shared."""
    mine = [p for p in game.players if p.name == name]
    if not mine:
        return ""
    seat = mine[0].seat
    side = mine[0].side if mine[0].side is not None else seat  # the server's word on its team
    if isinstance(game.winner, list):
        return _("shared") if seat in game.winner else _("lost")
    if game.winner is None:
        return _("no winner")
    return _("won") if game.winner == side else _("lost")


def games_won(games: int, wins: int) -> str:
    """ "5 games, 3 won" in the player's language."""
    said = ngettext("{count} game, {wins} won", "{count} games, {wins} won", games)
    return said.format(count=games, wins=wins)


def rating_change(game: GameSummary, name: str) -> str:
    """The player's rating after the game and its change, or ""."""
    change = next((c for c in game.changes if c.name == name), None)
    if change is None:
        return ""
    delta = change.after.rating - change.before.rating
    sign = "+" if delta >= 0 else "−"
    return f"{words.decimal(change.after.rating)} ({sign}{words.decimal(abs(delta))})"


def print_history(url: str, player: PlayerAnswer, page: GamesPage, console: Console) -> None:
    """The ratings, then the games, two rows each (the id whole, first, to copy into `show`;
    then who played), and how to replay one."""
    name = player.name
    console.print(
        Text(f"{player_name(name)}: {games_won(player.games, player.wins)}", style="bold"),
        highlight=False,
    )
    if not player.you and not player.bot:
        said = _("(public rooms only: the games of private rooms show on {name}'s own devices)")
        console.print(Text(said.format(name=player_name(name)), style="dim"), highlight=False)
    for standing in player.ratings:
        console.print(
            Text(
                "  "
                + _("{ladder}: {rating} ({games})").format(
                    ladder=words.ladder_word(standing.ladder),
                    rating=words.rating_figure(standing.rating.rating, standing.provisional),
                    games=games_won(standing.games, standing.wins),
                )
            ),
            highlight=False,
        )
    if any(standing.provisional for standing in player.ratings):
        console.print(Text("  " + words.provisional_note()), highlight=False)
    if not page.games:
        console.print(Text(_("No games to show.")), highlight=False)
        return
    said = _("Games {first}-{last} of {total}").format(
        first=page.offset + 1, last=page.offset + len(page.games), total=page.total
    )
    console.print(Text(said, style="bold"), highlight=False)
    for row in game_rows(page, name, console.width):
        console.print(row, highlight=False)
    first = visible(page.games[0].id)
    console.print(Text(_("Replay one with:")), highlight=False)
    command = f"{local.command()} show {visible(url.rstrip('/'))}"  # i18n: a command
    if len(f"  {command} {first}") <= console.width:
        console.print(Text(f"  {command} {first}"), highlight=False, soft_wrap=True)
        return
    # Too wide for one row: the id goes whole on a row of its own, after the shell's line
    # continuation (the terminal folding it would cut the id in the middle); pasted, the two
    # rows run as one command.
    console.print(Text(f"  {command} \\"), highlight=False, soft_wrap=True)
    console.print(Text(f"    {first}"), highlight=False, soft_wrap=True)


def seat_of(player: GamePlayer) -> str:
    """Who sat in a seat of a game: an ordinary room's bot as the table named its seat, with its
    level ("Bot 2 (hard)"); a person, or a tournament's bot entrant, by its name."""
    if player.kind == "bot" and (words.bot_level(player.name) is not None or not player.name):
        return words.bot_seat_name(player.seat, player.level or "normal")
    return player_name(player.name)


def game_rows(page: GamesPage, name: str, width: int) -> list[Text]:
    """Each game as its id (never cut), when it finished, the scores, how it went for `name`
    and the rating change, packed into rows of `width`; then who played, on rows of its own."""
    ids = [visible(game.id) for game in page.games]
    longest = max(len(shown) for shown in ids)
    rows = []
    for shown, game in zip(ids, page.games, strict=True):
        when = time.strftime("%Y-%m-%d %H:%M", time.localtime(game.finished_at))
        parts = [
            shown.ljust(longest),
            when,
            "-".join(map(str, game.scores)),
            outcome(game, name),
            rating_change(game, name),
        ]
        line = ""
        for part in (part for part in parts if part):
            if line and len(line) + 2 + len(part.rstrip()) > width - 1:
                rows.append(Text(line.rstrip(), style="bold"))
                line = "   "
            line = f"{line}  {part}" if line.strip() else line + part
        rows.append(Text(line.rstrip(), style="bold"))
        players = ", ".join(seat_of(p) for p in game.players)
        if game.private:
            players += " " + _("(private)")
        rows.append(Text("   " + players))
    return rows
