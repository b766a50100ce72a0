"""2026-07-28 streaming over a real uvicorn: ``subscriptions/listen`` and cancellation.

httpx's ASGITransport buffers whole responses, so these run on real sockets. The server is
run by ``mcpcast.cli.GracefulUvicorn`` (what ``mcpcast run`` uses) so that shutting it down
ends the listen streams gracefully.
"""

from __future__ import annotations

import asyncio
import threading
import time
from collections.abc import AsyncIterator, Iterator
from contextlib import contextmanager
from typing import Any

import httpx
import orjson
import pytest
import uvicorn

from mcpcast import Server, ServerConfig, mcp_server, tool
from mcpcast.cli import GracefulUvicorn
from tests.mcpcast.fixtures_current import CurrentFixture
from tests.mcpcast.test_current_era import envelope, routing

pytestmark = pytest.mark.e2e

SUBSCRIPTION = "io.modelcontextprotocol/subscriptionId"


@contextmanager
def running(app: Any) -> Iterator[tuple[str, uvicorn.Server]]:
    server = GracefulUvicorn(
        uvicorn.Config(app, host="127.0.0.1", port=0, log_level="warning", lifespan="on")
    )
    thread = threading.Thread(target=server.run, daemon=True)
    thread.start()
    deadline = time.monotonic() + 15
    while not server.started:
        assert time.monotonic() < deadline and thread.is_alive(), "uvicorn did not start"
        time.sleep(0.01)
    port = server.servers[0].sockets[0].getsockname()[1]
    try:
        yield f"http://127.0.0.1:{port}/mcp", server
    finally:
        server.should_exit = True
        thread.join(10)
        assert not thread.is_alive(), "uvicorn did not shut down"


def request(rid: int, method: str, params: dict[str, Any]) -> tuple[dict[str, str], bytes]:
    params = {**params, "_meta": envelope()}
    body = orjson.dumps({"jsonrpc": "2.0", "id": rid, "method": method, "params": params})
    return routing(method, params), body


class Events:
    """Reads one SSE response: JSON messages, and the comment lines seen between them."""

    def __init__(self, response: httpx.Response) -> None:
        self.lines = response.aiter_lines()
        self.comments: list[str] = []

    async def next(self, within: float = 5) -> dict[str, Any]:
        async with asyncio.timeout(within):
            async for line in self.lines:
                if line.startswith(":"):
                    self.comments.append(line)
                elif line.startswith("data: ") and line[6:].strip():
                    message: dict[str, Any] = orjson.loads(line[6:])
                    return message
        raise AssertionError("the stream ended")

    async def comment(self, within: float = 5) -> str:
        async with asyncio.timeout(within):
            async for line in self.lines:
                if line.startswith(":"):
                    return line
        raise AssertionError("the stream ended")


@pytest.fixture
def served() -> Iterator[tuple[str, uvicorn.Server]]:
    with running(
        Server(CurrentFixture(), config=ServerConfig(heartbeat_interval=0.3)).asgi_app()
    ) as pair:
        yield pair


@pytest.fixture
async def http() -> AsyncIterator[httpx.AsyncClient]:
    async with httpx.AsyncClient(timeout=10) as client:
        yield client


async def call(http: httpx.AsyncClient, url: str, name: str, arguments: dict[str, Any]) -> Any:
    headers, body = request(99, "tools/call", {"name": name, "arguments": arguments})
    response = await http.post(url, headers=headers, content=body)
    assert response.status_code == 200, response.text
    return response.json()["result"]


LISTEN = {
    "notifications": {
        "toolsListChanged": True,
        "resourceSubscriptions": ["fixture://readme"],
        "somethingNew": True,
    }
}


