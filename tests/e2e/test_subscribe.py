"""Browser subscription endpoints over real sockets: SSE and WebSocket (DECL-6, MCP-6)."""

from __future__ import annotations

import asyncio
import json
from collections.abc import AsyncIterator

import httpx
import pytest
from starlette.applications import Starlette
from starlette.routing import Mount
from websockets.asyncio.client import connect
from websockets.exceptions import ConnectionClosed, InvalidStatus

from mcpcast.broadcast import BroadcasterFactory
from mcpcast.transports.subscribe import SubscriberInfo, TopicRefused, subscription_app

from ._asgi_server import serving

pytestmark = pytest.mark.e2e


class SSE:
    """A minimal SSE reader over an httpx streaming response."""

    def __init__(self, response: httpx.Response) -> None:
        self.lines = response.aiter_lines()

    async def event(self) -> dict:
        """Next event or comment: {"event", "id", "data", "comment"}."""
        event: dict = {}
        while True:
            line = await asyncio.wait_for(anext(self.lines), 5)
            if line == "":
                if event:
                    return event
                continue
            field, _, value = line.partition(":")
            value = value.removeprefix(" ")
            if field == "":
                event["comment"] = value
            elif field == "data":
                event["data"] = json.loads(value)
            else:
                event[field] = value


@pytest.fixture
async def factory() -> AsyncIterator[BroadcasterFactory]:
    f = BroadcasterFactory(history_size=10)
    yield f
    await f.close()


async def _wait_for(predicate, what: str) -> None:
    for _ in range(250):
        if predicate():
            return
        await asyncio.sleep(0.02)
    raise AssertionError(f"timed out waiting for {what}")


async def test_sse_delivers_broadcasts_with_ids_and_heartbeats(factory) -> None:
    """DECL-6, MCP-6: an SSE subscriber gets every broadcast (id = seq) and heartbeats."""
    app = subscription_app(factory, heartbeat=0.2)
    topic = factory.lookup("runs")
    await topic.broadcast("before")  # not replayed: no resume point given
    async with (
        serving(app) as base,
        httpx.AsyncClient() as client,
        client.stream("GET", f"{base}/runs") as response,
    ):
        assert response.status_code == 200
        assert response.headers["content-type"].startswith("text/event-stream")
        sse = SSE(response)
        hello = await sse.event()
        assert hello["event"] == "subscribed"
        assert hello["data"] == {
            "type": "subscribed",
            "topic": "runs",
            "seq": 1,
            "heartbeat": 0.2,
        }
        await topic.broadcast({"km": 10})
        event = await sse.event()
        assert (event["event"], event["id"]) == ("message", "2")
        assert event["data"] == {
            "type": "message",
            "topic": "runs",
            "seq": 2,
            "data": {"km": 10},
        }
        assert (await sse.event()) == {"comment": "heartbeat"}


async def test_sse_resumes_from_last_event_id(factory) -> None:
    """MCP-6: a reconnecting SSE client resumes after Last-Event-ID."""
    app = subscription_app(factory)
    topic = factory.lookup("resume")
    for i in range(1, 5):
        await topic.broadcast(f"m{i}")
    async with serving(app) as base, httpx.AsyncClient() as client:
        headers = {"Last-Event-ID": "2"}
        async with client.stream("GET", f"{base}/resume", headers=headers) as response:
            sse = SSE(response)
            assert (await sse.event())["data"]["seq"] == 2
            got = [(await sse.event())["data"] for _ in range(2)]
            assert [(d["seq"], d["data"]) for d in got] == [(3, "m3"), (4, "m4")]


