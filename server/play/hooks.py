"""What the committer asks of the rest of the server (`server.play.committer.Hooks`).

`Tasks` runs the tasks that end with the server. `PlayHooks` is the committer's hooks: after a
change reached a room's clients (`published`) it counts a finished match, has its record saved
(`server.play.finish.RecordSaver`) and archived (`server.play.finish.Finisher`), updates the
registry's counts and the public list, tells a tournament's table that finished
(`server.play.tables`), and kicks the room's bots and clock (`server.play.driver`);
`keep` starts or stops running a room here. The driver, the finisher and the listing are built
from the committer, so they are connected once, after it (`connect`), before the server starts.
"""

from __future__ import annotations

import asyncio
from collections.abc import Coroutine
from typing import Any

from server.metrics import Metrics
from server.play.driver import Driver
from server.play.finish import Finisher, RecordSaver
from server.play.listing import Listing
from server.play.live import LiveRoom
from server.play.registry import Registry
from server.play.tables import TableRooms


class Tasks:
    """The server's background tasks: each runs until done or until the server stops."""

    def __init__(self) -> None:
        self.running: set[asyncio.Task[Any]] = set()

    def spawn(self, coroutine: Coroutine[Any, Any, Any]) -> asyncio.Task[Any]:
        """Run a task that ends with the server."""
        task = asyncio.get_running_loop().create_task(coroutine)
        self.running.add(task)
        task.add_done_callback(self.running.discard)
        return task

    def cancel(self) -> None:
        """Cancel every task still running (the server stopping)."""
        for task in list(self.running):
            task.cancel()


class PlayHooks:
    """The committer's hooks (see the module docstring)."""

    def __init__(
        self, tasks: Tasks, registry: Registry, metrics: Metrics, records: RecordSaver
    ) -> None:
        self.tasks = tasks
        self.registry = registry
        self.metrics = metrics
        self.records = records
        self._parts: tuple[Driver, Finisher, Listing] | None = None
        #: Tournament tables' rooms, told of each change published (`server.play.tables`).
        self.tables: TableRooms | None = None

    def connect(self, driver: Driver, finisher: Finisher, listing: Listing) -> None:
        """The parts built from the committer, given once they are."""
        self._parts = (driver, finisher, listing)

    @property
    def parts(self) -> tuple[Driver, Finisher, Listing]:
        assert self._parts is not None, "PlayHooks.connect is called before the server starts"
        return self._parts

    def spawn(self, coroutine: Coroutine[Any, Any, Any]) -> asyncio.Task[Any]:
        """Run a task that ends with the server."""
        return self.tasks.spawn(coroutine)

    def kick(self, live: LiveRoom) -> None:
        """Make sure a due bot move gets made and the turn clock is set."""
        self.parts[0].kick(live)

    def keep(self, live: LiveRoom, kept: bool) -> None:
        """Start or stop running a room's bots and clock here; a room kept here whose finished
        match is not archived yet (its process stopped before) is archived now, and a
        tournament's table that finished is told (again: told twice, it counts once)."""
        driver, finisher, _ = self.parts
        driver.keep(live, kept)
        if kept:
            finisher.finished(live)
            if self.tables is not None:
                self.tables.kept(live)

    def published(self, live: LiveRoom) -> None:
        """A change reached the room's clients: a finished match's record, counts, the bots."""
        driver, finisher, listing = self.parts
        room = live.room
        if room.phase == "finished" and live.published_phase != "finished":
            self.metrics.matches_finished += 1
            self.records.save(room)
        if room.phase == "finished":
            finisher.finished(live)
        if self.tables is not None:
            self.tables.noticed(live)
        live.published_phase = room.phase
        self.registry.count(live)
        if self.registry.note_listing(live):
            listing.changed()
        driver.kick(live)
