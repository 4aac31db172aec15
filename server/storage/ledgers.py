"""Which ledger (players, ratings, games: `server.storage.archive`) the server keeps."""

from __future__ import annotations

from server.storage.archive import Ledger
from server.storage.archive_local import LocalLedger
from server.storage.store import Store


def ledger_for(
    given: Ledger | None, store: Store, data: str | None, archive_days: float, max_games: int
) -> Ledger:
    """As given, else beside the rooms in Redis, else SQLite (in memory, or in a file under
    `data`) keeping `max_games`; Redis keeps an archived match `archive_days`."""
    if given is not None:
        return given
    if store.shared:
        from server.storage.archive_redis import RedisLedger
        from server.storage.redis_store import RedisStore

        assert isinstance(store, RedisStore)
        return RedisLedger(store, int(archive_days * 24 * 3600))
    return LocalLedger(data, max_games)
