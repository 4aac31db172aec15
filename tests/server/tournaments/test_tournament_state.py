"""A tournament's stored state and its commands (server/tournaments/state.py, stored.py).

Every refused command leaves the encoded state byte for byte as it was; a table's result told
twice counts once; the next round begins as the last table of a round finishes and the
tournament ends after its last; the same commands give the same state; the state round-trips
through JSON and msgpack. A state machine drives random commands, good and bad, through every
format and table size and checks the invariants after each.
"""

from __future__ import annotations

import random
from collections import Counter
from itertools import combinations

import pytest
from hypothesis import event, given, settings
from hypothesis import strategies as st
from hypothesis.stateful import RuleBasedStateMachine, initialize, invariant, rule
from protocol_helpers import examples

from protocol.errors import (
    ALREADY_HERE,
    INVALID,
    NAME_TAKEN,
    NOT_HOST,
    NOT_IN_ROOM,
    ROOM_FULL,
    TOO_FEW_ENTRANTS,
    WRONG_PHASE,
)
from protocol.rules import RoomRules, Rules
from server.tournaments.state import (
    AnyCommand,
    Create,
    Join,
    Leave,
    Start,
    TableFinished,
    TableLost,
    TableOpened,
    TournamentError,
    apply,
)
from server.tournaments.stored import (
    MAX_ENTRANTS,
    Round,
    Tournament,
    champion,
    current_standings,
    decode_json,
    decode_msgpack,
    encode_json,
    encode_msgpack,
    unit_of,
)

HOST = "host-id"

#: Every kind of tournament: format, table size, partners, whether four play in teams.
KINDS = [
    ("round_robin", 2, None, True),
    ("round_robin", 3, None, True),
    ("round_robin", 4, "rotating", True),
    ("round_robin", 4, "fixed", True),
    ("round_robin", 4, None, False),
    ("swiss", 2, None, True),
    ("swiss", 3, None, True),
    ("swiss", 4, "rotating", True),
    ("swiss", 4, "fixed", True),
    ("swiss", 4, None, False),
    ("elimination", 2, None, True),
    ("elimination", 4, "fixed", True),
]


def create_command(kind: tuple[str, int, str | None, bool], rounds: int = 3) -> Create:
    fmt, size, partners, teams = kind
    return Create(
        name="Friday cup",
        format=fmt,  # type: ignore[arg-type]
        table_size=size,
        rules=Rules(players=size, teams=teams),
        host=HOST,
        partners=partners,  # type: ignore[arg-type]
        swiss_rounds=rounds if fmt == "swiss" else None,
    )


def made(kind: tuple[str, int, str | None, bool], entrants: int, rounds: int = 3) -> Tournament:
    state = apply(None, create_command(kind, rounds))
    for number in range(entrants):
        state = apply(state, Join(by=f"p{number}", name=f"Player {number}"))
    return state


def refused(state: Tournament, command: AnyCommand, code: str) -> TournamentError:
    """Apply a command that must be refused with `code`, and check that nothing changed."""
    before = encode_json(state)
    with pytest.raises(TournamentError) as caught:
        apply(state, command)
    assert caught.value.code == code, caught.value.message
    assert caught.value.message
    assert encode_json(state) == before
    return caught.value


def fair_scores(state: Tournament, chance: random.Random) -> list[int]:
    scores = [chance.randrange(0, 300, 5) for _ in range(state.table_size)]
    if state.rules.partnership:
        scores[2], scores[3] = scores[0], scores[1]
    return scores


def play_round(state: Tournament, chance: random.Random) -> Tournament:
    """Open and finish every table of the current round."""
    index = len(state.rounds) - 1
    for number in range(len(state.rounds[index].tables)):
        state = apply(state, TableOpened(round=index, table=number, room=f"r{index}-{number}"))
        scores = fair_scores(state, chance)
        state = apply(state, TableFinished(round=index, table=number, scores=scores))
    return state


