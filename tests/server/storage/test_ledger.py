"""The ledgers themselves (SQLite and real Redis): bounds on keys, link codes and the archive."""

from __future__ import annotations

import sqlite3
import time
from collections.abc import AsyncIterator
from pathlib import Path

import pytest
from redis_server import REDIS, RedisServer

from protocol.api import GameDetail, GamePlayer, RatingPoint
from protocol.records import Record
from protocol.rules import Rules
from server.storage.archive import (
    MAX_KEYS,
    MAX_LINKS,
    Archived,
    ClaimBudget,
    Committed,
    Conflict,
    Exists,
    Ledger,
    Limited,
    Player,
    RatingWrite,
    StoredRating,
    key_hash,
)
from server.storage.archive_local import LocalLedger
from server.storage.archive_redis import RedisLedger
from server.storage.redis_store import RedisStore

pytestmark = pytest.mark.asyncio
#: The games finish now: Redis keeps them for the retention from its own clock.
NOW = time.time()
#: A budget of new players these tests never spend (the budget itself is tested below).
PLENTY = ClaimBudget("127.0.0.1", burst=1000, per_second=1000.0)


@pytest.fixture(params=["sqlite", REDIS])
async def ledger(request: pytest.FixtureRequest, tmp_path: Path) -> AsyncIterator[Ledger]:
    if request.param == "sqlite":
        local = LocalLedger(tmp_path, max_games=3)
        yield local
        await local.close()
    else:
        redis: RedisServer = request.getfixturevalue("redis_server")
        store = RedisStore(redis.url)
        yield RedisLedger(store, retention=3600)
        await store.close()


def game(id: str, finished_at: float, members: list[str | None], private: bool = False) -> Archived:
    players = [
        GamePlayer(seat=seat, name=member or "guest", kind="player" if member else "guest")
        for seat, member in enumerate(members)
    ]
    detail = GameDetail(
        id=id,
        finished_at=finished_at,
        rules=Rules(players=len(members)),
        players=players,
        scores=[250, 100],
        winner=0,
        hands=1,
        private=private,
        record=Record(rules=Rules(players=len(members)), hands=[]),
    )
    return Archived(detail=detail, members=members)


async def test_a_player_holds_at_most_its_last_keys(ledger: Ledger) -> None:
    first = key_hash("first")
    ann = await ledger.claim_within(first, "Ann", "ann", NOW, PLENTY)
    assert isinstance(ann, Player)
    keys = [first]
    for n in range(MAX_KEYS):
        assert await ledger.add_link(ann.id, f"CODE{n:04d}", NOW + n, 600)
        keys.append(key_hash(f"device {n}"))
        assert await ledger.use_link(f"CODE{n:04d}", keys[-1], NOW + n + 1) == ann
    assert await ledger.player_of_key(first) is None  # the oldest key went
    for key in keys[1:]:
        assert await ledger.player_of_key(key) == ann
    # A code is spent once.
    assert await ledger.use_link("CODE0000", key_hash("again"), NOW + 20) is None


async def test_a_player_holds_at_most_its_last_link_codes(ledger: Ledger) -> None:
    ann = await ledger.claim_within(key_hash("k"), "Ann", "ann", NOW, PLENTY)
    assert isinstance(ann, Player)
    codes = [f"LINK{n:04d}" for n in range(MAX_LINKS + 1)]
    for n, code in enumerate(codes):
        assert await ledger.add_link(ann.id, code, NOW + n, 600)
    assert not await ledger.add_link(ann.id, codes[-1], NOW + 10, 600)  # in use
    assert await ledger.use_link(codes[0], key_hash("phone"), NOW + 10) is None
    assert await ledger.use_link(codes[-1], key_hash("phone"), NOW + 10) == ann


async def test_a_game_is_archived_once_and_indexed_per_player(ledger: Ledger) -> None:
    first = game("g1", NOW, ["p:a", "bot:easy"])
    assert isinstance(await ledger.commit_game(first, [], NOW), Committed)
    again = await ledger.commit_game(game("g1", NOW + 5, ["p:a", "bot:easy"]), [], NOW + 5)
    assert isinstance(again, Exists) and again.archived.detail.finished_at == NOW
    await ledger.commit_game(game("g2", NOW + 1, ["p:a", None], private=True), [], NOW + 1)
    assert (await ledger.games_of("p:a", True, 0, 10))[0] == 2
    total, shown = await ledger.games_of("p:a", False, 0, 10)
    assert total == 1 and [g.detail.id for g in shown] == ["g1"]
    assert await ledger.counts("p:a", True) == (2, 2)
    assert await ledger.counts("p:a", False) == (1, 1)
    assert await ledger.counts("bot:easy", True) == (1, 0)


async def test_the_embedded_archive_keeps_its_last_games(tmp_path: Path) -> None:
    ledger = LocalLedger(tmp_path, max_games=3)
    for n in range(5):
        await ledger.commit_game(game(f"g{n}", NOW + n, ["p:a", "bot:easy"]), [], NOW + n)
    total, kept = await ledger.games_of("p:a", True, 0, 10)
    assert total == 3 and [g.detail.id for g in kept] == ["g4", "g3", "g2"]
    assert await ledger.game("g0") is None
    await ledger.close()


