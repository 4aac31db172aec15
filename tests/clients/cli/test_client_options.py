"""Every bad option or setting is one line on stderr and a non-zero status, never a traceback."""

from __future__ import annotations

import argparse
import asyncio
import importlib
import socket
import subprocess
import sys

import pytest
from client_helpers import TIMEOUT
from command_helpers import run_allfives

from allfives import cli
from clients.cli import i18n, local
from clients.cli.connection import Connection, Fatal
from clients.cli.state import TableState
from protocol import messages as msg
from server.app import Server


def allfives(*args: str) -> subprocess.CompletedProcess[str]:
    """Run the command with no terminal attached (in this process: `run_allfives`)."""
    return run_allfives(*args, columns=100)


@pytest.mark.parametrize(
    ("args", "said"),
    [
        (["host", "--port", "99999"], "'99999' is not a port"),
        (["serve", "--port", "99999"], "'99999' is not a port"),
        (["serve", "--rate", "-1"], "'-1' is not above zero"),
        (["play", "--teams", "--players", "2"], "--teams needs 4 players, not 2"),
        (["play", "--target", "5000"], "5000 is above the highest target, 1000"),
        (["play", "--turn-seconds", "2"], "'2' is not a number of seconds from 5 to 3600"),
        (["play", "--bots", "easy,hard"], "--bots names 2 levels for 1 bot seats"),
        (["join", "http://example.org:8765"], "the game server speaks ws://example.org:8765"),
        (["rooms", "https://example.org"], "the game server speaks wss://example.org"),
        (["join", "ws://127.0.0.1:1", "--seat", "2"], "--seat needs the room's code"),
        (["join", "ws://127.0.0.1:1", "ABCD", "--seat", "5"], "invalid choice: 5"),
        (["join", "ws://127.0.0.1:1", "ABCD", "--seat", "0"], "invalid choice: 0"),
        (["play"], "allfives play: needs a terminal"),
        (["show", "ws://127.0.0.1:1", "GAME"], "allfives show: needs a terminal"),
        (["watch", "ws://127.0.0.1:1", "ABCD"], "allfives watch: needs a terminal"),
    ],
)
def test_a_bad_option_is_one_line_and_a_non_zero_status(args: list[str], said: str) -> None:
    done = allfives(*args)
    assert done.returncode != 0
    assert said in done.stderr
    assert len(done.stderr.strip().splitlines()) == 1, done.stderr
    assert "Traceback" not in done.stderr


def test_a_language_there_is_no_catalog_for_is_said_and_english_used() -> None:
    done = allfives("--lang", "de", "play")
    assert done.returncode == 2
    assert "there is no 'de' here: the table speaks en, cs, sr-Latn or et" in done.stderr
    assert "allfives play: needs a terminal" in done.stderr
    assert "there is no" not in allfives("--lang", "cs", "play").stderr


def test_argparses_words_and_the_placeholders_are_in_the_players_language() -> None:
    refused = allfives("--lang", "cs", "play", "--target", "5000")
    assert refused.stderr.startswith("allfives play: volba --target: ")
    missing = allfives("--lang", "et", "history")
    assert "kohustuslikud: aadress" in missing.stderr
    shown = allfives("--lang", "cs", "join", "--help").stdout
    assert shown.startswith("použití: ") and "--name JMÉNO" in shown and "--link KÓD" in shown
    assert "adresa [místnost]" in shown and "NAME" not in shown and "url" not in shown


def test_a_busy_port_is_said_in_the_players_language() -> None:
    with socket.socket() as taken:
        taken.bind(("127.0.0.1", 0))
        taken.listen()
        with socket.socket() as second, pytest.raises(OSError) as refused:
            second.bind(taken.getsockname())
    i18n.set_language("cs")
    try:
        said = local.os_reason(refused.value)
    finally:
        i18n.set_language("en")
    assert said == "port používá jiný program"


async def test_wss_to_a_plain_server_says_to_try_ws(server: Server) -> None:
    url = server.url.replace("ws://", "wss://")
    process = await asyncio.create_subprocess_exec(
        sys.executable,
        "-m",
        "allfives.cli",
        "rooms",
        url,
        stdout=asyncio.subprocess.PIPE,
        stderr=asyncio.subprocess.PIPE,
    )
    _, err = await asyncio.wait_for(process.communicate(), TIMEOUT)
    assert process.returncode == 1 and "try ws://" in err.decode()
    assert len(err.decode().strip().splitlines()) == 1, err
    with pytest.raises(Fatal, match=r"TLS handshake failed \(a plain server\? try ws://"):
        await asyncio.wait_for(Connection(url, "Ann", TableState()).run(), TIMEOUT)


async def test_a_server_that_closes_before_giving_a_seat_is_not_retried() -> None:
    from websockets.asyncio.server import ServerConnection, serve

    async def hang_up(socket: ServerConnection) -> None:
        await socket.close()

    async with serve(hang_up, "127.0.0.1", 0) as quick:
        port = next(iter(quick.sockets)).getsockname()[1]
        connection = Connection(f"ws://127.0.0.1:{port}/", "Ann", TableState())
        with pytest.raises(Fatal, match="closed the connection before giving a seat"):
            await asyncio.wait_for(connection.run([msg.Join(room="ABCD")]), TIMEOUT)


async def test_serve_prints_the_browser_link_and_the_join_line() -> None:
    import urllib.request

    from clients.cli.local import server_url

    process = await asyncio.create_subprocess_exec(
        sys.executable,
        "-m",
        "allfives.cli",
        "serve",
        "--port",
        "0",
        stdout=asyncio.subprocess.PIPE,
        stderr=asyncio.subprocess.PIPE,
    )
    try:
        assert process.stdout is not None and process.stderr is not None
        lines = [(await asyncio.wait_for(process.stdout.readline(), TIMEOUT)).decode().strip()]
        while len(lines) < 3:  # under it, on stderr (stdout is the one line scripts read)
            said = (await asyncio.wait_for(process.stderr.readline(), TIMEOUT)).decode().strip()
            if said.startswith(("play in a browser:", "or in a terminal:")):
                lines.append(said)
        assert lines[0].startswith("allfives server listening on ws://127.0.0.1:")
        url = lines[0].split()[-1]
        link = lines[1].split()[-1]
        assert lines[1].startswith("play in a browser:") and link == "http" + url[2:]
        page = await asyncio.to_thread(lambda: urllib.request.urlopen(link, timeout=TIMEOUT).read())
        assert b"<html" in page.lower()
        command = lines[2].removeprefix("or in a terminal:").split()
        # As it runs here (a source checkout: `uv run allfives`, allfives not being on PATH).
        assert command[:-1] == [*local.command().split(), "join"]
        assert command[:3] == ["uv", "run", "allfives"]
        assert server_url(command[-1]) == url.rstrip("/")
    finally:
        process.terminate()
        await process.wait()


@pytest.mark.parametrize("command", sorted(cli.COMMANDS))
def test_every_option_of_every_command_says_what_it_does_and_its_default(command: str) -> None:
    parser = cli.OneLineParser(prog=f"allfives {command}")
    importlib.import_module(cli.COMMANDS[command][0]).add_arguments(parser)
    for action in parser._actions:
        if action.option_strings and action.dest != "help":
            assert action.help, f"allfives {command} {action.option_strings[0]} has no help"
            if action.default not in (None, False) and action.help != argparse.SUPPRESS:
                assert "default" in action.help, (command, action.option_strings, action.help)
    text = parser.format_help()
    assert "default False" not in text and "default True" not in text, text
    assert "default None" not in text, text
    if "--reserve" in text:
        assert "--reserve 0-7" in text, text
