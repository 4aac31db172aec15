"""`allfives tournament create|join|start|show`: tournaments on a server (docs/tournaments.md).

`create` makes one (you are its host, and enter it unless `--no-join`) and prints its code;
`join` enters one by its code; both then follow it on the tournament's screen
(`clients.cli.tournament_screen`), which moves you to your table each round by itself. `start`
(the host) starts it; `show` prints it once from `GET /api/tournaments/CODE`. All of it is done
as the player whose key this device keeps for the server, as `allfives join` does.
"""

from __future__ import annotations

import argparse
import asyncio
import sys

from rich.console import Console

from clients.cli import local, plain
from clients.cli.api import Api, ApiError
from clients.cli.argparse_words import word_placeholders
from clients.cli.commands import BOT_LEVELS
from clients.cli.i18n import _
from clients.cli.keys import KeyStore
from clients.cli.safe import visible
from clients.cli.seats import normalize_url
from clients.cli.tournament_link import TournamentLink, not_found
from clients.cli.tournament_screen import PLAIN_WIDTH, TournamentScreen
from clients.cli.tournament_words import tournament_rows
from protocol import messages as msg
from protocol.message_base import MAX_ROOM_CODE_LENGTH
from protocol.rules import RoomRules
from protocol.tournaments import (
    MAX_ENTRANTS,
    MAX_SWISS_ROUNDS,
    MAX_TOURNAMENT_NAME,
    CreateTournament,
    JoinTournament,
    StartTournament,
    TournamentView,
    validate_tournament_name,
)
from protocol.views import BotLevel

PROGRAM = "allfives tournament"  # i18n: a command
#: How long `start` waits for the desk's answer.
START_WAIT = 20.0


def add_arguments(parser: argparse.ArgumentParser) -> None:
    """The four actions and their options."""
    actions = parser.add_subparsers(dest="action", required=True, metavar="ACTION")
    create = actions.add_parser(
        "create", help=_("make a tournament, print its code and follow it as its host")
    )
    _add_url(create)
    create.add_argument(
        "--title", type=tournament_name, default=None, help=_("the tournament's name (required)")
    )
    # Typed as for `join` and `host`; checked once --title is known to be there, so that an
    # old `--name "Friday cup"` is told of --title rather than of a player's name.
    create.add_argument(
        "--name",
        default=None,
        help=_(
            "your name in the tournament (default: the player this device plays as on that "
            "server, else your login)"
        ),
    )
    create.add_argument(
        "--format",
        choices=("round_robin", "swiss", "elimination"),
        default="round_robin",
        help=_("round_robin, swiss or elimination (default round_robin)"),
    )
    local.add_table_arguments(
        create,
        players_help=_("players at a table (default 2)"),
        teams_help=_("with 4 players a table, play as two teams (default: teams)"),
    )
    create.add_argument(
        "--partners",
        choices=("fixed", "rotating"),
        default=None,
        help=_("with teams: fixed partners (in join order) or rotating ones (default fixed)"),
    )
    create.add_argument(
        "--rounds",
        type=swiss_rounds,
        default=None,
        help=_("Swiss only: how many rounds, 1 to {most}").format(most=MAX_SWISS_ROUNDS),
    )
    create.add_argument(
        "--bots",
        type=bot_levels,
        default=[],
        metavar="LEVEL[,LEVEL...]",
        help=_("bots that enter at once, by level: easy,normal,hard (e.g. easy,hard)"),
    )
    create.add_argument(
        "--target", type=local.target_score, default=None, help=_("the score that wins a match")
    )
    local.add_turn_seconds_argument(create)
    create.add_argument(
        "--private",
        action="store_true",
        help=_("not listed: friends enter with its whole CODE-INVITE"),
    )
    create.add_argument(
        "--no-join",
        action="store_true",
        help=_("host it without playing in it"),
    )
    _add_following(create)
    enter = actions.add_parser("join", help=_("enter a tournament and follow it to its end"))
    _add_url(enter)
    _add_code(enter)
    local.add_name_argument(
        enter,
        _(
            "your name in the tournament (default: the player this device plays as on that "
            "server, else your login)"
        ),
    )
    _add_following(enter)
    start = actions.add_parser("start", help=_("start a tournament you host"))
    _add_url(start)
    _add_code(start)
    show = actions.add_parser("show", help=_("print a tournament: entrants, rounds, standings"))
    _add_url(show)
    _add_code(show)
    plain.add_argument(show)
    for each in actions.choices.values():
        word_placeholders(each)


def _add_url(parser: argparse.ArgumentParser) -> None:
    parser.add_argument(
        "url", type=local.server_url, help=_("the server, e.g. ws://192.168.1.20:8765")
    )


def _add_code(parser: argparse.ArgumentParser) -> None:
    parser.add_argument(
        "code", type=tournament_code, help=_("the tournament's code (CODE-INVITE if private)")
    )


def _add_following(parser: argparse.ArgumentParser) -> None:
    local.add_quiet_argument(parser)
    plain.add_argument(parser)


def tournament_name(text: str) -> str:
    """argparse type for --name: a tournament's name."""
    try:
        cleaned = validate_tournament_name(text)
    except ValueError:
        cleaned = ""
    if not cleaned or len(cleaned) > MAX_TOURNAMENT_NAME:
        raise argparse.ArgumentTypeError(
            _("a tournament's name is 1 to 48 characters a reader can see")
        )
    return cleaned


def tournament_code(text: str) -> str:
    """argparse type for a tournament's code: letters, and a private one's -INVITE."""
    code = text.strip().upper()
    if (
        not code
        or len(code) > MAX_ROOM_CODE_LENGTH
        or not all(c.isascii() and (c.isalnum() or c == "-") for c in code)
    ):
        raise argparse.ArgumentTypeError(
            _("{typed} is no tournament code (5 letters, or CODE-INVITE)").format(
                typed=repr(visible(text[:24]))
            )
        )
    return code


