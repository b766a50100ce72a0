"""Redis backend: two factories stand for two processes sharing one Redis (DECL-6)."""

from __future__ import annotations

import asyncio
import os
import sys
import textwrap
import uuid
from collections.abc import AsyncIterator
from pathlib import Path

import pytest
import redis.asyncio as aioredis

from mcpcast.broadcast import BroadcasterFactory, CloseReason
from tests import _services

ROOT = Path(__file__).resolve().parents[3]


@pytest.fixture
async def two(redis_url: str) -> AsyncIterator[tuple[BroadcasterFactory, BroadcasterFactory]]:
    a = BroadcasterFactory.from_url(redis_url, history_size=4)
    b = BroadcasterFactory.from_url(redis_url, history_size=4)
    yield a, b
    await a.close()
    await b.close()


def _topic() -> str:
    return f"t-{uuid.uuid4().hex[:12]}"


async def test_broadcast_in_one_process_reaches_subscribers_in_another(two) -> None:
    """DECL-6: with several processes, broadcasts fan out through Redis."""
    a, b = two
    name = _topic()
    sub_b = await b.lookup(name).subscribe()
    sub_a = await a.lookup(name).subscribe()
    await a.lookup(name).broadcast({"from": "a"})
    await b.lookup(name).broadcast("from b")
    for sub in (sub_a, sub_b):
        frames = [await asyncio.wait_for(sub.next(), 5) for _ in range(2)]
        assert [(f.seq, f.message) for f in frames] == [(1, {"from": "a"}), (2, "from b")]


async def test_sequence_numbers_stay_consistent_under_concurrent_publishers(two) -> None:
    a, b = two
    name = _topic()
    sub = await b.lookup(name).subscribe()
    seqs = await asyncio.gather(
        *(f.lookup(name).broadcast(str(i)) for i in range(20) for f in (a, b))
    )
    assert sorted(seqs) == list(range(1, 41))
    frames = [await asyncio.wait_for(sub.next(), 5) for _ in range(40)]
    assert [f.seq for f in frames] == list(range(1, 41))  # delivered in order


async def test_history_is_shared_and_capped(two) -> None:
    """MCP-6: a client reconnecting to another process resumes from the shared history."""
    a, b = two
    name = _topic()
    for i in range(1, 7):
        await a.lookup(name).broadcast(f"m{i}")
    assert [f.seq for f in await b.lookup(name).history()] == [3, 4, 5, 6]
    assert await b.lookup(name).last_seq() == 6
    sub = await b.lookup(name).subscribe(after_seq=4)
    await a.lookup(name).broadcast("m7")
    frames = [await asyncio.wait_for(sub.next(), 5) for _ in range(3)]
    assert [(f.seq, f.message) for f in frames] == [(5, "m5"), (6, "m6"), (7, "m7")]


async def test_last_subscriber_leaving_unsubscribes_the_channel(two, redis_url) -> None:
    a, _ = two
    name = _topic()
    topic = a.lookup(name)
    sub = await topic.subscribe()
    client = aioredis.Redis.from_url(redis_url)
    channel = f"mcpcast:broadcast:{name}"
    assert (await client.pubsub_numsub(channel))[0][1] == 1
    sub.close()
    for _ in range(100):
        if (await client.pubsub_numsub(channel))[0][1] == 0:
            break
        await asyncio.sleep(0.02)
    assert (await client.pubsub_numsub(channel))[0][1] == 0
    await client.aclose()


async def test_factory_close_ends_redis_subscriptions(redis_url) -> None:
    factory = BroadcasterFactory.from_url(redis_url)
    sub = await factory.lookup(_topic()).subscribe()
    await factory.close()
    assert sub.reason == CloseReason.SHUTDOWN


def test_from_url_refuses_unknown_schemes() -> None:
    with pytest.raises(ValueError):
        BroadcasterFactory.from_url("kafka://localhost")


