"""An archived game over the WebSocket (`record` with `game`, `review`), as the HTTP API
answers it.

Against a real server on each store (`running`: embedded, and a real redis-server): the
player of a private room's game is sent its record and positions, what `GET /api/games/ID` and
`/positions` answer her, and its review, what `/review` answers; a stranger (a guest, or a
player with a key of their own) is told `no_such_game` in the very words a missing id gets, and
stays where they were; a malformed id is `invalid`; each request is charged to the address's API
budget; a review being worked out holds none of the connection's other messages, and past the
lane's bound it is `busy`.
"""

from __future__ import annotations

from pathlib import Path

import msgspec
import pytest
from server_helpers import api_get, fast_config, new_key
from storage_helpers import archived_game, ask, held_reviews
from waiting import until
from ws_client_helpers import Client, finish_match, until_archived

from protocol import errors
from protocol import messages as msg
from protocol.positions import Position
from protocol.records import decode_record
from protocol.review import decode_review
from server.app import Server, run_server

pytestmark = pytest.mark.asyncio


async def private_game(server: Server, key: str) -> str:
    """Ann (with `key`) plays an unrated private room's match to its end; its game's id."""
    ann = await finish_match(server.url, "Ann", key, public=False)
    await until_archived(ann)
    assert ann.document["rules"]["public"] is False and ann.document["ratings"] is None
    game = ann.document["game_id"]
    await ann.close()
    assert isinstance(game, str)
    return game


def without_id(error: msg.Error) -> dict[str, object]:
    """What an error says, apart from the `id` it answers."""
    said: dict[str, object] = msgspec.to_builtins(error)
    said.pop("id")
    return said


async def test_a_private_game_is_sent_to_its_player_as_the_api_answers_her(
    running: Server,
) -> None:
    key = new_key()
    game = await private_game(running, key)
    ann = await Client.open(running.url, "Ann", key=key)
    reply = await ann.request("record", game=game)
    assert isinstance(reply, msg.RecordReply), reply
    assert reply.game == game
    detail = await api_get(running.url, f"/api/games/{game}", key)
    placed = await api_get(running.url, f"/api/games/{game}/positions", key)
    assert detail.status == placed.status == 200
    assert reply.record == decode_record(msgspec.json.encode(detail.json["record"]))
    assert reply.positions == msgspec.convert(placed.json["positions"], list[Position])
    assert reply.record.hands and reply.positions[-1].scores == reply.record.scores
    # Asked again on a connection that sits in no room: the room's `record` is another thing.
    refused = await ann.error_for("record")
    assert refused.code == errors.NOT_IN_ROOM
    await ann.close()


async def test_a_stranger_is_told_what_a_missing_game_tells_and_nothing_changes(
    running: Server,
) -> None:
    game = await private_game(running, new_key())
    other_key = new_key()
    stranger = await Client.open(running.url, "Stranger", key=other_key)
    guest = await Client.open(running.url, "Guest")
    joined = await stranger.request("create_room", rules={"players": 2})
    assert isinstance(joined, msg.Joined)
    before = await stranger.request("resync")
    assert isinstance(before, msg.Snapshot)
    missing = await guest.error_for("record", game="AbCdEfGh1234")
    assert (missing.code, missing.command, missing.message) == (
        errors.NO_SUCH_GAME,
        "record",
        "no such game",
    )
    unreviewed = await guest.error_for("review", game="AbCdEfGh1234")
    assert (unreviewed.code, unreviewed.command) == (errors.NO_SUCH_GAME, "review")
    for asker in (stranger, guest):
        refused = await asker.error_for("record", game=game)
        assert without_id(refused) == without_id(missing)
        assert refused.id is not None
        not_reviewed = await asker.error_for("review", game=game)
        assert without_id(not_reviewed) == without_id(unreviewed)
    assert running.reviews.computed == 0 and not running.reviews.working
    after = await stranger.request("resync")
    assert isinstance(after, msg.Snapshot)
    assert (after.seq, after.state) == (before.seq, before.state)
    assert stranger.room is not None and running.rooms[stranger.room.split("-")[0]]
    # The game is none of theirs over HTTP either: the same rule, the same answer.
    for key in (other_key, None):
        hidden = await api_get(running.url, f"/api/games/{game}", key)
        assert hidden.status == 404
    for client in (stranger, guest):
        await client.close()


@pytest.mark.parametrize("kind", ["record", "review"])
@pytest.mark.parametrize("game", ["bad id!", "x" * 41, "", "../etc"])
async def test_a_malformed_game_id_is_invalid(running: Server, kind: str, game: str) -> None:
    guest = await Client.open(running.url, "Guest")
    refused = await guest.error_for(kind, game=game)
    assert refused.code == errors.INVALID and refused.command == kind
    assert refused.message.startswith("game: "), refused.message
    assert isinstance(await guest.request("ping"), msg.Pong)  # the connection goes on
    await guest.close()


