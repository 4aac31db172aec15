"""Tournaments from end to end, on a real server process killed (SIGKILL) in the middle and
started again, keeping them under `--data` or in Redis: people connected as real WebSocket
clients play legal moves from their own views, bots play at once, and when the tournament is
finished every round's pairing is the one docs/tournaments.md says (recomputed here), the
standings are a recount of the archived matches (`GET /api/games/ID`, not the tournament's own
state), the champion is the recount's first, and no frame to a person named a tile it could not
see."""

from __future__ import annotations

import asyncio
import itertools
from collections.abc import Callable
from pathlib import Path
from typing import Any

import msgspec
from restart_helpers import Keeping, ServerProcess, server_process
from server_helpers import api_get
from tournament_helpers import (
    Archived,
    Person,
    archived_tables,
    check_hidden,
    check_rotating_round,
    check_swiss_round,
    circle_pairs,
    recount,
    shown_standings,
    tournament_update,
    units_at,
)
from waiting import until
from websockets.exceptions import ConnectionClosed

from protocol.tournaments import TournamentView
from server.desk.kept import decode
from server.tournaments.stored import Tournament

#: A tournament's time to its end: several matches to a low target, people moving at once.
PLAY_SECONDS = 240.0


async def stored_tournament(keeping: Keeping, code: str) -> Tournament:
    """The tournament as the server process stored it."""
    stored = await keeping.store.tournaments.load(code)
    assert stored is not None
    return decode(stored.state).tournament


def in_round(number: int) -> Callable[[Tournament], bool]:
    """Whether round `number` (from 0) is being played and has a table still playing."""

    def holds(tournament: Tournament) -> bool:
        rounds = tournament.rounds
        return (
            tournament.phase == "playing"
            and len(rounds) == number + 1
            and any(table.scores is None for table in rounds[number].tables)
        )

    return holds


async def played_with_a_restart(
    server: ServerProcess,
    keeping: Keeping,
    code: str,
    people: list[Person],
    middle: Callable[[Tournament], bool],
) -> TournamentView:
    """The people play until the stored tournament is in its `middle`; the server is killed
    there and started again, the people connect again and play to the end. The tournament's
    public view once finished (`GET /api/tournaments/CODE`)."""
    seeds = itertools.count(1)
    entrants = [await person.follow(server.url, code, next(seeds)) for person in people]
    playing = [asyncio.create_task(entrant.play_to_the_end(PLAY_SECONDS)) for entrant in entrants]

    async def reached() -> bool:
        for task in playing:
            if task.done():
                task.result()  # an error a person was sent fails the test here
                raise AssertionError("the tournament ended before its middle")
        return middle(await stored_tournament(keeping, code))

    await until(reached, timeout=PLAY_SECONDS, what="the middle of the tournament")
    await server.kill()
    # Each person's connection dropped with the server, and nothing else went wrong.
    for ended in await asyncio.gather(*playing, return_exceptions=True):
        assert isinstance(ended, ConnectionClosed), ended
    # Killed before its end (the bots may have finished a table since the look).
    assert (await stored_tournament(keeping, code)).phase == "playing"

    await server.start()
    entrants = [await person.follow(server.url, code, next(seeds)) for person in people]
    ends = await asyncio.gather(*(entrant.play_to_the_end(PLAY_SECONDS) for entrant in entrants))
    assert all(end.state.phase == "finished" and end.table is None for end in ends)
    answer = await api_get(server.url, f"/api/tournaments/{code}")
    assert answer.status == 200, answer
    return msgspec.json.decode(answer.body, type=TournamentView)


async def check_the_end(
    server: ServerProcess, keeping: Keeping, view: TournamentView, people: list[Person]
) -> dict[str, Archived]:
    """The standings are the archive's recount, the champion its first, and nobody was shown a
    tile it could not see; the archived tables."""
    assert view.phase == "finished" and len(view.rounds) == view.rounds_planned
    games = await archived_tables(server.url, keeping.store, view)
    counted = recount(view, games)
    assert shown_standings(view) == counted
    assert view.champion == counted[0][0]
    rooms = [table.room for played in view.rounds for table in played.tables]
    assert len(set(rooms)) == len(rooms)  # each table in a room of its own
    for person in people:
        check_hidden(person, view, games)
    return games


