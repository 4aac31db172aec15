"""What only several processes on one Redis need: their membership and leases (`membership`,
its Lua in `scripts`), room notices between them (`notices`), following other processes' rooms
(`replica`), the committer that stores with fencing (`shared`, saves grouped by `save_batch`),
and their upkeep (orphaned rooms, presence, pruning: `upkeep`). The single-process path never
imports this package; `server.app` does when the store is Redis.
"""
