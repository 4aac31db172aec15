"""Ratings: what a finished match does to its players' ratings, with openskill's Plackett-Luce.

Pure and synchronous (no store): `rate_match` takes the seats of a finished match, their ratings
before it, and gives the ratings after it. The server (`server.play.finish`) reads the ratings,
calls this, and writes them back only if nobody changed them meanwhile; `bench/ladder.py` runs
the same code over simulated matches. What counts is docs/ratings.md:

- One ladder per format: "2p", "3p", "teams" (4 players in partnerships); 4 players each for
  themselves have no ladder.
- Every seat is a side, or in partnerships each team (seats 0+2, 1+3); sides are ranked by the
  match's end: the winner (or winners of a shared win) first, the others by final score.
- A match with a guest (a seat without a key) is not rated at all.
- A seat a stand-in bot made more than half the moves of keeps its player's rating when the
  seat came out first (a bot's play earns no one points), and takes the change otherwise (leaving
  a match is not a way out of a loss).
- A bot level seated twice is rated from the same rating for each seat; it then takes the mean
  of its seats' new ratings.

How far each player's rating then moves towards this result (a match's weight: its length,
provisional players, repeats) is `server.play.weighting`.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, replace

from openskill.models import PlackettLuce, PlackettLuceRating

from protocol.ratings import LadderName, Rating
from protocol.rules import Rules

#: The model every ladder uses: openskill's defaults (mu 25, sigma 25/3, beta 25/6, tau 25/300).
MODEL = PlackettLuce()
MU = MODEL.mu
SIGMA = MODEL.sigma


@dataclass(frozen=True)
class Standing:
    """A player's rating on one ladder and its rated games and wins there, with what
    `server.play.weighting` needs of its history: how much it has played (in full matches),
    its first distinct opponents, and its matches of the last day (opponent, when)."""

    mu: float = MU
    sigma: float = SIGMA
    games: int = 0
    wins: int = 0
    played: float = 0.0
    opponents: tuple[str, ...] = ()
    recent: tuple[tuple[str, float], ...] = ()

    @property
    def ordinal(self) -> float:
        """The conservative figure ladders are ordered by: mu - 3 sigma."""
        return self.mu - 3 * self.sigma

    def wire(self) -> Rating:
        """As the wire carries it."""
        return Rating(mu=self.mu, sigma=self.sigma, rating=self.ordinal)


@dataclass(frozen=True)
class RatedSeat:
    """One seat of a finished match as rating sees it: its rated player (None: a guest), how
    many moves it made and how many of those a stand-in bot made."""

    player: str | None
    moves: int = 0
    stand_in_moves: int = 0

    @property
    def stood_in(self) -> bool:
        """Whether a stand-in made more than half of the seat's moves."""
        return self.stand_in_moves * 2 > self.moves


def ladder_of(rules: Rules) -> LadderName | None:
    """The ladder a match with these rules is rated on, or None (4 players without teams)."""
    if rules.players == 2:
        return "2p"
    if rules.players == 3:
        return "3p"
    return "teams" if rules.partnership else None


def sides_of(rules: Rules) -> list[list[int]]:
    """The seats of each side, in side order: each seat alone, or the two teams."""
    if rules.partnership:
        return [[0, 2], [1, 3]]
    return [[seat] for seat in range(rules.players)]


def ranks_of(scores: Sequence[int], winner: int | Sequence[int] | None) -> list[int]:
    """Each side's rank (1 best; equal ranks tie): the winners first, then by score."""
    winners = {winner} if isinstance(winner, int) else set(winner or ())
    order = sorted(range(len(scores)), key=lambda side: (side not in winners, -scores[side]))
    ranks = [0] * len(scores)
    rank = 0
    previous: tuple[bool, int] | None = None
    for position, side in enumerate(order):
        key = (side in winners, scores[side])
        if key != previous:
            rank = position + 1
            previous = key
        ranks[side] = rank
    return ranks


def rated(seats: Sequence[RatedSeat]) -> bool:
    """Whether a match with these seats is rated: every seat a key's player or a bot."""
    return all(seat.player is not None for seat in seats)


def rate_match(
    rules: Rules,
    seats: Sequence[RatedSeat],
    scores: Sequence[int],
    winner: int | Sequence[int] | None,
    before: dict[str, Standing],
) -> dict[int, tuple[Standing, Standing]] | None:
    """What the match does to each seat's player: seat -> (before, after); None if unrated.

    `before` holds the players' current standings (a player missing from it is new)."""
    ladder = ladder_of(rules)
    if ladder is None or not rated(seats):
        return None
    sides = sides_of(rules)
    ranks = ranks_of(scores, winner)
    teams = [
        [_openskill(before.get(_player(seats[seat]), Standing())) for seat in side]
        for side in sides
    ]
    results = MODEL.rate(teams, ranks=[float(rank) for rank in ranks])
    new_by_seat: dict[int, PlackettLuceRating] = {}
    for side, rated_side in zip(sides, results, strict=True):
        for seat, rating in zip(side, rated_side, strict=True):
            new_by_seat[seat] = rating
    won_by_seat = {seat: ranks[index] == 1 for index, side in enumerate(sides) for seat in side}
    # A player in several seats (a bot level) takes the mean of its seats' results.
    by_player: dict[str, list[int]] = {}
    for seat, held in enumerate(seats):
        by_player.setdefault(_player(held), []).append(seat)
    changes: dict[int, tuple[Standing, Standing]] = {}
    for player, player_seats in by_player.items():
        old = before.get(player, Standing())
        kept = [seat for seat in player_seats if not (seats[seat].stood_in and won_by_seat[seat])]
        if kept:
            mu = sum(new_by_seat[seat].mu for seat in kept) / len(kept)
            sigma = sum(new_by_seat[seat].sigma for seat in kept) / len(kept)
        else:
            mu, sigma = old.mu, old.sigma
        wins = old.wins + (1 if any(won_by_seat[seat] for seat in player_seats) else 0)
        new = replace(old, mu=mu, sigma=sigma, games=old.games + 1, wins=wins)
        for seat in player_seats:
            changes[seat] = (old, new)
    return changes


def _player(seat: RatedSeat) -> str:
    assert seat.player is not None
    return seat.player


def _openskill(standing: Standing) -> PlackettLuceRating:
    return MODEL.rating(mu=standing.mu, sigma=standing.sigma)


__all__ = [
    "MODEL",
    "RatedSeat",
    "Standing",
    "ladder_of",
    "ranks_of",
    "rate_match",
    "rated",
    "sides_of",
]
