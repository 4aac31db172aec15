"""An archived game over the WebSocket: `record` with `game` (its record and replay positions)
and `review` (the hard bot's review of it).

The page's replay of an archived game asks for it on its connection, so a game it may not see
is an `error` reply rather than an HTTP 404. The game is found as the HTTP API finds it
(`server.edge.api.Api.game`: a private room's game only for the players who sat in it, anyone
else told what a missing game tells), and each request is charged to its address's API budget
(`Api.charge`), so the socket asks no more of the archive than the API lets an address ask. The
review comes from the review lane (`server.play.reviews.ReviewDesk`) as `GET
/api/games/ID/review` does, answered in a task of its own so the connection's other messages
are served meanwhile. Refusals: `no_such_game` (no such game, or not the asker's to see: the
same sentence either way), `rate_limited` (over the API's budget), and for a review `busy` (the
lane is full) or `unavailable` (it failed); a malformed id is `invalid` when the frame is read.
"""

from __future__ import annotations

import asyncio
import logging
import math
from collections.abc import Callable

from bridge.positions import positions_of
from protocol import api, errors
from protocol import messages as msg
from protocol.records import encode_record
from protocol.review import decode_review
from server.edge.api import Api, ApiRefusal, Asked
from server.play.reviews import ReviewDesk, ReviewsBusy
from server.rooms.room_state import RoomError

log = logging.getLogger("allfives.server")

#: Sends a message to the asker's connection (dropped once it has closed).
Answer = Callable[[msg.ServerMessage], None]
#: Refuses the asker's message: its id, the code and the sentence.
Refuse = Callable[[int | None, str, str], None]


class ArchivedGames:
    """Answers `record` with `game` and `review`, as the HTTP API answers
    `GET /api/games/ID/positions` and `/review`."""

    def __init__(self, api: Api, reviews: ReviewDesk) -> None:
        self.api = api
        self.reviews = reviews
        #: Reviews being worked out for connections (kept so that none is collected unfinished).
        self.tasks: set[asyncio.Task[None]] = set()

    async def found(self, address: str, asker: str | None, game: str) -> api.GameDetail:
        """The archived game `game` for the player `asker` (None: a guest), asked from
        `address`: charged to its API budget; RoomError `rate_limited` or `no_such_game`."""
        wait = self.api.charge(address)
        if wait is not None:
            raise RoomError(
                errors.RATE_LIMITED,
                f"too many lookups of games from your address: try again in {math.ceil(wait)} s",
            )
        try:
            return await self.api.game(Asked([], asker), game)
        except ApiRefusal:
            raise RoomError(errors.NO_SUCH_GAME, "no such game") from None

    async def record(
        self, address: str, asker: str | None, message: msg.GetRecord
    ) -> msg.RecordReply:
        """The record and positions of the game `message.game` (`found`)."""
        assert message.game is not None
        detail = await self.found(address, asker, message.game)
        return msg.RecordReply(
            record=detail.record,
            positions=positions_of(detail.record),
            id=message.id,
            game=detail.id,
        )

    async def review(
        self,
        address: str,
        asker: str | None,
        message: msg.GetReview,
        answer: Answer,
        refuse: Refuse,
    ) -> None:
        """Find the game now (`found`: RoomError if refused), then answer its review through
        `answer` once the lane has it, or `refuse` it (`busy`, `unavailable`)."""
        detail = await self.found(address, asker, message.game)
        task = asyncio.get_running_loop().create_task(
            self._review(detail, message.id, answer, refuse)
        )
        self.tasks.add(task)
        task.add_done_callback(self.tasks.discard)

    async def _review(
        self, detail: api.GameDetail, id: int | None, answer: Answer, refuse: Refuse
    ) -> None:
        try:
            review = await self.reviews.review(detail.id, encode_record(detail.record))
        except ReviewsBusy as busy:
            refuse(
                id,
                errors.BUSY,
                f"the server is busy with other reviews: try again in {busy.retry_after} s",
            )
            return
        except Exception:
            log.exception("game %s: the review failed", detail.id)
            refuse(id, errors.UNAVAILABLE, "the review could not be worked out")
            return
        answer(msg.ReviewReply(review=decode_review(review), game=detail.id, id=id))