async def test_each_game_asked_is_charged_to_the_addresss_api_budget(tmp_path: Path) -> None:
    config = fast_config(data=str(tmp_path), api_burst=3, api_per_second=0.01)
    async with run_server(config) as server:
        guest = await Client.open(server.url, "Guest")
        kinds = ["record", "review", "record", "review"]
        codes = [(await guest.error_for(kind, game=f"G{n}")).code for n, kind in enumerate(kinds)]
        assert codes == [errors.NO_SUCH_GAME] * 3 + [errors.RATE_LIMITED]
        # The socket and the HTTP API spend one budget: the API is over it too.
        answer = await api_get(server.url, "/api/ladder")
        assert answer.status == 429 and answer.json["error"] == "rate_limited"
        await guest.close()


async def test_the_players_review_is_what_the_api_answers_her() -> None:
    async with run_server(fast_config(review_budget_ms=2.0)) as server:
        key = new_key()
        game = await archived_game(server, "Ann", key, public=False)
        ann = await Client.open(server.url, "Ann", key=key)
        reply = await ann.request("review", game=game)
        assert isinstance(reply, msg.ReviewReply), reply
        assert reply.game == game
        answer = await ask(server, game, key)
        assert answer.status == 200
        assert reply.review == decode_review(answer.body)
        assert [player.name for player in reply.review.players] == ["Ann", "bot:normal"]
        assert server.reviews.computed == 1  # worked out once, for the socket and the API
        await ann.close()


async def test_a_review_being_worked_out_holds_no_other_message_and_busy_past_the_bound() -> None:
    async with held_reviews(max_reviews_waiting=1) as (server, held, key, one, two):
        ann = await Client.open(server.url, "Ann", key=key)
        first = await ann.send("review", game=one)
        await until(lambda: held.started.is_set())
        # The connection is served while the review is worked out: a ping, a room made.
        assert isinstance(await ann.request("ping"), msg.Pong)
        assert isinstance(await ann.request("create_room", rules={"players": 2}), msg.Joined)
        # Past the lane's bound (asked from another connection): busy, and for how long.
        other = await Client.open(server.url, "Ann", key=key)
        busy = await other.error_for("review", game=two)
        assert busy.code == errors.BUSY and busy.command == "review"
        assert isinstance(busy.retry_after, int) and busy.retry_after >= 1
        assert f"try again in {busy.retry_after} s" in busy.message
        held.release.set()
        done = await ann.until(lambda m: getattr(m, "id", None) == first)
        assert isinstance(done, msg.ReviewReply) and done.game == one
        again = await ann.request("review", game=two)
        assert isinstance(again, msg.ReviewReply) and again.game == two
        assert server.reviews.computed == 2
        await ann.close()
        await other.close()


async def test_a_second_review_on_a_connection_is_busy_while_its_first_is_worked_out() -> None:
    async with held_reviews(max_reviews_waiting=8) as (server, held, key, one, two):
        ann = await Client.open(server.url, "Ann", key=key)
        first = await ann.send("review", game=one)
        await until(lambda: held.started.is_set())
        busy = await ann.error_for("review", game=two)
        assert busy.code == errors.BUSY and busy.command == "review"
        assert "your last review" in busy.message
        held.release.set()
        done = await ann.until(lambda m: getattr(m, "id", None) == first)
        assert isinstance(done, msg.ReviewReply) and done.game == one
        # Its answer came: the connection may ask again, and the lane worked out one game only
        # while it was refused.
        again = await ann.request("review", game=two)
        assert isinstance(again, msg.ReviewReply) and again.game == two
        assert server.reviews.computed == 2
        await ann.close()


def not_a_review(record: bytes, budget_ms: float) -> bytes:
    """A review lane that answers something that is not a review."""
    return b'{"not": "a review"}'


async def test_a_review_that_cannot_be_read_is_unavailable_and_the_connection_asks_again() -> None:
    async with run_server(fast_config(review_budget_ms=2.0)) as server:
        server.reviews.compute = not_a_review
        key = new_key()
        game = await archived_game(server, "Ann", key)
        ann = await Client.open(server.url, "Ann", key=key)
        refused = await ann.error_for("review", game=game)
        assert refused.code == errors.UNAVAILABLE and refused.command == "review"
        assert refused.message == "the review could not be worked out"
        # Nothing was left in flight: asking again is answered, not `busy`.
        again = await ann.error_for("review", game=game)
        assert again.code == errors.UNAVAILABLE
        await ann.close()