def winners(state: Tournament, played: Round) -> set[int]:
    """The units a finished elimination round sends on: the byes, and each table's higher score
    (a tie: the better seed, the lower unit)."""
    unit = unit_of(state)
    found = set(played.byes)
    for table in played.tables:
        assert table.scores is not None
        first, second = unit[table.seats[0]], unit[table.seats[1]]
        found.add(second if table.scores[1] > table.scores[0] else first)
    return found


def check_invariants(state: Tournament) -> None:
    assert len(state.entrants) <= MAX_ENTRANTS
    players = [entrant.player for entrant in state.entrants if entrant.player is not None]
    assert len(players) == len(set(players))
    assert len({entrant.name for entrant in state.entrants}) == len(state.entrants)
    assert decode_json(encode_json(state)) == state
    assert decode_msgpack(encode_msgpack(state)) == state
    if state.phase == "open":
        assert state.rounds == [] and state.units == []
        return
    assert sorted(e for unit in state.units for e in unit) == list(range(len(state.entrants)))
    unit = unit_of(state)
    assert 1 <= len(state.rounds) <= state.planned
    # Each unit in play is seated once a round, or has a bye: all of them, or in elimination
    # the winners of the round before.
    in_play = set(range(len(state.units)))
    for number, played in enumerate(state.rounds):
        seated = [unit[seat] for table in played.tables for seat in table.seats]
        if state.partners == "fixed":
            seated = sorted(set(seated))
        assert sorted(seated + played.byes) == sorted(in_play)
        if state.format == "elimination" and number < len(state.rounds) - 1:
            in_play = winners(state, played)
        assert all(len(table.seats) == state.table_size for table in played.tables)
        last = number == len(state.rounds) - 1
        finished = [table.scores is not None for table in played.tables]
        if not last or state.phase == "finished":
            assert all(finished)
        else:
            assert not all(finished)
    assert (champion(state) is None) == (state.phase == "playing")


# -- create, join, leave, start -----------------------------------------------------------------


@pytest.mark.parametrize(
    ("changes", "says"),
    [
        ({"table_size": 3}, "table size"),
        ({"partners": "fixed"}, "partners play only"),
        ({"format": "swiss"}, "rounds"),
        ({"swiss_rounds": 3}, "only a Swiss"),
        ({"name": " "}, "blank"),
        ({"name": "x" * 49}, "1 to 48"),
        ({"turn_seconds": 2}, "turn clock"),
    ],
)
def test_create_refuses_settings_that_do_not_fit(changes: dict[str, object], says: str) -> None:
    fields = {"name": "Cup", "format": "round_robin", "table_size": 2, "host": HOST}
    command = Create(**{**fields, **changes}, rules=Rules(players=2))  # type: ignore[arg-type]
    with pytest.raises(TournamentError) as caught:
        apply(None, command)
    assert caught.value.code == INVALID and says in caught.value.message


def test_create_refuses_elimination_of_groups_and_teams_without_partners() -> None:
    with pytest.raises(TournamentError, match="two sides"):
        apply(None, create_command(("elimination", 3, None, True)))
    with pytest.raises(TournamentError, match="fixed or rotating"):
        apply(None, create_command(("swiss", 4, None, True)))


def test_the_rules_of_every_match_are_stored_without_a_rooms_options() -> None:
    command = create_command(("swiss", 3, None, True))
    command.rules = RoomRules(players=3, target=150, turn_seconds=30, public=False)
    state = apply(None, command)
    assert type(state.rules) is Rules and state.rules == Rules(players=3, teams=False, target=150)
    assert decode_msgpack(encode_msgpack(state)) == state


