"""The player keys, kept beside the saved seats: made on first use, sent with hello.

`keys.json` in the same folder as `seats.json` (`clients.cli.seats.config_dir`), readable by its
owner only. Per server URL, a key per name played under there (`--name` picks who you are, so
two people sharing a terminal account stay two players) and the name used last (what `allfives
history`, `ladder` and `show` ask as). A key is 32 random bytes as URL-safe base64 without
padding; it is the player on that server, so it is never printed. A player moves to another
device with a one-time link code (`/link` at the table, then `allfives join URL --link CODE`
there): that device makes a key of its own, kept under the player's name once the server says it.
A player who may lose this file keeps a recovery code (`allfives key URL`, `clients.cli.key`):
`allfives key URL --restore CODE` on a fresh config makes a key the server joins to the player.
"""

from __future__ import annotations

import base64
import contextlib
import json
import os
import re
import secrets
from pathlib import Path

from clients.cli.seats import config_dir, normalize_url

KEY_PATTERN = re.compile(r"[A-Za-z0-9_-]{32,64}")
#: Names kept per server at the most (the oldest go).
MAX_NAMES = 32


def new_key() -> str:
    """32 random bytes as URL-safe base64 without padding (43 characters)."""
    return base64.urlsafe_b64encode(secrets.token_bytes(32)).rstrip(b"=").decode()


Servers = dict[str, dict[str, object]]


class KeyStore:
    """The keys in one file (see the module docstring)."""

    def __init__(self, path: Path | None = None) -> None:
        self.path = path if path is not None else config_dir() / "keys.json"

    def _read(self) -> Servers:
        try:
            data = json.loads(self.path.read_text())
        except (OSError, ValueError):
            return {}
        return data if isinstance(data, dict) else {}

    def _keys(self, data: Servers, url: str) -> dict[str, str]:
        entry = data.get(normalize_url(url))
        keys = entry.get("keys") if isinstance(entry, dict) else None
        if not isinstance(keys, dict):
            return {}
        return {
            name: key
            for name, key in keys.items()
            if isinstance(name, str) and isinstance(key, str) and KEY_PATTERN.fullmatch(key)
        }

    def key_for(self, url: str, name: str) -> str:
        """The key of `name` on the server at `url`, made (and kept) on first use."""
        key = self._keys(self._read(), url).get(name)
        if key is None:
            key = new_key()
        self.remember(url, name, key)
        return key

    def remember(self, url: str, name: str, key: str) -> None:
        """Keep `key` as `name`'s on the server, and `name` as the one used last there."""
        data = self._read()
        keys = self._keys(data, url)
        keys.pop(name, None)
        keys[name] = key
        while len(keys) > MAX_NAMES:
            del keys[next(iter(keys))]
        data[normalize_url(url)] = {"keys": keys, "last": name}
        self._write(data)

    def kept(self, url: str, name: str) -> str | None:
        """The key kept for `name` on the server at `url`, or None (nothing is made)."""
        return self._keys(self._read(), url).get(name)

    def existing(self, url: str) -> tuple[str, str] | None:
        """The name used last on the server and its key, or None (nothing is made)."""
        data = self._read()
        entry = data.get(normalize_url(url))
        last = entry.get("last") if isinstance(entry, dict) else None
        key = self._keys(data, url).get(last) if isinstance(last, str) else None
        return None if key is None or not isinstance(last, str) else (last, key)

    def _write(self, data: Servers) -> None:
        with contextlib.suppress(OSError):
            self.path.parent.mkdir(parents=True, exist_ok=True)
            partial = self.path.with_suffix(".tmp")
            descriptor = os.open(partial, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600)
            with os.fdopen(descriptor, "w") as file:
                json.dump(data, file, indent=1)
            os.replace(partial, self.path)


def link_code(text: str) -> str | None:
    """A link code as typed ("abcd-efgh"), without spaces and dashes; None if it is not one."""
    code = re.sub(r"[\s-]", "", text)
    return code.upper() if re.fullmatch(r"[0-9A-Za-z]{8}", code) else None


def shown_code(code: str) -> str:
    """A code as people copy it: ABCD-EFGH."""
    return f"{code[:4]}-{code[4:]}" if len(code) == 8 else code
