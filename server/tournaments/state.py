"""A tournament's commands, pure: each takes the stored state (`stored`) and gives a new one.

Each command (`Create`, `Join`, `Leave`, `Start`, `TableOpened`, `TableLost`, `TableFinished`) is
applied by
`apply`, which checks it whole first and then changes a copy: a refused command raises
`TournamentError` (a protocol error code, a sentence for people) and the state it was given is
the same, byte for byte. The next round is drawn as the last table of a round finishes, and the
tournament ends after its last round. The same commands give the same state every time:
nothing here reads a clock, draws at random or does I/O (tests/test_layers.py).

Units: the competitors paired and ranked. With fixed partners a unit is a team (entrants
0+1, 2+3, ... in join order), otherwise one entrant. A table's seats are entrants; with
partners, seats 0+2 and 1+3 play together (docs/rules.md). docs/tournaments.md tells the rest.
"""

from __future__ import annotations

import re
from collections import Counter

from msgspec import Struct

from protocol.errors import (
    ALREADY_HERE,
    INVALID,
    NAME_TAKEN,
    NOT_HOST,
    NOT_IN_ROOM,
    ROOM_FULL,
    TOO_FEW_ENTRANTS,
    WRONG_PHASE,
    ProtocolError,
)
from protocol.messages import MAX_NAME_LENGTH, MAX_ROOM_CODE_LENGTH
from protocol.names import name_key, name_problem
from protocol.ratings import GAME_ID_PATTERN
from protocol.rules import Rules, TurnSeconds
from protocol.views import BotLevel
from server.tournaments import pairing
from server.tournaments.stored import (
    BOT_LEVELS,
    MAX_ENTRANTS,
    MAX_PLAYER_ID,
    MAX_SCORE,
    MAX_SWISS_ROUNDS,
    MAX_TOURNAMENT_NAME,
    Entrant,
    EntrantName,
    Format,
    Index,
    Partners,
    PlayerId,
    RoomCode,
    Round,
    Score,
    Table,
    Tournament,
    TournamentName,
    copy_of,
    current_standings,
    elimination_sides,
    fixed_teams,
    unit_of,
)

#: What a game's id may be (the archive's, protocol/ratings.py).
GAME_ID = re.compile(GAME_ID_PATTERN)


class TournamentError(ProtocolError):
    """A refused command: `code` (protocol/errors.py), `message` (why, for people), and `reason`
    (a protocol reason, language-neutral) where one fits."""

    def __init__(self, code: str, message: str, reason: str | None = None) -> None:
        super().__init__(code, message)
        self.reason = reason


# -- the commands -------------------------------------------------------------------------------


class Command(Struct, kw_only=True, tag_field="command"):
    """A command to a tournament."""


class Create(Command, tag="create"):
    """Make a tournament; `table_size` must be the rules' players."""

    name: TournamentName
    format: Format
    table_size: int
    rules: Rules
    host: PlayerId
    partners: Partners | None = None
    swiss_rounds: int | None = None
    public: bool = True
    turn_seconds: TurnSeconds | None = None


class Join(Command, tag="join"):
    """`by` joins by `name`; or, with `bot`, the host adds a bot of that level."""

    by: PlayerId
    name: EntrantName | None = None
    bot: BotLevel | None = None


class Leave(Command, tag="leave"):
    """`by` leaves; or the host takes out `entrant` (before the start only)."""

    by: PlayerId
    entrant: Index | None = None


class Start(Command, tag="start"):
    """The host starts the tournament: the first round is drawn."""

    by: PlayerId


class TableOpened(Command, tag="table_opened"):
    """The server tells which room a table of the current round plays in."""

    round: Index
    table: Index
    room: RoomCode


class TableLost(Command, tag="table_lost"):
    """The server found the room of an unfinished table of the current round gone (deleted from
    the store before its result was told): the table waits for a new room, dealt afresh."""

    round: Index
    table: Index
    room: RoomCode


class TableFinished(Command, tag="table_finished"):
    """The server tells a table's final scores, by seat, and its archived game's id once the
    archive has it (told again with the id, it is noted then)."""

    round: Index
    table: Index
    scores: list[Score]
    game: str | None = None


AnyCommand = Create | Join | Leave | Start | TableOpened | TableLost | TableFinished


def apply(tournament: Tournament | None, command: AnyCommand) -> Tournament:
    """The state after `command` (a new one; `tournament` is never changed), or TournamentError."""
    if isinstance(command, Create):
        if tournament is not None:
            raise TournamentError(INVALID, "this tournament exists already")
        return create(command)
    if tournament is None:
        raise TournamentError(INVALID, "no tournament: create one first")
    if isinstance(command, Join):
        return join(tournament, command)
    if isinstance(command, Leave):
        return leave(tournament, command)
    if isinstance(command, Start):
        return start(tournament, command)
    if isinstance(command, TableOpened):
        return table_opened(tournament, command)
    if isinstance(command, TableLost):
        return table_lost(tournament, command)
    return table_finished(tournament, command)