@pytest.mark.redis
async def test_redis_keeps_a_game_for_the_retention(redis_server: RedisServer) -> None:
    store = RedisStore(redis_server.url)
    ledger = RedisLedger(store, retention=3600)
    await ledger.commit_game(game("g1", NOW, ["p:a", "bot:easy"]), [], NOW)
    ttl = await store.link.call("ttl", lambda c: c.ttl(b"allfives:game:g1"))
    assert 3590 <= ttl <= 3600
    await store.close()


def rating_write(game_id: str, expected: str | None, rating: StoredRating) -> RatingWrite:
    point = RatingPoint(game=game_id, ladder="2p", at=NOW, rating=rating.mu - 3 * rating.sigma)
    return RatingWrite(ladder="2p", player="p:a", expected=expected, rating=rating, point=point)


async def test_a_rating_keeps_what_its_next_match_is_weighed_by(ledger: Ledger) -> None:
    # The history a match's weight comes from (server.play.weighting) is read back as written,
    # by both stores, and a changed one is a changed version (the compare-and-set holds).
    first = StoredRating(26.0, 8.0, 1, 1, 1 / 30, ["bot:easy"], [("p:b", NOW)])
    written = await ledger.commit_game(
        game("g1", NOW, ["p:a", "bot:easy"]), [rating_write("g1", None, first)], NOW
    )
    assert isinstance(written, Committed)
    ((held, version),) = (await ledger.ratings("2p", ["p:a"])).values()
    assert held == first
    second = StoredRating(
        26.5, 7.9, 2, 2, 1.0 + 1 / 30, ["bot:easy", "p:b"], [("p:b", NOW), ("p:b", NOW + 1)]
    )
    stale = rating_write("g2", None, second)
    assert isinstance(
        await ledger.commit_game(game("g2", NOW + 1, ["p:a", "p:b"]), [stale], NOW), Conflict
    )
    fresh = rating_write("g2", version, second)
    assert isinstance(
        await ledger.commit_game(game("g2", NOW + 1, ["p:a", "p:b"]), [fresh], NOW), Committed
    )
    assert (await ledger.ratings("2p", ["p:a"]))["p:a"][0] == second


async def test_a_ledger_file_from_before_weighting_opens_and_rates(tmp_path: Path) -> None:
    old = sqlite3.connect(tmp_path / "ledger.sqlite3")
    old.execute(
        "CREATE TABLE ratings (ladder TEXT NOT NULL, player TEXT NOT NULL, mu REAL NOT NULL, "
        "sigma REAL NOT NULL, games INTEGER NOT NULL, wins INTEGER NOT NULL, "
        "version INTEGER NOT NULL, ordinal REAL NOT NULL, PRIMARY KEY (ladder, player))"
    )
    old.execute("INSERT INTO ratings VALUES ('2p', 'p:a', 30.0, 5.0, 12, 7, 3, 15.0)")
    old.commit()
    old.close()
    ledger = LocalLedger(tmp_path)
    ((held, version),) = (await ledger.ratings("2p", ["p:a"])).values()
    assert (held, version) == (StoredRating(30.0, 5.0, 12, 7), "3")
    again = StoredRating(30.5, 4.9, 13, 8, 1.0, ["p:b"], [("p:b", NOW)])
    written = await ledger.commit_game(
        game("g1", NOW, ["p:a", "p:b"]), [rating_write("g1", "3", again)], NOW
    )
    assert isinstance(written, Committed)
    assert (await ledger.ratings("2p", ["p:a"]))["p:a"][0] == again
    await ledger.close()


async def test_new_players_are_charged_to_their_address_in_the_claim_itself(
    ledger: Ledger,
) -> None:
    budget = ClaimBudget("10.0.0.1", burst=2, per_second=0.5)
    made = [
        await ledger.claim_within(key_hash(f"k{n}"), f"P{n}", f"p{n}", NOW, budget)
        for n in range(3)
    ]
    assert [type(answer).__name__ for answer in made] == ["Player", "Player", "Limited"]
    # Known keys and taken names cost nothing; another address has its own budget.
    assert isinstance(await ledger.claim_within(key_hash("k0"), "P0", "p0", NOW, budget), Player)
    elsewhere = ClaimBudget("10.0.0.2", burst=2, per_second=0.5)
    assert await ledger.claim_within(key_hash("x"), "P0", "p0", NOW, elsewhere) is None
    assert isinstance(await ledger.claim_within(key_hash("y"), "Q", "q", NOW, elsewhere), Player)
    # Two seconds later the address has one more.
    assert isinstance(await ledger.claim_within(key_hash("z"), "R", "r", NOW + 2, budget), Player)
    assert isinstance(await ledger.claim_within(key_hash("w"), "S", "s", NOW + 2, budget), Limited)
