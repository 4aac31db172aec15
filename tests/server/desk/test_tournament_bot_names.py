"""A tournament's bot entrant has one name, made by the server when the host adds it: the same in
the standings, in its table's seat and in its games' records, on a real server with a real
WebSocket client; and the terminal shows that name in each place as the server sent it."""

from __future__ import annotations

import random

import msgspec
from server_helpers import api_get, fast_config
from tournament_helpers import Entrant, keyed, tournament_update
from waiting import until

from clients.cli.history import seat_of
from clients.cli.state import display_names
from clients.cli.tournament_words import standing_columns
from protocol import api
from protocol.tournaments import TournamentView
from protocol.views import RoomView
from server.app import run_server

CUP = {"name": "Bots' cup", "format": "round_robin", "rules": {"players": 2, "target": 50}}


async def test_a_bot_entrant_has_one_name_in_the_standings_at_its_table_and_in_its_games() -> None:
    async with run_server(fast_config()) as server:
        ann = await keyed(server.url, "Ann")
        made = await tournament_update(ann, "create_tournament", **CUP, bots=["easy", "easy"])
        code = made.tournament
        await tournament_update(ann, "join_tournament", tournament=code)
        started = await tournament_update(ann, "start_tournament", tournament=code)
        bots = [entrant.name for entrant in started.state.entrants if entrant.bot is not None]
        # Two bots of a level are told apart, and neither reads as an ordinary room's bot.
        assert bots == ["bot:easy 1", "bot:easy 2"]

        entrant = Entrant(ann, random.Random(5), latest=started)
        finished = await entrant.play_to_the_end()
        view = finished.state
        names = [e.name for e in view.entrants]

        # The standings, as the server sends them and as the terminal lists them.
        assert sorted(names[line.unit] for line in view.standings) == sorted(names)
        _headings, lines = standing_columns(view)
        assert sorted(line[1] for line in lines) == sorted(names)

        # Ann sat at a table with each bot: each seat carries the bot's entrant name, and the
        # terminal's table shows it as it is.
        sat_with: set[str] = set()
        for room, seats in entrant.seats_seen.items():
            table = next(t for played in view.rounds for t in played.tables if t.room == room)
            assert [seat["name"] if seat else None for seat in seats] == [
                names[e] for e in table.seats
            ]
            sat_with |= {seat["name"] for seat in seats if seat and seat["kind"] == "bot"}
        assert sat_with == set(bots)
        last = msgspec.convert(ann.document, RoomView)
        assert last.tournament_table
        last_table = next(t for played in view.rounds for t in played.tables if t.room == ann.room)
        assert display_names(last) == [names[e] for e in last_table.seats]

        # Every table's archived game, the bots' table too, names its seats as the standings do.
        async def every_game() -> TournamentView | None:
            update = await tournament_update(ann, "follow_tournament", tournament=code)
            tables = [t for played in update.state.rounds for t in played.tables]
            return update.state if all(t.game is not None for t in tables) else None

        told = await until(every_game, 30, "every table's game told", every=0.1)
        archived_bots: set[str] = set()
        for played in told.rounds:
            for table in played.tables:
                answer = await api_get(server.url, f"/api/games/{table.game}")
                assert answer.status == 200, answer.body
                game = api.decode_answer(answer.body, api.GameDetail)
                seated = [names[e] for e in table.seats]
                assert game.record.names == seated
                players = sorted(game.players, key=lambda player: player.seat)
                assert [player.name for player in players] == seated
                # The terminal's list of games names each seat so too.
                assert [seat_of(player) for player in players] == seated
                archived_bots |= {p.name for p in players if p.kind == "bot"}
        assert archived_bots == set(bots)
        await ann.close()
