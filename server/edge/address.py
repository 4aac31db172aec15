"""Where others reach this machine: its address on its network, for the lines that tell friends
how to join (`allfives serve` on every address, `allfives host --network`)."""

from __future__ import annotations

import socket

#: A documentation-only address (RFC 5737): connecting a UDP socket to it sends nothing.
UNROUTED_ADDRESS = ("192.0.2.1", 9)
#: Listening addresses meaning "every address of this machine": nobody connects to them.
EVERY_ADDRESS = frozenset({"0.0.0.0", "::", ""})


def network_address() -> str:
    """This machine's address on its network, as friends would reach it (loopback if unknown)."""
    with socket.socket(socket.AF_INET, socket.SOCK_DGRAM) as probe:
        try:
            probe.connect(UNROUTED_ADDRESS)
            address = str(probe.getsockname()[0])
        except OSError:
            address = ""
    if address and not address.startswith(("127.", "0.")):
        return address
    try:
        return socket.gethostbyname(socket.gethostname())
    except OSError:
        return "127.0.0.1"


def reachable_url(url: str, host: str) -> str:
    """`url` of a server listening on `host`, with this machine's network address in place of
    an address that means every address (`ws://0.0.0.0:8765/` is no address to connect to)."""
    if host not in EVERY_ADDRESS:
        return url
    scheme, _slashes, rest = url.partition("://")
    _listening, _colon, port_and_path = rest.rpartition(":")
    return f"{scheme}://{network_address()}:{port_and_path}"