def test_joining_checks_the_name_the_person_and_the_room() -> None:
    state = made(("round_robin", 2, None, True), 2)
    error = refused(state, Join(by="p0", name="Another"), INVALID)
    assert error.reason == ALREADY_HERE
    # "P1ayer 0" written with a Cyrillic "а" reads as "Player 0".
    error = refused(state, Join(by="p9", name="Plаyer 0"), INVALID)
    assert error.reason == NAME_TAKEN
    refused(state, Join(by="p9", name="bot:hard"), INVALID)
    refused(state, Join(by="p9", name="x" * 25), INVALID)
    refused(state, Join(by="p9"), INVALID)
    refused(state, Join(by="p9", bot="hard"), NOT_HOST)
    state = apply(apply(state, Join(by=HOST, bot="hard")), Join(by=HOST, bot="hard"))
    assert [entrant.name for entrant in state.entrants[2:]] == ["bot:hard 1", "bot:hard 2"]
    full = made(("round_robin", 2, None, True), MAX_ENTRANTS)
    refused(full, Join(by="late", name="Late"), ROOM_FULL)


def test_leaving_before_the_start_only() -> None:
    state = apply(made(("round_robin", 2, None, True), 3), Join(by=HOST, bot="easy"))
    refused(state, Leave(by="stranger"), NOT_IN_ROOM)
    refused(state, Leave(by="p0", entrant=3), NOT_HOST)
    refused(state, Leave(by=HOST, entrant=9), INVALID)
    state = apply(state, Leave(by=HOST, entrant=3))
    state = apply(state, Leave(by="p1"))
    assert [entrant.name for entrant in state.entrants] == ["Player 0", "Player 2"]
    started = apply(state, Start(by=HOST))
    refused(started, Leave(by="p0"), WRONG_PHASE)
    refused(started, Join(by="p7", name="Late"), WRONG_PHASE)
    refused(started, Start(by=HOST), WRONG_PHASE)


def test_starting_needs_the_host_and_enough_entrants() -> None:
    refused(made(("round_robin", 2, None, True), 2), Start(by="p0"), NOT_HOST)
    too_few = [
        made(("round_robin", 2, None, True), 1),
        made(("swiss", 3, None, True), 2),
        made(("swiss", 4, "fixed", True), 5),
        made(("swiss", 4, "rotating", True), 3),
    ]
    for state in too_few:  # the clients word the reason: how many it takes
        assert refused(state, Start(by=HOST), INVALID).reason == TOO_FEW_ENTRANTS
    state = apply(made(("swiss", 4, "fixed", True), 6), Start(by=HOST))
    assert state.units == [[0, 1], [2, 3], [4, 5]]
    # Two teams play, the third sits out; partners sit across (seats 0 and 2).
    table = state.rounds[0].tables[0]
    assert state.rounds[0].byes == [2] and table.seats == [0, 2, 1, 3]


# -- tables -------------------------------------------------------------------------------------


def test_a_result_is_refused_for_an_unknown_or_unopened_table_and_counts_once() -> None:
    state = apply(made(("swiss", 2, None, True), 4, rounds=2), Start(by=HOST))
    refused(state, TableFinished(round=0, table=0, scores=[250, 100]), INVALID)  # not opened
    refused(state, TableFinished(round=0, table=5, scores=[250, 100]), INVALID)
    refused(state, TableFinished(round=3, table=0, scores=[250, 100]), INVALID)
    refused(state, TableOpened(round=0, table=7, room="r1"), INVALID)
    state = apply(state, TableOpened(round=0, table=0, room="r1"))
    assert apply(state, TableOpened(round=0, table=0, room="r1")) == state
    refused(state, TableOpened(round=0, table=0, room="r2"), INVALID)
    refused(state, TableOpened(round=0, table=1, room="r1"), INVALID)
    refused(state, TableFinished(round=0, table=0, scores=[250]), INVALID)
    refused(state, TableFinished(round=0, table=0, scores=[250, 10**6]), INVALID)
    state = apply(state, TableFinished(round=0, table=0, scores=[250, 100]))
    again = apply(state, TableFinished(round=0, table=0, scores=[250, 100]))
    assert encode_json(again) == encode_json(state)
    assert sum(line.match_points for line in current_standings(again)) == 2
    refused(state, TableFinished(round=0, table=0, scores=[100, 250]), INVALID)


