"""The HTTP side of the one port: the browser table, probes, metrics, and who may upgrade.

`process_request` answers each request before any upgrade (`server.edge.wire`) (wrapped by `server.edge.http_guard`),
by the port's one route table (`server.edge.routes`), which also says which methods each path
takes (another is a 405 naming them; a path no route has is a 404 whatever the method): the
review and the API (`server.edge.api`),
the browser's files (`server.edge.web`), `/healthz` and `/readyz` (`server.edge.probes`), `/metrics` (to
this machine and the trusted proxies only, unless `open_metrics`: a stranger gets the answer of a
path that does not exist), and
for `/` the checks before the WebSocket upgrade: behind a trusted proxy, the address it names
holding too many connections (429); the server starting or stopping (503). The server full and
a peer address with too many sockets are turned away before this, at accept (`server.edge.gate`).

`process_response` sees each response before it is sent: every answer but the upgrade itself gets the
page's security headers (`server.edge.web.security_headers`) where it has none of its own,
whoever made it (the page, the API, a probe, a 404, a 405 of the route table, a 500 of `server.edge.http_guard`,
websockets' refusal of a bad upgrade), and a refusal over a limit (429) is counted and logged
once a minute per address (`server.edge.refusals`).
"""

from __future__ import annotations

import contextlib
import ipaddress
import ssl
from collections.abc import Awaitable, Callable
from http import HTTPStatus

from websockets.http11 import Request, Response

from server.config import Network
from server.edge.api import Api
from server.edge.door import Door
from server.edge.probes import Probes, text_response
from server.edge.refusals import REFUSED, Refusals
from server.edge.routes import Handler, Route, RouteTable, method_refused
from server.edge.web import WebFiles, security_headers
from server.edge.wire import Wire
from server.metrics import Metrics

#: The one path that upgrades to a WebSocket.
WEBSOCKET_PATH = "/"


