"""The server's read-only HTTP API (protocol/README.md, "HTTP API") for the terminal commands.

The API is on the WebSocket's port: ws://HOST:PORT/ answers at http://HOST:PORT/api/...
(wss at https). The player's key goes in `Authorization: Key <key>` (never in the URL). Answers
are untrusted: decoded into the protocol's types (`protocol.api`, `protocol.review`), bounded in
size, and shown through `clients.cli.safe.visible`.
"""

from __future__ import annotations

import json
import urllib.error
import urllib.parse
import urllib.request
from dataclasses import dataclass
from typing import TypeVar

import msgspec

from clients.cli.connection import reason
from clients.cli.i18n import N_, _, ngettext
from clients.cli.seats import normalize_url
from protocol.api import DEFAULT_GAMES_PAGE

#: The most an answer may hold (a game's record is far less).
MAX_ANSWER = 8 * 1024 * 1024
TIMEOUT = 20.0
T = TypeVar("T")

#: What is asked for ("ladder", "player", "games list", "game", "review") when there is none.
NOT_FOUND = {
    "ladder": N_("no such ladder on this server"),
    "player": N_("no such player on this server"),
    "games list": N_("no such player on this server"),  # i18n: not shown
    "game": N_("no such game on this server"),
    "review": N_("no review of that game on this server"),
    "tournament": N_("no such tournament on this server (a private one needs CODE-INVITE)"),
}


class ApiError(Exception):
    """A request the server refused or did not answer; `text` says why in words."""

    def __init__(self, text: str, status: int = 0, code: str = "", retry: int | None = None):
        super().__init__(text)
        self.text = text
        self.status = status
        self.code = code
        self.retry = retry


@dataclass(frozen=True)
class Api:
    """One server's API, asked as the player of `key` (None: as a guest)."""

    url: str
    key: str | None = None

    @property
    def base(self) -> str:
        """http(s)://HOST:PORT of the server at `url`."""
        parts = urllib.parse.urlsplit(normalize_url(self.url))
        scheme = "https" if parts.scheme in ("wss", "https") else "http"
        return f"{scheme}://{parts.netloc}"

    def get(self, path: str, kind: type[T], what: str) -> T:
        """GET `path` and decode it as `kind`; ApiError (in words, naming `what`) otherwise."""
        headers = {"Accept": "application/json"}  # i18n: not shown
        if self.key is not None:
            headers["Authorization"] = f"Key {self.key}"  # i18n: not shown
        request = urllib.request.Request(self.base + path, headers=headers)
        try:
            with urllib.request.urlopen(request, timeout=TIMEOUT) as response:
                body = response.read(MAX_ANSWER + 1)
        except urllib.error.HTTPError as error:
            raise refused(error, what) from None
        except (OSError, ValueError) as error:
            cause = error.reason if isinstance(error, urllib.error.URLError) else error
            said = reason(cause, self.url) if isinstance(cause, BaseException) else str(cause)
            raise ApiError(_("the server did not answer ({reason})").format(reason=said)) from None
        if len(body) > MAX_ANSWER:
            raise ApiError(_("the server's answer is too large to read"))
        try:
            return msgspec.json.decode(body, type=kind)
        except (msgspec.DecodeError, msgspec.ValidationError) as error:
            said = _("the server's answer cannot be read: {reason}")
            raise ApiError(said.format(reason=error)) from None

    def ladder_path(self) -> str:
        return "/api/ladder"

    def player_path(self, name: str) -> str:
        return f"/api/players/{urllib.parse.quote(name, safe='')}"

    def games_path(self, name: str, offset: int = 0, limit: int = DEFAULT_GAMES_PAGE) -> str:
        return f"{self.player_path(name)}/games?offset={offset}&limit={limit}"

    def game_path(self, game: str) -> str:
        return f"/api/games/{urllib.parse.quote(game, safe='')}"

    def review_path(self, game: str) -> str:
        return f"{self.game_path(game)}/review"

    def tournament_path(self, code: str) -> str:
        return f"/api/tournaments/{urllib.parse.quote(code, safe='')}"

    def positions_path(self, game: str) -> str:
        return f"{self.game_path(game)}/positions"


def refused(error: urllib.error.HTTPError, what: str) -> ApiError:
    """An HTTP refusal in words."""
    try:
        body = json.loads(error.read(64 * 1024) or b"{}")
    except (OSError, ValueError):
        body = {}
    code = str(body.get("error", "")) if isinstance(body, dict) else ""
    retry_text = error.headers.get("Retry-After", "") if error.headers else ""  # i18n: not shown
    retry = int(retry_text) if retry_text.isdigit() else None
    status = error.code
    if status == 404:
        text = _(NOT_FOUND.get(what, NOT_FOUND["game"]))
    elif status == 429 and retry:
        said = ngettext(
            "too many requests: try again in {count} second",
            "too many requests: try again in {count} seconds",
            retry,
        )
        text = said.format(count=retry)
    elif status == 429:
        text = _("too many requests: try again in a few seconds")
    elif status == 503 and code == "busy" and retry:
        said = ngettext(
            "the server is busy: try again in {count} second",
            "the server is busy: try again in {count} seconds",
            retry,
        )
        text = said.format(count=retry)
    elif status == 503 and code == "busy":
        text = _("the server is busy: try again in a few seconds")
    elif status == 503:
        text = _("the server cannot answer now: try again soon")
    else:
        text = _("the server refused ({code})").format(code=code or status)
    return ApiError(text, status, code, retry)
