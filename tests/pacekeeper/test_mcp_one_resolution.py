"""One resolution of the caller per request (issue 19, SMCP-4), on every way in.

The service resolves a JWT caller in `PrincipalResolver.resolve` and an API-key caller in
`ApiKeyService.authenticate`; both are counted here while real clients talk to the app
over sockets (uvicorn in the test's loop): a POST in both protocol eras, a WebSocket, the
older HTTP+SSE transport, and A2A with an API key. Every authenticated `tools/call`
must cost exactly one resolution (a stream's opening is one more, once), and the tool
must still answer for the right user, so a count of one cannot come from a skipped check.
"""

from __future__ import annotations

import asyncio
import json
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from typing import Any

import httpx
from websockets.asyncio.client import connect

from pacekeeper.apikeys import API_KEY_HEADER
from tests.e2e._asgi_server import serving
from tests.pacekeeper.apikeys._helpers import create_key, user_token
from tests.pacekeeper.conftest import Harness

LEGACY, CURRENT, SSE_VERSION = "2025-11-25", "2026-07-28", "2024-11-05"
JSON = {"content-type": "application/json", "accept": "application/json, text/event-stream"}


class Counted:
    """Counts calls of one async method of one object (the instance attribute wins)."""

    def __init__(self, owner: Any, name: str) -> None:
        self.calls = 0
        original = getattr(owner, name)

        async def counting(*args: Any, **kwargs: Any) -> Any:
            self.calls += 1
            return await original(*args, **kwargs)

        setattr(owner, name, counting)


@asynccontextmanager
async def _live(h: Harness) -> AsyncIterator[tuple[str, str, Counted]]:
    """The app on a loopback port, a registered user's JWT, the resolver's counter."""
    token = (await h.register("once@example.com"))["token"]
    counted = Counted(h.services.resolver, "resolve")
    async with serving(h.app) as base:
        yield base, token, counted


def _call(request_id: int, era: str = LEGACY) -> dict[str, Any]:
    params: dict[str, Any] = {"name": "whoami", "arguments": {}}
    if era == CURRENT:
        params["_meta"] = {
            "io.modelcontextprotocol/protocolVersion": CURRENT,
            "io.modelcontextprotocol/clientCapabilities": {},
            "io.modelcontextprotocol/clientInfo": {"name": "once", "version": "1"},
        }
    return {"jsonrpc": "2.0", "id": request_id, "method": "tools/call", "params": params}


def _init(version: str) -> dict[str, Any]:
    return {"jsonrpc": "2.0", "id": 0, "method": "initialize",
            "params": {"protocolVersion": version, "capabilities": {},
                       "clientInfo": {"name": "once", "version": "1"}}}


def _email(message: dict[str, Any]) -> str:
    email: str = message["result"]["structuredContent"]["email"]
    return email


async def test_a_post_resolves_its_caller_once_in_the_legacy_era(harness: Harness) -> None:
    async with _live(harness) as (base, token, counted), httpx.AsyncClient(
            base_url=base, timeout=10) as http:
        auth = {**JSON, "authorization": f"Bearer {token}", "mcp-protocol-version": LEGACY}
        opened = await http.post("/mcp", headers=auth, json=_init(LEGACY))
        session = {**auth, "mcp-session-id": opened.headers["mcp-session-id"]}
        for request_id in (1, 2, 3):
            before = counted.calls
            answer = await http.post("/mcp", headers=session, json=_call(request_id))
            assert answer.status_code == 200, answer.text
            assert _email(answer.json()) == "once@example.com"
            assert counted.calls - before == 1


async def test_a_post_resolves_its_caller_once_in_the_current_era(harness: Harness) -> None:
    async with _live(harness) as (base, token, counted), httpx.AsyncClient(
            base_url=base, timeout=10) as http:
        headers = {**JSON, "authorization": f"Bearer {token}", "mcp-protocol-version": CURRENT,
                   "mcp-method": "tools/call", "mcp-name": "whoami"}
        for request_id in (1, 2, 3):
            before = counted.calls
            answer = await http.post("/mcp", headers=headers, json=_call(request_id, CURRENT))
            assert answer.status_code == 200, answer.text
            assert answer.json()["result"]["resultType"] == "complete"
            assert _email(answer.json()) == "once@example.com"
            assert counted.calls - before == 1


async def test_a_websocket_call_resolves_its_caller_once(harness: Harness) -> None:
    """The upgrade resolves once (the stream's start); each call re-checks once (ACC-8)."""
    async with _live(harness) as (base, token, counted):
        url = base.replace("http://", "ws://") + "/mcp"
        async with connect(url, subprotocols=["mcp"],  # type: ignore[list-item]
                           additional_headers={"Authorization": f"Bearer {token}"}) as ws:
            assert counted.calls == 1
            await ws.send(json.dumps(_init(LEGACY)))
            assert "result" in json.loads(await ws.recv())
            await ws.send(json.dumps({"jsonrpc": "2.0", "method": "notifications/initialized"}))
            for request_id in (1, 2, 3):
                before = counted.calls
                await ws.send(json.dumps(_call(request_id)))
                answer = json.loads(await ws.recv())
                assert answer["id"] == request_id
                assert _email(answer) == "once@example.com"
                assert counted.calls - before == 1


async def _events(stream: httpx.Response) -> AsyncIterator[tuple[str, str]]:
    kind, data = "message", []
    async for line in stream.aiter_lines():
        if line.startswith("event:"):
            kind = line[6:].strip()
        elif line.startswith("data:"):
            data.append(line[5:].strip())
        elif not line and data:
            yield kind, "\n".join(data)
            kind, data = "message", []


async def test_an_sse_call_resolves_its_caller_once(harness: Harness) -> None:
    """HTTP+SSE: the GET resolves once (the stream's start); each POSTed call once."""
    async with _live(harness) as (base, token, counted), httpx.AsyncClient(
            base_url=base, timeout=10) as http:
        bearer = {"authorization": f"Bearer {token}"}
        async with http.stream("GET", "/mcp", headers={
                "accept": "text/event-stream", **bearer}) as stream:
            assert stream.status_code == 200
            events = _events(stream)
            kind, endpoint = await anext(events)
            assert kind == "endpoint"
            assert counted.calls == 1
            post = {"content-type": "application/json", **bearer}
            assert (await http.post(endpoint, headers=post, json=_init(SSE_VERSION))
                    ).status_code == 202
            assert json.loads((await anext(events))[1])["id"] == 0
            for request_id in (1, 2, 3):
                before = counted.calls
                sent = await http.post(endpoint, headers=post, json=_call(request_id))
                assert sent.status_code == 202, sent.text
                answer = json.loads((await asyncio.wait_for(anext(events), 10))[1])
                assert answer["id"] == request_id
                assert _email(answer) == "once@example.com"
                assert counted.calls - before == 1


async def test_an_a2a_call_resolves_its_api_key_caller_once(harness: Harness) -> None:
    key = await create_key(harness, await user_token(harness, "agent@example.com"))
    keys = Counted(harness.services.api_keys, "authenticate")
    jwts = Counted(harness.services.resolver, "resolve")
    async with serving(harness.app) as base, httpx.AsyncClient(base_url=base, timeout=10) as http:
        for _ in range(3):
            before = keys.calls
            answer = await http.post("/a2a/execute", json={"tool": "whoami"},
                                     headers={API_KEY_HEADER: key["api_key"]})
            assert answer.status_code == 200, answer.text
            assert answer.json()["structuredContent"]["email"] == "agent@example.com"
            assert keys.calls - before == 1
    assert jwts.calls == 0