def _text_problem(text: str, longest: int, what: str) -> str | None:
    if not 1 <= len(text) <= longest:
        return f"{what} must be 1 to {longest} characters"
    if not text.strip() or not text.isprintable():
        return f"{what} must be printable and not blank"
    return None


def create(command: Create) -> Tournament:
    """A new tournament, open for entrants."""
    rules = command.rules
    problem = _text_problem(command.name, MAX_TOURNAMENT_NAME, "the name")
    if problem is None:
        problem = _text_problem(command.host, MAX_PLAYER_ID, "the host's id")
    if problem is None:
        problem = _settings_problem(command)
    if problem is not None:
        raise TournamentError(INVALID, problem)
    return Tournament(
        name=command.name,
        format=command.format,
        rules=rules.match_rules,  # a room's options (a RoomRules) are the tournament's own
        partners=command.partners,
        swiss_rounds=command.swiss_rounds,
        public=command.public,
        host=command.host,
        turn_seconds=command.turn_seconds,
    )


def _settings_problem(command: Create) -> str | None:
    rules = command.rules
    if command.format not in ("round_robin", "swiss", "elimination"):
        return f"no format {command.format!r}: round_robin, swiss or elimination"
    if command.table_size != rules.players:
        return f"the table size ({command.table_size}) must be the rules' players ({rules.players})"
    if rules.partnership and command.partners not in ("fixed", "rotating"):
        return "tables of four partners need fixed or rotating partners"
    if not rules.partnership and command.partners is not None:
        return "partners play only at tables of four in teams"
    two_sides = rules.players == 2 or command.partners == "fixed"
    if command.format == "elimination" and not two_sides:
        return "elimination is for tables of two sides: two players, or fixed partners"
    if command.format == "swiss":
        if command.swiss_rounds is None or not 1 <= command.swiss_rounds <= MAX_SWISS_ROUNDS:
            return f"a Swiss tournament needs 1 to {MAX_SWISS_ROUNDS} rounds"
    elif command.swiss_rounds is not None:
        return "only a Swiss tournament is told its rounds"
    if command.turn_seconds is not None and not 5 <= command.turn_seconds <= 3600:
        return "the turn clock is 5 to 3600 seconds"
    return None


def _must_be_open(tournament: Tournament, doing: str) -> None:
    if tournament.phase != "open":
        raise TournamentError(WRONG_PHASE, f"cannot {doing}: the tournament has started")


def join(tournament: Tournament, command: Join) -> Tournament:
    """Add a person, or (the host) a bot, before the start."""
    _must_be_open(tournament, "join")
    if len(tournament.entrants) >= MAX_ENTRANTS:
        raise TournamentError(ROOM_FULL, f"the tournament is full ({MAX_ENTRANTS} entrants)")
    if command.bot is not None:
        if command.by != tournament.host:
            raise TournamentError(NOT_HOST, "only the host adds bots")
        if command.bot not in BOT_LEVELS:
            raise TournamentError(INVALID, f"no bot level {command.bot!r}")
        entrant = Entrant(name=_bot_name(tournament, command.bot), bot=command.bot)
    else:
        entrant = Entrant(name=_person_name(tournament, command), player=command.by)
    changed = copy_of(tournament)
    changed.entrants.append(entrant)
    return changed


def _person_name(tournament: Tournament, command: Join) -> str:
    if _text_problem(command.by, MAX_PLAYER_ID, "a player id") is not None:
        raise TournamentError(INVALID, f"a player id is 1 to {MAX_PLAYER_ID} characters")
    if any(entrant.player == command.by for entrant in tournament.entrants):
        raise TournamentError(INVALID, "you are in this tournament already", ALREADY_HERE)
    name = command.name
    if name is None:
        raise TournamentError(INVALID, "a person joins by a name")
    problem = _text_problem(name, MAX_NAME_LENGTH, "a name")
    if problem is not None:
        raise TournamentError(INVALID, problem)
    if name_problem(name) is not None:
        raise TournamentError(INVALID, f"the name {name!r} cannot be read whole, or reads as a bot")
    key = name_key(name)
    if any(name_key(entrant.name) == key for entrant in tournament.entrants):
        raise TournamentError(INVALID, f"someone here goes by the name {name!r}", NAME_TAKEN)
    return name


