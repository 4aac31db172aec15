"""`allfives show`'s full-screen replay takes only its own keys: anything else typed or pasted
into it (a colour code, a mouse report, a pasted block, a function key) does nothing, and q
still quits, with no traceback."""

from __future__ import annotations

import asyncio
import contextvars
import threading

import pytest
from client_helpers import TIMEOUT, close_all, finished_between_two
from prompt_toolkit.application import create_app_session
from prompt_toolkit.input import create_pipe_input
from prompt_toolkit.output import DummyOutput
from server_helpers import ServerThread
from waiting import until

from bridge.positions import positions_of
from clients.cli.replay_steps import Replay, replay_of
from clients.cli.show import Viewer
from protocol import messages as msg
from protocol.records import Record

#: Bytes a terminal passes on when such things are pasted or pressed.
STRAY = [
    "\x1b[31m",  # a colour code, read as a mouse report
    "\x1b[<0;1;1M",  # an SGR mouse click
    "\x1b[M !!",  # an X10 mouse click
    "\x1b[200~5-3 /quit\x1b[201~",  # a bracketed paste
    "\x1b[1;1R",  # a cursor position report nobody asked for
    "\x1bOP\x1b[15~\x1b[2~",  # F1, F5, Insert
    "\x1b[9999999999999999999999A",  # a cursor move no terminal sends
    "x\t\x00\x1b\x1b[",  # a letter, Tab, NUL, a lone Escape and half a sequence
]


async def finished_record(url: str) -> Record:
    host, guest, tasks = await finished_between_two(url)
    await host.send(msg.GetRecord())
    record = await until(lambda: host.state.record)
    await close_all([host, guest], tasks)
    return record


@pytest.fixture(scope="module")
def replay() -> Replay:
    """A finished match of two, as `allfives show` steps through it."""
    with ServerThread() as server:
        record = asyncio.run(finished_record(f"ws://127.0.0.1:{server.server.port}/"))
    return replay_of(record, positions_of(record))


@pytest.mark.parametrize("stray", STRAY)
def test_a_key_that_is_not_the_viewers_does_nothing(replay: Replay, stray: str) -> None:
    viewer = Viewer(replay, None, "g")
    ended: list[int] = []
    with create_pipe_input() as keys, create_app_session(input=keys, output=DummyOutput()):
        keys.send_text("\x1b[C\x1b[C" + stray + "\x1b[C" + "q")  # → →, the stray bytes, → q
        # In a thread, in this input's session: a viewer that fails waits for Enter after its
        # traceback, and the test says so rather than wait with it.
        session = contextvars.copy_context()
        running = threading.Thread(target=lambda: ended.append(session.run(viewer.run)))
        running.daemon = True
        running.start()
        running.join(TIMEOUT)
    assert ended == [0], f"the viewer did not end on q after {stray!r}"
    assert viewer.at == 3, stray
