"""Ratings on the wire: the ladders, a rating, and what a finished match did to one.

Shared by the end-of-match room view (`RoomView.ratings`) and the HTTP API (`protocol.api`).
"""

from __future__ import annotations

from typing import Annotated, Literal

from msgspec import Meta, Struct

#: A ladder per format: two players, three players, four players in partnerships.
LadderName = Literal["2p", "3p", "teams"]
LADDERS: tuple[LadderName, ...] = ("2p", "3p", "teams")
#: The rated names of the bot levels (a bot seat is named so too).
BOT_PLAYERS: tuple[str, ...] = ("bot:easy", "bot:normal", "bot:hard")

Seat = Annotated[int, Meta(ge=0, le=3)]
#: An archived game's id: opaque to clients.
GAME_ID_PATTERN = "^[A-Za-z0-9_-]{1,40}$"
GameId = Annotated[str, Meta(pattern=GAME_ID_PATTERN)]


class Rating(Struct, kw_only=True):
    """A rating on one ladder: openskill's `mu` and `sigma`, and `rating` = mu - 3 * sigma (the
    conservative figure ladders are ordered by and clients show)."""

    mu: float
    sigma: float
    rating: float


#: The share of a rating change a match made, from 0 to 1.
Share = Annotated[float, Meta(ge=0.0, le=1.0)]


class RatingChange(Struct, kw_only=True):
    """What one seat's finished match did to its player's rating on `ladder`: `counted` is the
    share of openskill's change it made (docs/ratings.md, "How much a match counts": 1 for a
    full-length match between established players, less for a short one or a repeat, 0 with a
    provisional player at the table). `provisional` says whether the player is still provisional
    on the ladder after this match, and `matches_to_go` and `opponents_to_go` what it still
    lacks: whole matches (to 150 points; a shorter one counts in part) and distinct opponents
    (both 0 for a player who is not provisional)."""

    seat: Seat
    #: The rated player: a player's name, or a bot level's ("bot:hard").
    name: str
    ladder: LadderName
    before: Rating
    after: Rating
    counted: Share = 1.0
    provisional: bool = False
    matches_to_go: Annotated[int, Meta(ge=0)] = 0
    opponents_to_go: Annotated[int, Meta(ge=0)] = 0
