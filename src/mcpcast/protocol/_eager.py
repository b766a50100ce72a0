"""Run a coroutine's first step at once; pay for supervision only if it suspends.

Most tool calls never wait for anything (they compute and return). Guarding every call
with a deadline or a disconnect watcher costs microseconds that show on the hot path;
stepping the coroutine once first finds the calls that finish without suspending, and
only the others are handed to ``resume`` under supervision.
"""

from __future__ import annotations

import types
from collections.abc import Coroutine, Generator
from typing import Any, TypeVar

T = TypeVar("T")

# What a synchronous-first call returns when it could not finish at once: the rest.
Later = Coroutine[Any, Any, T]


class Suspended:
    """A coroutine stopped at its first suspension point, and what it waits on."""

    __slots__ = ("coro", "waiting_on")

    def __init__(self, coro: Coroutine[Any, Any, Any], waiting_on: Any) -> None:
        self.coro = coro
        self.waiting_on = waiting_on


def first_step(coro: Coroutine[Any, Any, T]) -> tuple[bool, Any]:
    """``(True, result)`` if ``coro`` finished without suspending, else
    ``(False, Suspended)``; exceptions propagate as from ``await``."""
    try:
        waiting_on = coro.send(None)
    except StopIteration as done:
        return True, done.value
    return False, Suspended(coro, waiting_on)


@types.coroutine
def resume(suspended: Suspended) -> Generator[Any, Any, Any]:
    """Await the rest of a suspended coroutine, as ``await`` would have.

    The future it waits on goes to the running task first; whatever the task throws in
    meanwhile (cancellation) is thrown into the coroutine, exactly like ``await``.
    """
    coro, waiting_on = suspended.coro, suspended.waiting_on
    while True:
        try:
            yield waiting_on
        except BaseException as exc:
            try:
                waiting_on = coro.throw(exc)
            except StopIteration as done:
                return done.value
            continue
        return (yield from coro)
