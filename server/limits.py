"""Limits that keep one client from hurting others: a token bucket per connection, caps per address."""

from __future__ import annotations

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
