"""WebSocket transport, driven in-process through raw ASGI messages (one event loop)."""

from __future__ import annotations

import asyncio
import logging
from typing import Any

import orjson
import pytest
from starlette.testclient import TestClient, WebSocketDenialResponse

from mcpcast import Server, ServerConfig
from tests.mcpcast.asgi_peers import Socket, call, check_token, init, traced
from tests.mcpcast.fixtures import Fixture


def app_for(**config: Any) -> tuple[Server, Any]:
    server = Server(Fixture(), config=ServerConfig(**config))
    return server, server.asgi_app()


async def test_initialize_list_and_call() -> None:
    """MCP-1, MCP-2: WebSocket at the one path, subprotocol mcp; list and call over frames."""
    server, app = app_for()
    ws = Socket(app).start()
    assert (await ws.accept())["subprotocol"] == "mcp"
    ws.send(init())
    answer = await ws.recv()
    assert answer["result"]["protocolVersion"] == "2025-11-25"
    assert answer["result"]["serverInfo"]["name"] == "fixture"
    ws.send({"jsonrpc": "2.0", "method": "notifications/initialized"})
    ws.send({"jsonrpc": "2.0", "id": 2, "method": "tools/list"})
    tools = {t["name"] for t in (await ws.recv())["result"]["tools"]}
    assert {"add", "echo", "slow", "ask"} <= tools
    ws.send(call(3, "add", {"a": 40, "b": 2}))
    assert (await ws.recv())["result"]["structuredContent"] == {"result": 42}
    ws.send({"jsonrpc": "2.0", "id": 4, "method": "resources/read",
             "params": {"uri": "activity://9"}})
    assert '"9"' in (await ws.recv())["result"]["contents"][0]["text"]
    ws.send({"jsonrpc": "2.0", "id": 5, "method": "prompts/get",
             "params": {"name": "coach", "arguments": {"goal": "5k"}}})
    assert "5k" in str((await ws.recv())["result"]["messages"])
    assert len(server.sessions) == 1
    await ws.hang_up()
    assert len(server.sessions) == 0  # one session per connection, gone with it


async def test_subprotocol_choices() -> None:
    """No subprotocol offered: accepted without one. Only other subprotocols: refused."""
    _, app = app_for()
    plain = Socket(app, subprotocols=()).start()
    assert (await plain.accept())["subprotocol"] is None
    await plain.hang_up()
    other = Socket(app, subprotocols=("graphql-ws",)).start()
    start = await other.next()
    assert start["type"] == "websocket.http.response.start" and start["status"] == 400
    body = orjson.loads((await other.next())["body"])
    assert "mcp" in body["error"]["message"]


async def test_requests_before_initialize_and_reinitialize() -> None:
    _, app = app_for()
    ws = Socket(app).start()
    await ws.accept()
    ws.send({"jsonrpc": "2.0", "id": 1, "method": "tools/list"})
    assert (await ws.recv())["error"]["code"] == -32600
    ws.send({"jsonrpc": "2.0", "id": 2, "method": "ping"})
    assert (await ws.recv())["result"] == {}
    ws.send(init(rid=3))
    assert "result" in await ws.recv()
    ws.send(init(rid=4))
    assert "already initialized" in (await ws.recv())["error"]["message"]
    await ws.hang_up()


async def test_errors_over_frames() -> None:
    """MCP-3, MCP-4: JSON-RPC errors and isError results; the connection stays usable."""
    _, app = app_for()
    ws = Socket(app)
    await ws.handshake()
    ws.send("{not json")
    parse = await ws.recv()
    assert parse["id"] is None and parse["error"]["code"] == -32700
    ws.send({"jsonrpc": "1.0", "id": 7, "method": "ping"})
    assert (await ws.recv())["error"]["code"] == -32600
    ws.send({"jsonrpc": "2.0", "id": 8, "method": "no/such"})
    assert (await ws.recv())["error"]["code"] == -32601
    ws.send(call(9, "nope"))
    assert (await ws.recv())["error"]["code"] == -32602
    ws.send(call(10, "fail"))
    failed = (await ws.recv())["result"]
    assert failed["isError"] is True and "secret" not in str(failed)
    ws.send([{"jsonrpc": "2.0", "id": 11, "method": "ping"}])
    assert "does not allow batches" in (await ws.recv())["error"]["message"]
    ws.send({"jsonrpc": "2.0", "id": 12, "method": "ping"})
    assert (await ws.recv())["id"] == 12
    await ws.hang_up()


async def test_batches_where_the_version_allows() -> None:
    _, app = app_for()
    ws = Socket(app)
    await ws.handshake("2025-03-26")
    ws.send([call(1, "add", {"a": 1}), {"jsonrpc": "2.0", "id": 2, "method": "ping"},
             {"jsonrpc": "2.0", "method": "notifications/progress", "params": {}}])
    answers = await ws.recv()
    assert sorted(a["id"] for a in answers) == [1, 2]
    ws.send([])
    assert (await ws.recv())["error"]["code"] == -32600
    await ws.hang_up()


