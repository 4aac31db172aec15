"""How much a rated match moves each player's rating: the rules that keep a ladder from being
farmed (docs/ratings.md, "How much a match counts").

Pure (no store, no clock): `weights` takes the match's target, who sat on which side and their
standings before it (each with its ladder history: how much it has played, against whom, and
its matches of the last day), and gives each player's weight from 0 to 1; `settle` moves a
standing that far towards openskill's full result and notes the match in its history.

- **Length.** A match to `FULL_TARGET` points or more counts fully; a shorter one counts
  `target / FULL_TARGET` (a match to 5: 1/30), as a short match is mostly luck.
- **Provisional players.** A player is provisional on a ladder until it has played
  `ESTABLISHED_MATCHES` matches there (each counted by its length weight) against
  `ESTABLISHED_OPPONENTS` distinct opponents (bot levels included). A match with a provisional
  player at the table moves nobody's rating: a fresh key is not a point for anyone to take.
  The bot levels are never provisional.
- **Repeats.** A player's `n`-th match within `REPEAT_SECONDS` against the same other player
  (bot levels aside) counts `1 / n**2`: the first fully, the second a quarter, the third a
  ninth, so all of a day's repeats together add less than two thirds of a match (pi**2/6 - 1).
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from dataclasses import replace

from protocol.ratings import BOT_PLAYERS
from protocol.rules import Rules
from server.play.ratings import RatedSeat, Standing, rate_match, sides_of

#: A match to this target or more counts fully; a shorter one by its share of it.
FULL_TARGET = 150
#: A player is provisional until it has played this much (in full matches)...
ESTABLISHED_MATCHES = 5.0
#: ... against this many distinct opponents.
ESTABLISHED_OPPONENTS = 3
#: Matches against the same player within this long of each other count less and less.
REPEAT_SECONDS = 24 * 60 * 60
#: The most recent matches a standing keeps for the repeat rule.
MAX_RECENT = 64

__all__ = [
    "ESTABLISHED_MATCHES",
    "ESTABLISHED_OPPONENTS",
    "FULL_TARGET",
    "MAX_RECENT",
    "REPEAT_SECONDS",
    "established",
    "length_weight",
    "opponents_of",
    "rate_weighted",
    "settle",
    "still_to_play",
    "weights",
]


def length_weight(target: int) -> float:
    """How much a match to `target` points counts (1 at FULL_TARGET and beyond)."""
    return min(1.0, max(0, target) / FULL_TARGET)


def established(player: str, standing: Standing) -> bool:
    """Whether a player's results count for others: a bot level, or enough played."""
    if player in BOT_PLAYERS:
        return True
    return (
        standing.played >= ESTABLISHED_MATCHES and len(standing.opponents) >= ESTABLISHED_OPPONENTS
    )


def still_to_play(player: str, standing: Standing) -> tuple[int, int]:
    """What a player still lacks to be established: whole matches (rounded up) and distinct
    opponents; (0, 0) for a bot level or an established player."""
    if established(player, standing):
        return 0, 0
    matches = math.ceil(round(ESTABLISHED_MATCHES - standing.played, 9))
    opponents = ESTABLISHED_OPPONENTS - len(standing.opponents)
    return max(0, matches), max(0, opponents)


def opponents_of(sides: Sequence[Sequence[str]]) -> dict[str, set[str]]:
    """Each player's opponents: the players of every other side (a player on two sides, a bot
    level seated twice, is nobody's opponent of itself)."""
    found: dict[str, set[str]] = {}
    for index, side in enumerate(sides):
        others = {player for other, seats in enumerate(sides) if other != index for player in seats}
        for player in side:
            found.setdefault(player, set()).update(others - {player})
    return found


def weights(
    target: int,
    sides: Sequence[Sequence[str]],
    before: Mapping[str, Standing],
    now: float,
) -> dict[str, float]:
    """Each player's weight in a rated match: its length weight, 0 for everyone with a
    provisional player at the table, divided by n**2 for the player's n-th match against one of
    its opponents within REPEAT_SECONDS (module docstring)."""
    opponents = opponents_of(sides)
    length = length_weight(target)
    if not all(established(player, before.get(player, Standing())) for player in opponents):
        return dict.fromkeys(opponents, 0.0)
    found: dict[str, float] = {}
    for player, against in opponents.items():
        if player in BOT_PLAYERS:
            found[player] = length
            continue
        recent = before.get(player, Standing()).recent
        repeats = max(
            (
                sum(1 for who, at in recent if who == other and now - at < REPEAT_SECONDS)
                for other in against
                if other not in BOT_PLAYERS
            ),
            default=0,
        )
        found[player] = length / (repeats + 1) ** 2
    return found


def settle(
    old: Standing,
    full: Standing,
    player: str,
    weight: float,
    against: set[str],
    target: int,
    now: float,
) -> Standing:
    """The standing after the match: `weight` of the way from `old` to openskill's `full`
    result (its games and wins as `full` counts them), with the match in its history."""
    mu = old.mu + weight * (full.mu - old.mu)
    sigma = old.sigma + weight * (full.sigma - old.sigma)
    if player in BOT_PLAYERS:
        return replace(full, mu=mu, sigma=sigma)
    known = list(old.opponents)
    for other in sorted(against):
        if len(known) >= ESTABLISHED_OPPONENTS:
            break
        if other not in known:
            known.append(other)
    recent = [(who, at) for who, at in old.recent if now - at < REPEAT_SECONDS]
    recent += [(other, now) for other in sorted(against) if other not in BOT_PLAYERS]
    return replace(
        full,
        mu=mu,
        sigma=sigma,
        played=old.played + length_weight(target),
        opponents=tuple(known),
        recent=tuple(recent[-MAX_RECENT:]),
    )


def rate_weighted(
    rules: Rules,
    seats: Sequence[RatedSeat],
    scores: Sequence[int],
    winner: int | Sequence[int] | None,
    before: Mapping[str, Standing],
    now: float,
) -> dict[int, tuple[Standing, Standing, float]] | None:
    """`rate_match`, each player's change then weighted and its history noted: seat ->
    (before, after, weight), or None for a match that is not rated. `now` is when it
    finished."""
    full = rate_match(rules, seats, scores, winner, dict(before))
    if full is None:
        return None
    sides = [
        [player for seat in side if (player := seats[seat].player) is not None]
        for side in sides_of(rules)
    ]
    target = rules.target_score
    weight = weights(target, sides, before, now)
    against = opponents_of(sides)
    settled: dict[str, Standing] = {}
    changes: dict[int, tuple[Standing, Standing, float]] = {}
    for seat, (old, new) in full.items():
        player = seats[seat].player
        assert player is not None
        if player not in settled:
            settled[player] = settle(old, new, player, weight[player], against[player], target, now)
        changes[seat] = (old, settled[player], weight[player])
    return changes
