"""websockets' connection with less held per connection (server.edge.lean) behaves as before."""

from __future__ import annotations

import asyncio
import collections

from hypothesis import given
from hypothesis import strategies as st
from waiting import until
from websockets.asyncio.client import connect
from websockets.asyncio.server import ServerConnection, serve

from server.edge.lean import FrameQueue, LeanConnection

Step = tuple[str, list[int]]
steps = st.lists(
    st.one_of(
        st.tuples(st.just("append"), st.lists(st.integers(), min_size=1, max_size=1)),
        st.tuples(st.just("popleft"), st.just([])),
        st.tuples(st.just("extendleft"), st.lists(st.integers(), max_size=4)),
    ),
    max_size=40,
)


@given(steps)
def test_the_frame_queue_does_what_a_deque_does_for_websockets(script: list[Step]) -> None:
    queue: FrameQueue[int] = FrameQueue()
    model: collections.deque[int] = collections.deque()
    for step, items in script:
        if step == "append":
            queue.append(items[0])
            model.append(items[0])
        elif step == "popleft":
            if model:
                assert queue.popleft() == model.popleft()
        else:  # how websockets puts frames back: extendleft(reversed(frames))
            queue.extendleft(reversed(items))
            model.extendleft(reversed(items))
        assert list(queue) == list(model)
        assert len(queue) == len(model) and bool(queue) == bool(model)


async def echo(socket: ServerConnection) -> None:
    async for message in socket:
        await socket.send(message)


async def test_a_lean_connection_reads_fragments_and_bursts_and_waits_out_a_pause() -> None:
    async with serve(echo, "127.0.0.1", 0, create_connection=LeanConnection) as server:
        port = next(iter(server.sockets)).getsockname()[1]
        async with connect(f"ws://127.0.0.1:{port}") as client:
            (lean,) = server.connections
            assert isinstance(lean, LeanConnection) and lean._waiters is None
            await client.send(["frag", "mented ", "message"])  # three frames, one message
            assert await client.recv() == "fragmented message"
            for index in range(50):  # a burst: frames queue up before the handler reads them
                await client.send(f"m{index}")
            assert [await client.recv() for _ in range(50)] == [f"m{i}" for i in range(50)]
            # The transport says its buffer is full, as it does for a client that stops
            # reading: a sender waits in websockets' drain until it says the buffer drained.
            lean.pause_writing()
            sending = asyncio.create_task(lean.send("after the pause"))
            await until(lambda: lean._waiters, what="the sender waiting to drain")
            assert not sending.done()
            lean.resume_writing()
            await asyncio.wait_for(sending, 10)
            assert not lean.paused and not lean._waiters
            assert await client.recv() == "after the pause"
