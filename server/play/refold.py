"""The players' names filed again under today's fold of look-alike letters (`Ledger.refold`).

At start-up, before players are let in; with the store down then, the server starts anyway and
a task folds them once the store answers. A name that now reads as an older player's is logged:
that player is found by their keys only.
"""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Callable, Coroutine
from typing import Any

from protocol import names
from server.storage.archive import Ledger
from server.storage.store import StoreUnavailable

log = logging.getLogger("allfives.server")

#: How often the names are tried again while the store does not answer.
RETRY_SECONDS = 1.0


class Refold:
    """Folds the ledger's names again (see the module docstring)."""

    def __init__(
        self, ledger: Ledger, spawn: Callable[[Coroutine[Any, Any, Any]], asyncio.Task[Any]]
    ) -> None:
        self.ledger = ledger
        self.spawn = spawn

    async def run(self) -> None:
        """Fold the names now; if the store does not answer, in a task once it does."""
        try:
            self._log(await self.ledger.refold(names.FOLD_RULE, names.name_key))
        except StoreUnavailable:
            self.spawn(self._later())

    async def _later(self) -> None:
        while True:
            await asyncio.sleep(RETRY_SECONDS)
            try:
                self._log(await self.ledger.refold(names.FOLD_RULE, names.name_key))
                return
            except StoreUnavailable:
                continue

    @staticmethod
    def _log(clashes: list[str]) -> None:
        for name in clashes:
            log.warning("name %r now reads as an older player's: found by its keys only", name)
