"""Tournament entrants as scripted WebSocket clients: each follows its tournament, joins the room
its `table` names as soon as it is told, and plays legal moves from its own view until the
tournament is finished (keeping each room's seats as it saw them); a `Person` who connects again
after a restart; a table of bots alone to watch (`bots_table`). What the archive says of a
tournament's tables (`archived_tables`), the standings recounted from it, and the pairings
recomputed as docs/tournaments.md says them. Used by the tournament tests of tests/server/desk/,
tests/server/storage/ and tests/clients/cli/. And the terminal client's side: players whose keys
are kept on their devices (`players_keyed`), `allfives tournament` run as one of them in a
pseudo-terminal (`tournament_terminal`, `tournament_ended`), the code its lobby names
(`lobby_code`), and the tournament as the API shows it (`tournament_view`)."""

from __future__ import annotations

import asyncio
import functools
import io
import itertools
import json
import random
from collections import Counter
from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import pexpect  # type: ignore[import-untyped]
from client_helpers import ROOT
from command_helpers import keep_player_key, spawn_plain
from hidden_helpers import check_room_frames
from server_helpers import ServerThread, api_get, new_key
from storage_helpers import load_stored
from waiting import until
from ws_client_helpers import Client, turn_of

from protocol import api
from protocol import messages as msg
from protocol.tournaments import TournamentUpdate, TournamentView
from server.rooms import codes
from server.rooms.room import Room
from server.storage.store import Store

#: Long enough for a round robin of three to a low target, bots included.
PLAY_SECONDS = 120.0

#: The terminal client's environment in the tournament tests: English, this checkout's code.
TERMINAL_ENV = {"TERM": "xterm-256color", "PYTHONPATH": str(ROOT), "LANGUAGE": "en"}
#: The lobby's line for friends, and the tournament's code it names.
FRIENDS_ENTER = r"Friends enter with: .*allfives tournament join \S+ ([A-Z]{5})"


def tournament_view(server: ServerThread, code: str) -> TournamentView:
    """The tournament as `GET /api/tournaments/CODE` shows it to anyone."""
    answer = server.call(api_get(server.server.url, f"/api/tournaments/{code}"))
    assert answer.status == 200, answer.body
    return api.decode_answer(answer.body, TournamentView)


def players_keyed(home: Path, url: str, *names: str) -> list[Path]:
    """A key of its own for each of `names` on the server at `url`, kept as the terminal
    client keeps it under a config folder per player (`home/ann` for Ann): the folders."""
    folders = [home / name.lower() for name in names]
    for folder, name in zip(folders, names, strict=True):
        keep_player_key(folder, url, name)
    return folders


def as_player(config: Path, **more: str) -> dict[str, str]:
    """The terminal client's environment (with `more`) for the player kept under `config`."""
    return {**TERMINAL_ENV, **more, "XDG_CONFIG_HOME": str(config)}


@contextmanager
def tournament_terminal(config: Path, *args: str, **more: str) -> Iterator[tuple[Any, io.StringIO]]:
    """`allfives tournament ARGS --plain` in a pseudo-terminal (`command_helpers.spawn_plain`),
    as the player kept under `config`, with `more` in its environment: the process and what it
    writes, the process ended once the block is left."""
    child, written = spawn_plain(["tournament", *args, "--plain"], as_player(config, **more))
    try:
        yield child, written
    finally:
        child.close(force=True)


def tournament_ended(config: Path, *args: str) -> tuple[int, str]:
    """`allfives tournament ARGS --plain` as the player kept under `config`, run to its end:
    its exit status and what it wrote."""
    with tournament_terminal(config, *args) as (child, written):
        child.expect(pexpect.EOF)
        child.close()
    return int(child.exitstatus), written.getvalue()


def lobby_code(child: Any) -> str:
    """Wait for the lobby's line for friends (`FRIENDS_ENTER`); the code it names."""
    child.expect(FRIENDS_ENTER)
    return str(child.match.group(1))


async def keyed(url: str, name: str, key: str | None = None) -> Client:
    """A client that said hello with a player's key (a fresh one unless given)."""
    return await Client.open(url, name, key=key or new_key())


async def tournament_update(client: Client, kind: str, **fields: Any) -> TournamentUpdate:
    """Send a tournament message; its answer, which must be a `tournament` message."""
    reply = await client.request(kind, **fields)
    assert isinstance(reply, TournamentUpdate), reply
    return reply


async def bots_table(url: str, players: int = 2, **fields: Any) -> str:
    """A round robin of bots only, started by a host who does not play: its first table's room
    (being played by the bots, for watching)."""
    host = await keyed(url, "Host")
    try:
        made = await tournament_update(
            host,
            "create_tournament",
            **{"name": "Cup", "format": "round_robin", "rules": {"players": players}, **fields},
            bots=["easy"] * (players * 2),
        )
        started = await tournament_update(host, "start_tournament", tournament=made.tournament)
    finally:
        await host.close()
    room = started.state.rounds[0].tables[0].room
    assert room is not None, started.state
    return room