async def test_listen_ack_then_tagged_changes(
    served: tuple[str, uvicorn.Server], http: httpx.AsyncClient
) -> None:
    """MCP-5, MCP-6: the ack comes first with the honoured filter; then only the asked-for
    changes arrive, each tagged with the subscription id."""
    url, _ = served
    headers, body = request(41, "subscriptions/listen", LISTEN)
    async with http.stream("POST", url, headers=headers, content=body) as response:
        assert response.status_code == 200
        assert response.headers["content-type"].startswith("text/event-stream")
        assert response.headers["x-accel-buffering"] == "no"
        events = Events(response)
        ack = await events.next()
        assert ack["method"] == "notifications/subscriptions/acknowledged"
        assert ack["params"]["notifications"] == {
            "toolsListChanged": True,
            "resourceSubscriptions": ["fixture://readme"],
        }
        assert ack["params"]["_meta"] == {SUBSCRIPTION: 41}

        # Not asked for: a prompts change and an update of another resource.
        await call(http, url, "touch", {"uri": "fixture://blob"})
        await call(http, url, "touch", {"uri": "fixture://readme"})
        updated = await events.next()
        assert updated == {
            "jsonrpc": "2.0",
            "method": "notifications/resources/updated",
            "params": {"uri": "fixture://readme", "_meta": {SUBSCRIPTION: 41}},
        }

        assert await call(http, url, "publish", {"name": "late"})
        changed = await events.next()
        assert changed["method"] == "notifications/tools/list_changed"
        assert changed["params"]["_meta"] == {SUBSCRIPTION: 41}
        headers, body = request(5, "tools/list", {})
        listed = (await http.post(url, headers=headers, content=body)).json()["result"]
        assert "late" in [t["name"] for t in listed["tools"]]


async def test_listen_heartbeat(
    served: tuple[str, uvicorn.Server], http: httpx.AsyncClient
) -> None:
    """MCP-6: an idle listen stream carries comment heartbeats."""
    url, _ = served
    headers, body = request(1, "subscriptions/listen", {"notifications": {}})
    async with http.stream("POST", url, headers=headers, content=body) as response:
        events = Events(response)
        assert (await events.next())["params"]["notifications"] == {}
        assert await events.comment(within=3) == ": heartbeat"


async def test_listen_honours_only_what_the_server_has(http: httpx.AsyncClient) -> None:
    @mcp_server(name="tools-only")
    class ToolsOnly:
        @tool()
        def one(self) -> int:
            return 1

    with running(Server(ToolsOnly()).asgi_app()) as (url, _):
        headers, body = request(
            2,
            "subscriptions/listen",
            {
                "notifications": {
                    "toolsListChanged": True,
                    "promptsListChanged": True,
                    "resourcesListChanged": True,
                    "resourceSubscriptions": ["x://y"],
                }
            },
        )
        async with http.stream("POST", url, headers=headers, content=body) as response:
            ack = await Events(response).next()
    assert ack["params"]["notifications"] == {"toolsListChanged": True}


async def test_listen_ends_gracefully_on_shutdown(http: httpx.AsyncClient) -> None:
    """At shutdown the listen stream gets its final complete result, then ends."""
    with running(Server(CurrentFixture()).asgi_app()) as (url, uv):
        headers, body = request(7, "subscriptions/listen", LISTEN)
        async with http.stream("POST", url, headers=headers, content=body) as response:
            events = Events(response)
            await events.next()
            uv.should_exit = True
            end = await events.next()
            with pytest.raises(AssertionError, match="ended"):
                await events.next(within=3)
    assert end["id"] == 7
    assert end["result"]["resultType"] == "complete"
    assert end["result"]["_meta"][SUBSCRIPTION] == 7


async def test_closing_the_stream_cancels_the_request(http: httpx.AsyncClient) -> None:
    """Cancellation in this era is the client closing the response stream."""
    fixture = CurrentFixture()
    with running(Server(fixture).asgi_app()) as (url, _):
        headers, body = request(3, "tools/call", {"name": "linger", "arguments": {}})
        meta = orjson.loads(body)
        meta["params"]["_meta"]["progressToken"] = "t"
        async with http.stream(
            "POST", url, headers=headers, content=orjson.dumps(meta)
        ) as response:
            progress = await Events(response).next()
            assert progress["method"] == "notifications/progress"
        assert await asyncio.to_thread(fixture.cancelled.wait, 5)
