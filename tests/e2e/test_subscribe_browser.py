"""The shipped browser client (static/mcpcast.js) in headless Chromium (DECL-6, MCP-6).

WebSocket first, SSE fallback, reconnect with backoff, heartbeat timeout and resume,
against the real subscription app served by uvicorn.
"""

from __future__ import annotations

from collections.abc import AsyncIterator
from pathlib import Path
from typing import Any

import pytest
from playwright.async_api import Page, async_playwright
from starlette.applications import Starlette
from starlette.requests import Request
from starlette.responses import FileResponse, HTMLResponse
from starlette.routing import Mount, Route

import mcpcast
from mcpcast.broadcast import BroadcasterFactory
from mcpcast.transports.subscribe import subscription_app
from tests._services import free_port

from ._asgi_server import serving

pytestmark = [pytest.mark.e2e, pytest.mark.slow]

CLIENT_JS = Path(mcpcast.__file__).parent / "static" / "mcpcast.js"
CHROMIUM_ARGS = [
    "--headless", "--no-sandbox", "--disable-gpu", "--disable-background-networking",
    "--disable-component-update", "--disable-sync", "--no-first-run",
]  # fmt: skip

PAGE = "<!doctype html><title>mcpcast test</title><script src='/static/mcpcast.js'></script>"

START = """([topic, options]) => {
  window.got = []; window.states = [];
  window.sub = mcpcast.subscribe(topic, Object.assign({
    baseUrl: "/topics",
    onMessage: (data, frame) => window.got.push([frame.seq, data]),
    onState: (state, d) => window.states.push([state, d.transport, d.reason || null]),
  }, options));
}"""


def site(topics_app: Any) -> Starlette:
    async def page(request: Request) -> HTMLResponse:
        return HTMLResponse(PAGE)

    async def client_js(request: Request) -> FileResponse:
        return FileResponse(CLIENT_JS, media_type="text/javascript")

    return Starlette(
        routes=[
            Route("/", page),
            Route("/static/mcpcast.js", client_js),
            Mount("/topics", app=topics_app),
        ]
    )


def without_websockets(app: Any) -> Any:
    """A proxy that refuses WebSocket upgrades, so the client must fall back to SSE."""

    async def wrapper(scope: Any, receive: Any, send: Any) -> None:
        if scope["type"] == "websocket":
            await receive()
            await send({"type": "websocket.close", "code": 1008})
            return
        await app(scope, receive, send)

    return wrapper


@pytest.fixture
async def factory() -> AsyncIterator[BroadcasterFactory]:
    f = BroadcasterFactory(history_size=50)
    yield f
    await f.close()


@pytest.fixture
async def page() -> AsyncIterator[Page]:
    async with async_playwright() as pw:
        browser = await pw.chromium.launch(executable_path="/usr/bin/chromium", args=CHROMIUM_ARGS)
        try:
            yield await browser.new_page()
        finally:
            await browser.close()


async def start(page: Page, base: str, topic: str, **options: Any) -> None:
    await page.goto(base + "/")
    await page.evaluate(START, [topic, options])
    await page.wait_for_function("window.sub.state === 'open'", timeout=10_000)


async def wait_for_messages(page: Page, n: int) -> list[list[Any]]:
    await page.wait_for_function(f"window.got.length >= {n}", timeout=15_000)
    return await page.evaluate("window.got")


async def test_websocket_first(page, factory) -> None:
    """DECL-6: the browser receives every broadcast, over WebSocket when it can."""
    topic = factory.lookup("runs")
    async with serving(site(subscription_app(factory))) as base:
        await start(page, base, "runs")
        assert await page.evaluate("window.sub.transport") == "websocket"
        for i in range(3):
            await topic.broadcast({"i": i})
        assert await wait_for_messages(page, 3) == [[1, {"i": 0}], [2, {"i": 1}], [3, {"i": 2}]]
        await page.evaluate("window.sub.close()")
        assert await page.evaluate("window.sub.state") == "closed"


