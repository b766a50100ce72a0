"""Opening a live feed pays from the tenant's bucket like any request, and an empty
bucket refuses it: 429 over SSE and over WebSocket, counted in
`pacekeeper_rate_limited_total` once each (issue 18: rate-limit refusals counted; SMCP-4).
Before, an open took a token but was never refused, so a signed-in caller could open
feeds without bound. Open feeds are not charged again (their re-checks are free)."""

from __future__ import annotations

import asyncio
import json
import re
from collections.abc import Iterator

import httpx
import pytest
from websockets.asyncio.client import connect
from websockets.exceptions import InvalidStatus
from websockets.typing import Subprotocol

from tests._services import free_port
from tests.e2e._service_process import running, service_env

pytestmark = [pytest.mark.e2e]
LIMIT = 3  # a minute's worth for the tenant: refills one token every 20 s
ROUTE = "/mcp/topics/{topic}"


@pytest.fixture(scope="module")
def server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[str]:
    env = service_env(tmp_path_factory.mktemp("feed-limit"), free_port(),
                      PACEKEEPER_TENANT_RATE_LIMIT_PER_MINUTE=str(LIMIT))
    with running(env) as url:
        yield url


async def _refused(client: httpx.AsyncClient, server: str) -> float:
    text = (await client.get(f"{server}/metrics")).text
    found = re.search(r'^pacekeeper_rate_limited_total\{route="' + re.escape(ROUTE)
                      + r'"\} (\S+)$', text, re.M)
    return float(found.group(1)) if found else 0.0


async def test_an_empty_bucket_refuses_new_feeds(server: str) -> None:
    async with httpx.AsyncClient(timeout=10) as client:
        body = (await client.post(f"{server}/api/auth/register", json={
            "email": "feeds@example.com", "password": "Feed-limit-Passw0rd"})).json()
        token, user_id = body["token"], body["user_id"]
        bearer = {"authorization": f"Bearer {token}"}
        url = f"{server}/mcp/topics/user.{user_id}"
        before = await _refused(client, server)
        # Every token of the minute opens a feed (and the feeds stay open: their
        # re-checks before each heartbeat take nothing from the bucket).
        opened = []
        for _ in range(LIMIT):
            stream = client.stream("GET", url, headers=bearer)
            response = await stream.__aenter__()
            assert response.status_code == 200
            lines = response.aiter_lines()
            first = await asyncio.wait_for(anext(lines), 10)
            while not first.startswith("data:"):
                first = await asyncio.wait_for(anext(lines), 10)
            assert json.loads(first[5:])["type"] == "subscribed"
            opened.append(stream)
        refused = await client.get(url, headers=bearer)
        assert refused.status_code == 429
        assert "rate limit" in refused.text
        assert await _refused(client, server) == before + 1  # the SSE 429, counted once

        ws_url = server.replace("http", "ws") + f"/mcp/topics/user.{user_id}"
        with pytest.raises(InvalidStatus) as denied:
            async with connect(ws_url, subprotocols=[Subprotocol("mcpcast"),
                                                     Subprotocol(f"bearer.{token}")]):
                pass
        assert denied.value.response.status_code == 429
        assert await _refused(client, server) == before + 2  # and the WebSocket's
        for stream in opened:
            await stream.__aexit__(None, None, None)