async def test_websocket_delivers_broadcasts_resumes_and_heartbeats(factory) -> None:
    """DECL-6, MCP-6: WebSocket subscriber with ?after= resume and JSON heartbeats."""
    app = subscription_app(factory, heartbeat=0.2)
    topic = factory.lookup("ws-topic")
    await topic.broadcast("one")
    await topic.broadcast("two")
    async with serving(app) as base:
        url = base.replace("http", "ws") + "/ws-topic?after=1"
        async with connect(url) as ws:
            hello = json.loads(await asyncio.wait_for(ws.recv(), 5))
            assert hello["type"] == "subscribed"
            assert hello["seq"] == 1
            replayed = json.loads(await asyncio.wait_for(ws.recv(), 5))
            assert (replayed["seq"], replayed["data"]) == (2, "two")
            await topic.broadcast({"three": 3})
            live = json.loads(await asyncio.wait_for(ws.recv(), 5))
            assert live == {"type": "message", "topic": "ws-topic", "seq": 3, "data": {"three": 3}}
            beat = json.loads(await asyncio.wait_for(ws.recv(), 5))
            assert beat == {"type": "heartbeat", "seq": 3}


async def test_authorize_hook_refuses_with_403_on_both_transports(factory) -> None:
    seen: list[tuple[SubscriberInfo, str]] = []

    async def authorize(info: SubscriberInfo, topic: str) -> bool:
        seen.append((info, topic))
        return info.query.get("token") == "good" and topic != "private"

    app = subscription_app(factory, authorize=authorize)
    async with serving(app) as base, httpx.AsyncClient() as client:
        assert (await client.get(f"{base}/open?token=bad")).status_code == 403
        ws_base = base.replace("http", "ws")
        with pytest.raises(InvalidStatus) as refused:
            async with connect(f"{ws_base}/private?token=good"):
                pass
        assert refused.value.response.status_code == 403
        async with connect(f"{ws_base}/open?token=good") as ws:
            assert json.loads(await asyncio.wait_for(ws.recv(), 5))["type"] == "subscribed"
    assert [(info.method, topic) for info, topic in seen] == [
        ("GET", "open"),
        ("WEBSOCKET", "private"),
        ("WEBSOCKET", "open"),
    ]
    assert seen[0][0].headers["host"].startswith("127.0.0.1")
    assert factory.lookup("private", create=False) is None  # refused before creating


async def test_bad_requests_get_clear_errors(factory) -> None:
    app = subscription_app(factory)
    async with serving(app) as base, httpx.AsyncClient() as client:
        not_found = await client.get(f"{base}/a/b")
        assert not_found.status_code == 404
        assert not_found.json() == {"error": "no such topic"}
        assert (await client.get(f"{base}/")).status_code == 404
        bad_after = await client.get(f"{base}/t?after=-1")
        assert bad_after.status_code == 400
        assert "after" in bad_after.json()["error"]
        post = await client.post(f"{base}/t", content=b"x")
        assert post.status_code == 405
        assert post.headers["allow"] == "GET"
        with pytest.raises(InvalidStatus) as refused:
            async with connect(base.replace("http", "ws") + "/t?after=x"):
                pass
        assert refused.value.response.status_code == 400
    assert factory.names() == []


async def test_client_leaving_releases_its_subscription(factory) -> None:
    app = subscription_app(factory)
    topic = factory.lookup("leave")
    async with serving(app) as base, httpx.AsyncClient() as client:
        async with client.stream("GET", f"{base}/leave") as response:
            await SSE(response).event()
            async with connect(base.replace("http", "ws") + "/leave") as ws:
                await ws.recv()
                assert topic.subscriber_count == 2
        await _wait_for(lambda: topic.subscriber_count == 0, "subscriptions to end")
        assert app.connection_count == 0


