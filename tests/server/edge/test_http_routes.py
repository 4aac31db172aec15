"""The port's one route table (`server.edge.routes`): every route in it answers, with its own
answer, on a real server, and a path no route matches gets the one 404."""

from __future__ import annotations

from server_helpers import api_get, fast_config

from server.app import run_server
from server.edge.routes import ROUTES, RouteTable

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
