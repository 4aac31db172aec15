"""`record` with `game`: an archived game's record and replay positions over the WebSocket.

The page's replay of an archived game asks for it on its connection, so a game it may not see
is an `error` reply rather than an HTTP 404. The game is found as the HTTP API finds it
(`server.edge.api.Api.game`: a private room's game only for the players who sat in it, anyone
else told what a missing game tells), and each request is charged to its address's API budget
(`Api.charge`), so the socket asks no more of the archive than the API lets an address ask.
Refusals: `no_such_game` (no such game, or not the asker's to see: the same sentence either
way), `rate_limited` (over the API's budget); a malformed id is `invalid` when the frame is read.
"""

from __future__ import annotations

import math

from bridge.positions import positions_of
from protocol import errors
from protocol import messages as msg
from server.edge.api import Api, ApiRefusal, Asked
from server.rooms.room_state import RoomError


class ArchivedGames:
    """Answers `record` with `game`, as the HTTP API answers `GET /api/games/ID/positions`."""

    def __init__(self, api: Api) -> None:
        self.api = api

    async def record(
        self, address: str, asker: str | None, message: msg.GetRecord
    ) -> msg.RecordReply:
        """The archived game `message.game` for the player `asker` (None: a guest), asked from
        `address`; RoomError `no_such_game` or `rate_limited` otherwise, and nothing changes."""
        assert message.game is not None
        wait = self.api.charge(address)
        if wait is not None:
            raise RoomError(
                errors.RATE_LIMITED,
                f"too many lookups of games from your address: try again in {math.ceil(wait)} s",
            )
        try:
            detail = await self.api.game(Asked([], asker), message.game)
        except ApiRefusal:
            raise RoomError(errors.NO_SUCH_GAME, "no such game") from None
        return msg.RecordReply(
            record=detail.record,
            positions=positions_of(detail.record),
            id=message.id,
            game=detail.id,
        )
