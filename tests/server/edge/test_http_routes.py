"""The port's one route table (`server.edge.routes`): every route in it answers, with its own
answer, on a real server; a method a route does not take gets 405 naming those it does, and a
path no route matches gets the one 404 whatever the method."""

from __future__ import annotations

import re

from server_helpers import api_get, fast_config

from server.app import run_server
from server.edge.routes import READ, ROUTES, Route, RouteTable, method_refused

#: A path for each route, with the status it answers on a fresh server and the start of its
#: body (a JSON answer's `message` for the API's refusals).
SAMPLES: dict[str, tuple[str, int, str]] = {
    "review": ("/api/games/nosuchgame/review", 404, "no such game"),
    "api.ladder": ("/api/ladder", 200, '{"ladders"'),
    "api.player": ("/api/players/bot:easy", 200, '{"name":"bot:easy"'),
    "api.games": ("/api/players/bot:easy/games?limit=2", 200, '{"name":"bot:easy"'),
    "api.game": ("/api/games/nosuchgame", 404, "no such game"),
    "api.positions": ("/api/games/nosuchgame/positions", 404, "no such game"),
    "api.tournaments": ("/api/tournaments", 200, '{"offset":0'),
    "api.tournament": ("/api/tournaments/ABCDEF", 404, "no such tournament"),
    "api.other": ("/api/nothing", 404, "no such API path"),
    "page": ("/r/ABCD", 200, "<!doctype html>"),
    "files": ("/web/js/api.js", 200, ""),
    "favicon": ("/favicon.ico", 200, "<svg"),
    "healthz": ("/healthz", 200, "ok"),
    "readyz": ("/readyz", 200, "ready"),
    "metrics": ("/metrics", 200, "# HELP"),
}
UNKNOWN = ["/nothing", "/apix", "/web", "/r/", "/metrics/", "/healthz/x", "/favicon.ico/x"]
NOT_FOUND = b"nothing here: connect to /\n"


def test_each_route_has_a_sample_that_it_is_the_route_of() -> None:
    assert set(SAMPLES) == {route.name for route in ROUTES}
    table = RouteTable({route.name: lambda wire, request, found: None for route in ROUTES})
    for name, (path, _, _) in SAMPLES.items():
        routed = table.find(path.split("?", 1)[0])
        assert routed is not None and routed[0].name == name, path
    for path in UNKNOWN:
        assert table.find(path) is None, path


async def test_every_route_answers_and_an_unknown_path_is_the_one_404() -> None:
    async with run_server(fast_config()) as server:
        for name, (path, status, start) in SAMPLES.items():
            answer = await api_get(server.url, path)
            assert answer.status == status, (name, path, answer)
            if path.startswith("/api/") and status != 200:
                assert answer.json["message"] == start, (name, answer)
            else:
                assert answer.body.decode().lower().startswith(start.lower()), (name, answer)
            assert answer.body != NOT_FOUND, name
            head = await api_get(server.url, path, method="HEAD")
            assert (head.status, head.body) == (status, b""), (name, head)
            if name != "metrics":  # its counters move between two requests
                assert head.headers["content-length"] == str(len(answer.body)), name
        for path in UNKNOWN:
            answer = await api_get(server.url, path)
            assert (answer.status, answer.body) == (404, NOT_FOUND), (path, answer)
            assert answer.headers["x-content-type-options"] == "nosniff", path


#: Methods no route of the port takes (and one no HTTP server knows).
OTHER_METHODS = ["POST", "PUT", "DELETE", "PATCH", "OPTIONS", "BREW"]


async def test_a_method_a_route_does_not_take_is_a_405_naming_those_it_does() -> None:
    async with run_server(fast_config()) as server:
        for name, (path, _, _) in SAMPLES.items():
            route = next(route for route in ROUTES if route.name == name)
            for method in OTHER_METHODS:
                answer = await api_get(server.url, path, method=method)
                if route.methods is None:  # the API's other paths: missing, whatever the method
                    assert answer.status == 404, (name, method, answer)
                    assert answer.json["message"] == "no such API path", (name, answer)
                    continue
                assert answer.status == 405, (name, method, answer)
                assert answer.headers["allow"] == "GET, HEAD", (name, method, answer)
                assert answer.body == f"{method} is not served here: only GET and HEAD\n".encode()
                assert answer.headers["x-content-type-options"] == "nosniff", (name, method)
        # Refused, the request changed nothing: the page and the API answer as before.
        assert (await api_get(server.url, "/api/ladder")).status == 200
        assert (await api_get(server.url, "/healthz")).body == b"ok\n"


async def test_a_path_no_route_has_is_the_one_404_whatever_the_method() -> None:
    async with run_server(fast_config()) as server:
        for path in UNKNOWN:
            for method in OTHER_METHODS:
                answer = await api_get(server.url, path, method=method)
                assert (answer.status, answer.body) == (404, NOT_FOUND), (path, method, answer)
                assert "allow" not in answer.headers, (path, method)


def test_the_405_names_the_methods_of_its_own_route() -> None:
    only_get = Route("only", re.compile("/only"), ("GET",))
    refused = method_refused(only_get, "HEAD")
    assert refused.status_code == 405 and refused.headers["Allow"] == "GET"
    assert refused.body == b"HEAD is not served here: only GET\n"
    assert only_get.takes("GET") and not only_get.takes("HEAD")
    assert all(route.methods in (READ, None) for route in ROUTES)
    assert [route.name for route in ROUTES if route.methods is None] == ["api.other"]
