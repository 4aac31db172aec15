"""Stored tournaments (`store.tournaments`) in memory, in SQLite under a real directory and in a
real redis-server: a tournament loads back as it was saved, a save over any version but the one
before it is refused and changes nothing, of two saves racing for one version exactly one is
stored, and what was saved outlives the process that saved it, killed (SIGKILL)."""

from __future__ import annotations

import asyncio
import signal
import sys
from pathlib import Path

import pytest
from redis_server import REDIS

from protocol.rules import Rules
from server.storage.redis_store import RedisStore
from server.storage.sqlite_store import SqliteStore
from server.storage.store import Store
from server.storage.tournaments import StoredTournament, TournamentChanged
from server.tournaments import state
from server.tournaments.stored import Tournament, decode_msgpack, encode_msgpack

ROOT = Path(__file__).resolve().parents[3]


def made(name: str = "Friday cup") -> Tournament:
    created = state.apply(
        None,
        state.Create(
            name=name, format="round_robin", table_size=2, rules=Rules(players=2), host="ann"
        ),
    )
    joined = state.apply(created, state.Join(by="ann", name="Ann"))
    return state.apply(joined, state.Join(by="ann", bot="hard"))


def joined_by(tournament: Tournament, name: str) -> Tournament:
    return state.apply(tournament, state.Join(by=name.lower(), name=name))


async def test_a_saved_tournament_loads_back_as_it_was_with_its_version(each_store: Store) -> None:
    kept = each_store.tournaments
    assert await kept.codes() == [] and await kept.load("QWRTZ") is None
    first = made()
    second = joined_by(first, "Bea")
    await kept.save("QWRTZ", 1, encode_msgpack(first))
    await kept.save("QWRTZ", 2, encode_msgpack(second))
    await kept.save("BCDFG", 1, encode_msgpack(made("Other")))
    loaded = await kept.load("QWRTZ")
    assert loaded is not None and loaded.version == 2
    assert decode_msgpack(loaded.state) == second
    assert [entrant.name for entrant in decode_msgpack(loaded.state).entrants] == [
        "Ann",
        "bot:hard 1",
        "Bea",
    ]
    assert await kept.codes() == ["BCDFG", "QWRTZ"]
    await kept.delete("BCDFG")
    assert await kept.codes() == ["QWRTZ"] and await kept.load("BCDFG") is None


async def test_a_save_over_another_version_is_refused_and_changes_nothing(
    each_store: Store,
) -> None:
    kept = each_store.tournaments
    with pytest.raises(TournamentChanged) as refused:
        await kept.save("QWRTZ", 2, encode_msgpack(made()))
    assert refused.value.stored == 0 and await kept.load("QWRTZ") is None
    assert await kept.codes() == []
    await kept.save("QWRTZ", 1, encode_msgpack(made()))
    before = await kept.load("QWRTZ")
    for version in (1, 3, 7):
        with pytest.raises(TournamentChanged) as refused:
            await kept.save("QWRTZ", version, encode_msgpack(joined_by(made(), "Cid")))
        assert refused.value.stored == 1
        assert await kept.load("QWRTZ") == before
    with pytest.raises(ValueError):
        await kept.save("QWRTZ", 0, b"")


async def test_of_two_saves_racing_for_one_version_exactly_one_is_stored(
    each_store: Store, request: pytest.FixtureRequest
) -> None:
    # Two writers: with Redis, two stores (two processes' connections); else the one store.
    other = (
        RedisStore(
            request.getfixturevalue("redis_server_session").url, prefix=each_store.prefix.decode()
        )
        if isinstance(each_store, RedisStore)
        else each_store
    )
    try:
        base = made()
        await each_store.tournaments.save("QWRTZ", 1, encode_msgpack(base))
        for round_number in range(2, 12):
            mine, theirs = (
                joined_by(base, f"Mine{round_number}"),
                joined_by(base, f"Theirs{round_number}"),
            )
            results = await asyncio.gather(
                each_store.tournaments.save("QWRTZ", round_number, encode_msgpack(mine)),
                other.tournaments.save("QWRTZ", round_number, encode_msgpack(theirs)),
                return_exceptions=True,
            )
            refused = [result for result in results if isinstance(result, TournamentChanged)]
            assert len(refused) == 1 and results.count(None) == 1, results
            loaded = await other.tournaments.load("QWRTZ")
            assert loaded is not None and loaded.version == round_number
            winner = mine if results[0] is None else theirs
            assert decode_msgpack(loaded.state) == winner
            base = winner
    finally:
        if other is not each_store:
            await other.close()


CHILD = """
import asyncio, sys
from server.storage.redis_store import RedisStore
from server.storage.sqlite_store import SqliteStore

async def main() -> None:
    kind, where, first, second = sys.argv[1:5]
    store = SqliteStore(where) if kind == "sqlite" else RedisStore(where, prefix="killed:")
    await store.tournaments.save("QWRTZ", 1, bytes.fromhex(first))
    await store.tournaments.save("QWRTZ", 2, bytes.fromhex(second))
    print("saved", flush=True)
    await asyncio.Event().wait()

asyncio.run(main())
"""


@pytest.mark.parametrize("kind", ["sqlite", REDIS])
async def test_a_saved_tournament_outlives_the_process_killed_after_saving(
    kind: str, tmp_path: Path, request: pytest.FixtureRequest
) -> None:
    if kind == "sqlite":
        where = str(tmp_path / "data")
    else:
        where = request.getfixturevalue("redis_server").url
    first, second = made(), joined_by(made(), "Bea")
    child = await asyncio.create_subprocess_exec(
        sys.executable,
        "-c",
        CHILD,
        kind,
        where,
        encode_msgpack(first).hex(),
        encode_msgpack(second).hex(),
        cwd=ROOT,
        stdout=asyncio.subprocess.PIPE,
    )
    try:
        assert child.stdout is not None
        assert await asyncio.wait_for(child.stdout.readline(), 60) == b"saved\n"
    finally:
        child.send_signal(signal.SIGKILL)
        await child.wait()
    assert child.returncode == -signal.SIGKILL
    store = SqliteStore(where) if kind == "sqlite" else RedisStore(where, prefix="killed:")
    try:
        loaded = await store.tournaments.load("QWRTZ")
        assert loaded == StoredTournament(2, encode_msgpack(second))
        assert decode_msgpack(loaded.state) == second
        with pytest.raises(TournamentChanged):
            await store.tournaments.save("QWRTZ", 2, encode_msgpack(first))
        await store.tournaments.save("QWRTZ", 3, encode_msgpack(joined_by(second, "Cid")))
    finally:
        await store.close()
