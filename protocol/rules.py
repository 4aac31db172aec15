"""The game variants of docs/rules.md as one struct: the one Rules type of the project.

The engine plays by it, records and rooms write it, views show it. It imports nothing of the
project (only msgspec), so the engine may import this module of protocol and no other
(tests/test_layers.py). A variant is added here, once.
"""

from __future__ import annotations

from typing import Annotated, Literal

from msgspec import Meta, Struct

HandSize = Literal["standard", "five", "seven-five"]
EndScoring = Literal["opponents", "penalty"]
PlayerCount = Annotated[int, Meta(ge=2, le=4)]
TargetScore = Annotated[int, Meta(gt=0, multiple_of=5)]
Reserve = Annotated[int, Meta(ge=0, le=7)]
TurnSeconds = Annotated[int, Meta(ge=5, le=3600)]
#: A room's target: RULES.md sets no ceiling, a server does (a match must end).
MAX_ROOM_TARGET = 1000
RoomTarget = Annotated[int, Meta(gt=0, le=MAX_ROOM_TARGET, multiple_of=5)]

HAND_SIZES: dict[str, dict[int, int]] = {
    "standard": {2: 9, 3: 7, 4: 5},
    "five": {2: 5, 3: 5, 4: 5},
    "seven-five": {2: 7, 3: 5, 4: 5},
}
DEFAULT_TARGETS: dict[int, int] = {2: 250, 3: 200, 4: 200}


class RulesError(ValueError):
    """A set of rules that the rules (docs/rules.md) do not allow."""


class Rules(Struct, kw_only=True, omit_defaults=True):
    """The variants of a match (docs/rules.md); every field but `players` has the default of docs/rules.md.

    Made in code, a set the rules do not allow raises RulesError; decoded, the field constraints
    refuse it first (msgspec.ValidationError).
    """

    players: PlayerCount
    teams: bool = True
    hand_size: HandSize = "standard"
    target: TargetScore | None = None
    end_scoring: EndScoring = "opponents"
    reserve: Reserve = 0

    def __post_init__(self) -> None:
        check(self)

    @property
    def partnership(self) -> bool:
        """Whether seats 0+2 and 1+3 play as teams (only ever with 4 players)."""
        return self.teams and self.players == 4

    @property
    def tiles_per_hand(self) -> int:
        """How many tiles each seat is dealt (docs/rules.md 2.2)."""
        return HAND_SIZES[self.hand_size][self.players]

    @property
    def target_score(self) -> int:
        """The score that wins: `target`, or the default for the player count (docs/rules.md 8.1)."""
        return self.target if self.target is not None else DEFAULT_TARGETS[self.players]

    @property
    def sides(self) -> int:
        """How many entries a scores list has: 2 teams in a partnership, else one per seat."""
        return 2 if self.partnership else self.players

    def side_of(self, seat: int) -> int:
        """The score a seat plays for: its team in partnerships, else its own."""
        return seat % 2 if self.partnership else seat

    @property
    def match_rules(self) -> Rules:
        """The variants of a match alone, as a plain Rules (a room's options left out)."""
        if type(self) is Rules:
            return self
        return Rules(**{name: getattr(self, name) for name in Rules.__struct_fields__})


def check(rules: Rules) -> None:
    """Raise RulesError if docs/rules.md does not allow these rules (the section in brackets)."""
    if rules.players not in (2, 3, 4):
        raise RulesError(f"All Fives is for 2, 3 or 4 players, not {rules.players} (1.2)")
    if rules.hand_size not in HAND_SIZES:
        raise RulesError(f"unknown hand size {rules.hand_size!r} (2.2)")
    if rules.end_scoring not in ("opponents", "penalty"):
        raise RulesError(f"unknown end scoring {rules.end_scoring!r} (7.3, 7.4)")
    if rules.target is not None and (rules.target <= 0 or rules.target % 5):
        raise RulesError(f"the target must be a positive multiple of 5, not {rules.target} (8.1)")
    if not 0 <= rules.reserve <= 7:
        raise RulesError(
            f"the reserve is 0 to 7 tiles (2 in the old custom), not {rules.reserve} (4.4)"
        )


class RoomRules(Rules, kw_only=True, omit_defaults=False):
    """The variants of a room's matches plus room options (turn clock, listed publicly, chat,
    rated).

    `spectator_chat` None means the default: spectators may chat in private rooms, not in public.
    `rated` None means the default, filled in as the room is made: a public room's matches are
    rated, a private room's are not (docs/ratings.md, "Rated and unrated rooms").
    """

    target: RoomTarget | None = None
    turn_seconds: TurnSeconds | None = None
    public: bool = True
    spectator_chat: bool | None = None
    rated: bool | None = None

    @property
    def is_rated(self) -> bool:
        """Whether the room's matches are rated (and so public: docs/ratings.md)."""
        return self.rated if self.rated is not None else self.public

    @property
    def spectators_chat(self) -> bool:
        """Whether spectators may chat in the room."""
        return self.spectator_chat if self.spectator_chat is not None else not self.public

    def __post_init__(self) -> None:
        # Teams exist only with four players; a room says so rather than echo a meaningless flag.
        check(self)
        if self.players != 4:
            self.teams = False
        # The room's document says whether its matches are rated, not a default to work out.
        if self.rated is None:
            self.rated = self.public
