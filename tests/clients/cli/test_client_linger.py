"""A finished tournament table's countdown (`clients.cli.linger`): it starts as the table's
match is over and not before, leaves once, when its seconds are up, saying the seconds left on
the way; ALLFIVES_LINGER_SECONDS is bounded."""

from __future__ import annotations

import asyncio

import pytest
from hypothesis import given
from hypothesis import strategies as st
from table_helpers import make_view, state_of

from clients.cli import i18n
from clients.cli.linger import LINGER_SECONDS, MOST_SECONDS, Linger, linger_seconds
from clients.cli.tournament_screen import match_over


def test_the_countdown_leaves_once_when_its_seconds_are_up() -> None:
    i18n.set_language("en")

    async def run() -> tuple[list[str], int]:
        left: list[str] = []
        gone = asyncio.Event()
        calls = 0

        def leave() -> None:
            nonlocal calls
            calls += 1
            gone.set()

        linger = Linger(0.3, leave)
        assert not linger.started
        assert linger.begin()
        assert not linger.begin()  # again: nothing
        left.append(linger.words())
        await asyncio.wait_for(gone.wait(), 5)
        left.append(linger.words())
        linger.stop()
        return left, calls

    words, calls = asyncio.run(run())
    assert words == [
        "Back to the tournament in 1 s; Enter goes now",
        "Back to the tournament in 0 s; Enter goes now",
    ]
    assert calls == 1


def test_no_seconds_to_wait_leaves_at_once() -> None:
    gone: list[bool] = []
    assert not Linger(0.0, lambda: gone.append(True)).begin()
    assert gone == [True]


def test_the_countdown_starts_as_the_match_is_over_and_only_once() -> None:
    async def run() -> tuple[list[bool], bool, bool]:
        gone: list[bool] = []
        linger = Linger(5.0, lambda: gone.append(True), match_over)
        starts = [linger.changed(state_of(make_view(phase="playing")))]
        assert not linger.started
        finished = state_of(make_view(phase="finished"))
        starts += [linger.changed(finished), linger.changed(finished)]
        counting = linger.started
        linger.stop()
        at_once: list[bool] = []
        Linger(0.0, lambda: at_once.append(True), match_over).changed(finished)
        return starts, counting and not gone, at_once == [True]

    starts, counting, left_at_once = asyncio.run(run())
    assert starts == [False, True, False]
    assert counting  # counting down, not gone yet
    assert left_at_once  # no seconds to wait: the table is left as its match ends


def test_a_stopped_countdown_never_leaves() -> None:
    async def run() -> bool:
        stopped, later = asyncio.Event(), asyncio.Event()
        linger = Linger(0.05, stopped.set)
        linger.start()
        linger.stop()
        Linger(0.2, later.set).start()  # its seconds outlast the stopped one's
        await asyncio.wait_for(later.wait(), 5)
        return stopped.is_set()

    assert asyncio.run(run()) is False


@given(st.one_of(st.text(max_size=12), st.floats().map(str)))
def test_the_environments_seconds_are_bounded(text: str) -> None:
    with pytest.MonkeyPatch.context() as patch:
        patch.setenv("ALLFIVES_LINGER_SECONDS", text.replace("\x00", ""))
        seconds = linger_seconds()
    assert 0.0 <= seconds <= MOST_SECONDS


def test_the_environment_sets_the_seconds_and_a_wrong_one_keeps_the_default(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setenv("ALLFIVES_LINGER_SECONDS", "2.5")
    assert linger_seconds() == 2.5
    monkeypatch.setenv("ALLFIVES_LINGER_SECONDS", "soon")
    assert linger_seconds() == LINGER_SECONDS
    monkeypatch.setenv("ALLFIVES_LINGER_SECONDS", "-4")
    assert linger_seconds() == 0.0
    monkeypatch.delenv("ALLFIVES_LINGER_SECONDS")
    assert linger_seconds() == LINGER_SECONDS
