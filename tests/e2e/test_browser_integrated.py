"""A browser page, a server process and a tool call, all real (DECL-6, MCP-6).

One server process (``python -m tests.e2e._broadcast_app``: the ``Announcer`` tool plus a
test page at ``/``, on Redis) serves the page, ``<path>/mcpcast.js`` and the topic; headless
Chromium loads the page; the official MCP SDK client calls the tool from Python and the
test reads the page's DOM. Then the process is restarted on the same port (the page
resumes after its last seq), and then WebSockets are dropped on the way (the client falls
back to SSE). Set ``UPDATE_SCREENSHOTS=1`` to refresh docs/screenshots/browser-topic.png.
"""

from __future__ import annotations

import asyncio
import contextlib
import hmac
import os
import re
import sys
import uuid
from collections.abc import AsyncIterator, Iterator
from pathlib import Path
from typing import Any

import pytest
from mcp import Client
from playwright.async_api import Page, WebSocketRoute, async_playwright, expect

from mcpcast import BroadcasterFactory, Server, ServerConfig
from mcpcast.transports.subscribe import SubscriberInfo
from tests._services import free_port

from ._asgi_server import serving
from ._broadcast_app import ROOT, Announcer, running

pytestmark = [pytest.mark.e2e, pytest.mark.slow]

CHROMIUM_ARGS = [
    "--headless", "--no-sandbox", "--disable-gpu", "--disable-background-networking",
    "--disable-component-update", "--disable-sync", "--no-first-run",
]  # fmt: skip
SCREENSHOT = ROOT / "docs" / "screenshots" / "browser-topic.png"


@contextlib.contextmanager
def site_process(port: int, redis_url: str | None) -> Iterator[None]:
    argv = [sys.executable, "-m", "tests.e2e._broadcast_app", "--port", str(port)]
    if redis_url is not None:
        argv += ["--broadcast-url", redis_url]
    with running(argv, port):
        yield


@pytest.fixture
async def page() -> AsyncIterator[Page]:
    async with async_playwright() as pw:
        browser = await pw.chromium.launch(executable_path="/usr/bin/chromium", args=CHROMIUM_ARGS)
        try:
            yield await browser.new_page(viewport={"width": 760, "height": 300})
        finally:
            await browser.close()


async def announce(port: int, topic: str, *texts: str) -> list[int]:
    async with Client(f"http://127.0.0.1:{port}/mcp") as client:
        result = await client.call_tool("announce", {"topic": topic, "texts": list(texts)})
    assert not result.is_error, result
    seqs: list[int] = result.structured_content["result"]
    return seqs


async def wait_open(page: Page, transport: str, *, test_page: bool = True) -> None:
    await page.wait_for_function("window.sub && window.sub.state === 'open'", timeout=20_000)
    assert await page.evaluate("window.sub.transport") == transport
    if test_page:  # the page shows its state too
        await expect(page.locator("#state")).to_have_text(f"open over {transport}")


async def drop_websockets(route: WebSocketRoute) -> None:
    """Like a proxy that kills upgrades: the socket closes before it ever opens a topic."""
    await route.close(code=1008, reason="blocked by test proxy")


async def test_tool_call_appears_in_the_page_across_restart_and_sse_fallback(
    page: Page, redis_url: str, tmp_path: Path
) -> None:
    """DECL-6: a tool call from Python makes text appear in the browser page.
    MCP-6: after a server restart the page reconnects and resumes after its last seq (no
    loss, no duplicates); with WebSockets dropped it falls back to SSE and still receives."""
    topic = f"news-{uuid.uuid4().hex[:10]}"
    port = free_port()
    items = page.locator("#log li")
    url = f"http://127.0.0.1:{port}/?topic={topic}"

    # 1. The page subscribes over WebSocket; a tool call shows up in the DOM.
    with site_process(port, redis_url):
        await page.goto(url)
        await wait_open(page, "websocket")
        assert await announce(port, topic, "first", "second") == [1, 2]
        await expect(items).to_have_text(["#1 first", "#2 second"])

    # 2. The process is gone; another process on the same Redis broadcasts meanwhile.
    await page.wait_for_function("window.sub.state === 'reconnecting'", timeout=10_000)
    factory = BroadcasterFactory.from_url(redis_url)
    try:
        assert await factory.lookup(topic).broadcast({"text": "while down"}) == 3
    finally:
        await factory.close()
    with site_process(port, redis_url):  # restarted on the same port
        await wait_open(page, "websocket")
        assert await announce(port, topic, "after restart") == [4]
        await expect(items).to_have_text(
            ["#1 first", "#2 second", "#3 while down", "#4 after restart"])
        states: list[list[Any]] = await page.evaluate("window.states")
        assert ["reconnecting", "websocket", "shutdown"] in states  # told why, by the server
        assert await page.evaluate("window.sub.reconnects") >= 1

        # 3. WebSockets are dropped on the way: a fresh page falls back to SSE, resumes
        # after the last seq it saw (kept in sessionStorage) and receives live messages.
        await page.evaluate("window.sub.close()")
        assert await announce(port, topic, "while away") == [5]
        await page.route_web_socket(re.compile(".*"), drop_websockets)
        await page.reload()
        await wait_open(page, "sse")
        assert await announce(port, topic, "over sse") == [6]
        await expect(items).to_have_text(["#5 while away", "#6 over sse"])
        states = await page.evaluate("window.states")
        assert states[0][:2] == ["reconnecting", "websocket"]  # tried first, then fell back
        assert states[-1][:2] == ["open", "sse"]
        # The page has painted the last item once two animation frames have passed.
        await page.evaluate(
            "() => new Promise(r => requestAnimationFrame(() => requestAnimationFrame(r)))"
        )
        shot = SCREENSHOT if os.environ.get("UPDATE_SCREENSHOTS") else tmp_path / "shot.png"
        shot.parent.mkdir(parents=True, exist_ok=True)
        await page.screenshot(path=str(shot))
    assert shot.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"