async def test_close_ends_streams_with_a_reason(factory) -> None:
    """Clean shutdown: SSE gets a close event, WebSocket a 1001 close with the reason."""
    app = subscription_app(factory)
    async with serving(app) as base, httpx.AsyncClient() as client:
        async with client.stream("GET", f"{base}/bye") as response:
            sse = SSE(response)
            await sse.event()
            async with connect(base.replace("http", "ws") + "/bye") as ws:
                await ws.recv()
                await _wait_for(lambda: app.connection_count == 2, "two subscribers")
                await app.close()
                last = json.loads(await asyncio.wait_for(ws.recv(), 5))
                assert last == {"type": "close", "reason": "shutdown"}
                with pytest.raises(ConnectionClosed) as closed:
                    await asyncio.wait_for(ws.recv(), 5)
                assert closed.value.rcvd.code == 1001
                assert closed.value.rcvd.reason == "shutdown"
            event = await sse.event()
            assert event["event"] == "close"
            assert event["data"] == {"type": "close", "reason": "shutdown"}
        # After close, new subscribers are refused.
        assert (await client.get(f"{base}/bye")).status_code == 503
    assert app.connection_count == 0


async def test_mounted_under_a_prefix_in_starlette(factory) -> None:
    app = subscription_app(factory)
    outer = Starlette(routes=[Mount("/mcp/topics", app=app)])
    topic = factory.lookup("mounted")
    async with (
        serving(outer) as base,
        httpx.AsyncClient() as client,
        client.stream("GET", f"{base}/mcp/topics/mounted") as response,
    ):
        assert response.status_code == 200
        sse = SSE(response)
        await sse.event()
        await topic.broadcast("through the mount")
        assert (await sse.event())["data"]["data"] == "through the mount"


async def test_redis_broadcast_reaches_browser_of_another_factory(redis_url) -> None:
    """DECL-6: a tool's broadcast in process A reaches a browser connected to process B."""
    a = BroadcasterFactory.from_url(redis_url)
    b = BroadcasterFactory.from_url(redis_url)
    name = f"cross-{id(a)}"
    try:
        async with (
            serving(subscription_app(b)) as base,
            connect(base.replace("http", "ws") + f"/{name}") as ws,
        ):
            hello = json.loads(await asyncio.wait_for(ws.recv(), 5))
            await a.lookup(name).broadcast({"from": "A"})
            frame = json.loads(await asyncio.wait_for(ws.recv(), 5))
            assert frame["data"] == {"from": "A"}
            assert frame["seq"] == hello["seq"] + 1
    finally:
        await a.close()
        await b.close()


async def test_backend_outage_is_a_503_without_details() -> None:
    """A Redis that cannot be reached gives 503 (no traceback, no details), not a crash."""
    from tests._services import free_port

    factory = BroadcasterFactory.from_url(f"redis://127.0.0.1:{free_port()}/0")
    try:
        async with serving(subscription_app(factory)) as base, httpx.AsyncClient() as client:
            response = await client.get(f"{base}/down")
            assert response.status_code == 503
            assert response.json() == {"error": "broadcast backend unavailable"}
            assert (await client.get(f"{base}/down")).status_code == 503  # still serving
    finally:
        await factory.close()


async def test_websocket_token_travels_as_a_subprotocol_not_in_the_url(factory) -> None:
    """Browsers cannot set WebSocket headers: the client offers ["mcpcast", "bearer.<t>"],
    authorize sees Authorization: Bearer <t>, and the server selects "mcpcast"."""
    seen: list[SubscriberInfo] = []

    def authorize(info: SubscriberInfo, topic: str) -> bool:
        seen.append(info)
        return info.headers.get("authorization") == "Bearer eyJ.abc-123_x"

    app = subscription_app(factory, authorize=authorize)
    async with serving(app) as base:
        url = base.replace("http", "ws") + "/tokened"
        async with connect(url, subprotocols=["mcpcast", "bearer.eyJ.abc-123_x"]) as ws:
            assert ws.subprotocol == "mcpcast"
            assert json.loads(await asyncio.wait_for(ws.recv(), 5))["type"] == "subscribed"
        with pytest.raises(InvalidStatus) as refused:
            async with connect(url, subprotocols=["mcpcast", "bearer.wrong"]):
                pass
        assert refused.value.response.status_code == 403
        async with httpx.AsyncClient() as client:
            headers = {"Authorization": "Bearer eyJ.abc-123_x"}
            async with client.stream("GET", f"{base}/tokened", headers=headers) as response:
                assert response.status_code == 200
    assert "eyJ" not in seen[0].query_string
    assert [info.method for info in seen] == ["WEBSOCKET", "WEBSOCKET", "GET"]


