"""Where rooms, records, players and ratings are kept. Nothing here knows of connections or of
other processes.

Rooms and records: the `Store` interface and `MemoryStore` (`store`), SQLite (`sqlite_store`)
and Redis (`redis_store`; its connection, watchdog and reconnecting in `redis_link`, which
`archive_redis` and the cluster call through too). Players, ratings and finished matches: the `Ledger` interface
(`archive`), in SQLite (`archive_local`, its rows in `archive_local_rows`) or in Redis (`archive_redis`, its Lua in
`archive_scripts`). Both SQLite files map SQLite's errors and keep their schema versions the same
way (`sqlite_files`).
"""
