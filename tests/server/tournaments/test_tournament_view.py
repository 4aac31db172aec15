"""A tournament's public view (server/tournaments/view.py): for every kind of tournament played
to its end, after each round the view sent in a `tournament` message is taken by a client
within the protocol's bounds, shows the standings of the state and no player id, and tells
each entrant the room of their own table while it plays."""

from __future__ import annotations

import random

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from test_tournament_state import HOST, KINDS, made, play_round, winners

from protocol.messages import decode_server, encode
from protocol.tournaments import MAX_ENTRANTS, TournamentUpdate
from server.tournaments.state import Start, TableFinished, TableOpened, apply
from server.tournaments.stored import Tournament, champion, current_standings
from server.tournaments.view import entrant_of, public_view, table_of


def sent(state: Tournament, version: int) -> TournamentUpdate:
    """The `tournament` message a client gets, as it decodes it."""
    view = public_view(state, code="QWRTZ", version=version, host="Host", private_games=False)
    update = TournamentUpdate(tournament="QWRTZ", state=view, you=0, table=table_of(state, 0))
    frame = encode(update)
    assert b"host-id" not in frame and b'"p1"' not in frame  # no player id
    decoded = decode_server(frame)
    assert decoded == update
    assert isinstance(decoded, TournamentUpdate)
    return decoded


def check(state: Tournament, version: int) -> None:
    view = sent(state, version).state
    assert view.phase == state.phase and view.version == version
    assert [entrant.name for entrant in view.entrants] == [e.name for e in state.entrants]
    if state.phase == "open":
        assert view.standings == [] and view.rounds == []
        return
    shown = [(line.unit, line.match_points, line.buchholz, line.score) for line in view.standings]
    counted = [
        (line.unit, line.match_points, line.buchholz, line.score)
        for line in current_standings(state)
    ]
    if state.format == "elimination":  # the same lines, in the bracket's order (tested below)
        assert sorted(shown) == sorted(counted)
    else:
        assert shown == counted
        assert all(line.out_in_round is None for line in view.standings)
    assert len(view.rounds) == len(state.rounds) and view.rounds_planned == state.planned


@pytest.mark.parametrize("kind", KINDS, ids=lambda kind: "-".join(map(str, kind)))
def test_every_kind_is_shown_within_bounds_round_after_round(
    kind: tuple[str, int, str | None, bool],
) -> None:
    chance = random.Random(7)
    # At the bound for two kinds (the most tables a round, the most byes); the others at 12.
    largest = kind in (KINDS[7], KINDS[10])
    state = made(kind, MAX_ENTRANTS if largest else 12, rounds=20)
    check(state, 1)
    state = apply(state, Start(by=HOST))
    version = 2
    while state.phase == "playing":
        check(state, version)
        index = len(state.rounds) - 1
        for number, table in enumerate(state.rounds[index].tables):
            first = table.seats[0]
            assert table_of(state, first) is None  # not opened yet
            room = f"R{index}-{number}"
            state = apply(state, TableOpened(round=index, table=number, room=room))
            assert table_of(state, first) == room
            scores = [chance.randrange(0, 300, 5) for _ in table.seats]
            if state.rules.partnership:
                scores[2], scores[3] = scores[0], scores[1]
            state = apply(state, TableFinished(round=index, table=number, scores=scores))
            assert table_of(state, first) != room  # finished: no longer that table
            version += 2
    check(state, version)
    view = sent(state, version).state
    assert view.champion is not None and view.phase == "finished"


def test_a_player_is_found_by_id_and_a_guest_is_nobody() -> None:
    state = made(KINDS[0], 4)
    assert entrant_of(state, "p2") == 2
    assert entrant_of(state, "someone") is None and entrant_of(state, None) is None
    assert table_of(state, 2) is None


def test_private_games_are_shown_only_to_the_entrants_of_their_table() -> None:
    state = apply(made(KINDS[0], 4), Start(by=HOST))
    for number in range(len(state.rounds[0].tables)):
        state = apply(state, TableOpened(round=0, table=number, room=f"R{number}"))
        done = TableFinished(round=0, table=number, scores=[100, 50], game=f"game{number}")
        state = apply(state, done)
    first, second = state.rounds[0].tables[:2]

    def games(private: bool, viewer: int | None) -> list[str | None]:
        view = public_view(
            state, code="QWRTZ", version=9, host="Host", private_games=private, viewer=viewer
        )
        return [table.game for table in view.rounds[0].tables]

    assert games(False, None) == ["game0", "game1"]  # public games: to anyone
    assert games(True, None) == [None, None]
    assert games(True, first.seats[1]) == ["game0", None]
    assert games(True, second.seats[0]) == [None, "game1"]


@settings(max_examples=30, deadline=None)
@given(st.integers(2, 20), st.booleans(), st.randoms(use_true_random=False))
def test_elimination_standings_say_who_is_still_in_and_the_round_each_went_out(
    count: int, teams: bool, chance: random.Random
) -> None:
    kind = ("elimination", 4, "fixed", True) if teams else ("elimination", 2, None, True)
    state = apply(made(kind, 2 * count if teams else count), Start(by=HOST))
    alive = set(range(count))
    out: dict[int, int] = {}
    while state.phase == "playing":
        number = len(state.rounds)
        state = play_round(state, chance)
        advanced = winners(state, state.rounds[number - 1])
        out |= {unit: number for unit in alive - advanced}
        alive = advanced
        lines = sent(state, number + 1).state.standings
        assert {line.unit: line.out_in_round for line in lines} == {
            unit: out.get(unit) for unit in range(count)
        }
        # Those still in first, then who went out, the later the higher.
        went = [number + 1 if line.out_in_round is None else line.out_in_round for line in lines]
        assert went == sorted(went, reverse=True)
    assert sent(state, 0).state.standings[0].unit == champion(state)


@given(st.integers(0, 12), st.sampled_from(KINDS))
def test_before_the_start_fixed_partners_are_shown_as_the_teams_they_make(
    count: int, kind: tuple[str, int, str | None, bool]
) -> None:
    """The 1st and 2nd to enter, the 3rd and 4th: the view's units before the start, the last
    alone while it waits; the start keeps those teams. Other kinds have no units till then."""
    state = made(kind, count)
    units = sent(state, 1).state.units
    if kind[2] != "fixed":
        assert units == []
        return
    assert [entrant for unit in units for entrant in unit] == list(range(count))
    assert all(len(unit) == 2 for unit in units[:-1])
    assert not units or len(units[-1]) == 2 - count % 2
    if count >= 4 and count % 2 == 0:
        assert sent(apply(state, Start(by=HOST)), 2).state.units == units