def test_a_tables_game_is_noted_with_its_result_or_later_and_only_one() -> None:
    state = apply(made(("swiss", 2, None, True), 4, rounds=2), Start(by=HOST))
    for table in (0, 1):
        state = apply(state, TableOpened(round=0, table=table, room=f"r{table}"))
    state = apply(state, TableFinished(round=0, table=0, scores=[250, 100], game="g-0"))
    assert state.rounds[0].tables[0].game == "g-0"
    # The last table's result draws the next round before its game is archived ...
    state = apply(state, TableFinished(round=0, table=1, scores=[90, 250]))
    assert len(state.rounds) == 2 and state.rounds[0].tables[1].game is None
    # ... and the game noted later changes that table alone, once.
    later = apply(state, TableFinished(round=0, table=1, scores=[90, 250], game="g_1"))
    assert later.rounds[0].tables[1].game == "g_1"
    assert encode_json(apply(later, TableFinished(round=0, table=1, scores=[90, 250]))) == (
        encode_json(later)
    )
    assert current_standings(later) == current_standings(state)
    assert len(later.rounds) == 2
    refused(later, TableFinished(round=0, table=1, scores=[90, 250], game="other"), INVALID)
    refused(state, TableFinished(round=0, table=1, scores=[250, 90], game="g_1"), INVALID)
    refused(state, TableFinished(round=0, table=1, scores=[90, 250], game="no/slash"), INVALID)


def test_a_tables_lost_room_is_forgotten_so_the_table_is_opened_again() -> None:
    state = apply(made(("swiss", 2, None, True), 4, rounds=2), Start(by=HOST))
    refused(state, TableLost(round=0, table=7, room="r1"), INVALID)
    refused(state, TableLost(round=2, table=0, room="r1"), INVALID)  # no such round
    for table in (0, 1):
        state = apply(state, TableOpened(round=0, table=table, room=f"r{table}"))
    # Told of a room the table does not play in: nothing changes.
    assert encode_json(apply(state, TableLost(round=0, table=0, room="r1"))) == encode_json(state)
    lost = apply(state, TableLost(round=0, table=0, room="r0"))
    assert lost.rounds[0].tables[0].room is None and lost.rounds[0].tables[1].room == "r1"
    assert encode_json(apply(lost, TableLost(round=0, table=0, room="r0"))) == encode_json(lost)
    refused(lost, TableFinished(round=0, table=0, scores=[250, 100]), INVALID)  # no room now
    again = apply(lost, TableOpened(round=0, table=0, room="r2"))
    assert again.rounds[0].tables[0].room == "r2"
    # A table that finished keeps its result, its room gone or not; a round over is refused.
    done = apply(again, TableFinished(round=0, table=0, scores=[250, 100]))
    assert encode_json(apply(done, TableLost(round=0, table=0, room="r2"))) == encode_json(done)
    done = apply(done, TableFinished(round=0, table=1, scores=[250, 100]))
    assert len(done.rounds) == 2
    # Told late, of a round that is over: nothing changes (another step got there first).
    assert encode_json(apply(done, TableLost(round=0, table=1, room="r1"))) == encode_json(done)
    opening = made(("swiss", 2, None, True), 4, rounds=2)
    refused(opening, TableLost(round=0, table=0, room="r1"), WRONG_PHASE)


def test_a_tournament_stored_before_games_were_noted_still_loads() -> None:
    state = apply(made(("swiss", 2, None, True), 2, rounds=1), Start(by=HOST))
    state = apply(state, TableOpened(round=0, table=0, room="r0"))
    state = apply(state, TableFinished(round=0, table=0, scores=[250, 100]))
    stored = encode_json(state)
    assert b'"game"' not in stored  # as a tournament was stored before
    assert decode_json(stored) == state and decode_json(stored).rounds[0].tables[0].game is None