async def test_falls_back_to_sse_when_websockets_are_refused(page, factory) -> None:
    """MCP-6: WebSocket refused -> the client falls back to SSE and still gets messages."""
    topic = factory.lookup("fallback")
    async with serving(site(without_websockets(subscription_app(factory)))) as base:
        await start(page, base, "fallback")
        assert await page.evaluate("window.sub.transport") == "sse"
        await topic.broadcast("over sse")
        assert await wait_for_messages(page, 1) == [[1, "over sse"]]
        states = await page.evaluate("window.states")
        assert states[0][:2] == ["reconnecting", "websocket"]
        assert states[-1][:2] == ["open", "sse"]


async def test_reconnects_after_a_restart_and_resumes_without_loss(page, factory) -> None:
    """MCP-6: server shuts down cleanly, messages broadcast while it is down are delivered
    once, in order, after the client reconnects with backoff and resumes from its seq."""
    topic = factory.lookup("resume")
    port = free_port()
    first = subscription_app(factory)
    async with serving(site(first), port=port) as base:
        await start(page, base, "resume", minDelay=200, maxDelay=1000)
        await topic.broadcast("before")
        await wait_for_messages(page, 1)
        await first.close()  # close frame with reason "shutdown"
    await topic.broadcast("while down 1")
    await topic.broadcast("while down 2")
    async with serving(site(subscription_app(factory)), port=port):
        await topic.broadcast("after")
        got = await wait_for_messages(page, 4)
        assert got == [[1, "before"], [2, "while down 1"], [3, "while down 2"], [4, "after"]]
        states = await page.evaluate("window.states")
        assert ["reconnecting", "websocket", "shutdown"] in states
        assert states[-1][:2] == ["open", "websocket"]  # it worked before: no fallback
        assert await page.evaluate("window.sub.reconnects") >= 1


async def test_silent_connection_is_dropped_after_the_heartbeat_timeout(page, factory) -> None:
    """MCP-6: no frame within the heartbeat timeout -> reconnect (then still receive)."""
    topic = factory.lookup("quiet")
    async with serving(site(subscription_app(factory, heartbeat=None))) as base:
        await start(page, base, "quiet", heartbeatTimeout=400, minDelay=100, maxDelay=200)
        await page.wait_for_function(
            "window.states.some(s => s[2] === 'heartbeat timeout')", timeout=10_000
        )
        await page.wait_for_function("window.sub.state === 'open'", timeout=10_000)
        await topic.broadcast("still here")
        got = await wait_for_messages(page, 1)
        assert got == [[1, "still here"]]


async def test_heartbeats_keep_a_quiet_connection_open(page, factory) -> None:
    """MCP-6: server heartbeats (every 0.2 s) keep a 1 s client timeout from firing."""
    async with serving(site(subscription_app(factory, heartbeat=0.2))) as base:
        await start(page, base, "beating", heartbeatTimeout=1000)
        await page.wait_for_timeout(2500)
        assert await page.evaluate("window.sub.reconnects") == 0
        assert await page.evaluate("window.sub.state") == "open"


async def test_forbidden_topic_stops_with_a_reason(page, factory) -> None:
    app = subscription_app(factory, authorize=lambda info, topic: topic != "secret")
    async with serving(site(app)) as base:
        await page.goto(base + "/")
        await page.evaluate(START, ["secret", {}])
        await page.wait_for_function("window.sub.state === 'closed'", timeout=10_000)
        states = await page.evaluate("window.states")
        assert states[-1] == ["closed", "sse", "forbidden"]


@pytest.mark.parametrize("blocked", [False, True], ids=["websocket", "sse"])
async def test_token_reaches_authorize_on_both_transports(page, factory, blocked) -> None:
    """The token option: a subprotocol on WebSocket, a bearer header on SSE."""
    app = subscription_app(
        factory,
        authorize=lambda info, topic: info.headers.get("authorization") == "Bearer t0k.en_1",
    )
    topic = factory.lookup("private")
    async with serving(site(without_websockets(app) if blocked else app)) as base:
        await start(page, base, "private", token="t0k.en_1")
        assert await page.evaluate("window.sub.transport") == ("sse" if blocked else "websocket")
        await topic.broadcast("for the token holder")
        assert await wait_for_messages(page, 1) == [[1, "for the token holder"]]
        await page.evaluate("window.sub.close()")
        await page.evaluate(START, ["private", {"token": "wrong"}])
        await page.wait_for_function("window.sub.state === 'closed'", timeout=10_000)
        assert (await page.evaluate("window.states"))[-1] == ["closed", "sse", "forbidden"]
