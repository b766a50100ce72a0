"""Assistants' tool calls on the Live panel's topic (issue 17, `pacekeeper.mcp._activity`),
in process: a tool's progress and log lines reach the topic even when the client asked
for no progress; the person's own browser (cookie) is no assistant; a call nobody watches
queues nothing; a full queue drops and counts, and the call still answers."""

from __future__ import annotations

import asyncio
import uuid
from types import SimpleNamespace
from typing import Any

from mcpcast import BroadcasterFactory, Context, Server, mcp_server, tool
from mcpcast.testing import TestClient
from pacekeeper.auth import Principal
from pacekeeper.auth._tokens import Claims
from pacekeeper.db import Role
from pacekeeper.live import LiveFeed, live_topic
from pacekeeper.mcp._activity import LiveContext, ToolActivity, summaries


@mcp_server(name="steps", path="/mcp")
class Steps:
    @tool(name="steps", description="Counts to three. Then says so.")
    async def steps(self, ctx: Context) -> str:
        for n in (1, 2, 3):
            await ctx.report_progress(n, 3, f"step {n}")
        await ctx.info("counted")
        return "done"

    @tool(name="echo", description="Says it back.")
    async def echo(self, ctx: Context, text: str) -> str:
        await ctx.report_progress(1, 2, "thinking")
        await asyncio.sleep(0.01)  # the other caller's call runs meanwhile
        return f"you said {text}"


def _principal(via: str = "bearer") -> Principal:
    user = uuid.uuid4()
    claims = Claims(sub=user, tenant_id=uuid.uuid4(), email="a@example.com", role=Role.USER,
                    iat=0, exp=0, jti="j", ver=1, kid="k", aud=())
    return Principal(user, claims.tenant_id, claims.email, Role.USER, via,  # type: ignore[arg-type]
                     claims, "secret-token-text")


def _setup(queue_size: int = 256) -> tuple[Server, ToolActivity, BroadcasterFactory]:
    factory = BroadcasterFactory()
    services = SimpleNamespace(live=LiveFeed(factory), oauth=None, api_keys=None)
    activity = ToolActivity(lambda: services, queue_size)  # type: ignore[arg-type,return-value]
    server = Server(Steps(), observe_tool=activity,
                    injectors={Context: lambda ex, args: LiveContext(ex, activity)})
    activity.summaries = summaries({n: t.listing for n, t in server.registry.tools.items()})
    return server, activity, factory


async def _events(sub: Any, until: str) -> list[dict[str, Any]]:
    events: list[dict[str, Any]] = []
    while not events or events[-1].get("phase") != until:
        frame = await sub.next(max_wait=5)
        assert frame is not None, events
        events.append(frame.message)
    return events


async def test_a_calls_progress_and_log_lines_reach_the_callers_topic() -> None:
    server, activity, factory = _setup()
    caller = _principal()
    sub = await factory.lookup(live_topic(caller.user_id)).subscribe()
    activity.watching(caller.user_id)  # what the topic hook says as it lets them in
    async with TestClient(server, principal=caller) as client:
        result = await client.call_tool("steps")  # no progress token asked for
        assert result["content"][0]["text"] == "done"
    events = await _events(sub, "ended")
    assert [(e["phase"], e.get("message"), e.get("progress")) for e in events] == [
        ("started", None, None), ("progress", "step 1", 1), ("progress", "step 2", 2),
        ("progress", "step 3", 3), ("progress", "counted", None), ("ended", None, None)]
    assert {e["id"] for e in events} == {events[0]["id"]}
    assert {(e["tool"], e["summary"], e["assistant"]) for e in events} == {
        ("steps", "Counts to three.", "A sign-in token")}
    assert events[-1]["outcome"] == "ok"
    assert "secret-token-text" not in str(events)
    await activity.close()


