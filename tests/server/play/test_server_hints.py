"""Hints are bounded: one per seat in flight, dropped with their connection, never before bots."""

from __future__ import annotations

import asyncio
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


async def test_hints_that_never_end_do_not_hold_up_a_bot_in_another_room(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """Every hint worker busy, and more hints waiting for one, for as long as the test likes:
    the hard bots of another room still move (they have workers of their own). How much a
    flood of hints slows them on a shared CPU is measured by bench/hints.py, not here."""
    release = threading.Event()
    worked_on: list[str] = []
    choose_move = bots.choose_move

    def held(level: str, view: View, seed: int, budget_ms: float | None) -> Move:
        if threading.current_thread().name.startswith("hints-lane"):
            worked_on.append(level)
            release.wait(60)
        return choose_move(level, view, seed, budget_ms)

    monkeypatch.setattr(bots, "choose_move", held)
    async with run_server(fast_config(hard_budget_ms=BUDGET_MS)) as server:
        (player,) = await seat_players(server.url, 4, 1, "hard", target=1000)
        await player.request("start")
        flooders = [await to_play(server.url, f"F{index}") for index in range(4)]
        try:
            for flooder in flooders:
                await flooder.send("hint")
            await until(lambda: worked_on, what="the hint worker busy")
            # Three hard bots answer each of these moves, from their own lane.
            assert len(await bot_answer_times(player, 4)) == 4
            assert len(worked_on) == 1  # the one hint worker never came free
        finally:
            release.set()
