"""WebSocket and HTTP+SSE over real sockets (uvicorn): the official SDK's SSE client, and
the ``websockets`` library for WebSocket (the ``mcp`` 2.3.0 SDK ships no WebSocket client)."""

from __future__ import annotations

import asyncio
import json
import logging
from collections.abc import AsyncIterator, Iterator
from contextlib import ExitStack, asynccontextmanager
from typing import Any

import httpx
import pytest
from mcp import types
from mcp.client.session import ClientSession
from mcp.client.sse import sse_client
from websockets.asyncio.client import ClientConnection, connect
from websockets.exceptions import ConnectionClosed, InvalidStatus

from mcpcast import Context, Server, ServerConfig, Unauthorized
from mcpcast._asgi import Entry
from mcpcast._auth import RequestInfo
from tests._serve import serve
from tests.mcpcast.fixtures import Fixture

pytestmark = pytest.mark.e2e


async def check_token(request: RequestInfo) -> str | None:
    auth = request.headers.get("authorization")
    if auth is not None and auth != "Bearer good":
        raise Unauthorized("invalid token", www_authenticate='Bearer resource_metadata="x"')
    return "alice" if auth else None


@pytest.fixture(scope="module")
def base() -> Iterator[str]:
    config = ServerConfig(
        tool_timeout=2, heartbeat_interval=0.2, heartbeat_timeout=0.5, max_body_bytes=64 * 1024
    )
    with serve(Server(Fixture(), config=config, authenticate=check_token).asgi_app()) as url:
        yield url


def ws_url(base: str) -> str:
    return base.replace("http://", "ws://") + "/mcp"


class Peer:
    """A raw JSON-RPC client over a WebSocket that answers the server's pings."""

    def __init__(self, ws: ClientConnection, answer_pings: bool = True) -> None:
        self.ws = ws
        self.answer_pings = answer_pings
        self.next_id = 0

    async def send(self, message: dict[str, Any]) -> None:
        await self.ws.send(json.dumps(message))

    async def recv(self) -> dict[str, Any]:
        while True:
            message: dict[str, Any] = json.loads(await asyncio.wait_for(self.ws.recv(), 10))
            if message.get("method") == "ping" and "id" in message:
                if self.answer_pings:
                    await self.send({"jsonrpc": "2.0", "id": message["id"], "result": {}})
                continue
            return message

    async def request(self, method: str, params: dict[str, Any] | None = None) -> dict[str, Any]:
        self.next_id += 1
        await self.send(
            {"jsonrpc": "2.0", "id": self.next_id, "method": method, "params": params or {}}
        )
        while True:
            message = await self.recv()
            if message.get("id") == self.next_id and "method" not in message:
                return message

    async def initialize(self) -> dict[str, Any]:
        answer = await self.request(
            "initialize",
            {
                "protocolVersion": "2025-06-18",
                "capabilities": {"elicitation": {}},
                "clientInfo": {"name": "raw", "version": "1"},
            },
        )
        await self.send({"jsonrpc": "2.0", "method": "notifications/initialized"})
        return answer


@asynccontextmanager
async def peer(base: str, token: str | None = "good", **options: Any) -> AsyncIterator[Peer]:
    headers = {"authorization": f"Bearer {token}"} if token else {}
    async with connect(
        ws_url(base),
        subprotocols=["mcp"],  # type: ignore[list-item]
        additional_headers=headers,
        **options,
    ) as ws:
        yield Peer(ws)


async def test_websocket_initialize_list_call(base: str) -> None:
    """MCP-1, MCP-2: ws://host:port<path> with subprotocol mcp serves the operations."""
    async with peer(base) as client:
        assert client.ws.subprotocol == "mcp"
        answer = await client.initialize()
        assert answer["result"]["protocolVersion"] == "2025-06-18"
        tools = (await client.request("tools/list"))["result"]["tools"]
        assert "add" in {t["name"] for t in tools}
        added = await client.request("tools/call", {"name": "add", "arguments": {"a": 4, "b": 5}})
        assert added["result"]["structuredContent"] == {"result": 9}
        read = await client.request("resources/read", {"uri": "fixture://readme"})
        assert read["result"]["contents"][0]["text"] == "read me"
        got = await client.request("prompts/get", {"name": "coach", "arguments": {"goal": "x"}})
        assert "messages" in got["result"]


