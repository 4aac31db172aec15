"""Budgets kept per key and caps per address: token buckets for an address, a room or a
listing, and counts of what each address holds. Used by the rooms in play here (rooms per
address, room lists, new players) and by the edge (connections, API requests, room lookups:
`server.edge.limits`). A budget per address (`AddressBuckets`, `address_key`) counts an IPv6
address as its /64 network (one host holds a whole /64).
"""

from __future__ import annotations

import ipaddress
from collections import Counter


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


class KeyedBuckets:
    """A token bucket per key (an address, a room): `burst` at once, then `per_second`.

    Keys whose bucket is full again are forgotten, so memory stays bounded by the busy keys.
    """

    def __init__(self, burst: int, per_second: float) -> None:
        self.burst = burst
        self.rate = per_second
        self.spent: dict[str, tuple[float, float]] = {}

    def key(self, name: str) -> str:
        """What a bucket is kept for (the name itself here)."""
        return name

    def _left(self, key: str, now: float) -> float:
        tokens, updated = self.spent.get(key, (float(self.burst), now))
        return min(float(self.burst), tokens + (now - updated) * self.rate)

    def wait(self, name: str, now: float) -> float:
        """Seconds until `name` has a token again (0 when it has one now)."""
        left = self._left(self.key(name), now)
        if left >= 1.0:
            return 0.0
        return (1.0 - left) / self.rate if self.rate > 0 else float("inf")

    def charge(self, name: str, now: float) -> None:
        """Take one token from `name`'s bucket (none left: it stays empty)."""
        key = self.key(name)
        self.spent[key] = (max(0.0, self._left(key, now) - 1.0), now)
        if len(self.spent) > 4096:
            for full in [k for k in self.spent if self._left(k, now) >= self.burst]:
                del self.spent[full]

    def take(self, name: str, now: float) -> bool:
        """Take a token if `name` has one; False (nothing taken) if not."""
        if self.wait(name, now) > 0:
            return False
        self.charge(name, now)
        return True

    def refund(self, name: str, now: float) -> None:
        """Give back a token taken ahead (what it was taken for did not happen, or was free)."""
        key = self.key(name)
        left = self._left(key, now) + 1.0
        if left >= self.burst:
            self.spent.pop(key, None)
        else:
            self.spent[key] = (left, now)


class AddressBuckets(KeyedBuckets):
    """A bucket per address (an IPv6 address counts as its /64), `burst` then `per_second`."""

    def key(self, name: str) -> str:
        """An IPv4 address, or the /64 network of an IPv6 one."""
        return _network(name)


def address_key(address: str) -> str:
    """What a per-address budget kept elsewhere (the ledger's new players) is kept under."""
    return _network(address)


def _network(address: str) -> str:
    """What a budget is kept for: an IPv4 address, or the /64 network of an IPv6 one."""
    if ":" not in address:
        return address
    try:
        return str(ipaddress.ip_network(f"{address}/64", strict=False))
    except ValueError:
        return address
