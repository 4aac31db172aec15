"""Hints are bounded: one per seat in flight, dropped with their connection, never before bots."""

from __future__ import annotations

import asyncio
import statistics
import threading

import pytest
from server_helpers import fast_config
from waiting import until
from ws_client_helpers import Client, play_out_one, seat_players, to_play, until_someone_to_play

from engine import Move, View
from protocol import messages as msg
from server.app import run_server
from server.play import bots

BUDGET_MS = 150.0


async def test_a_second_hint_while_one_is_on_its_way_is_refused_as_busy() -> None:
    async with run_server(fast_config(hard_budget_ms=BUDGET_MS)) as server:
        ann = await to_play(server.url, "Ann")
        first = await ann.send("hint")
        second = await ann.send("hint")
        replies: dict[int | None, msg.AnyServerMessage] = {}
        while len(replies) < 2:
            message = await ann.receive()
            if getattr(message, "id", None) in (first, second):
                replies[message.id] = message  # type: ignore[union-attr]
        refused = replies[second]
        assert isinstance(refused, msg.Error) and (refused.code, refused.command) == (
            "busy",
            "hint",
        )
        assert isinstance(replies[first], msg.HintReply)
        # Meanwhile the connection is answered at once, and asking again later works.
        assert isinstance(await ann.request("ping"), msg.Pong)
        assert isinstance(await ann.request("hint"), msg.HintReply)


async def test_hints_of_connections_that_closed_are_not_worked_out(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    worked_out: list[str] = []
    choose_move = bots.choose_move

    def counted(level: str, view: View, seed: int, budget_ms: float | None) -> Move:
        if level == "hard":
            worked_out.append(level)
        return choose_move(level, view, seed, budget_ms)

    monkeypatch.setattr(bots, "choose_move", counted)
    config = fast_config(hard_budget_ms=BUDGET_MS, max_rooms_per_ip=16)
    async with run_server(config) as server:
        players = [await to_play(server.url, f"P{index}") for index in range(13)]
        *leaving, staying = players
        for player in leaving:
            await player.send("hint")
        await asyncio.gather(*(player.close() for player in leaving))
        await until(lambda: len(server.connections) <= 1, what="the server to drop the leavers")
        assert isinstance(await staying.request("hint"), msg.HintReply)
        # The staying player's hint, and the one or two that began before the others had left.
        gone = len(worked_out) - 1
        assert gone <= 2, f"{gone} hints worked out for players gone"


async def test_hints_are_worked_out_in_as_many_workers_as_configured(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    workers = 3
    together = threading.Barrier(workers, timeout=5.0)
    choose_move = bots.choose_move

    def met(level: str, view: View, seed: int, budget_ms: float | None) -> Move:
        # Each hint waits in its worker until `workers` hints are being worked out at once:
        # with fewer workers the barrier breaks, and the hints are answered `unavailable`.
        if threading.current_thread().name.startswith("hints-lane"):
            together.wait()
        return choose_move(level, view, seed, budget_ms)

    monkeypatch.setattr(bots, "choose_move", met)
    config = fast_config(hard_budget_ms=BUDGET_MS, hint_workers=workers)
    async with run_server(config) as server:
        players = [await to_play(server.url, f"P{index}") for index in range(workers)]
        replies = await asyncio.gather(*(player.request("hint") for player in players))
        assert all(isinstance(reply, msg.HintReply) for reply in replies), replies


async def bot_answer_times(player: Client, moves: int) -> list[float]:
    """Seconds from each of the player's moves being acked until the bots have moved."""
    loop = asyncio.get_running_loop()
    times: list[float] = []
    while len(times) < moves and player.document["phase"] == "playing":
        await until_someone_to_play([player], 30.0)
        await play_out_one(player)
        if player.my_turn() or player.document["phase"] != "playing":
            continue  # the move ended the hand and the player leads the next: no bot moves
        started = loop.time()
        await player.until(
            lambda m: (
                isinstance(m, msg.Change)
                and (player.my_turn() or player.document["phase"] != "playing")
            ),
            30.0,
        )
        times.append(loop.time() - started)
    return times


async def test_a_flood_of_hints_does_not_slow_a_bot_in_another_room() -> None:
    async with run_server(fast_config(hard_budget_ms=BUDGET_MS)) as server:
        # Three hard bots answer each move: their times add up, so cheap moves count less.
        (player,) = await seat_players(server.url, 4, 1, "hard", target=1000)
        await player.request("start")
        baseline = statistics.median(await bot_answer_times(player, 8))
        flooders = [await to_play(server.url, f"F{index}") for index in range(6)]

        answered: set[str] = set()

        async def flood(flooder: Client) -> None:
            while True:  # a hint, its answer, another hint
                if isinstance(await flooder.request("hint"), msg.HintReply):
                    answered.add(flooder.name)
                # The load under test, not a wait: each flooder asks again 20 ms after each
                # answer, a steady flood of hints to work out (asking again at once would
                # flood as much with `busy` refusals, answered at once, as with hints).
                await asyncio.sleep(0.02)

        tasks = [asyncio.create_task(flood(flooder)) for flooder in flooders]
        try:
            await until(lambda: len(answered) == len(flooders))  # every flooder is at it
            loaded = statistics.median(await bot_answer_times(player, 8))
        finally:
            for task in tasks:
                task.cancel()
        assert loaded < 3 * baseline + 0.1, f"bot moves took {loaded:.3f} s, {baseline:.3f} s alone"