async def round_robin(
    url: str,
    host: str,
    bots: Sequence[str],
    *,
    name: str = "Cup",
    target: int | None = None,
    enter: bool = False,
    start: bool = False,
) -> TournamentUpdate:
    """A public round robin at tables of two (first to `target`, else the default) with these
    bot entrants, made on the server at `url` by the player `host`, who enters it if `enter`
    and starts it if `start`, then leaves: the answer to its last command."""
    client = await keyed(url, host)
    rules: dict[str, Any] = {"players": 2} if target is None else {"players": 2, "target": target}
    try:
        answer = await tournament_update(
            client, "create_tournament", name=name, format="round_robin", rules=rules, bots=bots
        )
        code = answer.tournament
        if enter:
            answer = await tournament_update(client, "join_tournament", tournament=code)
        if start:
            answer = await tournament_update(client, "start_tournament", tournament=code)
    finally:
        await client.close()
    return answer


async def bots_tournament_started(url: str, bots: int, target: int) -> TournamentUpdate:
    """A round robin of `bots` easy bots at tables of two (first to `target`), made and started
    on the server at `url` by a player who then leaves: the answer to its start."""
    return await round_robin(
        url, "Cat", ["easy"] * bots, name="Bots cup", target=target, start=True
    )


@dataclass
class Entrant:
    """A person in a tournament: what it was told last, and each room it was seated in."""

    client: Client
    rng: random.Random
    latest: TournamentUpdate | None = None
    #: Every `joined` it got: (what finds the room, the seat it was given).
    seated: list[tuple[str, int | None]] = field(default_factory=list)
    #: Every `table` it was told, in order, each once.
    tables: list[str] = field(default_factory=list)
    #: The seats of each room it sat in, as its room document said them last (by the room).
    seats_seen: dict[str, list[dict[str, Any] | None]] = field(default_factory=dict)

    async def play_to_the_end(self, timeout: float = PLAY_SECONDS) -> TournamentUpdate:
        """Join each table it is told of and play its moves until the tournament is finished;
        the last update. An `error` fails the test."""
        client = self.client
        loop = asyncio.get_running_loop()
        deadline = loop.time() + timeout
        sent_for: tuple[str | None, tuple[int, int]] | None = None
        while True:
            latest = self.latest
            if latest is not None and latest.state.phase == "finished":
                return latest
            table = latest.table if latest is not None else None
            if table is not None and table not in self.tables:
                self.tables.append(table)
                await client.send("join", room=table)
            turn = turn_of(client)
            if turn is not None and (client.room, turn) != sent_for:
                sent_for = (client.room, turn)
                await _move(client, self.rng)
            message = await client.receive(max(0.01, deadline - loop.time()))
            if isinstance(message, TournamentUpdate):
                if self.latest is None or message.state.version >= self.latest.state.version:
                    self.latest = message
            elif isinstance(message, msg.Joined):
                self.seated.append((message.room, message.seat))
            elif isinstance(message, msg.Error):
                raise AssertionError(f"{client.name}: {message}")
            if client.room is not None and client.state.document is not None:
                self.seats_seen[client.room] = list(client.document["seats"])


async def _move(client: Client, rng: random.Random) -> None:
    """One legal move from the client's own view, at random."""
    choice = rng.choice(client.document["game"]["legal"])
    if choice.get("pass"):
        await client.send("pass")
        return
    fields = {"tile": choice["tile"]}
    if choice.get("end") is not None:
        fields["end"] = choice["end"]
    await client.send("play", **fields)


@dataclass
class Person:
    """A person entered in a tournament with a key of its own, who may connect again (after a
    restart) and follow it from its new connection; every connection it had."""

    name: str
    key: str = field(default_factory=new_key)
    clients: list[Client] = field(default_factory=list)

    async def connect(self, url: str) -> Client:
        """A new connection with its key."""
        client = await keyed(url, self.name, self.key)
        self.clients.append(client)
        return client

    async def follow(self, url: str, code: str, seed: int) -> Entrant:
        """Connect and follow tournament `code`: an entrant ready to play its tables."""
        client = await self.connect(url)
        followed = await tournament_update(client, "follow_tournament", tournament=code)
        assert followed.you is not None, f"{self.name} is not an entrant of {code}"
        return Entrant(client, random.Random(seed), latest=followed)

    async def close(self) -> None:
        """Close every connection it had."""
        for client in self.clients:
            await client.close()


# -- what the archive says of a tournament's tables ---------------------------------------------


