"""Live servers for the MCP attacks: real uvicorn on loopback, the service or bare mcpcast."""

from __future__ import annotations

import functools
from pathlib import Path
from typing import Any

import httpx
from cryptography.hazmat.primitives.asymmetric import rsa

from mcpcast import Unauthorized
from mcpcast._auth import RequestInfo
from pacekeeper.app import create_app
from pacekeeper.auth import generate_rsa_key
from tests._serve import serve as serve  # the attack modules import it from here
from tests.pacekeeper.conftest import PASSWORD, make_settings

ACCEPT = {"accept": "application/json, text/event-stream", "content-type": "application/json"}
_CLIENT: dict[str, Any] = {"capabilities": {}, "clientInfo": {"name": "attacker", "version": "1"}}
INIT = {"jsonrpc": "2.0", "id": 1, "method": "initialize",
        "params": {"protocolVersion": "2025-11-25", **_CLIENT}}
SSE_INIT = {**INIT, "params": {"protocolVersion": "2024-11-05", **_CLIENT}}
INITIALIZED = {"jsonrpc": "2.0", "method": "notifications/initialized"}


def call(name: str, request_id: int = 2, **arguments: Any) -> dict[str, Any]:
    return {"jsonrpc": "2.0", "id": request_id, "method": "tools/call",
            "params": {"name": name, "arguments": arguments}}


@functools.cache
def _rsa_key() -> rsa.RSAPrivateKey:
    return generate_rsa_key(2048)


def service_app(data_dir: Path, **overrides: Any) -> Any:
    """The whole service on a fresh SQLite database (migrated at start-up)."""
    url = f"sqlite+aiosqlite:///{data_dir / 'pacekeeper.db'}"
    return create_app(make_settings(url, data_dir, **overrides), keygen=lambda bits: _rsa_key())


def register(base: str, email: str) -> str:
    """A new user's login JWT."""
    response = httpx.post(f"{base}/api/auth/register",
                          json={"email": email, "password": PASSWORD})
    assert response.status_code == 201, response.text
    token: str = response.json()["token"]
    return token


def bearer(token: str) -> dict[str, str]:
    return {"authorization": f"Bearer {token}"}


def initialize(base: str, headers: dict[str, str] | None = None) -> httpx.Response:
    return httpx.post(f"{base}/mcp", headers={**ACCEPT, **(headers or {})}, json=INIT)


def session_headers(response: httpx.Response, extra: dict[str, str] | None = None
                    ) -> dict[str, str]:
    assert response.status_code == 200, response.text
    return {**ACCEPT, **(extra or {}), "mcp-session-id": response.headers["mcp-session-id"],
            "mcp-protocol-version": "2025-11-25"}


async def check_token(request: RequestInfo) -> str | None:
    """A bare mcpcast hook: "Bearer <name>" is user <name>; "Bearer forged" is refused."""
    auth = request.headers.get("authorization")
    if auth is None:
        return None
    name = auth.removeprefix("Bearer ").strip()
    if not name or name == "forged":
        raise Unauthorized("invalid token", www_authenticate='Bearer error="invalid_token"')
    return name


class SseReader:
    """Reads one HTTP+SSE stream line by line (a real socket, httpx streaming)."""

    def __init__(self, response: httpx.Response) -> None:
        self.lines = response.iter_lines()

    def event(self) -> tuple[str, str]:
        name, data = "message", ""
        for line in self.lines:
            if line.startswith("event: "):
                name = line[7:]
            elif line.startswith("data: "):
                data = line[6:]
            elif line == "" and data:
                return name, data
        raise AssertionError("the stream ended")


def oauth_token(app: Any, login_jwt: str, scope: str) -> str:
    """An OAuth 2.0 access token for the login JWT's user with only ``scope``, signed by
    the running service (what the authorization server would issue after consent)."""
    import base64
    import json
    import uuid
    from types import SimpleNamespace

    from pacekeeper.db import Role

    payload = login_jwt.split(".")[1]
    claims = json.loads(base64.urlsafe_b64decode(payload + "=" * (-len(payload) % 4)))
    user = SimpleNamespace(id=uuid.UUID(claims["sub"]), tenant_id=uuid.UUID(claims["tenant_id"]),
                           email=claims["email"], role=Role(claims["role"]),
                           token_version=claims["ver"])
    issued = app.state.services.tokens.issue(user, "https://pk.test/mcp", scope=scope)
    token: str = issued.token
    return token
