"""StreamingSession and the local text sources (DECL-7)."""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator

import pytest

from mcpcast.broadcast import (
    BroadcasterFactory,
    DeterministicTextSource,
    EchoTextSource,
    StreamingSession,
)


async def _frames(sub, n: int) -> list[dict]:
    return [(await asyncio.wait_for(sub.next(), 2)).message for _ in range(n)]


async def test_session_frames_carry_type_session_id_and_seq() -> None:
    factory = BroadcasterFactory()
    topic = factory.lookup("coach")
    sub = await topic.subscribe()
    session = StreamingSession(topic, session_id="s1")
    assert await session.progress("thinking")
    assert await session.metadata("model", {"name": "echo"})
    assert await session.send("Hello")
    assert await session.complete()
    frames = await _frames(sub, 4)
    assert frames == [
        {"type": "progress", "session_id": "s1", "seq": 1, "message": "thinking"},
        {
            "type": "metadata",
            "session_id": "s1",
            "seq": 2,
            "key": "model",
            "value": {"name": "echo"},
        },
        {"type": "text", "session_id": "s1", "seq": 3, "text": "Hello"},
        {"type": "complete", "session_id": "s1", "seq": 4},
    ]
    await factory.close()


async def test_complete_and_error_are_idempotent_and_later_sends_dropped() -> None:
    factory = BroadcasterFactory()
    topic = factory.lookup("once")
    sub = await topic.subscribe()
    session = StreamingSession(topic)
    assert await session.error("boom")
    assert not await session.complete()
    assert not await session.error("again")
    assert not await session.send("late")
    assert session.closed
    frames = await _frames(sub, 1)
    assert frames[0]["type"] == "error"
    assert frames[0]["message"] == "boom"
    assert sub.pending == 0  # nothing after the error
    await factory.close()


async def test_concurrent_complete_and_error_send_one_final_frame() -> None:
    factory = BroadcasterFactory()
    topic = factory.lookup("race")
    sub = await topic.subscribe()
    session = StreamingSession(topic)
    results = await asyncio.gather(session.complete(), session.error("x"), session.complete())
    assert results.count(True) == 1
    assert len(await _frames(sub, 1)) == 1
    assert sub.pending == 0
    await factory.close()


async def test_session_left_open_ends_with_an_error_after_its_timeout() -> None:
    factory = BroadcasterFactory()
    topic = factory.lookup("forgotten")
    sub = await topic.subscribe()
    session = StreamingSession(topic, timeout=0.05)
    await session.send("partial")
    frames = await _frames(sub, 2)
    assert frames[1]["type"] == "error"
    assert frames[1]["message"] == "session timed out"
    assert session.closed
    await factory.close()


async def test_pipe_streams_the_source_then_completes() -> None:
    factory = BroadcasterFactory()
    topic = factory.lookup("pipe")
    sub = await topic.subscribe()
    session = StreamingSession(topic)
    await session.pipe(EchoTextSource().stream("run 5 km  easy"))
    frames = await _frames(sub, 5)
    assert "".join(f["text"] for f in frames if f["type"] == "text") == "run 5 km  easy"
    assert [f["seq"] for f in frames] == [1, 2, 3, 4, 5]
    assert frames[-1]["type"] == "complete"
    await factory.close()


async def test_failing_source_becomes_an_error_frame_without_details() -> None:
    async def broken() -> AsyncIterator[str]:
        yield "one"
        raise RuntimeError("secret token abc123 in a stack trace")

    factory = BroadcasterFactory()
    topic = factory.lookup("broken")
    sub = await topic.subscribe()
    await StreamingSession(topic).pipe(broken())
    frames = await _frames(sub, 2)
    assert frames[1] == {**frames[1], "type": "error", "message": "text generation failed"}
    assert "abc123" not in str(frames)
    await factory.close()


async def test_spawn_returns_at_once_and_streams_in_the_background() -> None:
    """DECL-7: a tool with a StreamingSession returns at once; text arrives afterwards."""
    factory = BroadcasterFactory()
    topic = factory.lookup("bg")
    sub = await topic.subscribe()

    async def tool(session: StreamingSession) -> str:
        session.spawn(DeterministicTextSource(words=5, delay=0.01).stream("plan"))
        return "streaming started"

    session = StreamingSession(topic)
    assert await tool(session) == "streaming started"
    assert sub.pending == 0  # nothing sent yet: the tool did not wait
    frames = await _frames(sub, 7)  # 5 words, ".", complete
    assert frames[-1]["type"] == "complete"
    await factory.close()


async def test_aclose_cancels_background_work_with_an_error_frame() -> None:
    factory = BroadcasterFactory()
    topic = factory.lookup("cancel")
    sub = await topic.subscribe()
    session = StreamingSession(topic)
    session.spawn(DeterministicTextSource(words=1000, delay=0.01).stream("x"))
    frames = [(await asyncio.wait_for(sub.next(), 5)).message]  # it is running
    await session.aclose()
    while sub.pending:
        frames.append((await sub.next()).message)
    assert frames[-1]["type"] == "error"
    assert all(f["type"] == "text" for f in frames[:-1])
    await factory.close()


async def test_send_rejects_non_text() -> None:
    factory = BroadcasterFactory()
    session = StreamingSession(factory.lookup("typed"))
    with pytest.raises(TypeError):
        await session.send(b"bytes")  # type: ignore[arg-type]
    assert await session.send("still open")
    await factory.close()


async def test_deterministic_source_repeats_itself() -> None:
    source = DeterministicTextSource(words=12, seed=7)
    one = "".join([c async for c in source.stream("goal")])
    two = "".join([c async for c in source.stream("goal")])
    other = "".join([c async for c in source.stream("another")])
    assert one == two
    assert one != other
    assert len(one.split()) == 12
    assert one.endswith(".")


async def test_factory_makes_sessions_on_a_topic() -> None:
    """DECL-5: a StreamingSession wraps the broadcaster looked up (or created) by topic."""
    factory = BroadcasterFactory()
    session = factory.streaming_session("made-here", session_id="abc", timeout=None)
    assert session.broadcaster is factory.lookup("made-here", create=False)
    assert session.session_id == "abc"
    with pytest.raises(ValueError):
        factory.streaming_session("not a topic")
    await factory.close()


async def test_unused_session_sends_nothing_even_after_its_timeout() -> None:
    factory = BroadcasterFactory()
    topic = factory.lookup("unused")
    sub = await topic.subscribe()
    session = StreamingSession(topic, timeout=0.01)
    await asyncio.sleep(0.1)
    assert sub.pending == 0
    assert not session.closed
    await factory.close()


async def test_a_source_that_never_yields_still_times_out() -> None:
    async def stuck() -> AsyncIterator[str]:
        await asyncio.Event().wait()
        yield "never"

    factory = BroadcasterFactory()
    topic = factory.lookup("stuck")
    sub = await topic.subscribe()
    session = StreamingSession(topic, timeout=0.05)
    task = session.spawn(stuck())
    frames = await _frames(sub, 1)
    assert frames[0]["type"] == "error"
    assert frames[0]["message"] == "session timed out"
    task.cancel()
    await factory.close()
