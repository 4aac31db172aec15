"""`allfives tournament show` against a real server whose tournament was played to its end:
under each finished table it prints the `allfives show URL ID` that replays that table's
archived game, the id whole on a row of its own when the command does not fit, at 60 and 80
columns."""

from __future__ import annotations

from pathlib import Path

from client_helpers import bots_tournament_with_games
from command_helpers import run_allfives
from rich.cells import cell_len
from server_helpers import ServerThread, api_get

from protocol.tournaments import TournamentView


def shown(url: str, code: str, config: Path, columns: int) -> list[str]:
    """What `allfives tournament show` prints at `columns`, row by row (run in this process)."""
    done = run_allfives("tournament", "show", url, code, config=config, columns=columns)
    assert done.returncode == 0, done.stderr
    return done.stdout.splitlines()


def replays(rows: list[str]) -> list[str]:
    """The replay commands printed, each as one line (a continued row joined to the next)."""
    found: list[str] = []
    joined = ""
    for row in rows:
        text = row.strip()
        if joined:
            found.append(f"{joined} {text}")
            joined = ""
        elif " show " in text and text.endswith("\\"):
            joined = text.removesuffix("\\").rstrip()
        elif " show " in text:
            found.append(text)
    return found


def test_show_prints_the_command_that_replays_each_tables_game_at_60_and_80_columns(
    tmp_path: Path,
) -> None:
    # The bots play at once: what is shown is the finished tournament, not how it was played.
    with ServerThread(bot_delay=0.0) as server:
        url = server.server.url
        view: TournamentView = server.call(bots_tournament_with_games(url))
        tables = [table for played in view.rounds for table in played.tables]
        assert len(tables) == 3
        for table in tables:  # each id opens that table's game
            answer = server.call(api_get(url, f"/api/games/{table.game}"))
            assert answer.status == 200 and answer.json["scores"] == table.scores
        for columns in (60, 80):
            rows = shown(url, view.code, tmp_path, columns)
            text = "\n".join(rows)
            assert all(cell_len(row) <= columns for row in rows), text
            said = "Under each finished table, the command that replays its game."
            assert said in " ".join(text.split())
            commands = replays(rows)
            base = url.rstrip("/")
            assert all(command.rsplit(" ", 1)[0].endswith(f"show {base}") for command in commands)
            assert [command.rsplit(" ", 1)[1] for command in commands] == [
                table.game for table in tables
            ], text
            # Every id is whole on one row, never folded in its middle.
            for table in tables:
                assert table.game is not None
                assert any(row.strip().endswith(table.game) for row in rows), text
            # Each command is printed under its own table's row.
            for number, row in enumerate(rows):
                if row.lstrip().startswith("Table "):
                    following = "\n".join(rows[number + 1 : number + 3])
                    assert any(table.game and table.game in following for table in tables)
