"""Tournament messages on the wire: what a client may send is bounded and checked as room
messages are, and a server's `tournament` message is refused by a client when it is out of
bounds (what a server sends is untrusted)."""

from __future__ import annotations

import json
from typing import Any

import msgspec
import pytest

from protocol.errors import INVALID, ProtocolError
from protocol.messages import decode_client, decode_server, encode
from protocol.rules import Rules
from protocol.tournaments import (
    MAX_ENTRANTS,
    CreateTournament,
    EntrantView,
    JoinTournament,
    StandingView,
    TournamentUpdate,
    TournamentView,
)


def create(**fields: Any) -> str:
    message = {"type": "create_tournament", "name": "Cup", "format": "swiss", "rounds": 3}
    return json.dumps({"rules": {"players": 2}, **message, **fields})


def refused(frame: str) -> ProtocolError:
    with pytest.raises(ProtocolError) as caught:
        decode_client(frame)
    return caught.value


def test_a_tournament_is_made_with_its_name_stripped_and_its_options() -> None:
    message = decode_client(create(name="  Friday cup ", bots=["easy", "hard"], id=3))
    assert isinstance(message, CreateTournament)
    assert (message.name, message.format, message.rounds) == ("Friday cup", "swiss", 3)
    assert message.bots == ["easy", "hard"] and message.rules.players == 2 and message.id == 3


@pytest.mark.parametrize(
    ("fields", "field_named"),
    [
        ({"name": ""}, "name"),
        ({"name": "   "}, "name"),
        ({"name": "x" * 49}, "name"),
        ({"name": "Cup\nnight"}, "name"),
        ({"name": "Cup\u200b"}, "name"),
        ({"format": "ladder"}, "format"),
        ({"rounds": 0}, "rounds"),
        ({"rounds": 21}, "rounds"),
        ({"partners": "random"}, "partners"),
        ({"bots": ["easy"] * (MAX_ENTRANTS + 1)}, "bots"),
        ({"bots": ["silly"]}, "bots"),
        ({"rules": {"players": 5}}, "rules"),
    ],
)
def test_a_tournament_out_of_bounds_is_refused_naming_the_field(
    fields: dict[str, Any], field_named: str
) -> None:
    problem = refused(create(**fields))
    assert problem.code == INVALID and field_named in problem.message
    assert problem.command == "create_tournament"


def test_joining_checks_the_name_as_a_room_does() -> None:
    joined = decode_client('{"type":"join_tournament","tournament":"QWRTZ","name":" Bea "}')
    assert isinstance(joined, JoinTournament) and joined.name == "Bea"
    for name in ["bot:easy", "x" * 25, "Bea\u200b"]:
        frame = json.dumps({"type": "join_tournament", "tournament": "QWRTZ", "name": name})
        assert refused(frame).code == INVALID
    frame = json.dumps({"type": "leave_tournament", "tournament": "QWRTZ", "entrant": 64})
    assert "entrant" in refused(frame).message
    assert refused('{"type":"start_tournament"}').code == INVALID
    assert refused('{"type":"follow_tournament","tournament":"' + "Q" * 25 + '"}').code == INVALID


def view(entrants: int) -> TournamentView:
    return TournamentView(
        code="QWRTZ",
        name="Cup",
        format="round_robin",
        rules=Rules(players=2),
        partners=None,
        rounds_planned=0,
        public=True,
        turn_seconds=None,
        host="Ann",
        phase="open",
        version=2,
        entrants=[EntrantView(name=f"P{n}") for n in range(entrants)],
        units=[],
        rounds=[],
        standings=[StandingView(unit=0, match_points=0, buchholz=0, score=0, played=0, byes=0)],
    )


def test_a_client_takes_a_tournament_within_bounds_and_refuses_one_beyond() -> None:
    update = TournamentUpdate(tournament="QWRTZ", state=view(MAX_ENTRANTS), you=3, table=None)
    assert decode_server(encode(update)) == update
    frame = msgspec.json.decode(encode(update))
    frame["state"]["entrants"].append({"name": "One more"})
    with pytest.raises(ProtocolError) as caught:
        decode_server(json.dumps(frame))
    assert caught.value.code == INVALID
    frame["state"]["entrants"].pop()
    frame["you"] = MAX_ENTRANTS
    with pytest.raises(ProtocolError):
        decode_server(json.dumps(frame))
