"""The gate is the one count of a server's connections: a socket from accept, its WebSocket
connection once upgraded, both gone when it closes (`server.edge.gate`)."""

from __future__ import annotations

import asyncio

from server_helpers import fast_config
from waiting import until
from ws_client_helpers import Client

from protocol import messages as msg
from server.app import run_server


async def test_a_socket_counts_from_accept_and_its_connection_once_upgraded() -> None:
    async with run_server(fast_config()) as server:
        _reader, writer = await asyncio.open_connection("127.0.0.1", server.port)
        await until(lambda: server.gate.open == 1, what="the socket counted at accept")
        assert server.connections == [], "a socket not upgraded is no WebSocket connection"
        ann = await Client.open(server.url, "Ann")
        assert isinstance(await ann.request("ping"), msg.Pong)
        assert server.gate.open == 2
        (connection,) = server.connections
        assert connection.name == "Ann" and server.door.connections == [connection]
        writer.close()
        await until(lambda: server.gate.open == 1, what="the bare socket released")
        assert server.connections == [connection]
        await ann.close()
        await until(lambda: server.gate.open == 0, what="the WebSocket released")
        assert server.connections == [] and not server.gate.per_address.counts