@dataclass(frozen=True)
class Archived:
    """A table's match as the archive serves it (`GET /api/games/ID`): the name in each seat,
    each seat's side, each side's final score, and the match's record (JSON)."""

    names: list[str]
    sides: list[int]
    scores: list[int]
    record: bytes


async def game_id_of(store: Store, room: str) -> str | None:
    """The archived game of a room's match, as the room stored it (None until archived)."""
    stored = await load_stored(store, codes.split(room)[0])
    if stored is None:
        return None
    game = Room.from_bytes(stored.state).state.game_id
    return game if isinstance(game, str) else None


async def archived_tables(
    url: str, store: Store, view: TournamentView, timeout: float = 30.0
) -> dict[str, Archived]:
    """Every table of the tournament as the archive holds it, by the table's room."""
    found: dict[str, Archived] = {}
    for played in view.rounds:
        for table in played.tables:
            room = table.room
            assert room is not None, f"a table of {view.code} was never opened"
            game = await until(
                functools.partial(game_id_of, store, room), timeout, f"{room} archived"
            )
            answer = await api_get(url, f"/api/games/{game}")
            assert answer.status == 200, answer
            detail = answer.json
            players = sorted(detail["players"], key=lambda player: player["seat"])
            found[room] = Archived(
                names=[player["name"] for player in players],
                sides=[player["side"] for player in players],
                scores=detail["scores"],
                record=json.dumps(detail["record"]).encode(),
            )
    return found


#: A line of the standings: unit, match points, Buchholz, score.
Line = tuple[int, int, int, int]


def recount(
    view: TournamentView, games: dict[str, Archived], rounds: int | None = None
) -> list[Line]:
    """The standings counted from the archived matches of the first `rounds` rounds (all by
    default) as docs/tournaments.md says, best first; each table's seats are checked to be the
    archive's. Written apart from `server.tournaments.standings`."""
    unit_of = {entrant: unit for unit, members in enumerate(view.units) for entrant in members}
    count = len(view.units)
    sides_at_a_table = 2 if view.partners is not None else view.rules.players
    bye = 2 * (sides_at_a_table - 1)  # a bye counts as a win
    points, scores = [0] * count, [0] * count
    opponents: list[list[int]] = [[] for _ in range(count)]
    for played in view.rounds[:rounds]:
        for table in played.tables:
            game = games[table.room or ""]
            assert game.names == [view.entrants[entrant].name for entrant in table.seats]
            sides: dict[int, set[int]] = {}
            for seat, entrant in enumerate(table.seats):
                sides.setdefault(game.sides[seat], set()).add(unit_of[entrant])
            for side, units in sides.items():
                mine = game.scores[side]
                others = [game.scores[other] for other in sides if other != side]
                won = sum(2 if mine > theirs else 1 if mine == theirs else 0 for theirs in others)
                faced = sorted(unit for other, us in sides.items() if other != side for unit in us)
                for unit in units:
                    points[unit] += won
                    scores[unit] += mine
                    opponents[unit] += faced
        for unit in played.byes:
            points[unit] += bye
    lines = [
        (unit, points[unit], sum(points[other] for other in opponents[unit]), scores[unit])
        for unit in range(count)
    ]
    return sorted(lines, key=lambda line: (-line[1], -line[2], -line[3], line[0]))


def shown_standings(view: TournamentView) -> list[Line]:
    """The standings the tournament shows, as `recount` counts them."""
    return [(line.unit, line.match_points, line.buchholz, line.score) for line in view.standings]


def check_hidden(person: Person, view: TournamentView, games: dict[str, Archived]) -> None:
    """No frame any connection of `person` got at any of its tables named a tile it could not
    see then (tests/hidden_helpers.py), and it was shown tiles at some table (a table whose
    match its stand-in played out while it was away, a restart between, shows it nothing)."""
    you = next(n for n, e in enumerate(view.entrants) if e.name == person.name)
    rooms = [t.room or "" for r in view.rounds for t in r.tables if you in t.seats]
    checked = sum(
        check_room_frames(client.frames, room, games[room].record)
        for room in rooms
        for client in person.clients
    )
    assert checked > 0, f"{person.name} was shown no tile at {rooms}"


# -- the pairings, recomputed from docs/tournaments.md -------------------------------------------


def units_at(view: TournamentView, seats: list[int]) -> tuple[int, ...]:
    """The units of a table of two sides, in seat order (partners across: seats 0 and 2)."""
    unit_of = {entrant: unit for unit, members in enumerate(view.units) for entrant in members}
    if len(seats) == 4:
        assert unit_of[seats[0]] == unit_of[seats[2]] and unit_of[seats[1]] == unit_of[seats[3]]
        seats = seats[:2]
    return tuple(unit_of[entrant] for entrant in seats)


