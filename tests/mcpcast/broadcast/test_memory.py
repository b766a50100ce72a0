"""Broadcaster, Subscription and BroadcasterFactory on the in-memory backend."""

from __future__ import annotations

import asyncio
import gc
import logging
import tracemalloc

import pytest

from mcpcast.broadcast import (
    Broadcaster,
    BroadcasterFactory,
    CloseReason,
    MemoryBackend,
    TopicLimitError,
)


async def _take(sub, n: int) -> list:
    return [await asyncio.wait_for(sub.next(), 2) for _ in range(n)]


async def test_broadcast_reaches_every_subscriber_with_increasing_seq() -> None:
    """DECL-6: every subscriber of the topic gets every message, seq 1, 2, 3 ..."""
    factory = BroadcasterFactory()
    topic = factory.lookup("runs")
    subs = [await topic.subscribe() for _ in range(3)]
    assert topic.subscriber_count == 3
    assert await topic.broadcast("hello") == 1
    assert await topic.broadcast({"km": 5}) == 2
    for sub in subs:
        frames = await _take(sub, 2)
        assert [f.seq for f in frames] == [1, 2]
        assert [f.message for f in frames] == ["hello", {"km": 5}]
    await factory.close()


async def test_frame_json_is_what_browsers_receive() -> None:
    factory = BroadcasterFactory()
    topic = factory.lookup("t1")
    sub = await topic.subscribe()
    await topic.broadcast({"a": [1, 2]})
    frame = await sub.next()
    assert frame.to_json("t1") == '{"type":"message","topic":"t1","seq":1,"data":{"a":[1,2]}}'
    await factory.close()


async def test_topics_are_independent() -> None:
    factory = BroadcasterFactory()
    a, b = factory.lookup("a"), factory.lookup("b")
    sub_b = await b.subscribe()
    await a.broadcast("for a")
    await b.broadcast("for b")
    frame = await sub_b.next()
    assert (frame.seq, frame.message) == (1, "for b")
    assert sub_b.pending == 0
    await factory.close()


async def test_late_joiner_resumes_from_history_then_live() -> None:
    """MCP-6: a reconnecting client resumes after its last seq from kept history."""
    factory = BroadcasterFactory(history_size=3)
    topic = factory.lookup("resume")
    for i in range(1, 6):
        await topic.broadcast(f"m{i}")
    assert [f.seq for f in await topic.history()] == [3, 4, 5]  # capped at 3
    sub = await topic.subscribe(after_seq=3)
    await topic.broadcast("m6")
    frames = await _take(sub, 3)
    assert [(f.seq, f.message) for f in frames] == [(4, "m4"), (5, "m5"), (6, "m6")]
    assert sub.last_seq == 6
    await factory.close()


async def test_subscribe_without_after_seq_gets_only_live_frames() -> None:
    factory = BroadcasterFactory(history_size=10)
    topic = factory.lookup("live")
    await topic.broadcast("old")
    sub = await topic.subscribe()
    await topic.broadcast("new")
    assert (await sub.next()).message == "new"
    assert sub.pending == 0
    await factory.close()


async def test_resume_after_a_seq_the_topic_never_reached_starts_fresh() -> None:
    """A client resuming at seq 500 after a server restart must not wait for seq 501."""
    factory = BroadcasterFactory(history_size=10)
    topic = factory.lookup("restarted")
    await topic.broadcast("one")
    sub = await topic.subscribe(after_seq=500)
    assert sub.last_seq == 1  # the effective resume point, told to browser clients
    await topic.broadcast("two")
    frame = await asyncio.wait_for(sub.next(), 2)
    assert (frame.seq, frame.message) == (2, "two")
    await factory.close()


async def test_slow_consumer_is_dropped_with_a_reason_and_a_warning(caplog) -> None:
    factory = BroadcasterFactory(queue_size=4, history_size=0)
    topic = factory.lookup("firehose")
    slow = await topic.subscribe()
    fast = await topic.subscribe()
    received = []
    with caplog.at_level(logging.WARNING, logger="mcpcast.broadcast"):
        for i in range(10):
            await topic.broadcast(str(i))
            received.append((await fast.next()).message)
    assert slow.reason == CloseReason.OVERFLOW
    assert slow.pending == 0  # its queue was freed
    with pytest.raises(StopAsyncIteration):
        await slow.next()
    assert received == [str(i) for i in range(10)]
    assert topic.subscriber_count == 1
    assert any("slow subscriber" in r.getMessage() for r in caplog.records)
    await factory.close()


async def test_close_ends_iteration_and_unsubscribes() -> None:
    factory = BroadcasterFactory()
    topic = factory.lookup("x")
    sub = await topic.subscribe()
    got: list[str] = []

    async def consume() -> None:
        async for frame in sub:
            got.append(frame.message)

    task = asyncio.create_task(consume())
    await topic.broadcast("one")
    await asyncio.sleep(0)
    sub.close()
    await asyncio.wait_for(task, 2)
    assert got == ["one"]
    assert sub.reason == CloseReason.CLOSED
    assert topic.subscriber_count == 0
    sub.close(CloseReason.OVERFLOW)  # idempotent: the first reason stays
    assert sub.reason == CloseReason.CLOSED
    await factory.close()


async def test_next_with_max_wait_returns_none_when_idle() -> None:
    factory = BroadcasterFactory()
    sub = await factory.lookup("idle").subscribe()
    assert await sub.next(max_wait=0.01) is None
    assert not sub.closed
    await factory.close()


