"""The port's route table: each HTTP path the server answers, the methods it takes there, and
its handler, in one place.

`ROUTES` names every route (`Route`: a pattern the request's path, without its query, must match
whole, and the methods it takes); `RouteTable` binds those names to their handlers and finds the
route of a path, the first that matches. `server.edge.http` answers the port's requests through
it, the `/api/...` routes included (`server.edge.api` answers those it is handed): a path no
route matches gets the one answer of a path that does not exist (`HttpSide.unrouted`), whatever
the method, and a method its route does not take gets 405 with an `Allow` header naming those
it does (`method_refused`).

Every route takes GET and HEAD (HEAD loses its body in `server.edge.http_guard`), but for the
API's other paths, which answer the API's own 404 to any method.
"""

from __future__ import annotations

import re
from collections.abc import Awaitable, Callable, Mapping
from dataclasses import dataclass
from http import HTTPStatus

from websockets.http11 import Request, Response

from server.edge.http_guard import plain
from server.edge.wire import Wire

#: A route's handler: the wire, the request and the pattern's groups (as written in the path);
#: a response now, one to come, or None (the WebSocket upgrade goes ahead).
Handler = Callable[[Wire, Request, tuple[str, ...]], Response | Awaitable[Response] | None]


#: What a route takes unless it says otherwise: reading, and reading the headers alone.
READ = ("GET", "HEAD")


@dataclass(frozen=True)
class Route:
    """One route: its name (what `RouteTable` binds a handler to), the pattern the path must
    match whole, and the methods it takes (None: any, each answered by its handler)."""

    name: str
    pattern: re.Pattern[str]
    methods: tuple[str, ...] | None = READ

    def takes(self, method: str) -> bool:
        """Whether the route answers `method` (a method it does not take is a 405)."""
        return self.methods is None or method in self.methods


def _route(name: str, pattern: str, methods: tuple[str, ...] | None = READ) -> Route:
    return Route(name, re.compile(pattern), methods)


def method_refused(route: Route, method: str) -> Response:
    """405 for a method `route` does not take, its `Allow` header naming those it does."""
    assert route.methods is not None  # a route taking any method refuses none
    allowed = " and ".join(route.methods)
    response = plain(
        HTTPStatus.METHOD_NOT_ALLOWED, f"{method} is not served here: only {allowed}\n"
    )
    response.headers["Allow"] = ", ".join(route.methods)
    return response


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
    #: Any other path of the API: its own `not_found` (after its budget and checks), whatever
    #: the method, as a path that does not exist.
    _route("api.other", r"/api(?:/.*)?", methods=None),
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


__all__ = ["READ", "ROUTES", "Handler", "Route", "RouteTable", "method_refused"]