def circle_pairs(count: int, number: int) -> set[frozenset[int]]:
    """Round `number` of the circle method: the units round a circle beside one fixed place
    (unit 0, or an empty place for an odd count) turned by one a round, each against the one
    across."""
    ring: list[int | None] = [None, *range(count)] if count % 2 else list(range(count))
    fixed, circle = ring[0], ring[1:]
    turned = [circle[(place - number) % len(circle)] for place in range(len(circle))]
    line = [fixed, *turned]
    pairs = {frozenset((line[at], line[-1 - at])) for at in range(len(line) // 2)}
    return {pair for pair in pairs if None not in pair}  # type: ignore[misc]


def matchings(units: list[int]) -> Iterator[list[tuple[int, int]]]:
    """Every way to pair `units` off (an even count)."""
    if not units:
        yield []
        return
    first, rest = units[0], units[1:]
    for at, other in enumerate(rest):
        for more in matchings(rest[:at] + rest[at + 1 :]):
            yield [(first, other), *more]


def check_swiss_round(view: TournamentView, games: dict[str, Archived], number: int) -> None:
    """Round `number` was drawn as the Swiss says from the standings before it, recounted from
    the archive: the bye to the lowest-ranked of those with the fewest byes, and pairs with the
    fewest rematches, then the smallest sum of squared differences of rank, of all pairings."""
    ranking = [line[0] for line in recount(view, games, rounds=number)]
    place = {unit: at for at, unit in enumerate(ranking)}
    earlier = view.rounds[:number]
    met = {frozenset(units_at(view, t.seats)) for r in earlier for t in r.tables}
    byes_had = Counter(unit for r in earlier for unit in r.byes)
    drawn = view.rounds[number]
    if len(ranking) % 2:
        fewest = min(byes_had[unit] for unit in ranking)
        due = [unit for unit in ranking if byes_had[unit] == fewest][-1]
        assert drawn.byes == [due]
    else:
        assert drawn.byes == []
    pairs = [units_at(view, table.seats) for table in drawn.tables]

    def cost(pairing: list[tuple[int, ...]]) -> tuple[int, int]:
        rematches = sum(frozenset(pair) in met for pair in pairing)
        return rematches, sum((place[a] - place[b]) ** 2 for a, b in pairing)

    playing = [unit for unit in ranking if unit not in drawn.byes]
    assert sorted(unit for pair in pairs for unit in pair) == sorted(playing)
    best = min(cost(list(pairing)) for pairing in matchings(playing))
    assert cost(pairs) == best, (number, pairs, ranking)


def check_rotating_round(view: TournamentView, number: int) -> None:
    """Round `number` at tables of four with rotating partners (partners across: seats 0 and
    2, 1 and 3), with at most nine to seat, was grouped as docs/tournaments.md says: of every
    way to split them into tables and seat each, the fewest pairs of partners who were partners
    before, then the fewest earlier meetings of two at one table; and each table is seated in
    whichever of its three partnerships repeats fewest."""
    partnered: Counter[frozenset[int]] = Counter()
    met: Counter[frozenset[int]] = Counter()
    for played in view.rounds[:number]:
        for table in played.tables:
            seats = table.seats
            partnered.update([frozenset(seats[0::2]), frozenset(seats[1::2])])
            met.update(frozenset(pair) for pair in itertools.combinations(seats, 2))

    def repeats(group: Sequence[int]) -> int:
        return partnered[frozenset(group[0::2])] + partnered[frozenset(group[1::2])]

    def best_repeats(group: Sequence[int]) -> int:
        a, b, c, d = group
        return min(repeats(seating) for seating in ((a, b, c, d), (a, c, b, d), (a, b, d, c)))

    def meetings(group: Sequence[int]) -> int:
        return sum(met[frozenset(pair)] for pair in itertools.combinations(group, 2))

    def cost(tables: Sequence[Sequence[int]]) -> tuple[int, int]:
        return sum(best_repeats(t) for t in tables), sum(meetings(t) for t in tables)

    drawn = [table.seats for table in view.rounds[number].tables]
    for seats in drawn:
        assert repeats(seats) == best_repeats(seats), (number, seats)
    seated = sorted(entrant for seats in drawn for entrant in seats)
    assert len(set(seated)) == len(seated)
    best = min(cost(split) for split in splits_into_fours(seated))
    assert cost(drawn) == best, (number, drawn)


def splits_into_fours(units: list[int]) -> Iterator[list[tuple[int, ...]]]:
    """Every way to split `units` (a multiple of four) into tables of four."""
    if not units:
        yield []
        return
    first, rest = units[0], units[1:]
    for others in itertools.combinations(rest, 3):
        left = [unit for unit in rest if unit not in others]
        for more in splits_into_fours(left):
            yield [(first, *others), *more]
