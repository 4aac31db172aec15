"""The allfives game server: the asyncio WebSocket layer around sans-I/O rooms.

- `server.room`: one room as a state machine (seats, host, phase, chat, the match, `seq`);
  `server.room_state` what it stores and answers, `server.commands` the commands dispatched to it,
  `server.presence` who sits where and who is connected, `server.clock` the turn clock.
- `server.feed`: after each change, the shared frame and the seats' own; catch-up on reconnect.
- `server.patches`: the JSON Patch operations a change's events imply (no document diffed).
- `server.documents`: a receiver's whole document, built fresh (snapshots).
- `server.store`: the store interface and `MemoryStore`; `server.limits`, `server.metrics`.
- `server.bots`: bot moves off the event loop.
- `server.app`: the server wired from its parts (listed in its docstring), and `run_server`.
- `server.serve`: the `allfives serve` command.

Engine values become protocol values in `bridge` (`bridge.convert`, `bridge.records`), shared
with the offline commands. Nothing is imported here, so `import server.room` does not load the
network stack.
"""
