"""What keeps one client from hurting others at the network's edge: a connection's bucket of
messages, the budget of failed room lookups per address, a room's chat rate, and the origins a
browser may connect from. The budgets kept per key (and per address) are `server.play.budgets`.
"""

from __future__ import annotations

import contextlib
import time
from collections.abc import AsyncIterator

from websockets.typing import Origin

from protocol import errors
from server.play.budgets import AddressBuckets, KeyedBuckets
from server.rooms.room import RoomError


class TokenBucket:
    """`rate` messages per second on average, bursts of up to `burst`; counts refusals in a row."""

    __slots__ = ("burst", "rate", "refused_in_a_row", "tokens", "updated")  # one a connection

    def __init__(self, rate: float, burst: int, now: float) -> None:
        self.rate = rate
        self.burst = burst
        self.tokens = float(burst)
        self.updated = now
        self.refused_in_a_row = 0

    def allow(self, now: float) -> bool:
        """Take a token if one is left; False (and one more refusal counted) if not."""
        self.tokens = min(self.burst, self.tokens + (now - self.updated) * self.rate)
        self.updated = now
        if self.tokens >= 1.0:
            self.tokens -= 1.0
            self.refused_in_a_row = 0
            return True
        self.refused_in_a_row += 1
        return False


class LookupBudget(AddressBuckets):
    """Failed room lookups per address: `burst` at once, then `per_minute`; none beyond.

    A lookup that finds no room (or no such seat) costs one; an address with nothing left gets
    `rate_limited` for every lookup until the budget refills, whether the room exists or not.
    An IPv6 address counts as its /64 network (one host holds a whole /64).
    """

    def __init__(self, burst: int, per_minute: float) -> None:
        super().__init__(burst, per_minute / 60.0)

    @contextlib.asynccontextmanager
    async def guard(self, address: str) -> AsyncIterator[Found]:
        """Around finding a room for `address`: RoomError `rate_limited` while its budget is
        spent; a room not found (`no_such_room`, or `bad_token` resuming a seat) costs one.

        The token is taken before the lookup and given back when it finds the room, so lookups
        in flight at once (a store that answers slowly) cannot spend more than the budget. The
        block may call the `Found` it is given as soon as what it looked for is found: the token
        is given back then, not held through what follows (a save, which may be slow).
        """
        now = time.monotonic()
        if not self.take(address, now):
            wait = self.wait(address, now)
            raise RoomError(
                errors.RATE_LIMITED,
                f"too many lookups of rooms that were not there: try again in {max(1.0, wait):.0f} s",
            )
        found = Found(self, address)
        missed = False
        try:
            yield found
        except RoomError as error:
            missed = not found.given_back and error.code in (errors.NO_SUCH_ROOM, errors.BAD_TOKEN)
            raise
        finally:
            if not missed:
                found()


class Found:
    """Gives back a lookup's token once what it looked for was found (once only)."""

    __slots__ = ("address", "budget", "given_back")

    def __init__(self, budget: LookupBudget, address: str) -> None:
        self.budget = budget
        self.address = address
        self.given_back = False

    def __call__(self) -> None:
        if not self.given_back:
            self.given_back = True
            self.budget.refund(self.address, time.monotonic())


class RoomChat(KeyedBuckets):
    """Chat lines per room, from everyone in it together."""

    def check(self, code: str) -> None:
        """Count a line for room `code`; RoomError `rate_limited` if the room is over its rate.

        A line the room then refuses, or cannot store, is given back with `refund`."""
        if not self.take(code, time.monotonic()):
            raise RoomError(
                errors.RATE_LIMITED,
                f"this room's chat is busy: at most {self.rate:g} lines a second from everyone "
                "together; this line was dropped",
            )


def allowed_origins(setting: str | None) -> list[Origin | None] | None:
    """The `Origin` headers accepted (None: any): a comma-separated list, and none at all.

    Browsers always send `Origin`; other clients (the terminal client) send none and are let in.
    """
    if not setting:
        return None
    origins: list[Origin | None] = [
        Origin(part.strip()) for part in setting.split(",") if part.strip()
    ]
    return [*origins, None]
