"""A message sent on a connection without extensions is framed by the server itself: the bytes
are exactly the frame websockets would make, and a client reads back the message whole, at
every length (the three sizes of a frame's length field included)."""

from __future__ import annotations

from collections.abc import Generator

from hypothesis import given
from hypothesis import strategies as st
from websockets.frames import Frame, Opcode
from websockets.streams import StreamReader

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
