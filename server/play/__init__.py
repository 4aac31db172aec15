"""Rooms in play in this process: held, changed, stored and driven.

`live` is a room in memory (its lock, its feed, its members and what is sent to them, framed by
`members`), `registry` the rooms held by code, `listing` the public room list. `committer`
applies a change, stores it, then sends it (`LocalCommitter`, `MemoryCommitter`; the
several-process one is `server.cluster.shared`), and `upkeep` frees seats of players gone and
expires empty rooms. `driver` runs bots, stand-ins and the turn clock, with `bots` (worker lanes)
and `hints`; `reviews` works out the hard bot's review of a finished match. `finish` archives
and rates a finished match (`ratings`, weighed by `weighting`). `players` is who a connection
is: a player known by its key or a guest, name claims and link codes. `tables` opens the
rooms of tournaments' tables and notices their matches' ends.
"""
