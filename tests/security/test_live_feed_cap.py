"""Issue 28 (info): one person held 400 live feeds open (`/mcp/topics/user.<id>`), each
a socket and a subscription of the server's. At most `PACEKEEPER_LIVE_FEEDS_PER_USER`
per process now: the next is refused with 429 and a message that says what to do, over
SSE and WebSocket; closing one lets a new one in; another person is not affected.

Real uvicorn (in process), bearer tokens (SSE: the header; WebSocket: the subprotocol).
"""

from __future__ import annotations

import asyncio
import json
from contextlib import AsyncExitStack
from pathlib import Path
from typing import Any

import httpx
import pytest
from websockets.asyncio.client import connect
from websockets.exceptions import InvalidStatus
from websockets.typing import Subprotocol

from tests.security._live_auth import live

CAP = 3
REFUSAL = f"too many open streams on this topic (at most {CAP}); close one first"


async def _open(stack: AsyncExitStack, client: httpx.AsyncClient, url: str,
                token: str) -> Any:
    """An open SSE feed (its `subscribed` event read), kept open by `stack`."""
    response = await stack.enter_async_context(
        client.stream("GET", url, headers={"authorization": f"Bearer {token}"}))
    assert response.status_code == 200, await response.aread()
    lines = response.aiter_lines()
    async with asyncio.timeout(10):  # in this task: the stream stays this task's
        line = await anext(lines)
        while not line.startswith("data:"):
            line = await anext(lines)
    assert json.loads(line[5:])["type"] == "subscribed"
    return response, lines  # both kept referenced: a collected iterator ends the stream


async def _probe(url: str, token: str) -> httpx.Response:
    """One more open, on a client of its own (a refused one answers at once)."""
    async with httpx.AsyncClient(timeout=10) as client:
        return await client.get(url, headers={"authorization": f"Bearer {token}"})


def test_a_person_holds_at_most_the_configured_live_feeds(tmp_path: Path) -> None:
    with live(tmp_path, live_feeds_per_user=CAP, registration="open") as svc:
        people = [svc.register(f"feeds{i}@example.com").json() for i in (1, 2)]

        async def scenario() -> None:
            (one, two) = people
            url = f"{svc.base}/mcp/topics/user.{one['user_id']}"
            async with httpx.AsyncClient(timeout=10) as client, AsyncExitStack() as stack:
                feeds = [await _open(stack, client, url, one["token"]) for _ in range(CAP)]
                refused = await _probe(url, one["token"])
                assert refused.status_code == 429
                assert refused.json() == {"error": REFUSAL}
                ws_url = url.replace("http", "ws", 1)
                with pytest.raises(InvalidStatus) as denied:
                    async with connect(ws_url, subprotocols=[
                            Subprotocol("mcpcast"), Subprotocol(f"bearer.{one['token']}")]):
                        pass
                assert denied.value.response.status_code == 429
                assert json.loads(denied.value.response.body) == {"error": REFUSAL}
                # Another person's feed opens.
                other = f"{svc.base}/mcp/topics/user.{two['user_id']}"
                async with AsyncExitStack() as theirs:
                    await _open(theirs, client, other, two["token"])
                # One closed: once the server has seen it go, a new one opens, no more.
                await feeds[0][0].aclose()
                await asyncio.sleep(0.5)
                await _open(stack, client, url, one["token"])
                assert (await _probe(url, one["token"])).status_code == 429

        asyncio.run(scenario())
