"""Property: a refused message changes nothing, anywhere (memory and Redis).

For a random room (2-4 human players, a random number of random moves played, a spectator), a
tournament (made by a player with a key, who joined it or not, and a bot; or started, its first
table's room opened), a sender (a seated player,
the spectator, a player of another room, or the tournament's host) and a message of each type a
client may send (every member of `AnyClientMessage`, one case each, its fields drawn from the type
in or out of their bounds, or a hand-picked one that reaches further), or a malformed frame, whenever the server refuses the message: every receiver's
document (a fresh `resync`), the host, who is in which room, the rooms in memory (no table's
room opened by a refused `start_tournament`) and the rooms as stored, and the tournaments as
stored are all exactly as they were before it.

The server runs on an event loop of its own thread (`ServerThread`), so that one server serves
every example.
"""

from __future__ import annotations

import itertools
import json
import random
from collections.abc import Iterator
from dataclasses import dataclass
from typing import Any, TypeVar, get_args, get_type_hints

import msgspec
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from redis_server import RedisServer
from server_helpers import ServerThread, fast_config, new_key
from ws_client_helpers import Client, play_out_one, until_holds

from protocol import messages as msg
from protocol.rules import Rules
from protocol.tournaments import TournamentUpdate
from server.app import Server
from server.storage.redis_store import RedisStore

T = TypeVar("T")
TILES = [f"{a}-{b}" for a in range(7) for b in range(a + 1)]
ENDS = [None, "west", "east", "north", "south"]


def started(store: Any = None) -> Iterator[ServerThread]:
    options = fast_config(
        max_connections_per_ip=10_000,
        max_rooms_per_ip=10_000,
        rooms_burst=10_000,
        lookup_burst=10_000,
        list_burst=10_000,
        lists_per_second=10_000.0,
        away_seconds=3600.0,
        release_seconds=3600.0,
        cluster_lease=30.0,
        max_tournaments_per_ip=10_000,
        new_players_burst=10_000,
        store=store,
    )
    with ServerThread(**options.settings()) as thread:
        yield thread


@pytest.fixture(scope="module")
def memory_server() -> Iterator[ServerThread]:
    yield from started()


@pytest.fixture(scope="module")
def redis_backed(redis_server_session: RedisServer) -> Iterator[ServerThread]:
    yield from started(RedisStore(redis_server_session.url))


@dataclass
class Plan:
    """One example: the room, how far its match went, who sends what."""

    players: int
    public: bool
    started: bool
    seed: int
    moves: int
    #: A seated player's index; players: the spectator; players + 1: another room's; players +
    #: 2: the tournament's host.
    sender: int
    message: dict[str, Any]
    room: str  # "own", "other", or a room that does not exist
    tournament: str  # "own", or a tournament that does not exist
    #: The own tournament: "joined" (its host and a bot), "alone" (the bot alone: too few to
    #: start), or "started" (its first round's table opened and playing).
    entrants: str
    other: str  # the other room: "waiting" with free seats, "full", or "playing"
    cut: bool  # the frame cut short (not JSON)


#: Every message type a client may send (`AnyClientMessage`), and a malformed frame: each is one
#: case of the property, so that a new message type is covered without editing this file.
KINDS: list[type[msg.ClientMessage] | None] = [*get_args(msg.AnyClientMessage), None]


def tag_of(kind: type[msg.ClientMessage] | None) -> str:
    return "malformed" if kind is None else str(kind.__struct_config__.tag)


def chosen(draw: st.DrawFn) -> dict[str, list[dict[str, Any]]]:
    """Messages that reach more of the server than a random one of their type: a seat that may
    be free, a name that is taken, a tile of the set, a room of the example."""
    seat = draw(st.sampled_from([None, 0, 1, 2, 3]))
    messages: list[dict[str, Any]] = [
        {"type": "join", "room": "?", "seat": seat},
        {"type": "join", "room": "?", "name": draw(st.sampled_from(["P0", "P1", "Ｐ0"]))},
        {"type": "spectate", "room": "?"},
        {"type": "create_room", "rules": {"players": 2}, "seat": draw(st.sampled_from([2, 3]))},
        {"type": "play", "tile": draw(st.sampled_from(TILES)), "end": draw(st.sampled_from(ENDS))},
        {"type": "chat", "text": "hi"},
        {"type": "add_bot", "seat": seat, "level": "easy"},
        {"type": "remove_bot", "seat": seat if seat is not None else 0},
        {"type": "remove_player", "seat": seat if seat is not None else 0},
        {"type": "hello", "version": msg.PROTOCOL_VERSION, "name": "Again"},
        {"type": "list_rooms", "offset": draw(st.integers(0, 100))},
        {"type": "record", "game": draw(st.sampled_from(["AbCdEfGh1234", "bad id!", "x" * 41]))},
        {"type": "review", "game": draw(st.sampled_from(["AbCdEfGh1234", "bad id!", "x" * 41]))},
        {"type": "join_tournament", "tournament": "?"},
        {"type": "join_tournament", "tournament": "?", "bot": "hard"},
        {"type": "leave_tournament", "tournament": "?", "entrant": draw(st.integers(0, 2))},
        {"type": "leave_tournament", "tournament": "?"},
        {"type": "start_tournament", "tournament": "?"},
        {"type": "follow_tournament", "tournament": "?"},
        {"type": "create_tournament", "name": "Cup", "format": "swiss", "rules": {"players": 2}},
    ]
    by_tag: dict[str, list[dict[str, Any]]] = {}
    for message in messages:
        by_tag.setdefault(message["type"], []).append(message)
    by_tag["malformed"] = [{"type": "play", "tile": 53}, {"type": "join"}, {"type": "dance"}]
    return by_tag


