"""A message sent on a connection without extensions is framed by the server itself: the bytes
are exactly the frame websockets would make, and a client reads back the message whole, at
every length (the three sizes of a frame's length field included). What a connection is sent
while the server handles its own message (a move's patch, then its answer) leaves in one write."""

from __future__ import annotations

import asyncio
import re
from collections.abc import Generator
from typing import Any, cast

import pytest
from hypothesis import given
from hypothesis import strategies as st
from server_helpers import fast_config
from websockets.frames import Frame, Opcode
from websockets.streams import StreamReader
from ws_client_helpers import play_out_one, to_play

from server.app import run_server
from server.edge.wire import text_frame

#: Lengths around the two points where a frame's length field grows (126 and 65536 bytes).
EDGES = st.sampled_from([0, 1, 125, 126, 127, 65535, 65536, 65537])


def read_frame(data: bytes) -> Frame:
    """The one frame in `data`, as a client reads it (it must not be masked), and nothing after."""
    reader = StreamReader()
    reader.feed_data(data)
    reader.feed_eof()
    parser: Generator[None, None, Frame] = Frame.parse(reader.read_exact, mask=False, max_size=None)
    try:
        next(parser)
    except StopIteration as done:
        frame: Frame = done.value
    else:
        raise AssertionError("the frame is not whole")
    assert not reader.buffer, "bytes after the frame"
    return frame


@given(st.one_of(st.binary(max_size=300), EDGES.map(lambda n: b"x" * n)))
def test_a_text_frame_is_the_one_websockets_makes_and_reads_back_whole(message: bytes) -> None:
    framed = text_frame(message)
    assert framed == Frame(Opcode.TEXT, message).serialize(mask=False)
    frame = read_frame(framed)
    assert (frame.opcode, frame.fin, bytes(frame.data)) == (Opcode.TEXT, True, message)


class Recording:
    """A connection's transport that notes each write it is asked for, and makes it."""

    def __init__(self, transport: Any) -> None:
        self.transport = transport
        self.writes: list[bytes] = []

    def write(self, data: bytes) -> None:
        self.writes.append(bytes(data))
        self.transport.write(data)

    def __getattr__(self, name: str) -> Any:
        return getattr(self.transport, name)


@pytest.mark.asyncio
async def test_a_moves_patch_and_its_answer_leave_the_server_in_one_write() -> None:
    async with run_server(fast_config()) as server:
        client = await to_play(server.url, "Ann")
        (connection,) = server.connections
        recording = Recording(connection.wire.transport)
        connection.wire.transport = cast(asyncio.Transport, recording)
        seq = client.state.seq or 0
        await play_out_one(client)
        assert (client.state.seq or 0) > seq, "the patch came before the answer"
        (both,) = [w for w in recording.writes if b'"type":"ack"' in w]
        change = re.search(rb'"type":"(patch|moved)"', both)
        assert change is not None and change.start() < both.index(b'"type":"ack"')
