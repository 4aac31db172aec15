"""The port's route table: each HTTP path the server answers, as a pattern and its handler, in
one place.

`ROUTES` names every route (`Route`: a pattern the request's path, without its query, must match
whole); `RouteTable` binds those names to their handlers and finds the
route of a path, the first that matches. `server.edge.http` answers the port's requests through
it, the `/api/...` routes included (`server.edge.api` answers those it is handed), and a path no
route matches gets the one answer of a path that does not exist (`HttpSide.unrouted`).

Every route takes GET and HEAD (`server.edge.http_guard` answers any other method 405 before the
table is asked, HEAD losing its body there).
"""

from __future__ import annotations

import re
from collections.abc import Awaitable, Callable, Mapping
from dataclasses import dataclass

from websockets.http11 import Request, Response

from server.edge.wire import Wire

#: A route's handler: the wire, the request and the pattern's groups (as written in the path);
#: a response now, one to come, or None (the WebSocket upgrade goes ahead).
Handler = Callable[[Wire, Request, tuple[str, ...]], Response | Awaitable[Response] | None]


@dataclass(frozen=True)
class Route:
    """One route: its name (what `RouteTable` binds a handler to) and the pattern the path must
    match whole."""

    name: str
    pattern: re.Pattern[str]


def _route(name: str, pattern: str) -> Route:
    return Route(name, re.compile(pattern))


#: One segment of an API path, as written (percent-escapes still in it).
_SEGMENT = "([^/#]*)"
#: An API path may end in a fragment, which is not read (as `urllib.parse.urlsplit` reads it).
_FRAGMENT = "(?:#.*)?"

#: Every route, in the order they are tried. The page's paths may carry a fragment, as
#: `server.edge.web` reads them; `/` is the page, or the WebSocket upgrade.
ROUTES: tuple[Route, ...] = (
    _route("review", r"/api/games/([A-Za-z0-9_-]{1,40})/review"),
    _route("api.ladder", r"/api/ladder" + _FRAGMENT),
    _route("api.player", f"/api/players/{_SEGMENT}{_FRAGMENT}"),
    _route("api.games", f"/api/players/{_SEGMENT}/games{_FRAGMENT}"),
    _route("api.game", f"/api/games/{_SEGMENT}{_FRAGMENT}"),
    _route("api.positions", f"/api/games/{_SEGMENT}/positions{_FRAGMENT}"),
    _route("api.tournaments", r"/api/tournaments" + _FRAGMENT),
    _route("api.tournament", f"/api/tournaments/{_SEGMENT}{_FRAGMENT}"),
    #: Any other path of the API: its own `not_found` (after its budget and checks).
    _route("api.other", r"/api(?:/.*)?"),
    _route("page", r"(?:/|/r/[A-Za-z0-9-]{1,24}/?)(?:#.*)?"),
    _route("files", r"/web/.*"),
    _route("favicon", r"/favicon\.ico(?:#.*)?"),
    _route("healthz", r"/healthz"),
    _route("readyz", r"/readyz"),
    _route("metrics", r"/metrics"),
)


class RouteTable:
    """`ROUTES` with a handler bound to each name; a route without a handler is not served
    (its path goes on to the next route that matches)."""

    def __init__(self, handlers: Mapping[str, Handler], routes: tuple[Route, ...] = ROUTES):
        unknown = set(handlers) - {route.name for route in routes}
        if unknown:
            raise ValueError(f"no route named {', '.join(sorted(unknown))}")
        self.routes = [(route, handlers[route.name]) for route in routes if route.name in handlers]

    def find(self, path: str) -> tuple[Route, Handler, tuple[str, ...]] | None:
        """The first route whose pattern matches `path` whole, its handler and the groups."""
        for route, handler in self.routes:
            found = route.pattern.fullmatch(path)
            if found is not None:
                groups = tuple(group or "" for group in found.groups())
                return route, handler, groups
        return None


__all__ = ["ROUTES", "Handler", "Route", "RouteTable"]