def any_rules(cls: type[Rules]) -> st.SearchStrategy[dict[str, Any]]:
    """Rules as a client may send them: any value of each field's type, in or out of its
    bounds, each field there or not. Drawn as a dict: a Rules refuses to be made out of the
    rules' bounds (RulesError), and what a client sends need not be in them."""
    hints = get_type_hints(cls)  # the field constraints (Annotated) left out
    fields = {name: st.from_type(hints[name]) for name in cls.__struct_fields__}
    return st.fixed_dictionaries({}, optional=fields)


def any_message(draw: st.DrawFn, kind: type[msg.ClientMessage]) -> dict[str, Any]:
    """Any value of the type's fields, in or out of its bounds, as builtins."""
    hints = get_type_hints(kind)
    rules = {
        name: hint
        for name, hint in hints.items()
        if name in kind.__struct_fields__ and isinstance(hint, type) and issubclass(hint, Rules)
    }
    made = {name: st.builds(hint, players=st.just(2)) for name, hint in rules.items()}
    message: dict[str, Any] = msgspec.to_builtins(draw(st.builds(kind, **made)))
    for name, hint in rules.items():
        message[name] = draw(any_rules(hint))
    return message


@st.composite
def plans(draw: st.DrawFn, kind: type[msg.ClientMessage] | None) -> Plan:
    players = draw(st.integers(2, 4))
    choices = chosen(draw).get(tag_of(kind), [])
    if kind is not None:  # any value of the type's fields, in or out of its bounds
        choices = [any_message(draw, kind), *choices]
    message: dict[str, Any] = draw(st.sampled_from(choices))
    sender = draw(st.integers(0, players + 2))
    if "tournament" in str(message.get("type")) and draw(st.integers(0, 3)):
        sender = players + 2  # a player with a key, which a guest's refusal would not reach
    return Plan(
        players=players,
        public=draw(st.booleans()),
        started=draw(st.booleans()),
        seed=draw(st.integers(0, 2**16)),
        moves=draw(st.integers(0, 30)),
        sender=sender,
        message={k: v for k, v in message.items() if v is not None},
        room=draw(st.sampled_from(["own", "other", "other", "ZZZZ", "ZZZZ-BCDFGHJKMN"])),
        tournament=draw(st.sampled_from(["own", "own", "own", "ZZZZZ", "ZZZZZ-BCDFGHJKMN"])),
        entrants=draw(st.sampled_from(["joined", "joined", "alone", "started"])),
        cut=draw(st.integers(0, 5)) == 0,
        other=draw(st.sampled_from(["waiting", "full", "playing"])),
    )


async def everything(
    server: Server, clients: list[Client], rooms: list[str], store_too: bool
) -> dict[str, Any]:
    """What a refused message must leave as it was: each client's resync, the example's rooms
    (in memory and stored), which rooms there are, and the tournaments as stored."""
    seen: dict[str, Any] = {}
    for client in clients:
        reply = await client.request("resync")
        seen[client.name] = (
            (reply.seq, msgspec.to_builtins(reply.state))
            if isinstance(reply, msg.Snapshot)
            else reply.code  # type: ignore[union-attr]
        )
    seen["codes"] = sorted(server.rooms)
    for code in rooms:
        seen[f"room {code}"] = server.rooms[code].room.to_bytes()
        if store_too:
            stored = await server.store.load_room(code)
            seen[f"stored {code}"] = (
                None if stored is None else (stored.seq, stored.state, stored.moves)
            )
    for code in await server.store.tournaments.codes():
        seen[f"tournament {code}"] = await server.store.tournaments.load(code)
    return seen


