"""How the terminal's table came to be: joined over the network, hosted here, or `play` alone."""

from __future__ import annotations

import enum


class Mode(enum.Enum):
    """The one thing `App` is told about where its room lives; everything else follows from it."""

    #: `join` or `watch`: the room is on another machine.
    JOIN = "join"
    #: `host`: the server runs in this process and others join it; quitting closes the room.
    HOST = "host"
    #: `play`: this process's server and bots; `/rematch` deals at once, quitting ends the match.
    PLAY = "play"

    @property
    def hosting(self) -> bool:
        """The server runs in this process: quitting stops it."""
        return self is not Mode.JOIN

    @property
    def remote(self) -> bool:
        """The room outlives this process: leaving mid-match leaves a bot in the seat."""
        return self is Mode.JOIN

    @property
    def against_bots(self) -> bool:
        """The other seats are this process's bots: quitting throws the match away."""
        return self is Mode.PLAY

    @property
    def deal_at_once(self) -> bool:
        """`/rematch` deals at once: nobody else is there to wait for."""
        return self is Mode.PLAY
