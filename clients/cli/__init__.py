"""The terminal client: `allfives play`, `host`, `join`, `watch` and `rooms`.

Pure parts (unit-tested without a terminal or a socket):
`state` (the room from snapshot + patches, the log, notices, stable tile numbers, the turn
clock), `log_lines` (an event told as the log's line), `commands` (what a typed line means,
refusing what the server would refuse),
`render`, `status` and `layout` (the table as rich Text rows for a given terminal size, the rows
above the prompt, the dominoes),
`scoreboard` (hands, results in words, the match summary), `safe` (server text made visible:
every row written to the terminal goes through it), `seats` (saved seat tokens).
I/O: `connection` (websocket, greeting, reconnect and resume, the closes that end it), `app`
(rich output above a prompt_toolkit prompt), and one module per subcommand: `play`, `host`,
`join`, `watch`, `rooms` (`local` holds what they share: options, names, the embedded server's
settings). The client imports `protocol` only, plus `server` for the embedded server of `play`
and `host`.
"""
