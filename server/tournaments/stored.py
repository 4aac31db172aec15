"""The stored tournament: msgspec Structs, stored and sent as JSON or msgpack as they are, and
what a state says without changing (units, the finished tables, standings, the champion).

The commands that change it are in `state` (docs/tournaments.md).
"""

from __future__ import annotations

from typing import Annotated

import msgspec
from msgspec import Meta, Struct

from protocol.messages import MAX_NAME_LENGTH, MAX_ROOM_CODE_LENGTH
from protocol.ratings import GameId
from protocol.rules import Rules, TurnSeconds
from protocol.tournaments import MAX_ENTRANTS as MAX_ENTRANTS
from protocol.tournaments import MAX_SCORE as MAX_SCORE
from protocol.tournaments import MAX_SWISS_ROUNDS as MAX_SWISS_ROUNDS
from protocol.tournaments import MAX_TOURNAMENT_NAME as MAX_TOURNAMENT_NAME
from protocol.tournaments import Format as Format
from protocol.tournaments import Partners as Partners
from protocol.tournaments import Phase as Phase
from protocol.tournaments import TournamentName as TournamentName
from protocol.views import BotLevel
from server.tournaments.standings import Bye, Outcome, Standing, bye_points, standings

MAX_PLAYER_ID = 64
BOT_LEVELS = ("easy", "normal", "hard")

PlayerId = Annotated[str, Meta(min_length=1, max_length=MAX_PLAYER_ID)]
EntrantName = Annotated[str, Meta(min_length=1, max_length=MAX_NAME_LENGTH)]
RoomCode = Annotated[str, Meta(min_length=1, max_length=MAX_ROOM_CODE_LENGTH)]
Score = Annotated[int, Meta(ge=-MAX_SCORE, le=MAX_SCORE)]
Index = Annotated[int, Meta(ge=0, le=MAX_ENTRANTS * MAX_ENTRANTS)]


# -- the stored state --------------------------------------------------------------------------


class Entrant(Struct, kw_only=True, omit_defaults=True):
    """A person (`player` id) or a bot (`bot` level) in the tournament, by the name shown."""

    name: EntrantName
    player: PlayerId | None = None
    bot: BotLevel | None = None


class Table(Struct, kw_only=True, omit_defaults=True):
    """A table of a round: its seats (entrant numbers), its room once opened, its final scores
    by seat once finished, and its archived game's id once archived (a tournament stored
    before games were noted has none)."""

    seats: list[Index]
    room: RoomCode | None = None
    scores: list[Score] | None = None
    game: GameId | None = None


class Round(Struct, kw_only=True):
    """A round: its tables and the units that sit it out."""

    tables: list[Table]
    byes: list[Index]


class Tournament(Struct, kw_only=True):
    """A tournament as stored. `teams` (the units), `rounds` and `bracket` are set at the start."""

    name: TournamentName
    format: Format
    rules: Rules
    partners: Partners | None
    swiss_rounds: int | None
    public: bool
    host: PlayerId
    turn_seconds: TurnSeconds | None
    phase: Phase = "open"
    entrants: list[Entrant] = msgspec.field(default_factory=list)
    #: The units, each its entrants: a team of fixed partners, or one entrant.
    units: list[list[Index]] = msgspec.field(default_factory=list)
    #: How many rounds the tournament plays (elimination: the rounds of its bracket).
    planned: int = 0
    #: The rounds played and the one being played (the last).
    rounds: list[Round] = msgspec.field(default_factory=list)
    #: Elimination: the current round's slots, units in bracket order (None: an empty slot).
    bracket: list[Index | None] = msgspec.field(default_factory=list)

    @property
    def table_size(self) -> int:
        return self.rules.players

    @property
    def sides(self) -> int:
        """How many sides play at a table: 2 in partnerships, else one per seat."""
        return self.rules.sides


def encode_json(tournament: Tournament) -> bytes:
    return msgspec.json.encode(tournament)


def decode_json(data: bytes) -> Tournament:
    return msgspec.json.decode(data, type=Tournament)


def encode_msgpack(tournament: Tournament) -> bytes:
    return msgspec.msgpack.encode(tournament)


def decode_msgpack(data: bytes) -> Tournament:
    return msgspec.msgpack.decode(data, type=Tournament)


def copy_of(tournament: Tournament) -> Tournament:
    """A copy sharing nothing with `tournament` (a command changes only its copy)."""
    return decode_msgpack(encode_msgpack(tournament))


# -- what a state says --------------------------------------------------------------------------


def fixed_teams(count: int) -> list[list[int]]:
    """Fixed partners' teams of `count` entrants, in join order: the 1st and 2nd, the 3rd and
    4th, and so on; with an odd count the last is alone (it waits for a partner)."""
    return [list(range(first, min(first + 2, count))) for first in range(0, count, 2)]


def unit_of(tournament: Tournament) -> dict[int, int]:
    """Each entrant's unit (once started)."""
    return {entrant: unit for unit, members in enumerate(tournament.units) for entrant in members}


def elimination_sides(tournament: Tournament, table: Table) -> tuple[int, int]:
    """An elimination table's winner and loser (units): the higher score wins, a tie goes to the
    better seed, who sits first (`pairing.elimination_draw`)."""
    assert table.scores is not None
    unit = unit_of(tournament)
    first, second = unit[table.seats[0]], unit[table.seats[1]]
    if table.scores[1] > table.scores[0]:
        return second, first
    return first, second


def went_out(tournament: Tournament) -> dict[int, int]:
    """Elimination: each beaten unit and the round it went out in (1 is the first); the units
    still in are not there. Empty in the other formats."""
    if tournament.format != "elimination":
        return {}
    return {
        elimination_sides(tournament, table)[1]: number
        for number, played in enumerate(tournament.rounds, start=1)
        for table in played.tables
        if table.scores is not None
    }


def outcomes(tournament: Tournament) -> list[Outcome | Bye]:
    """Every finished table and every bye so far, as the standings count them."""
    units = unit_of(tournament)
    found: list[Outcome | Bye] = []
    for played in tournament.rounds:
        found += [Bye(unit=unit, points=bye_points(tournament.sides)) for unit in played.byes]
        for table in played.tables:
            if table.scores is None:
                continue
            seats, scores = table.seats, table.scores
            if tournament.rules.partnership:
                sides = [
                    sorted({units[seats[0]], units[seats[2]]}),
                    sorted({units[seats[1]], units[seats[3]]}),
                ]
                found.append(Outcome(sides=sides, scores=[scores[0], scores[1]]))
            else:
                found.append(Outcome(sides=[[units[seat]] for seat in seats], scores=scores))
    return found


def current_standings(tournament: Tournament) -> list[Standing]:
    """The standings of the units now (standings.py), best first."""
    return standings(len(tournament.units), outcomes(tournament))


def champion(tournament: Tournament) -> int | None:
    """The winning unit of a finished tournament: the last one standing in elimination, else the
    top of the standings."""
    if tournament.phase != "finished":
        return None
    if tournament.format == "elimination":
        return tournament.bracket[0]
    return current_standings(tournament)[0].unit
