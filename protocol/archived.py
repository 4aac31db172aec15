"""The review of an archived game asked on the WebSocket: `review` and its answer.

An archived game is named by its id, as the HTTP API names it (`protocol.ratings.GameId`);
its record and positions come with `record` and `game` (`protocol.messages.GetRecord`).
`protocol.messages` puts these two in its unions.
"""

from __future__ import annotations

from protocol.message_base import ClientMessage, ServerMessage
from protocol.ratings import GameId
from protocol.review import Review


class GetReview(ClientMessage, tag="review"):
    """Ask for the hard bot's review of an archived game (one the asker may see, as `record`
    with `game`): answered by `review` once it is worked out, the connection served meanwhile."""

    game: GameId


class ReviewReply(ServerMessage, tag="review"):
    """Answer to review: the hard bot's review of the archived game `game`."""

    review: Review
    game: str
    id: int | None = None
