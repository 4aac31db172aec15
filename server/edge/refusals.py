"""Refused HTTP requests, counted every time and logged at most once per address per interval.

An address over its budget may send thousands of requests a minute, each answered 429 at once;
a log line for each (the websockets library writes two: the response and the close) would
fill the disk (docs/performance.md). So `Refusals.note` counts every refusal (`/metrics`:
`allfives_http_refused_total`), logs the first from an address, then nothing from it for
`LOG_SECONDS`, after which its next refusal is logged with how many went unlogged meanwhile. The
refused connection's own websockets lines go to `QUIET_LOG`, which keeps warnings and errors
only. `Throttle` is the same bound for anything else logged on a stranger's say-so (a request
that made the server fail is logged with its traceback once an interval per kind of failure).
"""

from __future__ import annotations

import logging
import time
from collections import Counter

from server.edge.wire import WEBSOCKETS_LOG, Wire

log = logging.getLogger("allfives.http")

#: Statuses that answer a client over a limit: counted and logged as refusals.
REFUSED = frozenset({429})
#: At most one line per address (or kind of failure) in this many seconds.
LOG_SECONDS = 60.0
#: Past this many addresses remembered, those logged an interval ago or more are forgotten.
KEPT = 4096


class _NoInfo(logging.Filter):
    def filter(self, record: logging.LogRecord) -> bool:
        return record.levelno > logging.INFO


#: Where a refused connection's websockets lines go: warnings and errors only.
QUIET_LOG = WEBSOCKETS_LOG.getChild("refused")
QUIET_LOG.addFilter(_NoInfo())
QUIET_LOGGER = logging.LoggerAdapter(QUIET_LOG, {})


class Throttle:
    """Whether to log about a key now: once, then not again for `seconds`; counts the rest."""

    def __init__(self, seconds: float = LOG_SECONDS) -> None:
        self.seconds = seconds
        #: key -> (when it was last logged, how many since went unlogged)
        self.logged: dict[str, tuple[float, int]] = {}

    def due(self, key: str, now: float | None = None) -> int | None:
        """None: not now (counted); else how many went unlogged since the last line."""
        now = time.monotonic() if now is None else now
        last = self.logged.get(key)
        if last is not None and now - last[0] < self.seconds:
            self.logged[key] = (last[0], last[1] + 1)
            return None
        self.logged[key] = (now, 0)
        if len(self.logged) > KEPT:
            for old in [k for k, (at, _) in self.logged.items() if now - at >= self.seconds]:
                del self.logged[old]
        return 0 if last is None else last[1]


class Refusals:
    """Counts refused requests by status and logs them per address (module docstring)."""

    def __init__(self, seconds: float = LOG_SECONDS) -> None:
        self.counts: Counter[int] = Counter()
        self.throttle = Throttle(seconds)

    def note(self, wire: Wire, address: str, status: int, path: str) -> None:
        """A request from `address` was refused with `status`: count it, maybe log it, and
        keep the library's lines about its connection out of the log."""
        self.counts[status] += 1
        if wire.protocol is not None:
            wire.protocol.logger = QUIET_LOGGER
        unlogged = self.throttle.due(address)
        if unlogged is None:
            return
        since = f" ({unlogged} more refused since the last line)" if unlogged else ""
        log.info(
            "refused %r from %s: %d; further refusals of this address logged once in %g s%s",
            path[:80],
            address,
            status,
            self.throttle.seconds,
            since,
        )


__all__ = ["LOG_SECONDS", "QUIET_LOGGER", "REFUSED", "Refusals", "Throttle"]