def _bot_name(tournament: Tournament, level: str) -> str:
    """A bot entrant's one name, in the standings, at its tables and in its games' records:
    bot:LEVEL 1, 2, 3...: the first not in use. Always numbered, so it never reads as the bare
    "bot:LEVEL" that names an ordinary room's bot, which the tables show by its seat."""
    taken = {entrant.name for entrant in tournament.entrants}
    number = 1
    while (name := f"bot:{level} {number}") in taken:
        number += 1
    return name


def leave(tournament: Tournament, command: Leave) -> Tournament:
    """Take an entrant out before the start: the caller, or one the host names."""
    _must_be_open(tournament, "leave")
    if command.entrant is None:
        mine = [n for n, entrant in enumerate(tournament.entrants) if entrant.player == command.by]
        if not mine:
            raise TournamentError(NOT_IN_ROOM, "you are not in this tournament")
        gone = mine[0]
    else:
        gone = command.entrant
        if not 0 <= gone < len(tournament.entrants):
            raise TournamentError(INVALID, f"no entrant {gone}")
        if tournament.entrants[gone].player != command.by and command.by != tournament.host:
            raise TournamentError(NOT_HOST, "only the host takes out another entrant")
    changed = copy_of(tournament)
    del changed.entrants[gone]
    return changed


def least_entrants(tournament: Tournament) -> int:
    """How many entrants the tournament needs to start."""
    if tournament.partners == "fixed":
        return 4
    return max(2, tournament.table_size)