class HttpSide:
    """The port's plain HTTP answers (see the module docstring); `process_request` is the hook."""

    def __init__(
        self,
        network: Network,
        max_connections_per_ip: int,
        door: Door,
        web: WebFiles,
        probes: Probes,
        metrics: Metrics,
        counters: Callable[[], str],
        api: Api | None = None,
        review: Callable[[Request, str, str], Awaitable[Response]] | None = None,
        refusals: Refusals | None = None,
    ) -> None:
        self.network = network
        #: How many WebSocket connections one address may hold (said in a 429).
        self.max_connections_per_ip = max_connections_per_ip
        self.door = door
        self.web = web
        self.probes = probes
        self.metrics = metrics
        #: The `/metrics` page, as the wiring builds it.
        self.counters = counters
        #: The read-only JSON API under `/api/` (`server.edge.api`).
        self.api = api
        #: `GET /api/games/ID/review` (`server.edge.review_api`), as the wiring builds it:
        #: called with the request, the game id and the asker's address.
        self.review = review
        #: Requests refused over a limit: counted, and logged once a minute per address.
        self.refusals = refusals if refusals is not None else Refusals()
        #: Each path the port answers, and what answers it (`server.edge.routes`).
        self.routes = self.table()

    def table(self) -> RouteTable:
        """The port's routes (`server.edge.routes.ROUTES`) bound to their handlers here; the
        review and the API only when they are served."""
        handlers: dict[str, Handler] = {
            "page": self._page,
            "files": self._page,
            "favicon": self._page,
            "healthz": self._probe,
            "readyz": self._probe,
            "metrics": self._metrics,
        }
        if self.review is not None:
            handlers["review"] = self._review
        if self.api is not None:
            for name in (*self.api.handlers(), "api.other"):
                handlers[name] = self._api(name)
        return RouteTable(handlers)

    def process_request(
        self, wire: Wire, request: Request
    ) -> Response | Awaitable[Response] | None:
        """A response for a plain HTTP request, or None to let `/` upgrade to a WebSocket: a
        path no route has (or one the asker may not know of) is answered as missing whatever
        the method; a method its route does not take, 405."""
        path = request.path.split("?", 1)[0]
        routed = self.routes.find(path)
        if routed is None or not self.shown(routed[0], wire, request):
            return self.unrouted(wire, request, path)
        route, handler, found = routed
        if not route.takes(request.method):
            return method_refused(route, request.method)
        return handler(wire, request, found)

    def shown(self, route: Route, wire: Wire, request: Request) -> bool:
        """Whether the asker may know the route is there: `/metrics` is, to a stranger, a path
        that does not exist, whatever the method."""
        return route.name != "metrics" or self.may_read_metrics(wire, request)

    def _review(self, wire: Wire, request: Request, found: tuple[str, ...]) -> Awaitable[Response]:
        assert self.review is not None  # bound only when served (`table`)
        return self.review(request, found[0], client_address(self.network, wire, request))

    def _api(self, name: str) -> Handler:
        api = self.api
        assert api is not None  # bound only when served (`table`)

        def answer(wire: Wire, request: Request, found: tuple[str, ...]) -> Awaitable[Response]:
            return api.answer(request, client_address(self.network, wire, request), name, found)

        return answer

    def _page(
        self, wire: Wire, request: Request, found: tuple[str, ...]
    ) -> Response | Awaitable[Response] | None:
        page = self.web.response(request)  # the browser table (server.edge.web)
        if page is not None:
            return page
        return self.unrouted(wire, request, request.path.split("?", 1)[0])

    def _probe(self, wire: Wire, request: Request, found: tuple[str, ...]) -> Response:
        return self.probes.answer(request.path.split("?", 1)[0])

    def _metrics(
        self, wire: Wire, request: Request, found: tuple[str, ...]
    ) -> Response | Awaitable[Response] | None:
        # A stranger never gets here (`shown`): to them the path does not exist.
        return text_response(HTTPStatus.OK, self.counters(), "text/plain; version=0.0.4")

    def unrouted(self, wire: Wire, request: Request, path: str) -> Response | None:
        """The answer to a path no route serves: 503 while the server starts or stops, else 404;
        for `/` asking to upgrade, the checks before the WebSocket (module docstring)."""
        door, network = self.door, self.network
        if door.closing:
            return text_response(HTTPStatus.SERVICE_UNAVAILABLE, "the server is stopping\n")
        if door.starting:
            return text_response(HTTPStatus.SERVICE_UNAVAILABLE, "the server is starting\n")
        if path != WEBSOCKET_PATH:
            return text_response(
                HTTPStatus.NOT_FOUND, f"nothing here: connect to {WEBSOCKET_PATH}\n"
            )
        # The sockets in all and by peer address are counted from accept (`server.edge.gate`);
        # from a trusted proxy, the address it names is counted here.
        if network.trusts(peer_of(wire)) and door.named.full(
            client_address(network, wire, request)
        ):
            self.metrics.errors["too_many_connections"] += 1
            return text_response(
                HTTPStatus.TOO_MANY_REQUESTS,
                f"at most {self.max_connections_per_ip} connections per address\n",
            )
        return None

    def may_read_metrics(self, wire: Wire, request: Request) -> bool:
        """Whether the asker may read `/metrics`: anyone with `open_metrics`, else an asker on
        this machine or at a trusted proxy's own address, the asker being the address a trusted
        proxy names (a stranger's request through the proxy is the stranger's). With
        `trust_proxy` yes (any socket names its client), only this machine."""
        network = self.network
        if network.open_metrics:
            return True
        asker = client_address(self.network, wire, request)
        with contextlib.suppress(ValueError):
            address = ipaddress.ip_address(asker)
            if isinstance(address, ipaddress.IPv6Address) and address.ipv4_mapped is not None:
                address = address.ipv4_mapped
            if address.is_loopback:
                return True
        return not isinstance(network.trust_proxy, bool) and network.trusts(asker)

    def process_response(self, wire: Wire, request: Request, response: Response) -> None:
        """Give the answer its security headers; count and log a refusal (module docstring)."""
        if response.status_code == HTTPStatus.SWITCHING_PROTOCOLS:
            return
        headers = response.headers
        for name, value in security_headers(request.headers.get("Host")):
            if name not in headers:
                headers[name] = value
        if response.status_code in REFUSED:
            address = client_address(self.network, wire, request)
            self.refusals.note(wire, address, response.status_code, request.path)


def client_address(network: Network, wire: Wire, request: Request | None) -> str:
    """The client's address: the socket's peer, or from a trusted proxy the one it names."""
    peer = peer_of(wire)
    if request is not None and network.trusts(peer):
        for header in ("X-Real-IP", "X-Forwarded-For"):
            named = request.headers.get(header, "").rsplit(",", 1)[-1].strip()
            with contextlib.suppress(ValueError):
                return str(ipaddress.ip_address(named))  # anything else is ignored
    return peer


def peer_of(wire: Wire) -> str:
    """The address the socket comes from."""
    return wire.address


def tls_context(certfile: str | None, keyfile: str | None) -> ssl.SSLContext | None:
    """The context to serve wss:// with, from a certificate and key (PEM); None: plain ws://."""
    if not certfile:
        return None
    context = ssl.SSLContext(ssl.PROTOCOL_TLS_SERVER)
    context.load_cert_chain(certfile, keyfile)
    return context