async def create(host: Person, url: str, **settings: Any) -> str:
    """The host makes the tournament; its code."""
    client = await host.connect(url)
    made = await tournament_update(client, "create_tournament", name="Cup", **settings)
    return made.tournament


async def join_and_start(
    url: str, code: str, people: list[Person], bots: tuple[str, ...] | list[str] = ()
) -> None:
    """Each person joins in order, then the host (the first person) adds `bots`, and starts."""
    host = people[0].clients[0]
    for person in people:
        client = person.clients[-1] if person.clients else await person.connect(url)
        await tournament_update(client, "join_tournament", tournament=code)
    for level in bots:
        await tournament_update(host, "join_tournament", tournament=code, bot=level)
    started = await tournament_update(host, "start_tournament", tournament=code)
    assert started.state.phase == "playing"


async def test_a_swiss_of_four_people_and_two_bots_survives_a_kill_in_its_middle(
    keeping: Keeping, tmp_path: Path
) -> None:
    people = [Person(name) for name in ("Ann", "Bea", "Cid", "Dan")]
    async with server_process(
        keeping, tmp_path, "--bot-delay", "0", "--away-seconds", "2"
    ) as server:
        code = await create(
            people[0], server.url, format="swiss", rounds=3,
            rules={"players": 2, "target": 15}, bots=["easy", "normal"],
        )  # fmt: skip
        await join_and_start(server.url, code, people)
        view = await played_with_a_restart(server, keeping, code, people, in_round(1))
        assert [entrant.bot for entrant in view.entrants] == ["easy", "normal", *[None] * 4]
        assert view.units == [[entrant] for entrant in range(6)]
        assert [len(played.tables) for played in view.rounds] == [3, 3, 3]
        games = await check_the_end(server, keeping, view, people)
        for number in range(3):
            check_swiss_round(view, games, number)
        # Six units over three rounds: a pairing without rematches exists each round.
        pairs = [frozenset(units_at(view, t.seats)) for r in view.rounds for t in r.tables]
        assert len(set(pairs)) == len(pairs) == 9
        for person in people:
            await person.close()


async def team_round_robin(keeping: Keeping, tmp_path: Path, partners: str) -> TournamentView:
    """Ann, Bea, Cid and Dan and four bots play a round robin of teams of two to 15, partners
    `partners`, on a server process killed in its second round and started again; the end
    checked (`check_the_end`), the tournament's public view."""
    people = [Person(name) for name in ("Ann", "Bea", "Cid", "Dan")]
    async with server_process(
        keeping, tmp_path, "--bot-delay", "0", "--away-seconds", "2"
    ) as server:
        code = await create(
            people[0], server.url, format="round_robin", partners=partners,
            rules={"players": 4, "teams": True, "target": 15}, bots=["easy", "normal"],
        )  # fmt: skip
        await join_and_start(server.url, code, people, bots=["hard", "easy"])
        view = await played_with_a_restart(server, keeping, code, people, in_round(1))
        await check_the_end(server, keeping, view, people)
        for person in people:
            await person.close()
    return view


async def test_a_round_robin_of_four_fixed_teams_survives_a_kill_in_its_middle(
    keeping: Keeping, tmp_path: Path
) -> None:
    view = await team_round_robin(keeping, tmp_path, "fixed")
    # Teams in join order: the two first bots, Ann and Bea, Cid and Dan, the two last bots.
    assert view.units == [[0, 1], [2, 3], [4, 5], [6, 7]]
    assert [entrant.name for entrant in view.entrants[2:6]] == ["Ann", "Bea", "Cid", "Dan"]
    assert len(view.rounds) == 3
    for number, played in enumerate(view.rounds):
        drawn = {frozenset(units_at(view, table.seats)) for table in played.tables}
        assert drawn == circle_pairs(4, number) and played.byes == []


async def test_a_round_robin_of_eight_rotating_partners_survives_a_kill_in_its_middle(
    keeping: Keeping, tmp_path: Path
) -> None:
    view = await team_round_robin(keeping, tmp_path, "rotating")
    assert view.units == [[entrant] for entrant in range(8)]
    # Each meets the seven others at the best in ceil(7 / 3) rounds.
    assert view.rounds_planned == 3 and len(view.rounds) == 3
    for number, played in enumerate(view.rounds):
        assert len(played.tables) == 2 and played.byes == []
        check_rotating_round(view, number)
