"""`allfives history URL [NAME]`: a player's finished games on a server, newest first (`GET
/api/players/NAME/games`), with the ids `allfives show` replays. Without NAME: your own, the
player of this user's key on that server (as its `welcome` names it)."""

from __future__ import annotations

import argparse
import asyncio
import sys
import time

from rich.console import Console
from rich.table import Table
from rich.text import Text
from websockets.asyncio.client import connect
from websockets.exceptions import ConnectionClosed, InvalidHandshake, InvalidURI

from clients.cli import local
from clients.cli.api import Api, ApiError
from clients.cli.keys import KeyStore
from clients.cli.ladder import player_name
from clients.cli.safe import visible
from clients.cli.seats import normalize_url
from protocol import messages as msg
from protocol.api import DEFAULT_GAMES_PAGE, MAX_GAMES_PAGE, GamesPage, GameSummary, PlayerAnswer

TIMEOUT = 10.0


def add_arguments(parser: argparse.ArgumentParser) -> None:
    """Options of `allfives history`."""
    parser.add_argument(
        "url", type=local.server_url, help="the server, e.g. ws://192.168.1.20:8765"
    )
    parser.add_argument("name", nargs="?", default=None, help="the player (default: you)")
    parser.add_argument("--offset", type=int, default=0, help="skip this many newer games")
    parser.add_argument(
        "--limit",
        type=int,
        default=DEFAULT_GAMES_PAGE,
        help=f"games to list (at most {MAX_GAMES_PAGE}; default {DEFAULT_GAMES_PAGE})",
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


def run(args: argparse.Namespace) -> int:
    """Print the player's ratings and games; returns the exit status."""
    url = normalize_url(args.url)
    if not 0 <= args.offset <= 100_000 or not 1 <= args.limit <= MAX_GAMES_PAGE:
        print(
            f"allfives history: --offset 0 to 100000, --limit 1 to {MAX_GAMES_PAGE}",
            file=sys.stderr,
        )
        return 2
    known = KeyStore().existing(url)
    key = known[1] if known is not None else None
    name = args.name
    if name is None:
        if known is None:
            print(
                "allfives history: this device is no player on that server yet: play a match "
                "there (allfives join), or link it to your player (/link on the other device), "
                "or name a player",
                file=sys.stderr,
            )
            return 1
        try:
            name = asyncio.run(whoami(url, known[1], known[0]))
        except (OSError, TimeoutError, InvalidHandshake, InvalidURI, ConnectionClosed) as error:
            print(visible(f"allfives history: cannot reach {url}: {error}"), file=sys.stderr)
            return 1
        if name is None:
            print(
                "allfives history: the server refused this device's key: name a player",
                file=sys.stderr,
            )
            return 1
    api = Api(url, key)
    try:
        player = api.get(api.player_path(name), PlayerAnswer, "player")
        page = api.get(api.games_path(name, args.offset, args.limit), GamesPage, "games list")
    except ApiError as error:
        print(visible(f"allfives history: {error.text}"), file=sys.stderr)
        return 1
    print_history(url, player, page, Console())
    return 0


def outcome(game: GameSummary, name: str) -> str:
    """How the game went for the player: won, lost, shared."""
    seats = [p.seat for p in game.players if p.name == name]
    if not seats:
        return ""
    seat = seats[0]
    side = seat % 2 if game.rules.partnership else seat
    if isinstance(game.winner, list):
        return "shared" if seat in game.winner else "lost"
    if game.winner is None:
        return "no winner"
    return "won" if game.winner == side else "lost"


def rating_change(game: GameSummary, name: str) -> str:
    """The player's rating after the game and its change, or ""."""
    change = next((c for c in game.changes if c.name == name), None)
    if change is None:
        return ""
    delta = change.after.rating - change.before.rating
    return f"{change.after.rating:.1f} ({'+' if delta >= 0 else '−'}{abs(delta):.1f})"


def print_history(url: str, player: PlayerAnswer, page: GamesPage, console: Console) -> None:
    """The ratings, then the games as a table, and how to replay one."""
    name = player.name
    console.print(
        Text(f"{player_name(name)}: {player.games} games, {player.wins} won", style="bold"),
        highlight=False,
    )
    for standing in player.ratings:
        console.print(
            Text(
                f"  {standing.ladder} ladder: {standing.rating.rating:.1f} "
                f"({standing.games} games, {standing.wins} won)"
            ),
            highlight=False,
        )
    if not page.games:
        console.print(Text("No games to show."), highlight=False)
        return
    table = Table(
        title=Text(f"Games {page.offset + 1}-{page.offset + len(page.games)} of {page.total}"),
        title_justify="left",
    )
    table.add_column("game", no_wrap=True)
    table.add_column("finished", no_wrap=True)
    table.add_column("players")
    table.add_column("scores", no_wrap=True)
    table.add_column("result", no_wrap=True)
    table.add_column("rating", no_wrap=True)
    for game in page.games:
        when = time.strftime("%Y-%m-%d %H:%M", time.localtime(game.finished_at))
        players = ", ".join(player_name(p.name) for p in game.players)
        if game.private:
            players += " (private)"
        table.add_row(
            visible(game.id),
            when,
            players,
            "-".join(map(str, game.scores)),
            outcome(game, name),
            rating_change(game, name),
        )
    console.print(table)
    first = visible(page.games[0].id)
    console.print(
        Text(f"Replay one with: {local.command()} show {visible(url.rstrip('/'))} {first}"),
        highlight=False,
    )