async def test_concurrent_progress_and_cancel() -> None:
    """MCP-2: requests run concurrently; progress and logs are frames; cancel stops one."""
    _, app = app_for()
    ws = Socket(app)
    await ws.handshake()
    ws.send({"jsonrpc": "2.0", "id": 1, "method": "logging/setLevel", "params": {"level": "debug"}})
    assert (await ws.recv())["result"] == {}
    ws.send(call(2, "slow", progressToken="tok"))
    progress = await ws.recv_until(lambda f: f.get("method") == "notifications/progress")
    assert progress["params"]["progressToken"] == "tok" and progress["params"]["progress"] == 1
    logged = await ws.recv_until(lambda f: f.get("method") == "notifications/message")
    assert logged["params"]["data"] == "started"
    ws.send(call(3, "add", {"a": 2, "b": 2}))  # answered while slow still runs
    assert (await ws.recv())["id"] == 3
    ws.send({"jsonrpc": "2.0", "method": "notifications/cancelled", "params": {"requestId": 2}})
    ws.send({"jsonrpc": "2.0", "id": 4, "method": "ping"})
    assert (await ws.recv())["id"] == 4  # no response for the cancelled request came first
    await ws.hang_up()


async def test_elicitation_and_sampling_round_trip() -> None:
    _, app = app_for()
    ws = Socket(app)
    await ws.handshake()
    ws.send(call(1, "ask"))
    elicit = await ws.recv()
    assert elicit["method"] == "elicitation/create"
    ws.send({"jsonrpc": "2.0", "id": elicit["id"],
             "result": {"action": "accept", "content": {"name": "Ada"}}})
    sample = await ws.recv()
    assert sample["method"] == "sampling/createMessage"
    ws.send({"jsonrpc": "2.0", "id": sample["id"], "result": {
        "role": "assistant", "model": "m", "content": {"type": "text", "text": "Hello"}}})
    result = await ws.recv()
    assert result["id"] == 1 and result["result"]["content"][0]["text"] == "Ada: Hello"
    await ws.hang_up()


async def test_change_notifications_reach_the_socket() -> None:
    server, app = app_for()
    ws = Socket(app)
    await ws.handshake()
    server.add_tool(lambda: "x", name="late", description="late")
    assert (await ws.recv())["method"] == "notifications/tools/list_changed"
    ws.send({"jsonrpc": "2.0", "id": 1, "method": "resources/subscribe",
             "params": {"uri": "fixture://readme"}})
    assert (await ws.recv())["id"] == 1
    server.notify_resource_updated("fixture://other")
    server.notify_resource_updated("fixture://readme")
    updated = await ws.recv()
    assert updated["params"] == {"uri": "fixture://readme"}
    await ws.hang_up()


async def test_heartbeat_pings_and_dead_peer() -> None:
    """MCP-6: the server pings; an answering peer stays, a silent one is closed (1008)."""
    _, app = app_for(heartbeat_interval=0.05, heartbeat_timeout=0.2)
    ws = Socket(app)
    await ws.handshake()
    for _ in range(3):
        ping = await ws.recv()
        assert ping["method"] == "ping"
        ws.send({"jsonrpc": "2.0", "id": ping["id"], "result": {}})
    close = await ws.closed()  # now stop answering
    assert close["code"] == 1008 and "heartbeat" in close["reason"]
    await asyncio.wait_for(ws.task, 5)  # type: ignore[arg-type]


async def test_idle_timeout() -> None:
    _, app = app_for(heartbeat_interval=0.05, idle_timeout=0.3)
    ws = Socket(app)
    await ws.handshake()
    while True:
        message = await ws.next()
        if message["type"] == "websocket.close":
            break
        ping = orjson.loads(message["text"])
        ws.send({"jsonrpc": "2.0", "id": ping["id"], "result": {}})
    assert message["code"] == 1000 and message["reason"] == "idle timeout"


async def test_oversize_message_closes_1009() -> None:
    _, app = app_for(max_body_bytes=1000)
    ws = Socket(app)
    await ws.handshake()
    ws.send(call(1, "echo", {"text": "x" * 900}))
    assert (await ws.recv())["result"]["content"][0]["text"] == "x" * 900
    ws.send(call(2, "echo", {"text": "x" * 2000}))
    close = await ws.closed()
    assert close["code"] == 1009


@pytest.mark.parametrize(("headers", "status"), [
    ([(b"host", b"127.0.0.1:8000"), (b"origin", b"http://evil.example")], 403),
    ([(b"host", b"evil.example")], 421),
])
async def test_host_and_origin_checked(headers: list[tuple[bytes, bytes]], status: int) -> None:
    """MCP-8: DNS-rebinding protection on the upgrade."""
    _, app = app_for()
    ws = Socket(app, headers=headers).start()
    start = await ws.next()
    assert start["type"] == "websocket.http.response.start" and start["status"] == status
    plain = Socket(app, headers=headers, http_response=False).start()
    close = await plain.next()
    assert close["type"] == "websocket.close" and close["code"] == 1008


