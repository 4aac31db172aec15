"""The game variants of docs/rules.md as one struct, shared by records, rooms and views."""

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


class Rules(Struct, kw_only=True, omit_defaults=True):
    """The variants of a match (docs/rules.md); every field but `players` has the default of docs/rules.md."""

    players: PlayerCount
    teams: bool = True
    hand_size: HandSize = "standard"
    target: TargetScore | None = None
    end_scoring: EndScoring = "opponents"
    reserve: Reserve = 0

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
        if self.players != 4:
            self.teams = False
        # The room's document says whether its matches are rated, not a default to work out.
        if self.rated is None:
            self.rated = self.public