@pytest.mark.parametrize(
    ("message", "error"),
    [(42, TypeError), ({"when": object()}, TypeError), ("x" * 2000, ValueError)],
)
async def test_bad_messages_are_refused_and_consume_no_seq(message, error) -> None:
    factory = BroadcasterFactory(max_message_bytes=1000)
    topic = factory.lookup("strict")
    sub = await topic.subscribe()
    with pytest.raises(error):
        await topic.broadcast(message)
    assert sub.pending == 0
    assert await topic.broadcast("fine") == 1
    assert (await sub.next()).message == "fine"
    await factory.close()


async def test_factory_lookup_creates_once_and_validates_names() -> None:
    """DECL-5: lookup by name creates the topic when missing, then returns the same one."""
    factory = BroadcasterFactory()
    assert factory.lookup("absent", create=False) is None
    first = factory.lookup("athlete:42")
    assert isinstance(first, Broadcaster)
    assert factory.lookup("athlete:42") is first
    assert factory.lookup("athlete:42", create=False) is first
    assert factory.names() == ["athlete:42"]
    for bad in ["", "../etc", "a b", "x" * 200, "é"]:
        with pytest.raises(ValueError):
            factory.lookup(bad)
    assert factory.names() == ["athlete:42"]
    await factory.close()


async def test_factory_close_ends_subscriptions_with_shutdown() -> None:
    factory = BroadcasterFactory()
    topic = factory.lookup("bye")
    sub = await topic.subscribe()
    await factory.close()
    assert sub.reason == CloseReason.SHUTDOWN
    assert factory.closed
    with pytest.raises(RuntimeError):
        factory.lookup("bye")
    with pytest.raises(RuntimeError):
        await topic.broadcast("late")
    await factory.close()  # idempotent


async def test_topic_limit_evicts_idle_topics_but_keeps_busy_ones() -> None:
    factory = BroadcasterFactory(max_topics=2)
    busy = factory.lookup("busy")
    sub = await busy.subscribe()
    idle = factory.lookup("idle")
    await idle.broadcast("kept in the backend")
    factory.lookup("third")  # evicts "idle", the one without subscribers
    assert sorted(factory.names()) == ["busy", "third"]
    again = factory.lookup("idle", create=False)
    assert again is None
    # The sequence survives eviction: it lives in the backend.
    assert await factory.lookup("fourth-evicts-third-or-idle").broadcast("x") == 1
    assert await busy.broadcast("still here") == 1
    assert (await sub.next()).message == "still here"
    # With every topic busy, creating one more is refused.
    full = BroadcasterFactory(max_topics=1)
    keep = await full.lookup("only").subscribe()
    with pytest.raises(TopicLimitError):
        full.lookup("second")
    keep.close()
    await full.close()
    await factory.close()


async def test_evicted_broadcaster_reference_still_reaches_new_subscribers() -> None:
    factory = BroadcasterFactory(max_topics=1)
    held = factory.lookup("held")  # a tool keeps this reference
    factory.lookup("other")  # evicts "held"
    fresh = factory.lookup("held")  # evicts "other"
    assert fresh is not held
    sub = await fresh.subscribe()
    assert await held.broadcast("via old reference") == 1
    assert (await asyncio.wait_for(sub.next(), 2)).message == "via old reference"
    await factory.close()


async def test_last_subscriber_leaving_detaches_from_backend() -> None:
    backend = MemoryBackend()
    factory = BroadcasterFactory(backend)
    topic = factory.lookup("attach")
    await topic.broadcast("makes the topic's state permanent")
    sub = await topic.subscribe()
    assert backend._topics["attach"].sink is not None
    sub.close()
    for _ in range(5):
        await asyncio.sleep(0)
    assert backend._topics["attach"].sink is None
    again = await topic.subscribe()  # re-attaches
    await topic.broadcast("back")
    assert (await again.next()).message == "back"
    await factory.close()


async def test_idle_subscriber_memory_is_small() -> None:
    """Budget: 10,000 idle subscribers (each with a task waiting for a frame)
    must cost well under the 30 KiB per subscriber allowed for broadcast + transport."""
    factory = BroadcasterFactory()
    topic = factory.lookup("crowd")
    n = 10_000
    gc.collect()
    tracemalloc.start()
    before = tracemalloc.take_snapshot()
    subs = [await topic.subscribe() for _ in range(n)]
    tasks = [asyncio.create_task(s.next()) for s in subs]
    await asyncio.sleep(0)
    after = tracemalloc.take_snapshot()
    tracemalloc.stop()
    used = sum(stat.size_diff for stat in after.compare_to(before, "filename"))
    per_subscriber = used / n
    print(f"idle subscriber (subscription + waiting task): {per_subscriber:.0f} bytes")
    assert per_subscriber < 4 * 1024
    await topic.broadcast("wake")
    results = await asyncio.gather(*tasks)
    assert {r.message for r in results} == {"wake"}
    await factory.close()


async def test_topics_never_published_to_leave_nothing_behind() -> None:
    """Browsers subscribing to made-up names cannot make the memory backend grow."""
    backend = MemoryBackend()
    factory = BroadcasterFactory(backend)
    for i in range(50):
        sub = await factory.lookup(f"made-up-{i}").subscribe(after_seq=0)
        sub.close()
    used = factory.lookup("used")
    await used.broadcast("kept")
    (await used.subscribe()).close()
    for _ in range(10):
        await asyncio.sleep(0)
    assert list(backend._topics) == ["used"]
    assert await used.last_seq() == 1
    await factory.close()
