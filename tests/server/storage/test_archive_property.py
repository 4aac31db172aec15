"""A property over the whole life of a room: matches, rematches, players leaving and sitting,
the upkeep's tick at any moment, and the process killed at random points. Whatever happens,
every finished match stored is archived exactly once, and each player's rating on the ladder
is the archived rating changes applied in order (an unbroken chain).

The room's process is modelled as the server runs it: a change is stored (the room's bytes)
before it is published, the finisher archives from a task, and a kill throws away the room in
memory and every task, leaving only what was stored; the next process adopts the room from its
bytes and calls `keep` on it, as `Server.keep` does on adoption.
"""

from __future__ import annotations

import asyncio
import hashlib
import itertools
from typing import Any

from hypothesis import HealthCheck, event, settings
from hypothesis import strategies as st
from hypothesis.stateful import RuleBasedStateMachine, invariant, precondition, rule
from protocol_helpers import examples

from protocol.records import encode_record
from protocol.rules import RoomRules
from server.config import Config
from server.play.finish import Finisher, game_id
from server.play.live import LiveRoom
from server.play.registry import Registry
from server.rooms import results
from server.rooms.room import Room
from server.storage.archive import ClaimBudget, Player
from server.storage.archive_local import LocalLedger

PLAYERS = ("Ann", "Bea", "Cid")
#: What the players' address may make: each of them, once.
PLAYERS_BUDGET = ClaimBudget("127.0.0.1", burst=len(PLAYERS), per_second=1.0)


class Process:
    """One server process holding the room: its registry, finisher and tasks."""

    def __init__(self, machine: RoomLife, stored: bytes) -> None:
        self.machine = machine
        config = Config()
        self.registry = Registry(config.limits, config.timing, config.storage.keep_patches)
        self.live = self.registry.live(stored)
        self.registry.rooms[self.live.room.code] = self.live
        self.tasks: set[asyncio.Task[Any]] = set()
        self.clock = machine.clock
        self.presence_id = ""
        self.finisher = Finisher(machine.ledger, self.registry, self, machine.clock, self.spawn)

    def holds(self, live: LiveRoom) -> bool:
        return self.registry.holds(live)

    def spawn(self, coroutine: Any) -> asyncio.Task[Any]:
        task = self.machine.loop.create_task(coroutine)
        self.tasks.add(task)
        task.add_done_callback(self.tasks.discard)
        return task

    async def change(self, live: LiveRoom, apply: Any, rollback: bool = True) -> Any:
        result, _ = apply(live.room)
        self.store(live)
        return result

    def store(self, live: LiveRoom) -> None:
        """The room's change stored, then published (as the committer does)."""
        self.machine.stored = live.room.to_bytes()
        self.machine.note_stored(live.room)
        if live.room.phase == "finished":
            self.finisher.finished(live)

    def keep(self) -> None:
        """`Server.keep(live, True)`: on adoption, and on every tick of the upkeep (Redis)."""
        self.finisher.finished(self.live)

    def kill(self) -> None:
        for task in list(self.tasks):
            task.cancel()


