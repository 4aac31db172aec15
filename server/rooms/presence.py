"""Who is at a room's table: who may take which seat, players connected or away, spectators,
and the host passing on.

Plain functions on a `RoomState` (sans-I/O, no clock, no `seq`): each changes the seats, links,
watchers or host and says whether it changed anything; `server.rooms.room.Room` then re-arms the turn
clock (`server.rooms.clock`) and counts the change.

A seat's player is connected or away (`away_since`); a player who leaves during a match keeps the
seat, away. The host passes to the next connected player in seat order when the host is gone.

Across server processes (`server.cluster.membership`), `links` names the process each connected seat is
connected through and `watchers` counts spectators per process, so the room's keeper can mark
away the players of a process that died (`drop_links`). A single process passes no `process`
and leaves both empty.
"""

from __future__ import annotations

import hmac
from collections.abc import Collection

import msgspec

from protocol import errors
from protocol.names import name_key
from server.rooms.room_state import RoomError, RoomState, token_hash


def human_seats(state: RoomState) -> list[int]:
    """Seats held by people."""
    return [i for i, seat in enumerate(state.seats) if seat is not None and seat.kind == "human"]


def choose_seat(state: RoomState, seat: int | None) -> int:
    """The seat asked for if it is free, or the first free one (RoomError if there is none)."""
    if seat is None:
        free = [i for i, held in enumerate(state.seats) if held is None]
        if not free:
            raise RoomError(errors.ROOM_FULL, f"room {state.code} has no free seat")
        return free[0]
    check_seat_number(state, seat)
    if state.seats[seat] is not None:
        raise RoomError(
            errors.ROOM_FULL, f"seat {seat} of room {state.code} is taken", errors.SEAT_TAKEN
        )
    return seat


def check_seat_number(state: RoomState, seat: int) -> None:
    """RoomError `invalid` unless the room has a seat with this number."""
    players = state.rules.players
    if not 0 <= seat < players:
        raise RoomError(
            errors.INVALID,
            f"seat: room {state.code} has seats 0 to {players - 1}, not {seat}",
            errors.NO_SUCH_SEAT,
        )


def require_unique(state: RoomState, name: str) -> None:
    """RoomError `invalid` if a player at the table already goes by this name."""
    wanted = name_key(name)
    if any(held is not None and name_key(held.name) == wanted for held in state.seats):
        raise RoomError(
            errors.INVALID, f"name: someone at this table is {name!r} already", errors.NAME_TAKEN
        )


def link(state: RoomState, seat: int, process: str) -> None:
    """Note the process a seat is connected through (nothing for a single process)."""
    if process:
        state.links[seat] = process
    else:
        state.links.pop(seat, None)


def connect(state: RoomState, seat: int, process: str = "") -> bool:
    """The player of a seat is online (through `process`), no stand-in; True if that changed."""
    held = state.seats[seat]
    if held is None or held.kind != "human":
        return False
    if held.connected and not held.stand_in and state.links.get(seat, "") == process:
        return False
    held.connected = True
    held.stand_in = False
    held.away_since = None
    link(state, seat, process)
    return True


def disconnect(state: RoomState, seat: int, now: float, process: str = "") -> bool:
    """The player of a seat went offline (if still connected through `process`); True if so."""
    held = state.seats[seat]
    if held is None or held.kind != "human" or not held.connected:
        return False
    if state.links.get(seat, "") != process:
        return False
    go_away(state, seat, now)
    return True


def go_away(state: RoomState, seat: int, now: float) -> None:
    """Mark a held seat's player away since `now`; the seat stays theirs."""
    held = state.seats[seat]
    assert held is not None
    held.connected = False
    held.away_since = now
    state.links.pop(seat, None)


def all_away(state: RoomState, now: float) -> bool:
    """Every player away and no one watching (a server starting up); True if that changed."""
    online = [seat for seat in state.seats if seat is not None and seat.connected]
    if not online and not state.spectators:
        return False
    for seat in online:
        seat.connected = False
        seat.away_since = now
    state.spectators = 0
    state.links = {}
    state.watchers = {}
    return True


def watch(state: RoomState, delta: int, process: str = "") -> None:
    """A spectator came (+1) or went (-1) (through `process`)."""
    state.spectators = max(0, state.spectators + delta)
    if process:
        count = max(0, state.watchers.get(process, 0) + delta)
        if count:
            state.watchers[process] = count
        else:
            state.watchers.pop(process, None)


def drop_links(state: RoomState, dead: Collection[str], now: float) -> bool:
    """Mark away the players, and forget the spectators, of the processes in `dead`.

    A connected seat with no link counts as linked to a dead process too (several processes
    always link seats), and spectators are those `watchers` counts. True if that changed anything.
    """
    changed = False
    for index, held in enumerate(state.seats):
        if held is None or held.kind != "human" or not held.connected:
            continue
        linked = state.links.get(index)
        if linked is None or linked in dead:
            go_away(state, index, now)
            changed = True
    watchers = {process: count for process, count in state.watchers.items() if process not in dead}
    spectators = sum(watchers.values())
    if watchers != state.watchers or spectators != state.spectators:
        state.watchers, state.spectators = watchers, spectators
        changed = True
    return changed


def release_away(state: RoomState, now: float, after: float, waiting: bool) -> list[int]:
    """Players away `after` seconds: while `waiting` their seats are freed (returned), and in any
    phase a host that long away passes the host on."""
    gone = []
    for index, held in enumerate(state.seats):
        since = held.away_since if held is not None and not held.connected else None
        if since is not None and now - since >= after:
            gone.append(index)
    released = gone if waiting else []
    host = state.host
    for index in released:
        free(state, index)
    if host in gone and state.host == host:
        pass_host(state)
    return released


def free(state: RoomState, seat: int) -> None:
    """Empty a seat; if it was the host's, the host passes on."""
    state.seats[seat] = None
    state.links.pop(seat, None)
    if state.host == seat:
        state.host = next_host(state)


def pass_host(state: RoomState) -> None:
    """The host is gone: the next connected player becomes host (if one is connected). A
    tournament's table has no host (`server.rooms.tables`)."""
    if host_here(state) or state.tournament is not msgspec.UNSET:
        return
    following = next_host(state)
    if following is not None and (held := state.seats[following]) and held.connected:
        state.host = following


def host_here(state: RoomState) -> bool:
    """Whether the host's seat is held by a connected player."""
    host = state.host
    held = state.seats[host] if host is not None else None
    return held is not None and held.kind == "human" and held.connected


def next_host(state: RoomState) -> int | None:
    """The player after the host in seat order: the first one connected, else the first."""
    host = state.host if state.host is not None else -1
    humans = sorted(human_seats(state), key=lambda s: (s <= host, s))
    online = [s for s in humans if (held := state.seats[s]) is not None and held.connected]
    choices = online or humans
    return choices[0] if choices else None


def is_empty(state: RoomState) -> bool:
    """Whether nobody is connected: no seated player online and no spectator. A tournament's
    table is never empty while its match plays: the tournament waits for its result."""
    if state.spectators or (state.tournament is not msgspec.UNSET and state.phase == "playing"):
        return False
    return not any(seat is not None and seat.connected for seat in state.seats)


def seat_of_token(state: RoomState, token: str) -> int | None:
    """The seat a secret token belongs to, if any."""
    wanted = token_hash(token)
    for index, seat in enumerate(state.seats):
        held = seat.token_hash if seat is not None else None
        if held is not None and hmac.compare_digest(held, wanted):
            return index
    return None
