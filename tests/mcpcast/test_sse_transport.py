"""The older HTTP+SSE transport, in-process: a raw-ASGI GET stream plus httpx POSTs."""

from __future__ import annotations

import asyncio
import logging
from collections.abc import AsyncIterator
from typing import Any

import httpx
import pytest

from mcpcast import Server, ServerConfig
from tests.mcpcast.asgi_peers import Stream, call, check_token, traced
from tests.mcpcast.fixtures import Fixture

BASE = "http://127.0.0.1:8000"
INIT = {"jsonrpc": "2.0", "id": 1, "method": "initialize",
        "params": {"protocolVersion": "2024-11-05", "capabilities": {"elicitation": {}},
                   "clientInfo": {"name": "t", "version": "1"}}}


@pytest.fixture
def server() -> Server:
    return Server(Fixture())


@pytest.fixture
async def http(server: Server) -> AsyncIterator[httpx.AsyncClient]:
    async with httpx.AsyncClient(transport=httpx.ASGITransport(app=server.asgi_app()),
                                 base_url=BASE) as client:
        yield client


async def open_session(server: Server, http: httpx.AsyncClient) -> tuple[Stream, str]:
    stream = Stream(server.asgi_app())
    endpoint = await stream.endpoint()
    assert (await http.post(endpoint, json=INIT)).status_code == 202
    answer = await stream.message()
    assert answer["id"] == 1 and answer["result"]["protocolVersion"] == "2024-11-05"
    posted = await http.post(endpoint, json={"jsonrpc": "2.0", "method": "notifications/initialized"})
    assert posted.status_code == 202
    return stream, endpoint


async def test_endpoint_event_then_messages(server: Server, http: httpx.AsyncClient) -> None:
    """MCP-1, MCP-2: GET <path> opens the stream; POSTs are 202; answers come as events."""
    stream = Stream(server.asgi_app())
    endpoint = await stream.endpoint()
    path, _, query = endpoint.partition("?")
    assert path == "/mcp" and query.startswith("session_id=") and len(query) == 11 + 32
    assert (await http.post(endpoint, json=INIT)).status_code == 202
    assert (await stream.message())["result"]["serverInfo"]["name"] == "fixture"
    posted = await http.post(endpoint, json=call(2, "add", {"a": 2, "b": 3}))
    assert posted.status_code == 202 and posted.text == "Accepted"
    assert (await stream.message())["result"]["structuredContent"] == {"result": 5}
    await http.post(endpoint, json={"jsonrpc": "2.0", "id": 3, "method": "resources/read",
                                    "params": {"uri": "fixture://readme"}})
    assert (await stream.message())["result"]["contents"][0]["text"] == "read me"
    await http.post(endpoint, json={"jsonrpc": "2.0", "id": 4, "method": "prompts/get",
                                    "params": {"name": "coach", "arguments": {"goal": "10k"}}})
    assert "10k" in str((await stream.message())["result"])
    await stream.hang_up()


async def test_stream_end_closes_the_session(server: Server, http: httpx.AsyncClient) -> None:
    stream, endpoint = await open_session(server, http)
    assert len(server.sessions) == 1
    await stream.hang_up()
    assert len(server.sessions) == 0
    gone = await http.post(endpoint, json={"jsonrpc": "2.0", "id": 9, "method": "ping"})
    assert gone.status_code == 404 and "SSE stream ended" in gone.json()["error"]["message"]


async def test_progress_elicitation_and_change_notifications(
        server: Server, http: httpx.AsyncClient) -> None:
    stream, endpoint = await open_session(server, http)
    await http.post(endpoint, json=call(2, "ask"))
    elicit = await stream.message()
    assert elicit["method"] == "elicitation/create"
    await http.post(endpoint, json={"jsonrpc": "2.0", "id": elicit["id"],
                                    "result": {"action": "decline"}})
    refused = await stream.message()  # the client declared no sampling capability
    assert refused["id"] == 2 and refused["result"]["isError"] is True
    assert "sampling" in refused["result"]["content"][0]["text"]
    slow = call(3, "slow")
    slow["params"]["_meta"] = {"progressToken": 7}
    await http.post(endpoint, json=slow)
    progress = await stream.message()
    assert progress["method"] == "notifications/progress" and progress["params"]["progressToken"] == 7
    await http.post(endpoint, json={"jsonrpc": "2.0", "method": "notifications/cancelled",
                                    "params": {"requestId": 3}})
    server.add_tool(lambda: "x", name="late", description="late")
    changed = await stream.message()
    while changed.get("method") == "notifications/message":  # the slow tool's log line
        changed = await stream.message()
    assert changed["method"] == "notifications/tools/list_changed"
    await stream.hang_up()