async def test_a_restart_that_loses_the_topic_still_delivers_new_messages(page: Page) -> None:
    """MCP-6: on the in-memory backend a restarted process counts the topic from 1 again.
    The page saw seq 2; it must show the new seq-1 message, not drop it as "seen"."""
    topic = f"memory-{uuid.uuid4().hex[:10]}"
    port = free_port()
    items = page.locator("#log li")
    with site_process(port, None):
        await page.goto(f"http://127.0.0.1:{port}/?topic={topic}")
        await wait_open(page, "websocket")
        assert await announce(port, topic, "a", "b") == [1, 2]
        await expect(items).to_have_text(["#1 a", "#2 b"])
    with site_process(port, None):
        await page.wait_for_function("window.sub.reconnects >= 1 && window.sub.state === 'open'",
                                     timeout=20_000)
        assert await announce(port, topic, "after restart") == [1]
        await expect(items).to_have_text(["#1 a", "#2 b", "#1 after restart"])
        assert await page.evaluate("window.sub.lastSeq") == 1


# ------------------------------------------------------------------ a page on another origin

TOKEN = "page-token-1"  # noqa: S105 - a test value
SUBSCRIBE = """([base, topic, token]) => {
  window.got = []; window.states = [];
  window.sub = mcpcast.subscribe(topic, {
    baseUrl: base + "/mcp/topics", token, minDelay: 200, maxDelay: 500,
    onMessage: (data, frame) => window.got.push([frame.seq, data.text]),
    onState: (state, d) => window.states.push([state, d.transport, d.reason || null]),
  });
}"""


def with_token(info: SubscriberInfo, topic: str) -> bool:
    return hmac.compare_digest(info.headers.get("authorization", ""), f"Bearer {TOKEN}")


async def blank_page(scope: Any, receive: Any, send: Any) -> None:
    if scope["type"] == "http":
        await send({"type": "http.response.start", "status": 200,
                    "headers": [(b"content-type", b"text/html")]})
        await send({"type": "http.response.body", "body": b"<!doctype html><title>app</title>"})


@contextlib.asynccontextmanager
async def cross_origin(page: Page, page_host: str) -> AsyncIterator[str]:
    """The MCP server (only http://localhost pages allowed) and a page from ``page_host``
    on another port, which loads mcpcast.js from the server; WebSockets are dropped."""
    server = Server(Announcer(), config=ServerConfig(allowed_origins=("http://localhost",)),
                    authorize_topic=with_token)
    async with serving(server.asgi_app()) as api, serving(blank_page) as site:
        await page.route_web_socket(re.compile(".*"), drop_websockets)
        await page.goto(site.replace("127.0.0.1", page_host) + "/")
        await page.add_script_tag(url=api + "/mcp/mcpcast.js")
        yield api


async def test_a_page_on_an_allowed_origin_falls_back_to_sse_across_origins(page: Page) -> None:
    """MCP-6, MCP-8: a page on an allowed origin (another port) whose WebSockets are
    dropped reads the topic over SSE: CORS headers and the token's preflight are answered."""
    async with cross_origin(page, "localhost") as api:
        await page.evaluate(SUBSCRIBE, [api, "cors", TOKEN])
        await wait_open(page, "sse", test_page=False)
        port = int(api.rsplit(":", 1)[1])
        assert await announce(port, "cors", "across origins") == [1]
        await page.wait_for_function("window.got.length >= 1", timeout=10_000)
        assert await page.evaluate("window.got") == [[1, "across origins"]]


async def test_a_page_on_another_origin_cannot_read_the_topic(page: Page) -> None:
    """MCP-8: a page whose origin is not allowed gets neither a WebSocket nor SSE."""
    async with cross_origin(page, "127.0.0.1") as api:
        await page.evaluate(SUBSCRIBE, [api, "cors", TOKEN])
        await page.wait_for_function("window.states.length >= 3", timeout=10_000)
        port = int(api.rsplit(":", 1)[1])
        await announce(port, "cors", "not for you")
        await asyncio.sleep(0.5)
        assert await page.evaluate("window.sub.state") != "open"
        assert await page.evaluate("window.got") == []
