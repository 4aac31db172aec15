"""Tournaments in play here: the desk that serves tournament messages (`desk`) over the pure
core (`server.tournaments`) and the stored tournaments (`server.storage.tournaments`), what it
keeps of each (`kept`: the tournament, its invite, its host's name), and the rounds played in
rooms (`rounds`; with several processes, which one opens a round's tables: `lease`)."""
