"""An archived game over the WebSocket: `record` with `game` (its record and replay positions)
and `review` (the hard bot's review of it).

The page's replay of an archived game asks for it on its connection, so a game it may not see
is an `error` reply rather than an HTTP 404. The game is found as the HTTP API finds it
(`server.edge.api.Api.replay`, and `server.edge.review_api.archived_record` for a review: a
private room's game only for the players who sat in it, anyone else told what a missing game
tells), and each request is charged to its address's API budget (`Api.charge`), so the socket
asks no more of the archive than the API lets an address ask. The review comes from the review
lane as `GET /api/games/ID/review` has it (`server.edge.review_api.work_out_review`), answered
in a task of the server's (`Server.stop` ends it) so the connection's other messages are served
meanwhile; a connection has one review in flight at a time, and the task holds only the game's
id and record. Refusals: `no_such_game` (no such game, or not the asker's to see: the same
sentence either way), `rate_limited` (over the API's budget), and for a review `busy` (this
connection's previous review is still being worked out, or the lane is full: `retry_after`
seconds then) or `unavailable` (it failed, or its answer could not be read); a malformed id is
`invalid` when the frame is read.
"""

from __future__ import annotations

import logging
import math
from collections.abc import Callable, Coroutine
from typing import Any

from protocol import errors
from protocol import messages as msg
from protocol.review import ReviewFormatError, decode_review
from server.edge.api import Api, ApiRefusal, Asked
from server.edge.review_api import ReviewRefused, archived_record, work_out_review
from server.play.reviews import ReviewDesk
from server.rooms.room_state import RoomError

log = logging.getLogger("allfives.server")

#: Sends a message to the asker's connection (dropped once it has closed).
Answer = Callable[[msg.ServerMessage], None]
#: Refuses the asker's message: its id, the code and the sentence.
Refuse = Callable[[int | None, str, str, int | None], None]
#: Runs a task that ends with the server (`server.play.hooks.Tasks.spawn`).
Spawn = Callable[[Coroutine[Any, Any, None]], object]
#: A review's waiting task on a connection (the connection object itself).
Asker = object


class ArchivedGames:
    """Answers `record` with `game` and `review`, as the HTTP API answers
    `GET /api/games/ID/positions` and `/review`."""

    def __init__(self, api: Api, reviews: ReviewDesk, spawn: Spawn) -> None:
        self.api = api
        self.reviews = reviews
        self.spawn = spawn
        #: The connections with a review in flight (one each).
        self.reviewing: set[Asker] = set()

    def charge(self, address: str) -> None:
        """Charge one request to `address`'s API budget: RoomError `rate_limited` past it."""
        wait = self.api.charge(address)
        if wait is not None:
            raise RoomError(
                errors.RATE_LIMITED,
                f"too many lookups of games from your address: try again in {math.ceil(wait)} s",
            )

    async def record(
        self, address: str, asker: str | None, message: msg.GetRecord
    ) -> msg.RecordReply:
        """The record and positions of the game `message.game` for the player `asker` (None:
        a guest), asked from `address`: RoomError `rate_limited` or `no_such_game`."""
        assert message.game is not None
        self.charge(address)
        try:
            detail, positions = await self.api.replay(Asked([], asker), message.game)
        except ApiRefusal:
            raise RoomError(errors.NO_SUCH_GAME, "no such game") from None
        return msg.RecordReply(
            record=detail.record, positions=positions, id=message.id, game=detail.id
        )

    async def review(
        self,
        connection: Asker,
        address: str,
        asker: str | None,
        message: msg.GetReview,
        answer: Answer,
        refuse: Refuse,
    ) -> None:
        """Find the game now (RoomError `busy` while this connection's previous review is on
        its way, `rate_limited`, `no_such_game`), then answer its review through `answer`
        once the lane has it, or `refuse` it (`busy`, `unavailable`)."""
        if connection in self.reviewing:
            raise RoomError(
                errors.BUSY, "your last review is still being worked out: wait for its answer"
            )
        self.charge(address)
        record = await archived_record(self.api, asker, message.game)
        if record is None:
            raise RoomError(errors.NO_SUCH_GAME, "no such game")
        self.reviewing.add(connection)
        self.spawn(self._review(connection, message.game, record, message.id, answer, refuse))

    async def _review(
        self,
        connection: Asker,
        game: str,
        record: bytes,
        id: int | None,
        answer: Answer,
        refuse: Refuse,
    ) -> None:
        try:
            review = decode_review(await work_out_review(self.reviews, game, record))
        except ReviewRefused as refused:
            refuse(id, refused.code, refused.message, refused.retry_after)
            return
        except ReviewFormatError:
            log.exception("game %s: its review could not be read", game)
            refuse(id, errors.UNAVAILABLE, "the review could not be worked out", None)
            return
        finally:
            self.reviewing.discard(connection)
        answer(msg.ReviewReply(review=review, game=game, id=id))
