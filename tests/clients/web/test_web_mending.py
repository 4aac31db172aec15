"""The page mends its table after a gap whatever comes between (headless Chromium against a
real server): a connection lost before the snapshot its resync asked for, or a resync the
server refused. Either left the table where it was for good: the frames after the seq it held
are ignored while a snapshot is awaited, and the next gap asked for nothing."""

from __future__ import annotations

import pytest
from browser_helpers import PLAY_ON, chromium, js_errors, start_against_a_bot, wait_for
from selenium.webdriver.remote.webdriver import WebDriver
from server_helpers import ServerThread

pytestmark = pytest.mark.browser

LAPTOP = (1280, 800)

#: A frame lost on the way, as the page meets it: the next one does not follow. What the page
#: asks for (a resync) is returned here, not sent: it is lost too.
LOST_FRAME = """
const state = window.allfives.state;
return state.receive({type: "patch", seq: state.seq + 2, ops: []});
"""

#: The page's table as it stands: mending, snapshots taken, seq.
STANDS = "const s = window.allfives.state; return [s.mending, s.snapshots, s.seq];"


def a_frame_lost(page: WebDriver, server: ServerThread) -> tuple[int, int]:
    """Ann in a game against a bot, a frame lost on its way to her page (the resync it asks for
    lost too): the snapshots her page took so far, and the seq it holds."""
    start_against_a_bot(page, server, 100)
    wait_for(
        lambda: page.execute_script("return window.allfives.state.doc?.game ? true : null"),
        what="the game",
    )
    assert page.execute_script(LOST_FRAME) == [{"type": "resync"}]
    mending, snapshots, seq = page.execute_script(STANDS)
    assert mending
    return snapshots, seq


def wait_until_mended(page: WebDriver, snapshots: int) -> None:
    """Until the page takes a snapshot after its first `snapshots`, and waits for none."""

    def mended() -> bool:
        now_mending, now_snapshots, _ = page.execute_script(STANDS)
        return not now_mending and now_snapshots > snapshots

    wait_for(mended, what="the table mended by a snapshot")


def test_a_connection_lost_while_mending_comes_back_with_the_servers_table() -> None:
    with ServerThread() as server, chromium(*LAPTOP) as page:
        snapshots, seq = a_frame_lost(page, server)
        assert server.drop("Ann") == 1
        wait_until_mended(page, snapshots)
        # And it follows the game again: Ann's moves and the bot's come in as frames.
        wait_for(
            lambda: (
                page.execute_script(PLAY_ON) is not None
                and page.execute_script(STANDS)[2] >= seq + 4
            ),
            what="the game going on",
        )
        assert not page.execute_script(STANDS)[0]
        assert js_errors(page) == []


#: The server's answer to a resync it would not take (too many messages), as the page gets it.
REFUSED = """
window.allfives.onMessage({type: "error", id: 99, command: "resync", code: "rate_limited",
                           message: "too many messages"});
"""

#: A frame that does not follow, as the page's connection hands it over (what it asks for is sent).
GAP_AGAIN = """
const app = window.allfives;
app.onMessage({type: "patch", seq: app.state.seq + 3, ops: []});
"""


def test_a_refused_resync_is_asked_again_at_the_next_gap() -> None:
    with ServerThread() as server, chromium(*LAPTOP) as page:
        snapshots, _ = a_frame_lost(page, server)
        page.execute_script(REFUSED)
        page.execute_script(GAP_AGAIN)  # asked again, and this time the server answers
        wait_until_mended(page, snapshots)
        assert js_errors(page) == []
