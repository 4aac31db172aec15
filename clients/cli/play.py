"""`allfives play`: a game against bots on this machine, with nothing to set up.

A server runs inside the process on loopback (a free port); you take seat 0, bots take the
others (one level for all, or one per seat: `--bots easy,hard`), and the first hand is dealt at
once. The bots wait while a hand's result is on screen (until Enter); `/rematch` deals the next
match at once.
"""

from __future__ import annotations

import argparse

from clients.cli import local, plain
from clients.cli.connection import Connection
from clients.cli.i18n import _
from clients.cli.mode import Mode
from clients.cli.state import TableState
from protocol import messages as msg
from protocol.rules import RoomRules
from protocol.views import BotLevel

# Loaded with the command, not once it runs: Ctrl-C while modules load ends the process at once
# (`allfives.start`); a KeyboardInterrupt raised inside an import could be lost, or crash.
from server.app import Config, run_server

BOT_LEVELS: tuple[BotLevel, ...] = ("easy", "normal", "hard")


def bot_levels(text: str) -> list[BotLevel]:
    """argparse type for --bots: one level, or one per bot seat separated by commas."""
    levels: list[BotLevel] = []
    for word in text.lower().split(","):
        level = next((known for known in BOT_LEVELS if known == word.strip()), None)
        if level is None:
            said = _("{typed} is not a bot level: easy, normal or hard")
            raise argparse.ArgumentTypeError(said.format(typed=repr(word.strip())))
        levels.append(level)
    return levels


def add_arguments(parser: argparse.ArgumentParser) -> None:
    """Options of `allfives play`."""
    local.add_rules_arguments(parser)
    parser.add_argument(
        "--bots",
        type=bot_levels,
        default=["normal"],
        metavar="LEVEL[,LEVEL...]",
        help=_(
            "how well the bots play: easy, normal or hard, or one per seat: easy,hard "
            "(default normal)"
        ),
    )
    local.add_name_argument(parser)
    local.add_quiet_argument(parser)
    plain.add_argument(parser)


def seat_levels(levels: list[BotLevel], bots: int) -> list[BotLevel]:
    """A level for each bot seat: one level for all, or one each (a UsageError otherwise)."""
    if len(levels) == 1:
        return levels * bots
    if len(levels) != bots:
        said = _("--bots names {count} levels for {seats} bot seats")
        raise local.UsageError(said.format(count=len(levels), seats=bots))
    return levels


def run(args: argparse.Namespace) -> int:
    """Play until the match is over and you quit; returns the exit status."""
    try:
        rules = local.rules_from(args, public=False)
        levels = seat_levels(args.bots, args.players - 1)
    except local.UsageError as error:
        return local.usage_error("allfives play", error)
    local.keep_logs_off_screen()
    return local.interruptible(play(args, rules, levels), "allfives play")


def first_messages(rules: RoomRules, levels: list[BotLevel]) -> list[msg.ClientMessage]:
    """Open the room at seat 0, seat the bots, deal."""
    return [
        msg.CreateRoom(rules=rules, seat=0),
        *(msg.AddBot(seat=seat, level=level) for seat, level in enumerate(levels, start=1)),
        msg.Start(),
    ]


async def play(args: argparse.Namespace, rules: RoomRules, levels: list[BotLevel]) -> int:
    """Run the embedded server and the table."""
    # Alone with bots nobody waits for the player: no idle bound unless asked for.
    config = Config.of(
        host="127.0.0.1", port=0, bot_delay=local.bot_delay(), idle_seconds=local.idle_seconds(0)
    )
    async with run_server(config) as server:
        name = args.name or local.default_name()
        connection = Connection(server.url, name, TableState())
        held = server.bots_may_play

        def hold_bots(result_shown: bool) -> None:
            """The bots wait while a hand's result is on screen, until Enter."""
            if result_shown:
                held.clear()
            else:
                held.set()

        app = plain.table(args)(connection, Mode.PLAY, quiet=args.quiet, on_result=hold_bots)
        return await app.run(first_messages(rules, levels))
