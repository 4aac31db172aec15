"""`allfives key URL`: a way back to your name on a server, for when this device's keys are lost.

`allfives key URL` asks the server for a recovery code for the player of this device's key
there (the name used last, or `--name`) and prints it, once: the server keeps only its hash,
and a new one cancels the old one. On a new device (or after `keys.json` is gone),
`allfives key URL --restore CODE` makes a key of this device's own that the code joins to the
player, and keeps it in `keys.json` under the player's name, as a link code would. The same
code works in the browser's "Link this device" page: it is how `keys.json` is carried over.
"""

from __future__ import annotations

import argparse
import asyncio
import sys

from rich.console import Console
from websockets.asyncio.client import connect
from websockets.exceptions import ConnectionClosed, InvalidHandshake, InvalidURI

from clients.cli import local, words
from clients.cli.i18n import _
from clients.cli.keys import KeyStore, new_key
from clients.cli.safe import visible
from clients.cli.seats import normalize_url
from protocol import codes
from protocol import messages as msg

TIMEOUT = 10.0
COMMAND = "allfives key: "  # i18n: a command


def add_arguments(parser: argparse.ArgumentParser) -> None:
    """Options of `allfives key`."""
    parser.add_argument(
        "url", type=local.server_url, help=_("the server, e.g. ws://192.168.1.20:8765")
    )
    parser.add_argument(
        "--restore",
        metavar="CODE",
        help=_("give this device the name of the player whose recovery code this is"),
    )
    local.add_name_argument(parser)


def run(args: argparse.Namespace, keys: KeyStore | None = None) -> int:
    """Print a new recovery code, or restore one; returns the exit status."""
    url = normalize_url(args.url)
    keys = keys or KeyStore()
    try:
        if args.restore is not None:
            return asyncio.run(restore(url, args.restore, keys))
        return asyncio.run(recovery(url, args.name, keys))
    except (OSError, TimeoutError, InvalidHandshake, InvalidURI, ConnectionClosed) as error:
        reason = visible(str(error) or type(error).__name__)
        print(COMMAND + _("could not reach {url}: {reason}").format(url=url, reason=reason))
        return 1


async def ask(url: str, hello: msg.Hello, then: msg.ClientMessage | None) -> msg.AnyServerMessage:
    """Say `hello`, then send `then` (if any): the answer to the last one sent."""
    async with connect(url, open_timeout=TIMEOUT) as socket:
        await socket.send(msg.encode(hello).decode())
        while True:
            reply = msg.decode_server(await asyncio.wait_for(socket.recv(), TIMEOUT))
            if isinstance(reply, msg.Error):
                return reply
            if isinstance(reply, msg.Welcome):
                if then is None:
                    return reply
                await socket.send(msg.encode(then).decode())
            elif getattr(reply, "id", None) == 2:
                return reply


async def recovery(url: str, name: str | None, keys: KeyStore) -> int:
    """Ask for a recovery code as this device's player on the server, and print it."""
    if name is None:
        kept = keys.existing(url)
    else:
        key = keys.kept(url, name)
        kept = None if key is None else (name, key)
    if kept is None:
        print(
            COMMAND
            + _(
                "this device is no player on that server yet: play a match there "
                "(allfives join), or restore your name with --restore CODE"
            ),
            file=sys.stderr,
        )
        return 1
    hello = msg.Hello(id=1, version=msg.PROTOCOL_VERSION, name=kept[0], key=kept[1])
    answer = await ask(url, hello, msg.AskRecoveryCode(id=2))
    if isinstance(answer, msg.Error):
        said = words.error_words(answer.code, answer.message, reason=answer.reason)
        print(COMMAND + said, file=sys.stderr)
        return 1
    assert isinstance(answer, msg.RecoveryCodeReply)
    console = Console(highlight=False)
    console.print(
        _("Recovery code for {name} on {url}:").format(name=visible(kept[0]), url=url),
        markup=False,
    )
    console.print(visible(answer.code), style="bold", markup=False)
    console.print(
        _(
            "Shown this once: write it down and keep it safe. On a new device, "
            "allfives key {url} --restore CODE gives you your name back (in a browser: "
            "Link this device). A new code cancels this one."
        ).format(url=url),
        markup=False,
    )
    return 0


async def restore(url: str, given: str, keys: KeyStore) -> int:
    """Make this device's key the player's whose recovery code `given` is."""
    code = codes.normalize_recovery_code(given)
    if code is None:
        print(
            COMMAND + _("a recovery code has 20 letters and digits, like ABCD-EFGH-JKMN-PQRS-TVWX"),
            file=sys.stderr,
        )
        return 2
    key = new_key()
    hello = msg.Hello(id=1, version=msg.PROTOCOL_VERSION, key=key, recover=code)
    answer = await ask(url, hello, None)
    if isinstance(answer, msg.Error):
        said = words.error_words(answer.code, answer.message, reason=answer.reason)
        print(COMMAND + said, file=sys.stderr)
        return 1
    assert isinstance(answer, msg.Welcome) and answer.player is not None
    keys.remember(url, answer.player, key)
    print(
        _("This device now plays as {name} on {url}.").format(name=visible(answer.player), url=url)
    )
    return 0
