"""The server's reviews: in a lane of their own (never before a bot), once per game, bounded."""

from __future__ import annotations

import asyncio
import json
import random
import threading

from server_helpers import Client, fast_config, http_answer, play_out, seat_players
from waiting import until

from bridge.records import record_of
from bridge.reviews import review_bytes
from engine import Match, Rules
from engine.bots import make_bot
from protocol.records import encode_record
from protocol.review import decode_review
from server.app import Server, run_server


def bot_match(seed: int, target: int = 50) -> bytes:
    """A finished two-player match between normal bots, as a record."""
    match = Match.new(Rules(players=2, target=target), seed=seed)
    bots = [make_bot("normal", seed), make_bot("normal", seed + 1)]
    while not match.over:
        match.apply(match.turn, bots[match.turn].choose(match.view_for(match.turn)))
    return encode_record(record_of(match, ["Ann", "Bob"]))


async def ask(server: Server, game: str) -> tuple[int, dict[str, str], bytes]:
    url = f"http://127.0.0.1:{server.port}/api/games/{game}/review"
    return await asyncio.to_thread(http_answer, url)


class Held:
    """A review function that waits until released (threads only): a review that takes long."""

    def __init__(self) -> None:
        self.release = threading.Event()
        self.started = threading.Event()

    def __call__(self, record: bytes, budget_ms: float) -> bytes:
        self.started.set()
        self.release.wait(60)
        return review_bytes(record, budget_ms)


async def test_a_review_is_worked_out_once_and_then_served_from_what_was_kept() -> None:
    async with run_server(fast_config(review_budget_ms=2.0)) as server:
        await server.store.save_record("BCDF/1", bot_match(1))
        first, second = await asyncio.gather(ask(server, "BCDF-1"), ask(server, "BCDF-1"))
        third = await ask(server, "BCDF-1")
        assert server.reviews.computed == 1
    status, headers, body = first
    assert status == 200 and headers["Content-Type"] == "application/json"
    assert "default-src 'none'" in headers["Content-Security-Policy"]
    assert second[2] == body and third[2] == body
    review = decode_review(body)
    assert [p.name for p in review.players] == ["Ann", "Bob"]
    assert review.moves and all(line.lost >= 0 for line in review.moves)


async def test_a_missing_game_is_not_found_and_starts_no_review() -> None:
    async with run_server(fast_config(review_budget_ms=2.0)) as server:
        for game in ("BCDF-9", "nothing", "BCDF-1x"):
            status, _, body = await ask(server, game)
            assert status == 404 and json.loads(body)["error"] == "not_found"
        bad = f"http://127.0.0.1:{server.port}/api/games/a.b/review"
        assert (await asyncio.to_thread(http_answer, bad))[0] == 404
        assert server.reviews.computed == 0 and not server.reviews.working


async def test_past_the_bound_the_answer_is_busy_with_when_to_ask_again() -> None:
    held = Held()
    async with run_server(fast_config(review_budget_ms=2.0, max_reviews_waiting=1)) as server:
        server.reviews.compute = held
        await server.store.save_record("BCDF/1", bot_match(1))
        await server.store.save_record("BCDF/2", bot_match(2))
        first = asyncio.create_task(ask(server, "BCDF-1"))
        await until(lambda: held.started.is_set())
        status, headers, body = await ask(server, "BCDF-2")
        assert status == 503 and int(headers["Retry-After"]) >= 1
        assert json.loads(body)["error"] == "busy"
        held.release.set()
        assert (await first)[0] == 200
        # Once the first is done, the second may be asked again.
        assert (await ask(server, "BCDF-2"))[0] == 200
        assert server.reviews.computed == 2


async def test_a_review_being_worked_out_never_holds_a_bots_move() -> None:
    held = Held()
    config = fast_config(review_budget_ms=2.0, bot_workers=1, review_workers=1)
    async with run_server(config) as server:
        server.reviews.compute = held
        await server.store.save_record("BCDF/1", bot_match(1))
        review = asyncio.create_task(ask(server, "BCDF-1"))
        await until(lambda: held.started.is_set())
        # A whole match against the hard bot (its moves in the bots' lane) while the review is
        # still being worked out: every bot move comes before the review.
        (ann,) = await seat_players(server.url, 2, 1, "hard", target=50)
        await ann.request("start")
        await play_out(ann, random.Random(3), timeout=60)
        assert ann.document["phase"] == "finished"
        assert not review.done() and server.reviews.computed == 0
        held.release.set()
        assert (await review)[0] == 200


async def test_a_match_played_on_the_server_is_reviewed_by_its_id() -> None:
    async with run_server(fast_config(review_budget_ms=2.0)) as server:
        (ann,) = await seat_players(server.url, 2, 1, "normal", target=50)
        await ann.request("start")
        await play_out(ann, random.Random(5))
        code = ann.room
        await until(lambda: server.metrics.matches_finished == 1)

        async def stored() -> bool:
            return await server.store.load_record(f"{code}/1") is not None

        await until(stored)
        status, _, body = await ask(server, f"{code}-1")
        await ann.close()
    assert status == 200
    review = decode_review(body)
    assert review.players[0].name == "P0" and review.players[0].decisions > 0
    assert isinstance(ann, Client)