class RoomLife(RuleBasedStateMachine):
    def __init__(self) -> None:
        super().__init__()
        self.loop = asyncio.new_event_loop()
        self.ledger = LocalLedger()
        self.now = 1000.0
        self.ids: dict[str, str] = {}
        for name in PLAYERS:
            key = hashlib.sha256(name.encode()).hexdigest()
            player = self.run(
                self.ledger.claim_within(key, name, name.lower(), self.now, PLAYERS_BUDGET)
            )
            assert isinstance(player, Player)
            self.ids[name] = player.id
        room = Room.create("LIFE", RoomRules(players=2, target=25, public=True))
        room.sit("Ann", player=self.ids["Ann"])
        room.sit("Bea", player=self.ids["Bea"])
        #: What the store holds of the room, and the finished matches stored (their game ids).
        self.stored = room.to_bytes()
        self.finished: dict[int, str] = {}
        self.process = Process(self, self.stored)
        self.process.keep()

    def clock(self) -> float:
        self.now += 1.0
        return self.now

    def run(self, coroutine: Any) -> Any:
        return self.loop.run_until_complete(coroutine)

    def note_stored(self, room: Room) -> None:
        number = room.state.matches  # while finished, the match that finished
        if room.phase == "finished" and number not in self.finished:
            record = encode_record(results.finished_record(room))
            self.finished[number] = game_id(record)

    @property
    def room(self) -> Room:
        return self.process.live.room

    def settle(self) -> None:
        """Let the process's tasks run until none is left (an archive takes less time than a
        match: the next match never ends before the last one's archive was written)."""
        self.run(self.process.finisher.drain(10.0))

    # -- what happens to the room ----------------------------------------------------------

    @precondition(lambda self: self.room.phase == "waiting" and not self.room.free_seats())
    @rule(seed=st.integers(0, 2**32 - 1))
    def start(self, seed: int) -> None:
        self.settle()
        host = self.room.state.host
        self.room.start(host, self.clock(), seed=seed)
        self.process.store(self.process.live)

    @precondition(lambda self: self.room.phase == "playing")
    @rule(moves=st.integers(1, 40), tick=st.booleans())
    def play(self, moves: int, tick: bool) -> None:
        """Some moves (the first legal one each time), the upkeep ticking between them or not."""
        for _ in range(moves):
            match = self.room.match
            if self.room.phase != "playing" or match is None:
                return
            seat = match.to_play()
            assert seat is not None
            self.room.play(seat, match.legal_moves()[0], self.clock())
            self.process.store(self.process.live)
            if tick:
                self.process.keep()
                self.run(asyncio.sleep(0))

    @rule()
    def tick(self) -> None:
        self.process.keep()
        self.run(asyncio.sleep(0))

    @precondition(lambda self: self.room.phase == "finished")
    @rule()
    def rematch(self) -> None:
        self.room.rematch(self.room.state.host, self.clock())
        self.process.store(self.process.live)

    @precondition(lambda self: self.room.phase == "waiting")
    @rule(name=st.sampled_from(PLAYERS))
    def change_opponent(self, name: str) -> None:
        """The second seat's player leaves and someone sits down (maybe the same one)."""
        self.room.leave(1, self.clock())
        if name not in self.room.names():
            self.room.sit(name, player=self.ids[name])
        self.process.store(self.process.live)

    @rule(settled=st.booleans())
    def kill(self, settled: bool) -> None:
        """The process dies (its tasks with it, `settled`: once they ran); the next adopts
        the room from what the store holds."""
        if settled:
            self.settle()
        self.process.kill()
        self.run(asyncio.sleep(0))
        self.process = Process(self, self.stored)
        self.process.keep()

    # -- what must hold ----------------------------------------------------------------------

    @invariant()
    def archive_is_each_finished_match_once(self) -> None:
        self.settle()
        self.process.keep()  # the upkeep's next tick
        self.settle()
        games: list[str] = []
        for name in PLAYERS:
            total, archived = self.run(self.ledger.games_of(self.ids[name], True, 0, 1000))
            ids = [game.detail.id for game in archived]
            assert total == len(ids) == len(set(ids)), (name, ids)
            games += ids
        expected = set(self.finished.values())
        assert set(games) == expected
        # Each match has two players: listed twice in all, never more.
        assert len(games) == 2 * len(expected)

    @invariant()
    def ladder_is_the_changes_in_order(self) -> None:
        self.settle()
        archived = []
        for name in PLAYERS:
            _, games = self.run(self.ledger.games_of(self.ids[name], True, 0, 1000))
            archived += games
        by_id = {game.detail.id: game for game in archived}
        chains: dict[str, list[Any]] = {}
        for game in sorted(by_id.values(), key=lambda game: game.detail.finished_at):
            for change in game.detail.changes:
                chains.setdefault(change.name, []).append(change)
        for name in PLAYERS:
            chain = chains.get(name, [])
            standings = self.run(self.ledger.standings(self.ids[name]))
            if not chain:
                assert "2p" not in standings
                continue
            for earlier, later in itertools.pairwise(chain):
                assert earlier.after == later.before, name  # unbroken
            held = standings["2p"]
            last = chain[-1].after
            assert (round(held.mu, 9), round(held.sigma, 9)) == (
                round(last.mu, 9),
                round(last.sigma, 9),
            )
            assert held.games == len(chain)

    def teardown(self) -> None:
        event(
            f"finished matches: {min(len(self.finished), 3)}{'+' if len(self.finished) > 2 else ''}"
        )
        self.process.kill()
        self.run(asyncio.sleep(0))
        self.run(self.ledger.close())
        self.loop.close()


RoomLife.TestCase.settings = settings(
    max_examples=examples(60),
    stateful_step_count=30,
    deadline=None,
    suppress_health_check=[HealthCheck.too_slow],
)
test_room_life = RoomLife.TestCase
