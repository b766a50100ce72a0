"""Issue 20, finding 2: anonymous clients cannot fill the MCP session table.

Attacks over real sockets against a bare mcpcast server (uvicorn + httpx + websockets):
a flood of anonymous `initialize` calls from one address, a table already full of
anonymous sessions, and one principal opening session after session.
"""

from __future__ import annotations

import asyncio
import json
import math
import time

import httpx
from websockets.asyncio.client import connect

from mcpcast import Server, ServerConfig
from tests.mcpcast.fixtures import Fixture
from tests.security._mcp_live import ACCEPT, INIT, bearer, check_token, serve


def _initialize(http: httpx.Client, who: str | None = None) -> httpx.Response:
    return http.post("/mcp", headers={**ACCEPT, **(bearer(who) if who else {})}, json=INIT)


def _ping(http: httpx.Client, session_id: str, who: str | None = None) -> int:
    return http.post("/mcp", headers={
        **ACCEPT, **(bearer(who) if who else {}), "mcp-session-id": session_id,
        "mcp-protocol-version": "2025-11-25"}, json={"jsonrpc": "2.0", "id": 9, "method": "ping"}
    ).status_code


def test_anonymous_initialize_flood_is_bounded_per_address() -> None:
    """An anonymous flood from one address gets 429 after a small burst (the default
    bound), and an authenticated client can still open a session afterwards."""
    server = Server(Fixture(), config=ServerConfig(max_sessions=100), authenticate=check_token)
    with serve(server.asgi_app()) as base, httpx.Client(base_url=base, timeout=10) as http:
        began = time.monotonic()
        answers = [_initialize(http) for _ in range(120)]
        took = time.monotonic() - began
        created = [a for a in answers if a.status_code == 200]
        limited = [a for a in answers if a.status_code == 429]
        # The default anonymous_sessions_per_minute (60), plus what the bucket refills
        # while the flood runs (one a second): a loaded machine took over a second once.
        assert len(created) <= 60 + math.floor(took)
        assert len(created) + len(limited) == len(answers)
        assert int(limited[0].headers["retry-after"]) >= 1
        assert _initialize(http, "alice").status_code == 200


def test_full_table_evicts_idle_anonymous_sessions_for_authenticated_callers() -> None:
    """A table full of anonymous sessions refuses another anonymous one (503) but makes
    room for an authenticated caller, over HTTP and WebSocket, by ending the least
    recently used idle anonymous session."""
    server = Server(Fixture(), config=ServerConfig(max_sessions=20), authenticate=check_token)
    with serve(server.asgi_app()) as base, httpx.Client(base_url=base, timeout=10) as http:
        ids = [_initialize(http).headers["mcp-session-id"] for _ in range(20)]
        assert _initialize(http).status_code == 503
        assert _ping(http, ids[0]) == 200  # ids[0] is now the most recently used
        assert _initialize(http, "alice").status_code == 200
        assert _ping(http, ids[1]) == 404  # the least recently used one made room
        assert _ping(http, ids[0]) == 200

        async def websocket_as_bob() -> dict[str, object]:
            url = base.replace("http://", "ws://") + "/mcp"
            async with connect(url, subprotocols=["mcp"],  # type: ignore[list-item]
                               additional_headers=bearer("bob")) as ws:
                await ws.send(json.dumps(INIT))
                answer: dict[str, object] = json.loads(await ws.recv())
                return answer

        assert "result" in asyncio.run(websocket_as_bob())
        assert _ping(http, ids[2]) == 404


def test_sessions_per_principal_are_bounded() -> None:
    """One principal keeps at most `max_sessions_per_principal` sessions: a new one ends
    its own least recently used idle session, never anyone else's."""
    server = Server(Fixture(), config=ServerConfig(max_sessions_per_principal=3),
                    authenticate=check_token)
    with serve(server.asgi_app()) as base, httpx.Client(base_url=base, timeout=10) as http:
        bob = _initialize(http, "bob").headers["mcp-session-id"]
        alice = [_initialize(http, "alice").headers["mcp-session-id"] for _ in range(5)]
        assert [_ping(http, sid, "alice") for sid in alice] == [404, 404, 200, 200, 200]
        assert _ping(http, bob, "bob") == 200
        assert len(server.sessions) == 4
