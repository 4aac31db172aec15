"""`/metrics` is read by this machine and the trusted proxies only, unless `open_metrics` (issue
45: its counters move when a private match finishes, a count a stranger must not get). A
stranger gets the very answer of a path that does not exist. Real servers, real sockets."""

from __future__ import annotations

import asyncio
import http.client
import ipaddress
import socket

import pytest
from server_helpers import fast_config

from server.app import run_server

pytestmark = pytest.mark.asyncio

#: The proxy's address in these tests: a loopback address of its own, as deploy/ uses.
PROXY = "127.0.0.2"
STRANGER = "203.0.113.7"


def get(
    port: int,
    path: str,
    source: str = "127.0.0.1",
    to: str = "127.0.0.1",
    method: str = "GET",
    **headers: str,
) -> tuple[int, bytes]:
    """Status and body of a GET (or `method`) to `to`:`port` from the address `source`."""
    connection = http.client.HTTPConnection(to, port, timeout=5, source_address=(source, 0))
    try:
        connection.request(method, path, headers=headers)
        response = connection.getresponse()
        return response.status, response.read()
    finally:
        connection.close()


def outward_address() -> str | None:
    """This machine's address on a network other than loopback, if it has one."""
    with socket.socket(socket.AF_INET, socket.SOCK_DGRAM) as probe:
        try:
            probe.connect(("192.0.2.1", 9))  # no packet is sent: this only picks a route
        except OSError:
            return None
        address: str = probe.getsockname()[0]
    return None if ipaddress.ip_address(address).is_loopback else address


async def test_a_stranger_through_the_proxy_gets_what_a_missing_path_gets() -> None:
    config = fast_config(trust_proxy=(ipaddress.ip_network(PROXY),))
    async with run_server(config) as server:
        port = server.port

        async def ask(path: str, source: str, **headers: str) -> tuple[int, bytes]:
            return await asyncio.to_thread(get, port, path, source, **headers)

        status, page = await ask("/metrics", "127.0.0.1")
        assert status == 200 and b"allfives_" in page  # this machine
        status, page = await ask("/metrics", PROXY)
        assert status == 200 and b"allfives_" in page  # the proxy itself (a scraper there)
        named = {"X-Real-IP": STRANGER}
        refused = await ask("/metrics", PROXY, **named)
        missing = await ask("/no-such-page", PROXY, **named)
        assert refused[0] == 404 and refused == missing
        assert b"allfives_" not in refused[1]
        # Nor does another method tell a stranger the path is there: no 405 naming GET.
        for method in ("POST", "DELETE"):
            posted = await asyncio.to_thread(get, port, "/metrics", PROXY, method=method, **named)
            assert posted == missing, method
        allowed = await asyncio.to_thread(get, port, "/metrics", "127.0.0.1", method="POST")
        assert allowed[0] == 405  # this machine may know of it
        # The proxy naming a client on this machine: that client may read them.
        assert (await ask("/metrics", PROXY, **{"X-Real-IP": "127.0.0.1"}))[0] == 200
        # A header from a socket that is no trusted proxy names nobody: 127.0.0.1 still asks.
        assert (await ask("/metrics", "127.0.0.1", **named))[0] == 200


async def test_a_stranger_asking_directly_is_refused_unless_the_metrics_are_open() -> None:
    outward = outward_address()
    if outward is None:
        pytest.skip("this machine has no address but loopback to ask from")
    for open_metrics, expected in ((False, 404), (True, 200)):
        config = fast_config(host="0.0.0.0", open_metrics=open_metrics)
        async with run_server(config) as server:
            status, page = await asyncio.to_thread(
                get, server.port, "/metrics", outward, outward, **{"X-Real-IP": "127.0.0.1"}
            )
            assert status == expected, open_metrics
            assert (b"allfives_" in page) == open_metrics
            local = await asyncio.to_thread(get, server.port, "/metrics")
            assert local[0] == 200
