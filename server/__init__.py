"""The allfives game server: the asyncio WebSocket layer around sans-I/O rooms.

- `server.room`: one room as a state machine (seats, host, phase, chat, the match, `seq`).
- `server.feed`: each receiver's view document, the patches between them, catch-up on reconnect.
- `server.convert`: engine views and events as protocol values; `server.diff`: fast JSON Patch.
- `server.store`: the store interface and `MemoryStore`; `server.limits`, `server.metrics`.
- `server.bots`: bot moves off the event loop; `server.records`: matches as records.
- `server.app`: the server wired from its parts (listed in its docstring), and `run_server`.
- `server.serve`: the `allfives serve` command.

Nothing is imported here, so `import server.records` does not load the network stack.
"""