async def test_a_failing_authorize_hook_denies_without_details(factory, caplog) -> None:
    def authorize(info: SubscriberInfo, topic: str) -> bool:
        raise RuntimeError("db password hunter2 leaked in a message")

    app = subscription_app(factory, authorize=authorize)
    async with serving(app) as base, httpx.AsyncClient() as client:
        response = await client.get(f"{base}/t")
    assert response.status_code == 403
    assert "hunter2" not in response.text
    assert "hunter2" not in caplog.text
    assert "RuntimeError" in caplog.text


async def test_a_hook_may_refuse_with_a_status_of_its_own(factory) -> None:
    """A hook raising `TopicRefused` (e.g. a rate limit: 429) is answered with that
    status on both transports; any other error still denies with 403 (above)."""

    def authorize(info: SubscriberInfo, topic: str) -> bool:
        raise TopicRefused(429, "rate limit exceeded")

    app = subscription_app(factory, authorize=authorize)
    async with serving(app) as base, httpx.AsyncClient() as client:
        response = await client.get(f"{base}/t")
        assert response.status_code == 429
        assert "rate limit exceeded" in response.text
        with pytest.raises(InvalidStatus) as refused:
            async with connect(base.replace("http", "ws") + "/t"):
                pass
        assert refused.value.response.status_code == 429


async def test_recheck_ends_a_stream_whose_subscriber_lost_the_right(factory) -> None:
    """`recheck`: an open stream's subscriber is asked about again (`info.recheck`) before
    the next frame; once refused, that frame never goes out and the stream ends with
    reason `unauthorized` (WebSocket close 1008), on both transports. Without `recheck`
    the hook is asked once."""
    allowed = {"sse": True, "ws": True}
    asked: list[tuple[str, bool]] = []

    def authorize(info: SubscriberInfo, topic: str) -> bool:
        who = info.query["who"]
        asked.append((who, info.recheck))
        return allowed[who]

    app = subscription_app(factory, authorize=authorize, heartbeat=None, recheck=0)
    topic = factory.lookup("mine")
    async with (
        serving(app) as base,
        httpx.AsyncClient() as client,
        client.stream("GET", f"{base}/mine?who=sse") as response,
        connect(base.replace("http", "ws") + "/mine?who=ws") as ws,
    ):
        sse = SSE(response)
        assert (await sse.event())["data"]["type"] == "subscribed"
        assert json.loads(await asyncio.wait_for(ws.recv(), 5))["type"] == "subscribed"
        await topic.broadcast("still yours")
        assert (await sse.event())["data"]["data"] == "still yours"
        assert json.loads(await asyncio.wait_for(ws.recv(), 5))["data"] == "still yours"
        allowed.update(sse=False, ws=False)
        await topic.broadcast("not for you any more")
        ended = await sse.event()
        assert ended["event"] == "close" and ended["data"] == {
            "type": "close", "reason": "unauthorized"}
        last = json.loads(await asyncio.wait_for(ws.recv(), 5))
        assert last == {"type": "close", "reason": "unauthorized"}
        with pytest.raises(ConnectionClosed) as closed:
            await asyncio.wait_for(ws.recv(), 5)
        assert closed.value.rcvd is not None and closed.value.rcvd.code == 1008
    assert sorted(asked) == [("sse", False), ("sse", True), ("sse", True),
                             ("ws", False), ("ws", True), ("ws", True)]

    once: list[bool] = []
    plain = subscription_app(factory, authorize=lambda info, t: once.append(info.recheck)
                             or True, heartbeat=None)
    async with serving(plain) as base, httpx.AsyncClient() as client, \
            client.stream("GET", f"{base}/mine") as response:
        sse = SSE(response)
        await sse.event()
        await topic.broadcast("x")
        assert (await sse.event())["data"]["data"] == "x"
    assert once == [False]
