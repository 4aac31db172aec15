"""Where rooms and records are kept: the `Store` interface and `MemoryStore` (`store`), and
Redis (`redis_store`). Nothing here knows of connections or of other processes."""
