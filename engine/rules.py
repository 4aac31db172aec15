"""The rules the engine plays by: the one Rules type (protocol.rules), and the rounding of 7.2."""

from __future__ import annotations

from protocol.rules import EndScoring, HandSize, Rules, RulesError

__all__ = ["EndScoring", "HandSize", "Rules", "RulesError", "round5"]


def round5(x: float) -> int:
    """Round to the nearest multiple of 5, halves up (7.2): 7 -> 5, 8 -> 10, 6.5 -> 5, 7.5 -> 10."""
    return 5 * int((2 * x + 5) // 10)