async def test_websocket_progress_elicitation_and_errors(base: str) -> None:
    """MCP-2, MCP-3, MCP-4, MCP-6: frames both ways; heartbeats are answered meanwhile."""
    async with peer(base) as client:
        await client.initialize()
        await client.send(
            {
                "jsonrpc": "2.0",
                "id": 50,
                "method": "tools/call",
                "params": {"name": "slow", "arguments": {}, "_meta": {"progressToken": "p"}},
            }
        )
        progress = await client.recv()
        assert progress["method"] == "notifications/progress"
        timed_out = await client.recv()  # tool_timeout=2 s; pings were answered meanwhile
        while "id" not in timed_out:  # the tool's log line
            assert timed_out["method"] == "notifications/message"
            timed_out = await client.recv()
        assert timed_out["id"] == 50 and timed_out["result"]["isError"] is True
        await client.send(
            {
                "jsonrpc": "2.0",
                "id": 51,
                "method": "tools/call",
                "params": {"name": "ask", "arguments": {}},
            }
        )
        elicit = await client.recv()
        assert elicit["method"] == "elicitation/create"
        await client.send({"jsonrpc": "2.0", "id": elicit["id"], "result": {"action": "cancel"}})
        assert (await client.recv())["id"] == 51
        unknown = await client.request("tools/call", {"name": "missing", "arguments": {}})
        assert unknown["error"]["code"] == -32602
        await client.ws.send("not json")
        assert (await client.recv())["error"]["code"] == -32700


async def test_websocket_dead_peer_is_closed(base: str) -> None:
    """MCP-6: a peer that does not answer the heartbeat ping is closed (1008)."""
    async with peer(base) as client:
        await client.initialize()
        client.answer_pings = False
        with pytest.raises(ConnectionClosed) as closed:
            await client.recv()  # skips (and now ignores) pings until the server closes
    assert closed.value.rcvd is not None and closed.value.rcvd.code == 1008
    assert "heartbeat" in closed.value.rcvd.reason


async def test_websocket_oversize_message(base: str) -> None:
    async with peer(base) as client:
        await client.initialize()
        await client.send(
            {
                "jsonrpc": "2.0",
                "id": 1,
                "method": "tools/call",
                "params": {"name": "echo", "arguments": {"text": "x" * 100_000}},
            }
        )
        with pytest.raises(ConnectionClosed) as closed:
            await client.recv()
    assert closed.value.rcvd is not None and closed.value.rcvd.code == 1009


async def test_websocket_handshake_refusals(base: str) -> None:
    """MCP-8 and the auth hook: bad Origin is 403, a bad token 401, before any frame."""
    with pytest.raises(InvalidStatus) as origin:
        async with connect(
            ws_url(base),
            subprotocols=["mcp"],  # type: ignore[list-item]
            origin="http://evil.example",
        ):  # type: ignore[arg-type]
            pass
    assert origin.value.response.status_code == 403
    with pytest.raises(InvalidStatus) as token:
        async with peer(base, token="forged"):
            pass
    assert token.value.response.status_code == 401
    assert token.value.response.headers["www-authenticate"] == 'Bearer resource_metadata="x"'
    async with peer(base, token=None) as anonymous:  # anonymous: public methods only
        await anonymous.initialize()
        refused = await anonymous.request("tools/call", {"name": "add", "arguments": {"a": 1}})
        assert "authentication required" in refused["error"]["message"]


async def test_websocket_shutdown_closes_with_a_reason() -> None:
    """Draining the app closes sockets with 1001 and a reason; stopping uvicorn closes them
    too (uvicorn closes open sockets itself, with 1012, before its lifespan shutdown)."""
    app = Server(Fixture()).asgi_app()
    assert isinstance(app, Entry)
    loop: list[asyncio.AbstractEventLoop] = []

    async def recording(scope: Any, receive: Any, send: Any) -> None:
        loop.append(asyncio.get_running_loop())
        await app(scope, receive, send)

    with ExitStack() as stack:
        url = stack.enter_context(serve(recording))
        async with peer(url, token=None) as client:
            await client.initialize()
            drained = asyncio.run_coroutine_threadsafe(app.websocket.shutdown(), loop[0])
            with pytest.raises(ConnectionClosed) as closed:
                await client.recv()
            await asyncio.wrap_future(drained)
        assert closed.value.rcvd is not None
        assert (closed.value.rcvd.code, closed.value.rcvd.reason) == (1001, "server shutting down")
        async with peer(url, token=None) as client:
            await client.initialize()
            stopping = asyncio.ensure_future(asyncio.to_thread(stack.close))
            with pytest.raises(ConnectionClosed) as stopped:
                await client.recv()
            await stopping
        assert stopped.value.rcvd is not None and stopped.value.rcvd.code in (1001, 1012)


