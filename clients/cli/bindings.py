"""The terminal table's keys and the prompt's output.

`table_keys` binds Enter, Ctrl-C, Ctrl-D, Ctrl-L, PageUp and PageDown to what the `App` does
with them and silences every other control key (`IDLE_KEYS`); `prompt_output` is the output
every prompt of the terminal client writes to (the table's and the tournament screen's).
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from prompt_toolkit.filters import Condition
from prompt_toolkit.key_binding import KeyBindings
from prompt_toolkit.keys import Keys
from prompt_toolkit.output import Output, create_output
from prompt_toolkit.output.vt100 import Vt100_Output

if TYPE_CHECKING:
    from clients.cli.app import App


def prompt_output() -> Output:
    """The prompt's output, which never asks the terminal where its cursor is.

    prompt_toolkit sends a cursor-position request (`ESC[6n`) when the prompt starts and again
    after each frame drawn above it, to learn how many rows lie below the cursor; and on the way
    out it waits up to a second for the answers. A terminal that does not answer (a bare
    pseudo-terminal, a screen reader's console, a test) held every ending (a refused connection,
    a room that does not exist, /quit) for that second. The table is drawn from the top of the
    screen and the prompt is its last row, so the answer is of no use here."""
    output = create_output()
    if isinstance(output, Vt100_Output):
        output.enable_cpr = False
    return output


# The control keys of the table: Ctrl-C, Ctrl-D, Ctrl-L, Enter (Ctrl-M, and Ctrl-J as Enter), and
# line editing as prompt_toolkit's emacs keys have it: move (Ctrl-A, B, E, F), delete and cut
# (Ctrl-H is Backspace; K, U, W), paste back (Ctrl-Y), swap (Ctrl-T).
#: Every other control key does nothing at the table. prompt_toolkit gives them jobs that make
#: no sense here, some of which ended the match: Ctrl-O (operate-and-get-next) accepted the line
#: and so ended the prompt, Ctrl-R and Ctrl-S searched the history, Ctrl-Q and Ctrl-V insert the
#: next key as it is, Ctrl-N and Ctrl-P recall lines, Tab completes, Ctrl-X starts a sequence.
IDLE_KEYS = (
    "c-g", "c-i", "c-n", "c-o", "c-p", "c-q", "c-r", "c-s", "c-v", "c-x", "c-z",
    "c-@", "c-\\", "c-]", "c-^", "c-_",
)  # fmt: skip


def table_keys(app: App) -> KeyBindings:
    """Enter, Ctrl-C, Ctrl-D, Ctrl-L, PageUp and PageDown at the table; the prompt's line
    editing as prompt_toolkit has it; every other control key nothing (`IDLE_KEYS`)."""
    keys = KeyBindings()
    for key in IDLE_KEYS:
        keys.add(key)(lambda event: None)
    # The table takes no mouse: what reads as a mouse report is typed or pasted bytes (ESC [
    # 3 1 m, a colour code), which prompt_toolkit's own handler choked on (a traceback).
    keys.add(Keys.Vt100MouseEvent)(lambda event: None)
    keys.add("pageup")(lambda event: app.scroll(1))
    keys.add("pagedown")(lambda event: app.scroll(-1))
    keys.add("enter")(lambda event: app.typed(event.current_buffer))
    keys.add("c-c")(lambda event: app.interrupted(event.current_buffer))
    # SIGINT (Ctrl-C typed before the prompt put the terminal in raw mode) is Ctrl-C too.
    keys.add(Keys.SIGINT)(lambda event: app.interrupted(event.current_buffer))
    keys.add("c-d", filter=Condition(lambda: not app._buffer_text()))(
        lambda event: app.leave_asked()
    )
    keys.add("c-l")(lambda event: app.redraw_all())
    return keys
