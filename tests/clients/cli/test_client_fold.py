"""Lines said below a screen fold at spaces, keeping the command they name whole."""

from __future__ import annotations

from hypothesis import given
from hypothesis import strategies as st
from rich.cells import cell_len

from clients.cli.fold import fold, fold_keeping

COMMAND = "uv run allfives tournament join ws://127.0.0.1:43121 QWRTZ"
SAID = f"You left the tournament's screen; come back with: {COMMAND}"

words = st.lists(
    st.text(alphabet="abcdefghijklmnopqrstuvwxyzěšřžýáíé:;()", min_size=1, max_size=12),
    min_size=1,
    max_size=20,
).map(" ".join)


def test_the_command_goes_whole_on_a_row_of_its_own_at_80_and_60_columns() -> None:
    for width in (79, 59):
        rows = fold_keeping(SAID, COMMAND, width)
        assert rows == ["You left the tournament's screen; come back with:", COMMAND]


def test_a_line_that_fits_stays_one_row() -> None:
    assert fold_keeping(SAID, COMMAND, 200) == [SAID]


def test_a_bracket_after_the_command_stays_with_it() -> None:
    said = f"A bot plays your seat (come back with: {COMMAND})"
    assert fold_keeping(said, COMMAND, 79) == [
        "A bot plays your seat (come back with:",
        COMMAND + ")",
    ]


def test_a_command_wider_than_the_screen_folds_at_its_spaces_not_mid_word() -> None:
    rows = fold_keeping(SAID, COMMAND, 40)
    assert " ".join(rows) == SAID
    assert all(cell_len(row) <= 40 for row in rows)
    assert "QWRTZ" in rows[-1] and "ws://127.0.0.1:43121" in " ".join(rows).split()


@given(words, words, words, st.integers(min_value=20, max_value=120))
def test_folding_loses_no_word_and_keeps_rows_in_width(
    before: str, command: str, after: str, width: int
) -> None:
    text = f"{before} {command} {after}"
    rows = fold_keeping(text, command, width)
    assert " ".join(rows).split() == text.split()
    longest = max(cell_len(word) for word in text.split())
    assert all(cell_len(row) <= max(width, longest) for row in rows)
    if cell_len(command) <= width:
        assert any(command in row for row in rows)
    assert fold(text, width) == fold_keeping(text, "", width)