def test_partners_share_a_score() -> None:
    state = apply(made(("round_robin", 4, "rotating", True), 4), Start(by=HOST))
    state = apply(state, TableOpened(round=0, table=0, room="r"))
    refused(state, TableFinished(round=0, table=0, scores=[200, 100, 150, 100]), INVALID)
    state = apply(state, TableFinished(round=0, table=0, scores=[200, 100, 200, 100]))
    seats = state.rounds[0].tables[0].seats
    points = {line.unit: line.match_points for line in current_standings(state)}
    assert [points[seat] for seat in seats] == [2, 0, 2, 0]


@settings(max_examples=examples(30), deadline=None)
@given(st.integers(2, 12), st.randoms(use_true_random=False))
def test_a_round_robin_plays_every_pair_once_then_ends(count: int, chance: random.Random) -> None:
    state = apply(made(("round_robin", 2, None, True), count), Start(by=HOST))
    while state.phase == "playing":
        before = len(state.rounds)
        state = play_round(state, chance)
        # The round's last table drew the next round, or ended the tournament.
        assert len(state.rounds) == before + 1 or state.phase == "finished"
    met = Counter(tuple(sorted(table.seats)) for played in state.rounds for table in played.tables)
    assert met == Counter(combinations(range(count), 2))
    assert len(state.rounds) == state.planned
    assert champion(state) == current_standings(state)[0].unit


@settings(max_examples=examples(30), deadline=None)
@given(st.integers(2, 20), st.booleans(), st.randoms(use_true_random=False))
def test_elimination_ends_with_the_last_one_standing(
    count: int, teams: bool, chance: random.Random
) -> None:
    kind = ("elimination", 4, "fixed", True) if teams else ("elimination", 2, None, True)
    state = apply(made(kind, 2 * count if teams else count), Start(by=HOST))
    alive = set(range(count))
    while state.phase == "playing":
        number = len(state.rounds) - 1
        state = play_round(state, chance)
        advanced = winners(state, state.rounds[number])
        assert advanced < alive
        if state.phase == "playing":
            seated = {seat for table in state.rounds[-1].tables for seat in table.seats}
            assert {unit_of(state)[seat] for seat in seated} | set(
                state.rounds[-1].byes
            ) == advanced
        alive = advanced
    assert alive == {champion(state)}
    assert len(state.rounds) == state.planned


@pytest.mark.parametrize("kind", KINDS, ids=lambda kind: "-".join(map(str, kind)))
def test_every_kind_plays_to_its_end(kind: tuple[str, int, str | None, bool]) -> None:
    chance = random.Random(47)
    state = apply(made(kind, 10, rounds=4), Start(by=HOST))
    while state.phase == "playing":
        check_invariants(state)
        state = play_round(state, chance)
    check_invariants(state)
    assert len(state.rounds) == state.planned
    assert champion(state) is not None
    refused(state, TableOpened(round=0, table=0, room="late"), WRONG_PHASE)


def test_sixty_four_entrants_play_a_swiss_of_tables_of_four() -> None:
    chance = random.Random(64)
    state = apply(made(("swiss", 4, "rotating", True), 64, rounds=5), Start(by=HOST))
    while state.phase == "playing":
        state = play_round(state, chance)
    check_invariants(state)
    partnered = Counter(
        tuple(sorted((table.seats[a], table.seats[a + 2])))
        for played in state.rounds
        for table in played.tables
        for a in (0, 1)
    )
    assert max(partnered.values()) == 1


# -- random commands ----------------------------------------------------------------------------

PLAYERS = [HOST, *(f"p{number}" for number in range(10))]
NAMES = ["Ann", "Аnn", "Bob", "B0b", "Zedjbź", "bot:x", "Eve", "Dan", "Kim", "Lee", "Max", "Ola"]


