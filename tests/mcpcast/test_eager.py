"""First-step execution: behaves exactly like `await`, including cancellation."""

from __future__ import annotations

import asyncio

import pytest

from mcpcast.protocol._eager import first_step, resume


async def quick() -> int:
    return 7


async def slow(steps: int) -> int:
    for _ in range(steps):
        await asyncio.sleep(0)
    await asyncio.sleep(0.01)
    return steps


async def broken() -> int:
    raise ValueError("boom")


async def survives_cancel(log: list[str], waiting: asyncio.Event) -> str:
    try:
        waiting.set()
        await asyncio.sleep(10)  # the long wait that the test cancels
    except asyncio.CancelledError:
        log.append("cleaned up")
        await asyncio.sleep(0)
        raise
    return "never"


async def test_a_coroutine_that_never_suspends_finishes_in_the_first_step() -> None:
    assert first_step(quick()) == (True, 7)


async def test_a_suspending_coroutine_resumes_like_await() -> None:
    done, suspended = first_step(slow(3))
    assert done is False
    assert await resume(suspended) == 3


async def test_exceptions_propagate_from_either_part() -> None:
    with pytest.raises(ValueError, match="boom"):
        first_step(broken())

    async def late() -> None:
        await asyncio.sleep(0)
        raise KeyError("late")

    _, suspended = first_step(late())
    with pytest.raises(KeyError):
        await resume(suspended)


async def test_cancellation_reaches_the_coroutine() -> None:
    log: list[str] = []
    waiting = asyncio.Event()

    async def runner() -> str:
        _, suspended = first_step(survives_cancel(log, waiting))
        result: str = await resume(suspended)
        return result

    task = asyncio.create_task(runner())
    await asyncio.wait_for(waiting.wait(), 5)
    task.cancel()
    with pytest.raises(asyncio.CancelledError):
        await task
    assert log == ["cleaned up"]