@pytest.mark.slow
async def test_broadcast_from_a_real_second_process(redis_url) -> None:
    """DECL-6: a separate OS process broadcasts; this process's subscriber receives."""
    name = _topic()
    factory = BroadcasterFactory.from_url(redis_url)
    sub = await factory.lookup(name).subscribe()
    script = textwrap.dedent(
        f"""
        import asyncio
        from mcpcast.broadcast import BroadcasterFactory

        async def main():
            factory = BroadcasterFactory.from_url({redis_url!r})
            topic = factory.lookup({name!r})
            for i in range(3):
                await topic.broadcast({{"i": i}})
            await factory.close()

        asyncio.run(main())
        """
    )
    env = {**os.environ, "PYTHONPATH": str(ROOT / "src")}
    proc = await asyncio.create_subprocess_exec(sys.executable, "-c", script, env=env)
    assert await asyncio.wait_for(proc.wait(), 30) == 0
    frames = [await asyncio.wait_for(sub.next(), 5) for _ in range(3)]
    assert [(f.seq, f.message) for f in frames] == [(1, {"i": 0}), (2, {"i": 1}), (3, {"i": 2})]
    await factory.close()


async def test_streaming_session_reaches_another_process_in_order(two) -> None:
    """DECL-7: text streamed by a tool in process A arrives in B, in session order."""
    from mcpcast.broadcast import EchoTextSource

    a, b = two
    name = _topic()
    sub = await b.lookup(name).subscribe()
    session = a.streaming_session(name, session_id="s")
    await session.spawn(EchoTextSource().stream("one two three"))
    frames = [(await asyncio.wait_for(sub.next(), 5)).message for _ in range(4)]
    assert [f["seq"] for f in frames] == [1, 2, 3, 4]
    assert "".join(f.get("text", "") for f in frames) == "one two three"
    assert frames[-1]["type"] == "complete"


async def test_a_subscriber_keeps_receiving_after_redis_loses_its_numbers() -> None:
    """Redis restarted without persistence (here: FLUSHALL and its pub/sub connections
    dropped) starts each topic at seq 1 again; an open subscription that had seen seq 3
    must still get the new frames, not drop them as duplicates (bench/faults finding)."""
    with _services.redis_server() as url:
        a = BroadcasterFactory.from_url(url, history_size=4)
        b = BroadcasterFactory.from_url(url, history_size=4)
        try:
            name = _topic()
            sub = await b.lookup(name).subscribe()
            for i in range(3):
                await a.lookup(name).broadcast(f"before-{i}")
            assert [(await asyncio.wait_for(sub.next(), 5)).seq for _ in range(3)] == [1, 2, 3]
            admin = aioredis.Redis.from_url(url)
            await admin.flushall()
            await admin.client_kill_filter(_type="pubsub")
            await admin.aclose()
            received = None
            for i in range(3):  # seq 1, 2, 3 again: each one a duplicate without the resync
                await asyncio.sleep(1.0)
                await a.lookup(name).broadcast(f"after-{i}")
                received = await sub.next(max_wait=1.0)
                if received is not None:
                    break
            assert received is not None and received.message.startswith("after-")
            assert received.seq <= 3
        finally:
            await a.close()
            await b.close()


async def test_a_broadcast_right_after_a_redis_restart_goes_out() -> None:
    """A real Redis restart leaves every pooled connection dead: the first broadcast on
    each raised ConnectionError (pacekeeper's live events were dropped with a warning).
    Commands now try a dropped connection again; the subscriber still resynchronises and
    gets what is broadcast once it is back."""
    with _services.restartable_redis() as server:
        a = BroadcasterFactory.from_url(server.url, history_size=4)
        b = BroadcasterFactory.from_url(server.url, history_size=4)
        try:
            name = _topic()
            sub = await b.lookup(name).subscribe()
            await a.lookup(name).broadcast("before")
            assert (await asyncio.wait_for(sub.next(), 5)).message == "before"
            await asyncio.to_thread(server.restart, 0.5)
            seq = await a.lookup(name).broadcast("right after")  # raised before
            assert seq == 1  # Redis lost its numbers
            received = None
            for i in range(5):  # the subscriber reconnects on its own, within seconds
                await a.lookup(name).broadcast(f"after-{i}")
                received = await sub.next(max_wait=1.0)
                if received is not None:
                    break
            assert received is not None and received.message.startswith(("right", "after"))
        finally:
            await a.close()
            await b.close()