class Tournaments(RuleBasedStateMachine):
    """Random commands, good and bad, to a tournament of a random kind."""

    def __init__(self) -> None:
        super().__init__()
        self.state: Tournament | None = None
        self.applied: list[AnyCommand] = []

    def send(self, command: AnyCommand) -> None:
        before = encode_json(self.state) if self.state is not None else b""
        try:
            self.state = apply(self.state, command)
        except TournamentError:
            assert self.state is not None
            assert encode_json(self.state) == before
            return
        self.applied.append(command)

    @initialize(kind=st.sampled_from(KINDS), rounds=st.integers(1, 4))
    def create(self, kind: tuple[str, int, str | None, bool], rounds: int) -> None:
        self.send(create_command(kind, rounds))

    @rule(by=st.sampled_from(PLAYERS), name=st.sampled_from(NAMES))
    def join(self, by: str, name: str) -> None:
        self.send(Join(by=by, name=name))

    @rule(by=st.sampled_from(PLAYERS), level=st.sampled_from(["easy", "normal", "hard"]))
    def add_bot(self, by: str, level: str) -> None:
        self.send(Join(by=by, bot=level))  # type: ignore[arg-type]

    @rule(by=st.sampled_from(PLAYERS), entrant=st.none() | st.integers(0, 12))
    def leave(self, by: str, entrant: int | None) -> None:
        self.send(Leave(by=by, entrant=entrant))

    @rule(by=st.sampled_from(PLAYERS))
    def start(self, by: str) -> None:
        self.send(Start(by=by))

    @rule(data=st.data(), valid=st.booleans())
    def open_table(self, data: st.DataObject, valid: bool) -> None:
        assert self.state is not None
        last = len(self.state.rounds) - 1
        tables = len(self.state.rounds[-1].tables) if self.state.rounds else 0
        if valid and tables:
            index, table = last, data.draw(st.integers(0, tables - 1))
        else:
            index, table = data.draw(st.integers(0, last + 2)), data.draw(st.integers(0, 9))
        self.send(TableOpened(round=index, table=table, room=f"r{index}-{table}"))

    @rule(data=st.data(), valid=st.booleans())
    def finish_table(self, data: st.DataObject, valid: bool) -> None:
        assert self.state is not None
        state = self.state
        if valid and state.rounds:
            index = data.draw(st.integers(0, len(state.rounds) - 1))
            table = data.draw(st.integers(0, len(state.rounds[index].tables) - 1))
            told = state.rounds[index].tables[table].scores
            scores = told if told is not None else fair_scores(state, random.Random(table))
            counted = encode_json(state)
            self.send(TableFinished(round=index, table=table, scores=scores))
            if told is not None:
                assert encode_json(self.state) == counted  # told twice: counted once
            return
        index, table = data.draw(st.integers(0, 3)), data.draw(st.integers(0, 9))
        size = data.draw(st.integers(1, 5))
        scores = data.draw(st.lists(st.integers(-5, 300), min_size=size, max_size=size))
        self.send(TableFinished(round=index, table=table, scores=scores))

    @rule(data=st.data(), same_room=st.booleans())
    def lose_table(self, data: st.DataObject, same_room: bool) -> None:
        assert self.state is not None
        state = self.state
        if not state.rounds:
            self.send(TableLost(round=0, table=0, room="r0-0"))
            return
        index = len(state.rounds) - 1
        table = data.draw(st.integers(0, len(state.rounds[index].tables) - 1))
        held = state.rounds[index].tables[table]
        room = held.room if same_room and held.room is not None else "elsewhere"
        self.send(TableLost(round=index, table=table, room=room))
        after = self.state.rounds[index].tables[table]
        if held.room == room and held.scores is None and state.phase == "playing":
            assert after.room is None  # opened again by the next step
        else:
            assert encode_json(self.state) == encode_json(state)

    @invariant()
    def keeps_its_invariants(self) -> None:
        if self.state is not None:
            check_invariants(self.state)
            event(f"phase {self.state.phase}")

    def teardown(self) -> None:
        # The same commands again give the same state, byte for byte.
        again: Tournament | None = None
        for command in self.applied:
            again = apply(again, command)
        if self.state is not None:
            assert again is not None and encode_json(again) == encode_json(self.state)


Tournaments.TestCase.settings = settings(
    max_examples=examples(60), stateful_step_count=60, deadline=None
)
test_random_commands_keep_the_invariants = Tournaments.TestCase