async def scenario(server: Server, plan: Plan, store_too: bool) -> str:
    names = [f"P{n}" for n in range(plan.players)]
    host = await Client.open(server.url, names[0])
    await host.request("create_room", rules={"players": plan.players, "public": plan.public})
    seated = [host]
    for name in names[1:]:
        other = await Client.open(server.url, name)
        await other.request("join", room=host.room)
        seated.append(other)
    fan = await Client.open(server.url, "Fan")
    await fan.request("spectate", room=host.room)
    away = await Client.open(server.url, "Away")  # sits in a room of its own
    await away.request("create_room", rules={"players": 3 if plan.other == "waiting" else 2})
    if plan.other != "waiting":
        await away.request("add_bot", level="easy")
    if plan.other == "playing":
        await away.request("start")
        await until_holds(away, lambda document: away.my_turn())  # the bot has played
    keyed = await Client.open(server.url, f"K{next(KEYED)}", key=new_key())
    made = await keyed.request(
        "create_tournament",
        name="Cup",
        format="round_robin",
        rules={"players": 2, "public": plan.public},
        bots=["easy"],
    )
    assert isinstance(made, TournamentUpdate), made
    if plan.entrants != "alone":
        await keyed.request("join_tournament", tournament=made.tournament)
    if plan.entrants == "started":
        opened = await keyed.request("start_tournament", tournament=made.tournament)
        assert isinstance(opened, TournamentUpdate) and opened.table is not None, opened
    clients = [*seated, fan, away, keyed]
    try:
        if plan.started:
            await host.request("start")
            rng = random.Random(plan.seed)
            for _ in range(plan.moves):
                for client in seated:
                    await client.request("ping")  # read what has come
                movers = [c for c in seated if c.my_turn()]
                if not movers:
                    break
                await play_out_one(rng.choice(movers))
        rooms = {"own": host.room, "other": away.room}
        message = dict(plan.message)
        if isinstance(message.get("room"), str):
            message["room"] = rooms.get(plan.room, plan.room)
        if isinstance(message.get("tournament"), str):
            message["tournament"] = made.tournament if plan.tournament == "own" else plan.tournament
        frame = json.dumps({**message, "id": 4242})
        if plan.cut:
            frame = frame[:-3]
        sender = clients[plan.sender]
        codes = [(c.room or "").split("-")[0] for c in (host, away)]
        before = await everything(server, clients, codes, store_too)
        await sender.send_raw(frame)
        reply = await sender.until(
            lambda m: isinstance(m, msg.Error) or getattr(m, "id", None) == 4242
        )
        if not isinstance(reply, msg.Error):
            return "accepted"
        after = await everything(server, clients, codes, store_too)
        assert after == before, (frame, reply)
        return reply.code
    finally:
        for client in clients:
            await client.close()


@dataclass
class Tally:
    """What the examples of this module met: each one's answer (an error's code, or
    "accepted"), the message types sent and the cases (`kind`s) run."""

    answers: list[str]
    sent: set[str]
    cases: set[str]


@pytest.fixture(scope="module")
def tally() -> Iterator[Tally]:
    """The module's examples, checked once all have run, whatever their order: most were
    refused, for many codes, and a message of every type a client may send was among them.
    When only some cases ran (`-k`), there is not enough to check."""
    kept = Tally(answers=[], sent=set(), cases=set())
    yield kept
    if kept.cases < {tag_of(kind) for kind in KINDS}:
        return
    codes = {code for code in kept.answers if code != "accepted"}
    assert len(codes) >= 6, kept.answers
    assert kept.answers.count("accepted") < len(kept.answers) / 2, kept.answers
    assert set(msg.CLIENT_TYPES) <= kept.sent, sorted(set(msg.CLIENT_TYPES) - kept.sent)


def check(
    thread: ServerThread,
    plan: Plan,
    store_too: bool,
    tally: Tally,
    kind: type[msg.ClientMessage] | None,
) -> None:
    code = thread.call(scenario(thread.server, plan, store_too), timeout=60)
    tally.answers.append(code)
    tally.sent.add(str(plan.message.get("type")))
    tally.cases.add(tag_of(kind))


#: Names of the tournaments' hosts, one per example (a name is its key's for good).
KEYED = itertools.count()
SETTINGS = settings(
    max_examples=4,
    deadline=None,
    suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow],
)
EACH_KIND = pytest.mark.parametrize("kind", KINDS, ids=tag_of)


@EACH_KIND
@SETTINGS
@given(data=st.data())
def test_a_refused_message_changes_nothing_in_memory(
    memory_server: ServerThread,
    tally: Tally,
    kind: type[msg.ClientMessage] | None,
    data: st.DataObject,
) -> None:
    check(memory_server, data.draw(plans(kind)), False, tally, kind)


@pytest.mark.redis
@EACH_KIND
@settings(SETTINGS, max_examples=3)
@given(data=st.data())
def test_a_refused_message_changes_nothing_with_redis(
    redis_backed: ServerThread,
    tally: Tally,
    kind: type[msg.ClientMessage] | None,
    data: st.DataObject,
) -> None:
    check(redis_backed, data.draw(plans(kind)), True, tally, kind)