def swiss_rounds(text: str) -> int:
    """argparse type for --rounds."""
    value = int(text) if text.isdigit() and len(text) < 4 else 0
    if not 1 <= value <= MAX_SWISS_ROUNDS:
        said = _("{typed} is not a number of rounds from 1 to {most}")
        raise argparse.ArgumentTypeError(said.format(typed=repr(text[:24]), most=MAX_SWISS_ROUNDS))
    return value


def bot_levels(text: str) -> list[BotLevel]:
    """argparse type for --bots: levels apart by commas."""
    levels = [word.strip().lower() for word in text.split(",") if word.strip()]
    wrong = [level for level in levels if level not in BOT_LEVELS]
    if wrong or len(levels) > MAX_ENTRANTS:
        said = _("{typed} is not a list of bot levels (easy, normal, hard apart by commas)")
        raise argparse.ArgumentTypeError(said.format(typed=repr(text[:48])))
    return levels  # type: ignore[return-value]


def run(args: argparse.Namespace) -> int:
    """The chosen action; returns the exit status."""
    if args.action == "show":
        return show(args)
    if args.action == "start":
        return asyncio.run(start(args))
    local.keep_logs_off_screen()
    return local.interruptible(follow(args), PROGRAM)


def link_for(url: str, name: str | None) -> tuple[TournamentLink, KeyStore]:
    """The player's link to the server's desk: `name`'s key, else the player this device plays
    as there, else the login name as a new player (as `allfives join`)."""
    keys = KeyStore()
    if name is None:
        kept = keys.existing(url)
        name = kept[0] if kept is not None else local.default_name()
    return TournamentLink(url, name, keys.key_for(url, name), keys), keys


def host_name(args: argparse.Namespace) -> str | None:
    """The host's own name at `create` (None: as `join` picks it); a missing --title, or a
    name no player may have: UsageError."""
    if args.title is None:
        raise local.UsageError(
            _("name the tournament with --title (--name is your own name in it, as for join)")
        )
    if args.name is None:
        return None
    try:
        return local.player_name(args.name)
    except argparse.ArgumentTypeError as error:
        raise local.UsageError(f"--name: {error}") from None


def rules_of(args: argparse.Namespace) -> RoomRules:
    """Every match's rules, as the options ask (a combination that makes no sense: UsageError)."""
    if args.teams and args.players != 4:
        raise local.UsageError(_("--teams needs 4 players, not {count}").format(count=args.players))
    if args.rounds is not None and args.format != "swiss":
        raise local.UsageError(_("--rounds is for --format swiss only"))
    if args.partners is not None and (args.players != 4 or args.teams is False):
        raise local.UsageError(_("--partners is for tables of 4 in teams only"))
    return RoomRules(
        players=args.players,
        teams=args.teams is not False,
        target=args.target,
        turn_seconds=args.turn_seconds,
        public=not args.private,
    )


async def follow(args: argparse.Namespace) -> int:
    """Create or join, then follow the tournament on its screen."""
    url = normalize_url(args.url)
    first: list[msg.ClientMessage]
    name = args.name
    if args.action == "create":
        name = host_name(args)
        rules = rules_of(args)
        partners = args.partners
        if rules.players == 4 and rules.teams and partners is None:
            partners = "fixed"
        first = [
            CreateTournament(
                name=args.title,
                format=args.format,
                rules=rules,
                partners=partners,
                rounds=args.rounds,
                bots=args.bots,
            )
        ]
    else:
        first = [JoinTournament(tournament=args.code, name=args.name)]
    link, keys = link_for(url, name)
    link.join_after_create = args.action == "create" and not args.no_join
    return await TournamentScreen(link, args, keys).run(first)


async def start(args: argparse.Namespace) -> int:
    """Start the tournament (its host): one line, status 0; a refusal, one line, status 1."""
    url = normalize_url(args.url)
    link, _keys = link_for(url, None)
    task = asyncio.get_running_loop().create_task(link.run([StartTournament(tournament=args.code)]))
    answered = asyncio.get_running_loop().create_task(link.answered.wait())
    await asyncio.wait({task, answered}, timeout=START_WAIT, return_when=asyncio.FIRST_COMPLETED)
    answered.cancel()
    await link.close()
    task.cancel()
    if link.fatal is None and link.update is None:
        link.fatal = _("{url} did not answer").format(url=url)
    if link.fatal is not None:
        print(visible(f"{PROGRAM}: {link.fatal}"), file=sys.stderr)
        return 1
    assert link.update is not None
    print(visible(_("{name} has started.").format(name=link.update.state.name)))
    return 0


def show(args: argparse.Namespace) -> int:
    """Print the tournament once (`GET /api/tournaments/CODE`)."""
    url = normalize_url(args.url)
    known = KeyStore().existing(url)
    api = Api(url, known[1] if known is not None else None)
    try:
        view = api.get(api.tournament_path(args.code), TournamentView, "tournament")
    except ApiError as error:
        said = not_found(args.code) if error.status == 404 else error.text
        print(visible(f"{PROGRAM}: {said}"), file=sys.stderr)
        return 1
    plain_lines = plain.wanted(args)
    width = PLAIN_WIDTH if plain_lines else Console().width - 1
    replay = f"{local.command()} show {visible(url.rstrip('/'))}"  # i18n: a command
    for row in tournament_rows(view, width, plain=plain_lines, code=args.code, replay=replay):
        print(visible(row.plain))
    return 0