async def test_bad_posts_are_answered_on_the_post(server: Server, http: httpx.AsyncClient) -> None:
    """MCP-3: malformed bodies get HTTP errors; invalid messages get JSON-RPC errors."""
    stream, endpoint = await open_session(server, http)
    assert (await http.post(endpoint, content=b"{no", headers={
        "content-type": "application/json"})).json()["error"]["code"] == -32700
    assert (await http.post(endpoint, content=b"{}", headers={
        "content-type": "text/plain"})).status_code == 415
    unknown = await http.post("/mcp?session_id=" + "0" * 32, json=INIT)
    assert unknown.status_code == 404
    assert (await http.post(endpoint, json={"jsonrpc": "2.0", "id": 5})).status_code == 202
    assert (await stream.message())["error"]["code"] == -32600
    await http.post(endpoint, json={"jsonrpc": "2.0", "id": 6, "method": "nope"})
    assert (await stream.message())["error"]["code"] == -32601
    await http.post(endpoint, json=[call(7, "add", {"a": 1}), call(8, "add", {"a": "x"})])
    batch = await stream.message()  # 2024-11-05 allows batches
    assert sorted(m["id"] for m in batch) == [7, 8]
    assert [m["error"]["code"] for m in batch if "error" in m] == [-32602]
    await stream.hang_up()


async def test_oversize_post_is_413() -> None:
    server = Server(Fixture(), config=ServerConfig(max_body_bytes=200))
    async with httpx.AsyncClient(transport=httpx.ASGITransport(app=server.asgi_app()),
                                 base_url=BASE) as http:
        stream, endpoint = await open_session(server, http)
        big = await http.post(endpoint, json=call(2, "echo", {"text": "x" * 500}))
        assert big.status_code == 413
        await stream.hang_up()


async def test_get_routing(http: httpx.AsyncClient) -> None:
    """A GET with a session header stays Streamable HTTP; SSE needs the right Accept."""
    with_header = await http.get("/mcp", headers={"accept": "text/event-stream",
                                                  "mcp-session-id": "0" * 32})
    assert with_header.status_code == 404  # Streamable HTTP's unknown-session answer
    assert (await http.get("/mcp", headers={"accept": "application/json"})).status_code == 406
    stateless = Server(Fixture(), config=ServerConfig(stateless=True)).asgi_app()
    async with httpx.AsyncClient(transport=httpx.ASGITransport(app=stateless),
                                 base_url=BASE) as client:
        assert (await client.get("/mcp", headers={"accept": "text/event-stream"})).status_code == 405


async def test_bad_origin_refused(server: Server) -> None:
    """MCP-8: Host and Origin are checked before a stream opens."""
    stream = Stream(server.asgi_app(), headers=[(b"host", b"127.0.0.1"), (b"accept", b"text/event-stream"),
                                                (b"origin", b"http://evil.example")])
    assert (await stream.start())["status"] == 403


async def test_heartbeats_and_idle_timeout() -> None:
    """MCP-6: comment-line heartbeats; an idle stream ends."""
    server = Server(Fixture(), config=ServerConfig(heartbeat_interval=0.05, idle_timeout=0.4))
    stream = Stream(server.asgi_app())
    await stream.endpoint()
    assert await stream.event() == ("comment", "ping")
    assert await stream.event() == ("comment", "ping")
    while (event := await stream.event())[0] == "comment":
        pass
    assert event == ("end", "")
    await asyncio.wait_for(stream.task, 5)
    assert len(server.sessions) == 0


