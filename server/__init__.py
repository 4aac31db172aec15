"""The allfives game server: the asyncio WebSocket layer around sans-I/O rooms.

- `server.rooms.room`: one room as a state machine (seats, host, phase, chat, the match, `seq`);
  `server.rooms.room_view` what it says without changing, `server.rooms.room_state` what it
  stores and answers, `server.rooms.commands` the commands dispatched to it,
  `server.rooms.presence` who sits where and who is connected, `server.rooms.moves` the match,
  `server.rooms.clock` the turn clock, `server.rooms.chat` its chat.
- `server.rooms.feed`: after each change, the shared frame and the seats' own; catch-up on reconnect.
- `server.rooms.patches`: the JSON Patch operations a change's events imply (no document diffed).
- `server.rooms.documents`: a receiver's whole document, built fresh (snapshots).
- `server.storage.store`: the store interface and `MemoryStore`; `server.rooms.limits`, `server.metrics`.
- `server.play.bots`: bot moves off the event loop.
- `server.app`: the server wired from its parts (listed in its docstring), and `run_server`.
- `server.serve`: the `allfives serve` command.

Engine values become protocol values in `bridge` (`bridge.convert`, `bridge.records`), shared
with the offline commands. Nothing is imported here, so `import server.room` does not load the
network stack.
"""
