"""The variants of docs/rules.md, as one immutable value."""

from __future__ import annotations

from typing import Literal

import msgspec

HandSize = Literal["standard", "five", "seven-five"]
EndScoring = Literal["opponents", "penalty"]


class RulesError(ValueError):
    """A set of rules that the rules (docs/rules.md) do not allow."""


class Rules(msgspec.Struct, frozen=True, kw_only=True):
    """Players and variants of a match; missing fields take the defaults of docs/rules.md."""

    players: int = 4
    teams: bool = True
    hand_size: HandSize = "standard"
    target: int | None = None
    end_scoring: EndScoring = "opponents"
    reserve: int = 0

    def __post_init__(self) -> None:
        if self.players not in (2, 3, 4):
            raise RulesError(f"All Fives is for 2, 3 or 4 players, not {self.players} (1.2)")
        if self.hand_size not in ("standard", "five", "seven-five"):
            raise RulesError(f"unknown hand size {self.hand_size!r} (2.2)")
        if self.end_scoring not in ("opponents", "penalty"):
            raise RulesError(f"unknown end scoring {self.end_scoring!r} (7.3, 7.4)")
        if self.target is not None and (self.target <= 0 or self.target % 5):
            raise RulesError(
                f"the target must be a positive multiple of 5, not {self.target} (8.1)"
            )
        if not 0 <= self.reserve <= 7:
            raise RulesError(
                f"the reserve is 0 to 7 tiles (2 in the old custom), not {self.reserve} (4.4)"
            )

    @property
    def partnership(self) -> bool:
        """Whether seats 0+2 and 1+3 play as teams (4 players only, 1.3)."""
        return self.teams and self.players == 4

    @property
    def tiles_per_hand(self) -> int:
        """How many tiles each player is dealt (2.2)."""
        if self.hand_size == "five":
            return 5
        if self.hand_size == "seven-five":
            return 7 if self.players == 2 else 5
        return {2: 9, 3: 7, 4: 5}[self.players]

    @property
    def winning_score(self) -> int:
        """The target: 250 with 2 players, 200 with 3 or 4, unless set (8.1)."""
        if self.target is not None:
            return self.target
        return 250 if self.players == 2 else 200

    @property
    def sides(self) -> int:
        """How many scores there are: one per team, or one per player."""
        return 2 if self.partnership else self.players

    def side_of(self, seat: int) -> int:
        """The score a seat plays for: its team in partnerships, else its own."""
        return seat % 2 if self.partnership else seat


def round5(x: float) -> int:
    """Round to the nearest multiple of 5, halves up (7.2): 7 -> 5, 8 -> 10, 6.5 -> 5, 7.5 -> 10."""
    return 5 * int((2 * x + 5) // 10)
