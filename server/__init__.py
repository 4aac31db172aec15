"""The allfives game server: the asyncio WebSocket layer around sans-I/O rooms.

Its packages, each with a docstring that lists its modules:

- `server.rooms`: one room as a sans-I/O state machine (`room`, `room_view`, `room_state`,
  `commands`, `presence`, `moves`, `clock`, `chat`, `results`, `notes`), and what each receiver is
  sent after a change (`documents`, `feed`, `patches`); `limits`, the buckets and caps.
- `server.play`: the rooms in play in this process (`live`, `registry`, `listing`, `committer`,
  `upkeep`), their bots, stand-ins, hints and reviews (`driver`, `bots`, `hints`, `reviews`), and
  what a finished match leads to (`finish`, `ratings`, `weighting`); `players`, who a connection is.
- `server.edge`: the network edge (sockets, connections, HTTP, the browser's files, `session`).
- `server.cluster`: what only several processes on one Redis need.
- `server.storage`: where rooms, records, players and ratings are kept (memory, SQLite, Redis).

Beside them: `server.app` (the server wired from its parts, and `run_server`), `server.config`
(what the server can be told), `server.serve` (the `allfives serve` command), `server.admin`
(`allfives admin`), `server.metrics` (`GET /metrics`), `server.collector` (the garbage
collector's schedule).

Engine values become protocol values in `bridge` (`bridge.convert`, `bridge.records`), shared
with the offline commands. Nothing is imported here, so `import server.rooms.room` does not load
the network stack.
"""
