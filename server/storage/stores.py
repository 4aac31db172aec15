"""Which store keeps the rooms, opened from the storage settings: the one place one is built."""

from __future__ import annotations

from typing import TYPE_CHECKING

from server.storage.store import Store

if TYPE_CHECKING:
    from server.config import Storage


def open_store(storage: Storage) -> Store | None:
    """Redis at `storage.redis_url`, else SQLite under `storage.data` (it locks the directory:
    DataInUse when another process holds it), else None: the server keeps rooms in memory."""
    if storage.redis_url:
        from server.storage.redis_store import RedisStore

        return RedisStore(storage.redis_url, record_ttl=storage.record_ttl)
    if storage.data is not None:
        from server.storage.sqlite_store import SqliteStore

        return SqliteStore(storage.data, record_ttl=storage.record_ttl)
    return None
