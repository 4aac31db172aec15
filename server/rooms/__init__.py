"""Rooms: one room's state machine and everything derived from it, with no I/O.

`room` is the state machine (seats, host, phase, the match, `seq`), `room_view` what it says
without changing it, its stored form in `room_state`, and the client commands it answers in
`commands` (one table keyed by message type). `moves` deals the match and applies moves,
`presence` keeps who is connected, `clock` the turn clock, `chat` the chat, `codes` room codes
and invites, `results` a finished match's record and who sat where, `notes` makes a move
again from its note (other processes, the Redis move log), and `tables` makes a room a
tournament's table (seats reserved for its entrants, the match dealt at once). What each
receiver is sent is built here too: `documents` (a receiver's document), `feed` (the frames of a change) and `patches`
(RFC 6902 operations from the change's parts). `limits` holds the token buckets and
per-address counts the other packages enforce.
"""
