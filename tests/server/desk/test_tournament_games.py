"""A finished tournament links each table to its archived game, on a real server with real
WebSocket clients: each finished table's `game` in the view is the game the archive holds for
that table's room, with the table's names in seat order and its scores; it is noted after a
restart too; and a private tournament's unrated games are shown only to their players."""

from __future__ import annotations

import random
from pathlib import Path

from restart_helpers import Keeping, server_process
from server_helpers import api_get, fast_config, new_key
from storage_helpers import load_stored
from tournament_helpers import Entrant, archived_tables, game_id_of, keyed, tournament_update
from waiting import until

from protocol import api
from protocol.tournaments import TournamentView
from server.app import run_server
from server.desk.kept import decode
from server.rooms import codes
from server.storage.store import Store

CUP = {"name": "Friday cup", "format": "round_robin", "rules": {"players": 2, "target": 50}}


def every_game(view: TournamentView) -> bool:
    """Whether the tournament is over and each of its tables shows its game."""
    tables = [table for played in view.rounds for table in played.tables]
    return view.phase == "finished" and all(table.game is not None for table in tables)


async def shown(url: str, id: str, key: str | None = None) -> TournamentView | None:
    """The tournament as `GET /api/tournaments/ID` shows it, once every table has its game."""
    answer = await api_get(url, f"/api/tournaments/{id}", key)
    assert answer.status == 200, answer.body
    view = api.decode_answer(answer.body, TournamentView)
    return view if every_game(view) else None


async def check_games(url: str, store: Store, view: TournamentView) -> None:
    """Each table's game is its room's archived game, with its names by seat and its scores."""
    archive = await archived_tables(url, store, view)
    names = [entrant.name for entrant in view.entrants]
    for played in view.rounds:
        for table in played.tables:
            assert table.room is not None and table.scores is not None
            assert table.game == await game_id_of(store, table.room)
            answer = await api_get(url, f"/api/games/{table.game}")
            assert answer.status == 200, answer.body
            game = archive[table.room]
            assert game.names == [names[seat] for seat in table.seats]
            assert game.scores == table.scores


async def test_each_finished_table_shows_the_game_the_archive_holds_for_it() -> None:
    async with run_server(fast_config()) as server:
        ann = await keyed(server.url, "Ann")
        made = await tournament_update(ann, "create_tournament", **CUP, bots=["easy", "normal"])
        code = made.tournament
        await tournament_update(ann, "join_tournament", tournament=code)
        started = await tournament_update(ann, "start_tournament", tournament=code)
        assert all(table.game is None for table in started.state.rounds[0].tables)

        await Entrant(ann, random.Random(7), latest=started).play_to_the_end()

        # The games archived after their tables finished reach the followers too.
        async def told() -> TournamentView | None:
            update = await tournament_update(ann, "follow_tournament", tournament=code)
            return update.state if every_game(update.state) else None

        followed = await until(told, 30, "every table's game told", every=0.1)
        assert len(followed.rounds) == 3
        await check_games(server.url, server.store, followed)
        # The HTTP API shows the same games as the followers are told.
        answered = await until(lambda: shown(server.url, code), 10, "the API's view")
        assert answered.rounds == followed.rounds
        await ann.close()


async def test_the_games_are_noted_when_the_server_was_killed_mid_round(
    keeping: Keeping, tmp_path: Path
) -> None:
    async with server_process(keeping, tmp_path, "--bot-delay", "0.02") as server:
        ann = await keyed(server.url, "Ann", new_key())
        bots = ["easy", "normal", "easy"]
        made = await tournament_update(ann, "create_tournament", **CUP, bots=bots)
        code = made.tournament
        started = await tournament_update(ann, "start_tournament", tournament=code)
        room = codes.split(started.state.rounds[0].tables[0].room or "")[0]

        async def moves_stored() -> bool:
            stored = await load_stored(keeping.store, room)
            return stored is not None and stored.seq > 2

        await until(moves_stored, timeout=30)
        await ann.close()
        await server.kill()  # mid-round: the first table's match is being played

        await server.start()
        view = await until(lambda: shown(server.url, code), 120, "every game noted", every=0.2)
        assert len(view.rounds) == 3
        await check_games(server.url, keeping.store, view)

        await server.kill()  # and the games noted stay with the tournament
        await server.start()
        again = await until(lambda: shown(server.url, code), 30, "the games kept", every=0.2)
        assert again.rounds == view.rounds


async def test_a_private_tournaments_unrated_games_are_shown_to_their_players_only() -> None:
    async with run_server(fast_config()) as server:
        key = new_key()
        ann = await keyed(server.url, "Ann", key)
        rules = {"players": 2, "target": 50, "public": False}
        made = await tournament_update(
            ann, "create_tournament", name="Cup", format="round_robin", rules=rules,
            bots=["easy", "easy"],
        )  # fmt: skip
        code = made.tournament  # CODE-INVITE
        await tournament_update(ann, "join_tournament", tournament=code)
        started = await tournament_update(ann, "start_tournament", tournament=code)
        await Entrant(ann, random.Random(8), latest=started).play_to_the_end()

        async def to_ann() -> TournamentView | None:
            update = await tournament_update(ann, "follow_tournament", tournament=code)
            mine = [t for p in update.state.rounds for t in p.tables if 2 in t.seats]
            done = update.state.phase == "finished" and all(t.game for t in mine)
            return update.state if done else None

        view = await until(to_ann, 30, "Ann's games told", every=0.1)
        tables = [table for played in view.rounds for table in played.tables]
        mine = [table for table in tables if 2 in table.seats]
        assert len(mine) == 2

        # The table of the two bots is not Ann's: its game, archived, is not shown to her.
        async def noted() -> list[str | None] | None:
            stored = await server.store.tournaments.load(code.split("-")[0])
            assert stored is not None
            games = [t.game for p in decode(stored.state).tournament.rounds for t in p.tables]
            return games if all(games) else None

        assert len(await until(noted, 30, "every game noted")) == 3
        assert all(table.game is None for table in tables if 2 not in table.seats)
        for table in mine:
            assert table.game == await game_id_of(server.store, table.room or "")
            # Ann may open her games; anyone else finds none there, as no game at all.
            assert (await api_get(server.url, f"/api/games/{table.game}", key)).status == 200
            assert (await api_get(server.url, f"/api/games/{table.game}")).status == 404

        # A stranger with the invite sees the tournament, and no game of it.
        cid = await keyed(server.url, "Cid")
        seen = await tournament_update(cid, "follow_tournament", tournament=code)
        assert seen.state.phase == "finished"
        assert all(t.game is None for p in seen.state.rounds for t in p.tables)
        answer = await api_get(server.url, f"/api/tournaments/{code}")
        assert answer.status == 200
        assert b'"game"' not in answer.body
        # The HTTP API shows Ann, asking with her key, her own games as the desk does.
        answer = await api_get(server.url, f"/api/tournaments/{code}", key)
        assert api.decode_answer(answer.body, TournamentView).rounds == view.rounds
        for client in (ann, cid):
            await client.close()
