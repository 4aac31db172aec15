"""Tournaments: the pure core, with no I/O (docs/tournaments.md).

`pairing` seats each round (round robin, Swiss, single elimination; tables of two sides, or
of 3 and 4 individuals); `standings` orders the units from the finished tables (match points,
Buchholz, scores, join order).
"""
