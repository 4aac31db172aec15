"""Seat tokens kept on disk, so `allfives join` after a crash puts the player back in their seat.

One JSON file, `seats.json`, in `$XDG_CONFIG_HOME/allfives/` (or `~/.config/allfives/`), readable
by its owner only. Entries are keyed by server URL, room code and the name the seat was taken
with, so two players on one machine (two terminals, two names) each get their own seat back;
entries of the older format, keyed by URL and room alone, are still read. Stale ones are dropped.
"""

from __future__ import annotations

import contextlib
import json
import os
import time
from dataclasses import dataclass
from pathlib import Path
from urllib.parse import urlsplit, urlunsplit

KEEP_SECONDS = 7 * 24 * 3600


def config_dir() -> Path:
    """Where allfives keeps its files for this user."""
    base = os.environ.get("XDG_CONFIG_HOME") or str(Path.home() / ".config")
    return Path(base) / "allfives"


def normalize_url(url: str) -> str:
    """A server URL written one way: scheme added if missing, lower-case host, a path of at least "/"."""
    text = url.strip()
    if "://" not in text:
        text = "ws://" + text
    parts = urlsplit(text)
    return urlunsplit(
        (parts.scheme.lower(), parts.netloc.lower(), parts.path or "/", parts.query, "")
    )


@dataclass(frozen=True)
class SavedSeat:
    """A seat this user held: where, which, and the secret token that gives it back."""

    url: str
    room: str
    seat: int
    token: str
    saved_at: float
    #: The name the seat was taken with ("" when not known).
    name: str = ""
    #: The hand's tile numbers as the player saw them (`TableState.numbering`), if kept.
    numbering: dict[str, object] | None = None


class SeatStore:
    """The saved seats in one file (see the module docstring)."""

    def __init__(self, path: Path | None = None) -> None:
        self.path = path if path is not None else config_dir() / "seats.json"

    def _read(self) -> dict[str, dict[str, object]]:
        try:
            data = json.loads(self.path.read_text())
        except (OSError, ValueError):
            return {}
        return data if isinstance(data, dict) else {}

    def _write(self, data: dict[str, dict[str, object]]) -> None:
        self.path.parent.mkdir(parents=True, exist_ok=True)
        partial = self.path.with_suffix(".tmp")
        with contextlib.suppress(OSError):
            descriptor = os.open(partial, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600)
            with os.fdopen(descriptor, "w") as file:
                json.dump(data, file, indent=1)
            os.replace(partial, self.path)

    @staticmethod
    def _key(url: str, room: str, name: str = "") -> str:
        """An entry's key: server and room, and the name when there is one (an entry of the
        older format has no name in its key)."""
        key = f"{normalize_url(url)} {room.strip().upper()}"
        return f"{key} {name}" if name else key

    def _entries(
        self, data: dict[str, dict[str, object]], url: str, room: str, name: str
    ) -> list[str]:
        """The keys of the entries held for this room under `name` (an older entry saved
        without a name as well)."""
        wanted = (normalize_url(url), room.strip().upper())
        return [
            key
            for key, entry in data.items()
            if (seat := _seat_of(entry)) is not None
            and (seat.url, seat.room) == wanted
            and seat.name in (name, "")
        ]

    def save(self, url: str, room: str, seat: int, token: str, name: str = "") -> None:
        """Remember a seat (and the name it was taken with), keeping its tile numbers."""
        data = self._fresh(self._read())
        kept = None
        for key in self._entries(data, url, room, name):
            entry = data.pop(key)
            if entry.get("seat") == seat:
                kept = entry.get("numbering")
        data[self._key(url, room, name)] = {
            "numbering": kept,
            "url": normalize_url(url),
            "room": room.strip().upper(),
            "seat": seat,
            "token": token,
            "name": name,
            "saved_at": time.time(),
        }
        self._write(data)

    def save_numbering(
        self, url: str, room: str, numbering: dict[str, object], name: str = ""
    ) -> None:
        """Keep the hand's tile numbers with a saved seat, so a restart shows the same ones."""
        data = self._read()
        for key in self._entries(data, url, room, name):
            data[key]["numbering"] = numbering
            self._write(data)
            return

    def find(self, url: str, room: str | None = None, name: str | None = None) -> SavedSeat | None:
        """The seat saved for this server and room (the latest for the server when room is
        None), taken as `name` (any name when None; a seat saved with no name goes to any).

        A private room's seat is saved under its whole code, `CODE-INVITE`; the table's header
        shows only `CODE`, so a bare code finds it too."""
        wanted = None if room is None else room.strip().upper()
        found = [
            seat
            for seat in map(_seat_of, self._fresh(self._read()).values())
            if seat is not None
            and seat.url == normalize_url(url)
            and (
                wanted is None
                or seat.room == wanted
                or ("-" not in wanted and seat.room.split("-", 1)[0] == wanted)
            )
            and (name is None or seat.name in (name, ""))
        ]
        return max(found, key=lambda seat: seat.saved_at, default=None)

    def forget(self, url: str, room: str, name: str = "") -> None:
        """Drop a seat taken as `name` (the match is over, or the server no longer knows the
        token)."""
        data = self._read()
        keys = self._entries(data, url, room, name)
        for key in keys:
            del data[key]
        if keys:
            self._write(data)

    @staticmethod
    def _fresh(data: dict[str, dict[str, object]]) -> dict[str, dict[str, object]]:
        limit = time.time() - KEEP_SECONDS
        return {
            key: entry
            for key, entry in data.items()
            if isinstance(entry, dict) and _number(entry.get("saved_at")) >= limit
        }


def _number(value: object) -> float:
    return float(value) if isinstance(value, int | float) else 0.0


def _seat_of(entry: object) -> SavedSeat | None:
    if not isinstance(entry, dict):
        return None
    url, room, seat, token = (entry.get(k) for k in ("url", "room", "seat", "token"))
    if (
        isinstance(url, str)
        and isinstance(room, str)
        and isinstance(seat, int)
        and isinstance(token, str)
    ):
        name = entry.get("name")
        saved_at = _number(entry.get("saved_at"))
        numbering = entry.get("numbering")
        return SavedSeat(
            url,
            room,
            seat,
            token,
            saved_at,
            name if isinstance(name, str) else "",
            numbering if isinstance(numbering, dict) else None,
        )
    return None
