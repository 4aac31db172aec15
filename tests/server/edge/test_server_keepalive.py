"""Keepalive on one wheel: a silent connection is pinged, one that does not answer is dropped,
one that talks is left alone (server.edge.keepalive)."""

from __future__ import annotations

from typing import Any

from server_helpers import fast_config
from waiting import until
from websockets.asyncio.client import ClientConnection, connect
from websockets.frames import PING, Frame
from websockets.protocol import Event
from ws_client_helpers import Client, seat_players

from protocol import messages as msg
from server.app import run_server

INTERVAL = 0.3


class Counting(ClientConnection):
    """A client connection that counts the pings it is sent (and answers them, as any does)."""

    pings = 0

    def process_event(self, event: Event) -> None:
        if isinstance(event, Frame) and event.opcode is PING:
            self.pings += 1
        super().process_event(event)


async def counting(url: str) -> Client:
    socket: Any = await connect(url, create_connection=Counting, ping_interval=None)
    client = Client(socket, "Quiet")
    reply = await client.request("hello", version=msg.PROTOCOL_VERSION, name="Quiet")
    assert isinstance(reply, msg.Welcome)
    return client


async def test_a_silent_connection_is_pinged_and_kept_while_it_answers() -> None:
    async with run_server(fast_config(ping_interval=INTERVAL)) as server:
        quiet = await counting(server.url)
        socket: Counting = quiet.socket  # type: ignore[assignment]
        await until(lambda: socket.pings >= 4, what="four keepalive pings")
        # Four intervals and more of silence, every ping answered: still open and served.
        assert isinstance(await quiet.request("ping"), msg.Pong)
        assert len(server.connections) == 1


async def test_a_connection_that_does_not_answer_pings_is_dropped_and_told_why() -> None:
    async with run_server(fast_config(ping_interval=INTERVAL)) as server:
        players = await seat_players(server.url, 2, 2)
        stuck, other = players
        stuck.socket.transport.pause_reading()  # reads nothing: no pong goes back
        await until(lambda: len(server.connections) == 1, what="the silent seat dropped")
        # Its seat is away now, as after any drop; the other player is still served.
        reply = await other.request("resync")
        assert isinstance(reply, msg.Snapshot)
        seats = reply.state.seats
        assert seats[0] is not None and not seats[0].connected
        assert isinstance(await other.request("ping"), msg.Pong)
        stuck.socket.transport.resume_reading()
        await until(lambda: stuck.socket.close_code is not None, what="the close frame read")
        assert stuck.socket.close_code == 1011
        assert stuck.socket.close_reason == "keepalive ping timeout"


async def test_a_connection_that_talks_is_not_pinged() -> None:
    config = fast_config(ping_interval=INTERVAL, rate=1e6, burst=10**6)
    async with run_server(config) as server:
        talker = await counting(server.url)
        quiet = await counting(server.url)
        socket: Counting = talker.socket  # type: ignore[assignment]
        heard: Counting = quiet.socket  # type: ignore[assignment]
        while heard.pings < 3:  # three intervals, the talker speaking all along
            assert isinstance(await talker.request("ping"), msg.Pong)
        assert socket.pings == 0
        assert len(server.connections) == 2