async def test_auth_hook_on_the_handshake() -> None:
    """SMCP-1/2/3 on WebSocket: bad token refuses the upgrade; anonymous gets JSON-RPC errors."""
    app = Server(Fixture(), authenticate=check_token).asgi_app()
    bad = Socket(app, headers=[(b"host", b"localhost"), (b"authorization", b"Bearer bad")])
    start = await bad.start().next()
    assert start["status"] == 401
    assert (b"www-authenticate", b'Bearer resource_metadata="x"') in start["headers"]
    anonymous = Socket(app, headers=[(b"host", b"localhost")])
    await anonymous.handshake()
    anonymous.send({"jsonrpc": "2.0", "id": 1, "method": "tools/list"})
    assert "tools" in (await anonymous.recv())["result"]
    anonymous.send(call(2, "add", {"a": 1}))
    refused = (await anonymous.recv())["error"]
    assert refused["code"] == -32001 and "authentication required" in refused["message"]
    await anonymous.hang_up()
    good = Socket(app, headers=[(b"host", b"localhost"), (b"authorization", b"Bearer good")])
    await good.handshake()
    good.send(call(3, "add", {"a": 1}))
    assert (await good.recv())["result"]["structuredContent"] == {"result": 1}
    await good.hang_up()


async def test_max_open_connections() -> None:
    _, app = app_for(max_streams=1)
    first = Socket(app)
    await first.handshake()
    second = Socket(app).start()
    assert (await second.next())["status"] == 503
    await first.hang_up()
    third = Socket(app).start()
    await third.accept()
    await third.hang_up()


async def test_slow_consumer_is_dropped(caplog: pytest.LogCaptureFixture) -> None:
    server, app = app_for(send_queue_size=4)
    ws = Socket(app)
    await ws.handshake()
    ws.stalled.set()
    with caplog.at_level(logging.WARNING, "mcpcast.transport"):
        for _ in range(20):
            server.notify_list_changed("tools")
            await asyncio.sleep(0)
        await asyncio.wait_for(ws.task, 5)  # type: ignore[arg-type]
    assert "not reading" in caplog.text
    assert len(server.sessions) == 0


async def test_lifespan_shutdown_closes_1001_with_reason() -> None:
    server, app = app_for()
    ws = Socket(app)
    await ws.handshake()
    lifespan_in: asyncio.Queue[dict[str, Any]] = asyncio.Queue()
    lifespan_out: asyncio.Queue[dict[str, Any]] = asyncio.Queue()
    life = asyncio.ensure_future(app({"type": "lifespan"}, lifespan_in.get, lifespan_out.put))
    await lifespan_in.put({"type": "lifespan.startup"})
    assert (await lifespan_out.get())["type"] == "lifespan.startup.complete"
    await lifespan_in.put({"type": "lifespan.shutdown"})
    close = await ws.closed()
    assert close["code"] == 1001 and close["reason"] == "server shutting down"
    assert (await asyncio.wait_for(lifespan_out.get(), 5))["type"] == "lifespan.shutdown.complete"
    await asyncio.wait_for(life, 5)
    assert len(server.sessions) == 0


async def test_one_span_per_call_over_websocket() -> None:
    """TRACE-1, TRACE-2: tools/call over WebSocket is one span with the mcp.tool.* attributes."""
    provider, exporter = traced()
    app = Server(Fixture(), tracer_provider=provider).asgi_app()
    ws = Socket(app)
    await ws.handshake()
    ws.send(call(1, "add", {"a": 1, "b": 2}))
    await ws.recv()
    ws.send(call(2, "refuse"))
    await ws.recv()
    await ws.hang_up()
    spans = exporter.get_finished_spans()
    assert [s.attributes["mcp.tool.name"] for s in spans] == ["add", "refuse"]  # type: ignore[index]
    first, second = (dict(s.attributes or {}) for s in spans)
    assert {k: first[k] for k in first if k.startswith("mcp.tool.")} == {
        "mcp.tool.name": "add", "mcp.tool.type": "tool", "mcp.tool.arg_count": 2,
        "mcp.tool.error": False}
    assert second["mcp.tool.error"] is True


def test_starlette_test_client() -> None:
    """The ASGI app works with Starlette's TestClient, denial responses included."""
    app = Server(Fixture()).asgi_app()
    with TestClient(app, base_url="http://127.0.0.1") as client:
        with client.websocket_connect("ws://127.0.0.1/mcp", subprotocols=["mcp"]) as ws:
            assert ws.accepted_subprotocol == "mcp"
            ws.send_json(init())
            assert ws.receive_json()["result"]["serverInfo"]["name"] == "fixture"
            ws.send_json(call(2, "echo", {"text": "hi"}))
            assert ws.receive_json()["result"]["content"][0]["text"] == "hi"
        with pytest.raises(WebSocketDenialResponse) as denied, \
                client.websocket_connect("ws://127.0.0.1/mcp", headers={"origin": "http://evil.example"}):
            pass
        assert denied.value.status_code == 403