async def test_the_browser_and_unwatched_calls_publish_nothing() -> None:
    server, activity, factory = _setup()
    cookie = _principal("cookie")
    sub = await factory.lookup(live_topic(cookie.user_id)).subscribe()
    activity.watching(cookie.user_id)
    async with TestClient(server, principal=cookie) as client:
        await client.call_tool("steps")
    assert await sub.next(max_wait=0.3) is None  # the person's own browser: no assistant
    unwatched = _principal()
    async with TestClient(server, principal=unwatched) as client:
        await client.call_tool("steps")
    # Seen once, no subscriber now (the panel was closed): nothing either.
    gone = _principal()
    activity.watching(gone.user_id)
    (await factory.lookup(live_topic(gone.user_id)).subscribe()).close()
    async with TestClient(server, principal=gone) as client:
        await client.call_tool("steps")
    assert activity._queue is None  # nothing queued, no task started


async def test_a_full_queue_drops_and_counts_and_the_call_still_answers() -> None:
    server, activity, factory = _setup(queue_size=1)  # smaller than one call's six events
    caller = _principal()
    sub = await factory.lookup(live_topic(caller.user_id)).subscribe()
    activity.watching(caller.user_id)
    async with TestClient(server, principal=caller) as client:
        result = await client.call_tool("steps")
    assert result["content"][0]["text"] == "done" and not result["isError"]
    assert activity.dropped >= 4
    assert (await sub.next(max_wait=5)) is not None  # what fitted was published
    await activity.close()


async def test_concurrent_callers_each_hear_only_their_own_calls_never_arguments() -> None:
    """Two people watching, their assistants calling at the same time: each topic gets
    exactly its own caller's events (the call in progress is per task, not shared), and
    no event carries a call's arguments or result."""
    server, activity, factory = _setup()
    people = [_principal(), _principal()]
    subs = []
    for person in people:
        subs.append(await factory.lookup(live_topic(person.user_id)).subscribe())
        activity.watching(person.user_id)

    async def calls(person: Principal, n: int) -> None:
        async with TestClient(server, principal=person) as client:
            for _ in range(3):
                result = await client.call_tool("echo", {"text": f"arg-{n}-secret"})
                assert result["content"][0]["text"] == f"you said arg-{n}-secret"

    await asyncio.gather(calls(people[0], 0), calls(people[1], 1))
    heard = []
    for sub in subs:
        events = []
        while len([e for e in events if e["phase"] == "ended"]) < 3:
            frame = await sub.next(max_wait=5)
            assert frame is not None, events
            events.append(frame.message)
        assert await sub.next(max_wait=0.2) is None  # nothing more, nobody else's
        heard.append(events)
    for events in heard:
        assert [e["phase"] for e in events] == ["started", "progress", "ended"] * 3
        assert "secret" not in str(events) and "you said" not in str(events)
    assert not {e["id"] for e in heard[0]} & {e["id"] for e in heard[1]}
    await activity.close()


async def test_the_event_drain_keeps_nothing_of_the_call_that_started_it() -> None:
    """The drain task is started by the first watched call and outlives it: it must not
    carry that call's request id or span (issue 30), or every later event's look-ups
    would be logged and traced as that first request's."""
    from opentelemetry.sdk.trace import TracerProvider

    from pacekeeper.mcp._activity import _Call
    from pacekeeper.ops import request_id

    seen: list[tuple[str | None, bool]] = []

    def services() -> Any:
        from opentelemetry import trace

        seen.append((request_id.get(None), trace.get_current_span().get_span_context().is_valid))
        return SimpleNamespace(live=None)

    activity = ToolActivity(services, everywhere=True)
    token = request_id.set("first-call-id")
    try:
        with TracerProvider().get_tracer("t").start_as_current_span("tools/call x"):
            activity._emit(_Call("1", "x", object()), {"phase": "started"})  # type: ignore[arg-type]
    finally:
        request_id.reset(token)
    for _ in range(100):
        if seen:
            break
        await asyncio.sleep(0.01)
    assert activity._drain is not None
    activity._drain.cancel()
    assert seen == [(None, False)]