def start(tournament: Tournament, command: Start) -> Tournament:
    """The host starts: units formed, rounds planned, the first round drawn."""
    if command.by != tournament.host:
        raise TournamentError(NOT_HOST, "only the host starts the tournament")
    _must_be_open(tournament, "start")
    count = len(tournament.entrants)
    least = least_entrants(tournament)
    if count < least:
        said = f"{count} entrants: the tournament needs {least} or more"
        raise TournamentError(INVALID, said, TOO_FEW_ENTRANTS)
    if tournament.partners == "fixed" and count % 2:
        said = "fixed partners need an even number of entrants"
        raise TournamentError(INVALID, said, TOO_FEW_ENTRANTS)
    changed = copy_of(tournament)
    changed.phase = "playing"
    if tournament.partners == "fixed":
        changed.units = fixed_teams(count)
    else:
        changed.units = [[entrant] for entrant in range(count)]
    units = len(changed.units)
    if changed.format == "elimination":
        changed.bracket = list(pairing.first_bracket(units))
        changed.planned = len(changed.bracket).bit_length() - 1
    elif changed.format == "swiss":
        assert changed.swiss_rounds is not None
        changed.planned = changed.swiss_rounds
    elif _two_sides(changed):
        changed.planned = pairing.round_robin_rounds(units)
    else:
        # Each meets table_size - 1 others a round: enough rounds to meet everyone once at best.
        changed.planned = -(-(units - 1) // (changed.table_size - 1))
    changed.rounds.append(_draw(changed))
    return changed


def _two_sides(tournament: Tournament) -> bool:
    """Whether units are paired (two sides of one unit each) rather than grouped."""
    return tournament.table_size == 2 or tournament.partners == "fixed"


def _draw(tournament: Tournament) -> Round:
    """The next round of a started tournament."""
    index = len(tournament.rounds)
    units = len(tournament.units)
    met: Counter[tuple[int, int]] = Counter()
    partnered: Counter[tuple[int, int]] = Counter()
    byes_had: Counter[int] = Counter()
    unit = unit_of(tournament)
    for played in tournament.rounds:
        byes_had.update(played.byes)
        for table in played.tables:
            pairing.count_meetings([[unit[seat] for seat in table.seats]], met)
            if tournament.partners == "rotating":
                seats = table.seats
                partnered.update([pairing.pair_key(seats[0], seats[2])])
                partnered.update([pairing.pair_key(seats[1], seats[3])])
    if tournament.format == "elimination":
        draw = pairing.elimination_draw(tournament.bracket)
    elif tournament.format == "round_robin" and _two_sides(tournament):
        draw = pairing.round_robin(units, index)
    else:
        if tournament.format == "swiss":
            ranking = [line.unit for line in current_standings(tournament)]
        else:
            ranking = list(range(units))
        if _two_sides(tournament):
            draw = pairing.swiss_pairs(ranking, met, byes_had)
        else:
            rotating = partnered if tournament.partners == "rotating" else None
            draw = pairing.groups(ranking, tournament.table_size, met, byes_had, rotating)
    return Round(tables=[_seat(tournament, table) for table in draw.tables], byes=draw.byes)


def _seat(tournament: Tournament, table: list[int]) -> Table:
    """A table of units as seats of entrants: fixed partners sit across (seats 0+2, 1+3)."""
    if tournament.partners == "fixed":
        first, second = (tournament.units[unit] for unit in table)
        return Table(seats=[first[0], second[0], first[1], second[1]])
    return Table(seats=[tournament.units[unit][0] for unit in table])


def _table(tournament: Tournament, round_index: int, table_index: int) -> Table:
    if not 0 <= round_index < len(tournament.rounds):
        raise TournamentError(INVALID, f"no round {round_index} in this tournament yet")
    tables = tournament.rounds[round_index].tables
    if not 0 <= table_index < len(tables):
        raise TournamentError(INVALID, f"round {round_index} has no table {table_index}")
    return tables[table_index]


def table_opened(tournament: Tournament, command: TableOpened) -> Tournament:
    """Note the room a table of the current round plays in (told again, the same room: no change)."""
    if tournament.phase != "playing":
        raise TournamentError(WRONG_PHASE, "no round is being played")
    table = _table(tournament, command.round, command.table)
    if command.round != len(tournament.rounds) - 1:
        raise TournamentError(INVALID, f"round {command.round} is over")
    problem = _text_problem(command.room, MAX_ROOM_CODE_LENGTH, "a room code")
    if problem is not None:
        raise TournamentError(INVALID, problem)
    if table.room == command.room:
        return tournament
    if table.room is not None:
        raise TournamentError(INVALID, f"the table plays in room {table.room} already")
    if any(other.room == command.room for played in tournament.rounds for other in played.tables):
        raise TournamentError(INVALID, f"room {command.room} holds another table")
    changed = copy_of(tournament)
    changed.rounds[command.round].tables[command.table].room = command.room
    return changed


def table_lost(tournament: Tournament, command: TableLost) -> Tournament:
    """Forget the lost room of an unfinished table of the current round, so that the table is
    opened again in a new one. Told late (the table plays in another room, or finished, or its
    round or the tournament is over), it changes nothing: another step got there first."""
    if tournament.phase == "open":
        raise TournamentError(WRONG_PHASE, "the tournament has not started")
    table = _table(tournament, command.round, command.table)
    if (
        tournament.phase != "playing"
        or command.round != len(tournament.rounds) - 1
        or table.room != command.room
        or table.scores is not None
    ):
        return tournament
    changed = copy_of(tournament)
    changed.rounds[command.round].tables[command.table].room = None
    return changed


def table_finished(tournament: Tournament, command: TableFinished) -> Tournament:
    """Record a table's final scores (and its game's id, when told); the round's last one
    draws the next round or ends the tournament. Told again with the same scores, it counts
    once: only a game's id not noted yet changes it."""
    if tournament.phase == "open":
        raise TournamentError(WRONG_PHASE, "the tournament has not started")
    table = _table(tournament, command.round, command.table)
    game = command.game
    if game is not None and not GAME_ID.fullmatch(game):
        raise TournamentError(INVALID, "a game's id is 1 to 40 letters, digits, - and _")
    if table.scores is not None:
        if table.scores != command.scores:
            raise TournamentError(INVALID, "the table finished already, with other scores")
        if game is None or table.game == game:
            return tournament
        if table.game is not None:
            raise TournamentError(INVALID, "the table's game is noted already, another one")
        noted = copy_of(tournament)
        noted.rounds[command.round].tables[command.table].game = game
        return noted
    if table.room is None:
        raise TournamentError(INVALID, "the table has not been opened in a room")
    scores = command.scores
    if len(scores) != tournament.table_size:
        raise TournamentError(INVALID, f"{tournament.table_size} scores, one a seat, are expected")
    if any(not -MAX_SCORE <= score <= MAX_SCORE for score in scores):
        raise TournamentError(INVALID, f"a score is {-MAX_SCORE} to {MAX_SCORE}")
    if tournament.rules.partnership and (scores[0] != scores[2] or scores[1] != scores[3]):
        raise TournamentError(INVALID, "partners (seats 0 and 2, 1 and 3) share one score")
    changed = copy_of(tournament)
    finished = changed.rounds[command.round].tables[command.table]
    finished.scores = list(scores)
    finished.game = game
    current = changed.rounds[-1]
    if all(other.scores is not None for other in current.tables):
        _next_round(changed)
    return changed


def _next_round(tournament: Tournament) -> None:
    """After the last table of a round: the next round, or the end."""
    if tournament.format == "elimination":
        current = tournament.rounds[-1]
        winners = set(current.byes)
        winners.update(elimination_sides(tournament, table)[0] for table in current.tables)
        tournament.bracket = pairing.advance(tournament.bracket, winners)
        if len(tournament.bracket) == 1:
            tournament.phase = "finished"
            return
    elif len(tournament.rounds) >= tournament.planned:
        tournament.phase = "finished"
        return
    tournament.rounds.append(_draw(tournament))
