"""Limits that keep one client from hurting others: token buckets, caps per address and in all."""

from __future__ import annotations

import ipaddress
from collections import Counter


class TokenBucket:
    """`rate` messages per second on average, bursts of up to `burst`; counts refusals in a row."""

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


class PerAddress:
    """How many of something (connections, rooms) each client address holds, under a cap."""

    def __init__(self, limit: int) -> None:
        self.limit = limit
        self.counts: Counter[str] = Counter()

    def full(self, address: str) -> bool:
        """Whether the address already holds its limit."""
        return self.counts[address] >= self.limit

    def add(self, address: str) -> None:
        """Count one more for the address."""
        self.counts[address] += 1

    def remove(self, address: str) -> None:
        """Count one less for the address."""
        self.counts[address] -= 1
        if self.counts[address] <= 0:
            del self.counts[address]


class LookupBudget:
    """Failed room lookups per address: `burst` at once, then `per_minute`; none beyond.

    A lookup that finds no room (or no such seat) costs one; an address with nothing left gets
    `rate_limited` for every lookup until the budget refills, whether the room exists or not.
    An IPv6 address counts as its /64 network (one host holds a whole /64). Addresses whose
    budget is full again are forgotten, so memory stays bounded by the guessers.
    """

    def __init__(self, burst: int, per_minute: float) -> None:
        self.burst = burst
        self.rate = per_minute / 60.0
        self.spent: dict[str, tuple[float, float]] = {}

    def _left(self, address: str, now: float) -> float:
        tokens, updated = self.spent.get(_network(address), (float(self.burst), now))
        return min(float(self.burst), tokens + (now - updated) * self.rate)

    def wait(self, address: str, now: float) -> float:
        """Seconds until the address may look up a room again (0 when it may now)."""
        left = self._left(address, now)
        if left >= 1.0:
            return 0.0
        return (1.0 - left) / self.rate if self.rate > 0 else float("inf")

    def charge(self, address: str, now: float) -> None:
        """Count one failed lookup against the address."""
        self.spent[_network(address)] = (max(0.0, self._left(address, now) - 1.0), now)
        if len(self.spent) > 4096:
            self.forget_full(now)

    def forget_full(self, now: float) -> None:
        """Drop the addresses whose budget has refilled."""
        for address in [a for a in self.spent if self._left(a, now) >= self.burst]:
            del self.spent[address]


def method_refused(method: str) -> str | None:
    """Why an HTTP request's method is refused (405), or None: only GET and HEAD are served."""
    if method in ("GET", "HEAD"):
        return None
    return f"{method} is not served here: only GET and HEAD\n"


def server_full(connections: int, max_connections: int) -> str | None:
    """Why a new connection is refused (503) when `max_connections` are open, or None."""
    if connections < max_connections:
        return None
    return f"the server is full ({max_connections} connections): try again later\n"


def allowed_origins(setting: str | None) -> list[str | None] | None:
    """The `Origin` headers accepted (None: any): a comma-separated list, and none at all.

    Browsers always send `Origin`; other clients (the terminal client) send none and are let in.
    """
    if not setting:
        return None
    origins: list[str | None] = [part.strip() for part in setting.split(",") if part.strip()]
    return [*origins, None]


def _network(address: str) -> str:
    """What a budget is kept for: an IPv4 address, or the /64 network of an IPv6 one."""
    if ":" not in address:
        return address
    try:
        return str(ipaddress.ip_network(f"{address}/64", strict=False))
    except ValueError:
        return address