async def test_websocket_slow_consumer_is_dropped(caplog: pytest.LogCaptureFixture) -> None:
    """Back-pressure: a client that stops reading fills the bounded queue and is dropped."""
    server = Server(Fixture(), config=ServerConfig(send_queue_size=8))

    async def flood(ctx: Context) -> str:
        for _ in range(400):  # 40 MB of log lines: more than any socket buffer holds
            await ctx.info("x" * 100_000)
        return "done"

    server.add_tool(flood, name="flood", description="floods the client")
    with serve(server.asgi_app()) as url, caplog.at_level(logging.WARNING, "mcpcast.transport"):
        async with peer(url, token=None) as client:
            await client.initialize()
            await client.send(
                {
                    "jsonrpc": "2.0",
                    "id": 9,
                    "method": "tools/call",
                    "params": {"name": "flood", "arguments": {}},
                }
            )
            for _ in range(200):  # stop reading; wait until the server gives up on us
                if not server.sessions.all():
                    break
                await asyncio.sleep(0.05)
            assert not server.sessions.all()
    assert "not reading" in caplog.text


async def test_sse_with_the_official_sdk(base: str) -> None:
    """MCP-1, MCP-2: the SDK's HTTP+SSE client (GET <path>, endpoint event, POSTs)."""
    seen: list[float] = []

    async def on_progress(progress: float, total: float | None, message: str | None) -> None:
        seen.append(progress)

    async def elicit(context: Any, params: types.ElicitRequestParams) -> types.ElicitResult:
        return types.ElicitResult(action="accept", content={"name": "Lin"})

    async def sample(
        context: Any, params: types.CreateMessageRequestParams
    ) -> types.CreateMessageResult:
        return types.CreateMessageResult(
            role="assistant", model="test", content=types.TextContent(type="text", text="Hi!")
        )

    headers = {"authorization": "Bearer good"}
    async with (
        sse_client(base + "/mcp", headers=headers) as (read, write),
        ClientSession(
            read, write, elicitation_callback=elicit, sampling_callback=sample
        ) as session,
    ):
        init = await session.initialize()
        assert init.server_info.name == "fixture"
        names = {t.name for t in (await session.list_tools()).tools}
        assert {"add", "ask", "slow"} <= names
        added = await session.call_tool("add", {"a": 1, "b": 41})
        assert added.structured_content == {"result": 42}
        slow = await session.call_tool("slow", {}, progress_callback=on_progress)
        assert slow.is_error and seen == [1]
        asked = await session.call_tool("ask", {})  # elicitation and sampling round trips
        assert asked.content[0].text == "Lin: Hi!"  # type: ignore[union-attr]
        failed = await session.call_tool("fail", {})
        assert failed.is_error and "secret" not in str(failed.content)
        with pytest.raises(Exception, match="no_such_tool"):
            await session.call_tool("no_such_tool", {})
        read_result = await session.read_resource("fixture://readme")
        assert read_result.contents[0].text == "read me"  # type: ignore[union-attr]


async def test_sse_heartbeats_and_auth(base: str) -> None:
    """MCP-6: comment-line heartbeats on the stream; POSTs go through the auth hook."""
    async with (
        httpx.AsyncClient(base_url=base, timeout=10) as http,
        http.stream("GET", "/mcp", headers={"accept": "text/event-stream"}) as stream,
    ):
        lines = stream.aiter_lines()
        assert await anext(lines) == "event: endpoint"
        endpoint = (await anext(lines)).removeprefix("data: ")
        assert endpoint.startswith("/mcp?session_id=")
        seen = [await anext(lines) for _ in range(4)]
        assert ": ping" in seen
        refused = await http.post(
            endpoint,
            json={
                "jsonrpc": "2.0",
                "id": 1,
                "method": "tools/call",
                "params": {"name": "add", "arguments": {"a": 1}},
            },
        )
        assert refused.status_code == 401
        accepted = await http.post(endpoint, json={"jsonrpc": "2.0", "id": 2, "method": "ping"})
        assert accepted.status_code == 202


async def test_sse_bad_origin(base: str) -> None:
    """MCP-8: an SSE GET from a foreign Origin is refused."""
    async with httpx.AsyncClient(base_url=base) as http:
        response = await http.get(
            "/mcp", headers={"accept": "text/event-stream", "origin": "http://evil.example"}
        )
    assert response.status_code == 403
