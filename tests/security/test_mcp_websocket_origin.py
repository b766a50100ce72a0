"""Issue 20, finding 8: cookie-authenticated WebSockets (and SSE GETs) need an exact origin.

Cookies ignore the port: a page served on the same host but another port (a dev server,
another app on 127.0.0.1:3000) makes the browser attach the service's `auth_token`
cookie to `ws://127.0.0.1:<service port>/mcp`, and WebSockets skip CSRF. Over real
sockets against the whole service: such an upgrade is refused (403); the service's own
origin, and bearer clients, keep working.
"""

from __future__ import annotations

import asyncio
import json
from collections.abc import Iterator
from typing import Any

import httpx
import pytest
from websockets.asyncio.client import connect
from websockets.exceptions import InvalidStatus

from tests.security._mcp_live import INIT, INITIALIZED, bearer, call, register, serve, service_app

OWN = "http://127.0.0.1:8765"  # the service's public base URL (its own pages)
OTHER_PORT = "http://127.0.0.1:3000"


@pytest.fixture(scope="module")
def live(tmp_path_factory: pytest.TempPathFactory) -> Iterator[tuple[str, str]]:
    with serve(service_app(tmp_path_factory.mktemp("origin"), base_url=OWN)) as base:
        yield base, register(base, "origin@example.com")


def _whoami(base: str, headers: dict[str, str]) -> dict[str, Any]:
    async def run() -> dict[str, Any]:
        url = base.replace("http://", "ws://") + "/mcp"
        async with connect(url, subprotocols=["mcp"],  # type: ignore[list-item]
                           additional_headers=headers, origin=None) as ws:
            await ws.send(json.dumps(INIT))
            await ws.recv()
            await ws.send(json.dumps(INITIALIZED))
            await ws.send(json.dumps(call("whoami")))
            answer: dict[str, Any] = json.loads(await ws.recv())
            return answer

    return asyncio.run(run())


def test_cookie_websocket_from_another_port_is_refused(live: tuple[str, str]) -> None:
    """MCP-8, CSRF-3: same host, other port, the victim's cookie: 403, no data."""
    base, token = live
    with pytest.raises(InvalidStatus) as refused:
        _whoami(base, {"cookie": f"auth_token={token}", "origin": OTHER_PORT})
    assert refused.value.response.status_code == 403
    assert b"origin@example.com" not in (refused.value.response.body or b"")


def test_cookie_websocket_from_the_service_itself_works(live: tuple[str, str]) -> None:
    """The service's own pages (exact origin, or its loopback alias on the same port)."""
    base, token = live
    for origin in (OWN, "http://localhost:8765"):
        who = _whoami(base, {"cookie": f"auth_token={token}", "origin": origin})
        assert who["result"]["structuredContent"]["email"] == "origin@example.com"


def test_bearer_websocket_needs_no_origin(live: tuple[str, str]) -> None:
    """Non-browser clients send no Origin and carry their token themselves."""
    base, token = live
    for extra in ({}, {"origin": OTHER_PORT}):
        who = _whoami(base, {**bearer(token), **extra})
        assert who["result"]["structuredContent"]["email"] == "origin@example.com"


def test_cookie_sse_stream_from_another_port_is_refused(live: tuple[str, str]) -> None:
    """The HTTP+SSE GET is the same ambient-cookie stream: 403 from another port."""
    base, token = live
    headers = {"accept": "text/event-stream", "cookie": f"auth_token={token}"}
    with httpx.Client(base_url=base, timeout=10) as http:
        with http.stream("GET", "/mcp", headers={**headers, "origin": OTHER_PORT}) as foreign:
            assert foreign.status_code == 403
        with http.stream("GET", "/mcp", headers={**headers, "origin": OWN}) as own:
            assert own.status_code == 200
