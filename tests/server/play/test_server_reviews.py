"""The server's reviews: in a lane of their own (never before a bot), once per game, bounded."""

from __future__ import annotations

import asyncio
import random

import msgspec
from server_helpers import fast_config, new_key
from storage_helpers import Held, archived_game, ask, held_reviews
from waiting import until
from ws_client_helpers import play_out, seat_players

from protocol.review import decode_review
from server.app import run_server


async def test_a_review_is_worked_out_once_and_then_served_from_what_was_kept() -> None:
    async with run_server(fast_config(review_budget_ms=2.0)) as server:
        game = await archived_game(server, "Ann", new_key(), target=50)
        first, second = await asyncio.gather(ask(server, game), ask(server, game))
        third = await ask(server, game)
        assert server.reviews.computed == 1
        # Forgotten by this process (as after a restart), it comes back from the store.
        server.reviews.kept.clear()
        fourth = await ask(server, game)
        assert server.reviews.computed == 1
    assert first.status == 200 and first.headers["content-type"] == "application/json"
    assert "default-src 'none'" in first.headers["content-security-policy"]
    assert second.body == first.body and third.body == first.body and fourth.body == first.body
    review = decode_review(first.body)
    assert [p.name for p in review.players] == ["Ann", "bot:normal"]
    assert review.moves and all(line.lost >= 0 for line in review.moves)


async def test_a_missing_game_and_a_strangers_private_game_are_alike_not_found() -> None:
    async with run_server(fast_config(review_budget_ms=2.0)) as server:
        key = new_key()
        private = await archived_game(server, "Ann", key, public=False)
        missing = await ask(server, "nothing")
        stranger = await ask(server, private, new_key())
        anyone = await ask(server, private)
        assert missing.status == 404 and missing.json["error"] == "not_found"
        assert (stranger.status, stranger.body) == (missing.status, missing.body)
        assert (anyone.status, anyone.body) == (missing.status, missing.body)
        assert (await ask(server, "a.b")).status == 404
        assert server.reviews.computed == 0 and not server.reviews.working
        mine = await ask(server, private, key)
        assert mine.status == 200 and server.reviews.computed == 1


async def test_past_the_bound_the_answer_is_busy_with_when_to_ask_again() -> None:
    async with held_reviews(max_reviews_waiting=1) as (server, held, _key, one, two):
        first = asyncio.create_task(ask(server, one))
        await until(lambda: held.started.is_set())
        busy = await ask(server, two)
        assert busy.status == 503 and int(busy.headers["retry-after"]) >= 1
        assert busy.json["error"] == "busy"
        held.release.set()
        assert (await first).status == 200
        # Once the first is done, the second may be asked again.
        assert (await ask(server, two)).status == 200
        assert server.reviews.computed == 2


async def test_a_review_being_worked_out_never_holds_a_bots_move() -> None:
    held = Held()
    config = fast_config(review_budget_ms=2.0, bot_workers=1, review_workers=1)
    async with run_server(config) as server:
        server.reviews.compute = held
        game = await archived_game(server, "Ann", new_key())
        review = asyncio.create_task(ask(server, game))
        await until(lambda: held.started.is_set())
        # A whole match against the hard bot (its moves in the bots' lane) while the review is
        # still being worked out: every bot move comes before the review.
        (ann,) = await seat_players(server.url, 2, 1, "hard", target=50)
        await ann.request("start")
        await play_out(ann, random.Random(3), timeout=60)
        assert ann.document["phase"] == "finished"
        assert not review.done() and server.reviews.computed == 0
        held.release.set()
        assert (await review).status == 200


async def test_a_review_kept_from_before_game_points_is_worked_out_again() -> None:
    """A review kept by an older server (no version: its points counted the match premium,
    no accuracy) is not served: it is worked out again and the new one kept in its place."""
    async with run_server(fast_config(review_budget_ms=2.0)) as server:
        game = await archived_game(server, "Ann", new_key(), target=50)
        first = await ask(server, game)
        older = msgspec.json.decode(first.body)
        del older["version"]
        for player in older["players"]:
            for field in ("accuracy", "by_hand", "lost_per_move"):
                del player[field]
            player["lost"] = 394.3
        await server.store.save_record(f"review/{game}", msgspec.json.encode(older))
        server.reviews.kept.clear()
        again = await ask(server, game)
        assert server.reviews.computed == 2
        kept = await server.store.load_record(f"review/{game}")
    assert again.status == 200 and again.body == first.body == kept
    review = decode_review(again.body)
    assert review.version == 2
    assert all(p.accuracy is not None and p.lost != 394.3 for p in review.players)
