"""The rooms this process holds, by code: opening them, and forgetting them.

Finding one a client names is `server.play.finder` (which, with several processes, loads a room
not held here). Rooms opened by a client count against its address
(`max_rooms_per_ip`) until they finish or are forgotten, and each creation spends one of the
address's `rooms_burst`, then `rooms_per_hour` (`created`), so rooms made only to finish stay bounded too.
"""

from __future__ import annotations

import contextlib
import time
from collections.abc import Iterator

from protocol import errors
from protocol import messages as msg
from server.config import Limits, Timing
from server.play.budgets import KeyedBuckets, PerAddress
from server.play.live import LiveRoom
from server.rooms import codes
from server.rooms.room import Room, RoomError


class Registry:
    """Rooms by code, and the open rooms each address holds; each room held with the waits of
    `timing` and `keep_patches` changes kept for returning players."""

    def __init__(self, limits: Limits, timing: Timing, keep_patches: int) -> None:
        self.limits = limits
        self.timing = timing
        self.keep_patches = keep_patches
        self.rooms: dict[str, LiveRoom] = {}
        #: The rooms held here that `list_rooms` shows, kept as their changes are published.
        self.listed: dict[str, LiveRoom] = {}
        self.rooms_per_ip = PerAddress(limits.max_rooms_per_ip)
        self.created = KeyedBuckets(limits.rooms_burst, limits.rooms_per_hour / 3600.0)

    def live(self, state: bytes) -> LiveRoom:
        """A room in memory from its stored state (not registered yet)."""
        return self.held(self.room_of(state), state)

    def held(self, room: Room, saved: bytes) -> LiveRoom:
        """`room` in memory (not registered yet), `saved` what it was last stored as."""
        live = LiveRoom(room, self.keep_patches)
        live.saved = saved
        return live

    def fresh(self, room: Room) -> LiveRoom:
        """A room just created, in memory with this server's waits (not registered yet)."""
        self.set_waits(room)
        return self.held(room, room.to_bytes())

    def set_waits(self, room: Room) -> None:
        """Give a room this server's waits: an away player's turn, an idle one's."""
        room.away_seconds = self.timing.away_seconds
        room.idle_seconds = self.timing.idle_seconds

    def room_of(self, state: bytes) -> Room:
        """A room's state machine from its stored state."""
        room = Room.from_bytes(state)
        self.set_waits(room)
        return room

    def open(self, live: LiveRoom) -> None:
        """Hold a room opened by this process (it counts against its owner's address)."""
        live.owned = True
        self.rooms[live.room.code] = live
        self.count(live)

    def holds(self, live: LiveRoom) -> bool:
        """Whether this copy is still the room held under its code."""
        return self.rooms.get(live.room.code) is live

    def require_open(self, live: LiveRoom) -> None:
        """RoomError unless the room is still held (it may have closed meanwhile)."""
        if not self.holds(live):
            raise RoomError(errors.NO_SUCH_ROOM, f"room {live.room.code} has closed")

    @contextlib.contextmanager
    def creating(self, address: str) -> Iterator[None]:
        """Around creating a room for `address`: RoomError `rate_limited` when it holds
        `max_rooms_per_ip` open rooms (those being created counted) or created its
        `rooms_burst` and then `rooms_per_hour`; a creation that fails costs nothing."""
        limits = self.limits
        if self.rooms_per_ip.full(address):
            raise RoomError(
                errors.RATE_LIMITED,
                f"an address may hold at most {limits.max_rooms_per_ip} open rooms",
            )
        now = time.monotonic()
        if not self.created.take(address, now):
            wait = self.created.wait(address, now)
            raise RoomError(
                errors.RATE_LIMITED,
                f"an address may create {limits.rooms_burst} rooms at once, then "
                f"{limits.rooms_per_hour:g} an hour: try again in {max(1.0, wait):.0f} s",
            )
        # The room is counted as open from here, before the store is awaited, so creations in
        # flight at once cannot open more than the limit; once opened it is counted as the
        # room itself (`count`), and this place is given back.
        self.rooms_per_ip.add(address)
        try:
            yield
        except BaseException:
            self.created.refund(address, time.monotonic())
            raise
        finally:
            self.rooms_per_ip.remove(address)

    def stop_clocks(self) -> None:
        """Stop every room's turn clock (the server stopping)."""
        for live in self.rooms.values():
            live.stop_clock()

    def new_code(self) -> str:
        """A code no room held here uses; RoomError `busy` when there is none to give."""
        code = codes.new_code(self.rooms) if len(self.rooms) < self.limits.max_rooms else None
        if code is None:
            raise RoomError(
                errors.BUSY, "the server holds as many rooms as it can: try again later"
            )
        return code

    def public_rooms(self) -> list[msg.RoomSummary]:
        """The public rooms held here that wait for players (`Room.listed`)."""
        return [live.room.summary() for live in self.listed.values()]

    def note_listing(self, live: LiveRoom) -> bool:
        """After a change of `live`: whether the room list may have changed (it is, or was, in it)."""
        code = live.room.code
        was = self.listed.get(code) is live
        if live.room.listed() and self.holds(live):
            self.listed[code] = live
            return True
        if was:
            del self.listed[code]
        return was

    def count(self, live: LiveRoom) -> None:
        """A room this process opened counts against its owner's address until it finishes."""
        counts = live.owned and live.room.phase != "finished" and self.holds(live)
        if counts and not live.counted:
            self.rooms_per_ip.add(live.room.state.owner)
        elif live.counted and not counts:
            self.rooms_per_ip.remove(live.room.state.owner)
        live.counted = counts

    def forget(self, live: LiveRoom) -> None:
        """Stop holding a room: its clock and bots stop."""
        if self.holds(live):
            del self.rooms[live.room.code]
            self.count(live)
        if self.listed.get(live.room.code) is live:
            del self.listed[live.room.code]
        live.stop_clock()
