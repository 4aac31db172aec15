"""What a server keeps, as the tests reach it: a match played with the store checked at every turn
(`stored_move_by_move`), a room as a server reads it back (`load_stored`), a finished match's
record checked (`check_final`), archived games (`archived_game`) and their reviews, which can be
held as long as a test wants (`held_reviews`). Used by the server's tests of storage, play, the
edge, the cluster and tournaments (tests/server/), tests/tournament_helpers.py, the page's
archived-game tests, and bench/faults.py.
"""

from __future__ import annotations

import threading
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from typing import Any, NamedTuple

from server_helpers import ApiAnswer, api_get, fast_config, new_key
from waiting import until
from ws_client_helpers import Client, finish_match, next_mover, play_out_one, seat_players

from bridge.records import match_of
from bridge.reviews import review_bytes
from protocol import messages as msg
from protocol.records import Record
from server.app import Server, run_server
from server.play.live import stored_state
from server.storage.store import Store, StoredRoom


async def archived_game(server: Server, name: str, key: str, seed: int = 1, **rules: Any) -> str:
    """`name` plays a match against the normal bot to its end; the archived game's id."""
    player = await finish_match(server.url, name, key, "normal", seed, **rules)
    await player.close()

    async def listed() -> str | None:
        answer = await api_get(server.url, f"/api/players/{name}/games?limit=1", key)
        games = answer.json["games"] if answer.status == 200 else []
        return str(games[0]["id"]) if games and answer.json["total"] >= seed else None

    found = await until(listed, timeout=30)
    assert isinstance(found, str)
    return found


async def ask(server: Server, game: str, key: str | None = None) -> ApiAnswer:
    """The API's answer for the review of `game`."""
    return await api_get(server.url, f"/api/games/{game}/review", key)


class Held:
    """A review function that waits until released (threads only): a review that takes long."""

    def __init__(self) -> None:
        self.release = threading.Event()
        self.started = threading.Event()

    def __call__(self, record: bytes, budget_ms: float) -> bytes:
        self.started.set()
        self.release.wait(60)
        return review_bytes(record, budget_ms)


class HeldReviews(NamedTuple):
    """A server whose reviews wait for `held.release`, and two archived games of Ann's."""

    server: Server
    held: Held
    #: Ann's key: the games are hers.
    key: str
    one: str
    two: str


@asynccontextmanager
async def held_reviews(max_reviews_waiting: int) -> AsyncIterator[HeldReviews]:
    """A real server whose reviews take as long as the test wants (`Held`), its bound of
    reviews waiting `max_reviews_waiting`, and two games Ann played there to their end."""
    held = Held()
    config = fast_config(review_budget_ms=2.0, max_reviews_waiting=max_reviews_waiting)
    async with run_server(config) as server:
        server.reviews.compute = held
        key = new_key()
        one = await archived_game(server, "Ann", key, seed=1)
        two = await archived_game(server, "Ann", key, seed=2)
        yield HeldReviews(server, held, key, one, two)


def check_final(record: Record, document: dict[str, Any]) -> None:
    """A finished match's record replays legally to the scores the client holds."""
    replayed = match_of(record)
    assert replayed.over and document["game"]["over"]
    assert list(replayed.scores) == record.scores == document["game"]["scores"]


async def stored_move_by_move(url: str, store: Store) -> tuple[Client, Record]:
    """Two players and two normal bots play a match to 100 on the server at `url`, whose store
    is `store`: at every turn of a player (and at the end), the store holds the room at least
    as new as the host's client (nothing a client holds is newer than what is stored), and each
    check sees a newer seq than the last. The host's client and the match's record."""
    clients = await seat_players(url, 4, 2, "normal", target=100)
    host = clients[0]
    assert isinstance(await host.request("start"), msg.Ack)
    assert host.room is not None
    seen = []
    taken: dict[str, tuple[int, int]] = {}
    while True:
        # Until a player holds a turn of theirs, or the match is over (bots move meanwhile).
        mover = await next_mover(clients, taken, lambda: host.document["phase"] == "finished")
        stored = await store.load_room(host.room)
        assert stored is not None and host.state.seq is not None
        assert stored.seq >= host.state.seq, "a client holds a change not stored"
        seen.append(stored.seq)
        if mover is None:
            break
        await play_out_one(mover)
    # Each human move stored a newer seq before the next check (how many: the deal's say).
    assert seen == sorted(set(seen)) and len(seen) > 2, seen
    record = await host.request("record")
    assert isinstance(record, msg.RecordReply)
    check_final(record.record, host.document)
    return host, record.record


async def load_stored(store: Store, code: str) -> StoredRoom | None:
    """What `store` holds of a room, as a server reads it: the moves Redis logged since its
    state made again (`StoredRoom`)."""
    stored = await store.load_room(code)
    if stored is None:
        return None
    return StoredRoom(stored.seq, stored_state(code, stored.state, stored.moves))
