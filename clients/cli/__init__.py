"""The terminal client: `allfives play`, `host`, `join` and `rooms`.

Pure parts (unit-tested without a terminal or a socket):
`state` (the room from snapshot + patches, the log, notices), `commands` (what a typed line
means, refusing what the server would refuse), `render` and `layout` (the table as rich Text
rows for a given terminal size), `seats` (saved seat tokens).
I/O: `connection` (websocket, greeting, reconnect and resume), `app` (rich output above a
prompt_toolkit prompt), and one module per subcommand: `play`, `host`, `join`, `rooms`
(`local` holds what they share). The client imports `protocol` only, plus `server` for the
embedded server of `play` and `host`.
"""
