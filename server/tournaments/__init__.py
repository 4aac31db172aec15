"""Tournaments: the pure core, with no I/O (docs/tournaments.md).

`pairing` seats each round (round robin, Swiss, single elimination; tables of two sides, or
of 3 and 4 individuals); `standings` orders the units from the finished tables (match points,
Buchholz, scores, join order); `stored` is the tournament as stored (msgspec Structs, JSON and
msgpack) and what it says; `state` its commands (create, join, leave, start, a table opened
and finished), each a pure function from a state to a new one or a `TournamentError`; `view`
the public view of a state that followers are sent (protocol/tournaments.py).
"""
