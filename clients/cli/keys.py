"""The player's key per server, kept beside the saved seats: made on first use, sent with hello.

`keys.json` in the same folder as `seats.json` (`clients.cli.seats.config_dir`), readable by its
owner only: server URL -> key (32 random bytes as URL-safe base64 without padding). A key is the
player on that server, so it is never printed; the player moves to another device with a
one-time link code (`/link` at the table, then `allfives join URL --link CODE` there).
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


def new_key() -> str:
    """32 random bytes as URL-safe base64 without padding (43 characters)."""
    return base64.urlsafe_b64encode(secrets.token_bytes(32)).rstrip(b"=").decode()


class KeyStore:
    """The keys in one file (see the module docstring)."""

    def __init__(self, path: Path | None = None) -> None:
        self.path = path if path is not None else config_dir() / "keys.json"

    def _read(self) -> dict[str, str]:
        try:
            data = json.loads(self.path.read_text())
        except (OSError, ValueError):
            return {}
        if not isinstance(data, dict):
            return {}
        return {k: v for k, v in data.items() if isinstance(v, str) and KEY_PATTERN.fullmatch(v)}

    def existing(self, url: str) -> str | None:
        """This user's key on the server at `url` if one was made, else None (none is made)."""
        return self._read().get(normalize_url(url))

    def key_for(self, url: str) -> str:
        """This user's key on the server at `url`, made (and kept) on first use."""
        data = self._read()
        server = normalize_url(url)
        key = data.get(server)
        if key is None:
            key = data[server] = new_key()
            self._write(data)
        return key

    def _write(self, data: dict[str, str]) -> None:
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
