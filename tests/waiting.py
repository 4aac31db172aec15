"""How the tests wait: for a condition, polled, never for a fixed time.

`until` (in a coroutine) and `until_sync` (in a thread, like the browser tests) are the one way:
`condition` is called again and again until it gives something truthy, which is returned.
Exceptions named in `retry` mean "not yet"; past `timeout` an AssertionError names `what`.
`every` is the time between two looks: keep the default unless a look costs something (a
request to a server, a connection attempt), where a slower pace keeps the load down.
`until_answered` is `until` for a call whose answer may be falsy: it retries only while the call
raises (a store not back yet, a client still reconnecting).
"""

from __future__ import annotations

import asyncio
import inspect
import time
from collections.abc import Awaitable, Callable
from typing import Any, TypeVar, overload

T = TypeVar("T")
#: Between two looks: short, so that a test goes on as soon as its condition holds.
POLL = 0.01


@overload
async def until(
    condition: Callable[[], Awaitable[T | None]],
    timeout: float = ...,
    what: str = ...,
    retry: tuple[type[BaseException], ...] = ...,
    every: float = ...,
) -> T: ...


@overload
async def until(
    condition: Callable[[], T | None],
    timeout: float = ...,
    what: str = ...,
    retry: tuple[type[BaseException], ...] = ...,
    every: float = ...,
) -> T: ...


async def until(
    condition: Callable[[], Any],
    timeout: float = 10.0,
    what: str = "the condition",
    retry: tuple[type[BaseException], ...] = (),
    every: float = POLL,
) -> Any:
    """Let the event loop run until `condition()` (awaited if it is a coroutine) is truthy."""
    loop = asyncio.get_running_loop()
    deadline = loop.time() + timeout
    while True:
        try:
            value = condition()
            if inspect.isawaitable(value):
                value = await value
        except retry:
            if loop.time() > deadline:
                raise
        else:
            if value:
                return value
        if loop.time() > deadline:
            raise AssertionError(f"timed out waiting for {what}")
        await asyncio.sleep(every)


def until_sync(
    condition: Callable[[], T | None],
    timeout: float = 10.0,
    what: str = "the condition",
    retry: tuple[type[BaseException], ...] = (),
    every: float = POLL * 2,
) -> T:
    """The same, blocking: for code that runs outside the event loop (the browser tests)."""
    deadline = time.monotonic() + timeout
    while True:
        try:
            value = condition()
        except retry:
            pass
        else:
            if value:
                return value
        if time.monotonic() > deadline:
            raise AssertionError(f"timed out waiting for {what}")
        time.sleep(every)


async def until_answered(
    call: Callable[[], Awaitable[T]],
    retry: tuple[type[BaseException], ...],
    timeout: float = 10.0,
    what: str = "an answer",
    every: float = POLL,
) -> T:
    """Call again while it raises one of `retry` ("not there yet"); its first result, whatever
    it is (None and other falsy answers too). Past `timeout` the last such exception is raised."""

    async def answered() -> tuple[T]:
        return (await call(),)  # a tuple is truthy whatever the answer

    return (await until(answered, timeout, what, retry, every))[0]