async def test_auth_hook_on_posts() -> None:
    """SMCP-1/2/3 over SSE: public methods pass; tools/call needs a valid token (401).

    The stream belongs to the GET's caller (issue 20, finding 7), so a client that calls
    tools opens it with its token; a POST without one is refused before anything else.
    """
    server = Server(Fixture(), authenticate=check_token)
    async with httpx.AsyncClient(transport=httpx.ASGITransport(app=server.asgi_app()),
                                 base_url=BASE, headers={"authorization": "Bearer good"}) as http:
        stream = Stream(server.asgi_app(), [(b"host", b"127.0.0.1:8000"),
                                            (b"accept", b"text/event-stream"),
                                            (b"authorization", b"Bearer good")])
        endpoint = await stream.endpoint()
        assert (await http.post(endpoint, json=INIT)).status_code == 202
        assert (await stream.message())["id"] == 1
        async with httpx.AsyncClient(transport=httpx.ASGITransport(app=server.asgi_app()),
                                     base_url=BASE) as anonymous:
            refused = await anonymous.post(endpoint, json=call(2, "add", {"a": 1}))
        assert refused.status_code == 401
        assert "authentication required" in refused.json()["error"]["message"]
        assert refused.headers["www-authenticate"].startswith("Bearer")
        bad = await http.post(endpoint, json=call(3, "add", {"a": 1}),
                              headers={"authorization": "Bearer bad"})
        assert bad.status_code == 401 and "invalid token" in bad.json()["error"]["message"]
        good = await http.post(endpoint, json=call(4, "add", {"a": 1}))
        assert good.status_code == 202
        assert (await stream.message())["id"] == 4
        await stream.hang_up()


async def test_slow_reader_is_dropped(caplog: pytest.LogCaptureFixture) -> None:
    server = Server(Fixture(), config=ServerConfig(send_queue_size=3))
    async with httpx.AsyncClient(transport=httpx.ASGITransport(app=server.asgi_app()),
                                 base_url=BASE) as http:
        stream, _ = await open_session(server, http)
        stream.stalled.set()
        with caplog.at_level(logging.WARNING, "mcpcast.transport"):
            for _ in range(10):
                server.notify_list_changed("prompts")
                await asyncio.sleep(0)
            await asyncio.wait_for(stream.task, 5)
        assert "not reading" in caplog.text
        assert len(server.sessions) == 0


async def test_lifespan_shutdown_ends_streams(server: Server, http: httpx.AsyncClient) -> None:
    stream, _ = await open_session(server, http)
    app = server.asgi_app()
    inbox: asyncio.Queue[dict[str, Any]] = asyncio.Queue()
    outbox: asyncio.Queue[dict[str, Any]] = asyncio.Queue()
    life = asyncio.ensure_future(app({"type": "lifespan"}, inbox.get, outbox.put))
    await inbox.put({"type": "lifespan.startup"})
    await inbox.put({"type": "lifespan.shutdown"})
    while (event := await stream.event())[0] == "comment":
        pass
    assert event == ("end", "")
    await asyncio.wait_for(life, 5)


async def test_one_span_per_call_over_sse() -> None:
    """TRACE-1, TRACE-2: tools/call over HTTP+SSE is one span with the mcp.tool.* attributes."""
    provider, exporter = traced()
    server = Server(Fixture(), tracer_provider=provider)
    async with httpx.AsyncClient(transport=httpx.ASGITransport(app=server.asgi_app()),
                                 base_url=BASE) as http:
        stream, endpoint = await open_session(server, http)
        await http.post(endpoint, json=call(2, "fail"))
        assert (await stream.message())["result"]["isError"] is True
        await stream.hang_up()
    (span,) = exporter.get_finished_spans()
    attributes = dict(span.attributes or {})
    assert {k: attributes[k] for k in attributes if k.startswith("mcp.tool.")} == {
        "mcp.tool.name": "fail", "mcp.tool.type": "tool", "mcp.tool.arg_count": 0,
        "mcp.tool.error": True}
